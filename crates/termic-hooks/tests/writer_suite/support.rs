//! Shared values: termic's handlers as an adapter would build them.

use serde_json::{json, Value};
use termic_hooks::edit::{command_has_prefix, EventHandler};

pub const PREFIX: &str = "/home/u/.claude/termic-hooks/";

pub fn is_ours(command: &str) -> bool {
    command_has_prefix(command, PREFIX)
}

pub fn handler(script: &str, status: &str) -> Value {
    json!({
        "type": "command",
        "command": format!("{PREFIX}{script}"),
        "timeout": 5,
        "statusMessage": status,
    })
}

/// The current schema: three events.
pub fn wanted() -> Vec<EventHandler> {
    vec![
        EventHandler::new(
            "UserPromptSubmit",
            handler("user-prompt-submit.sh", "termic: working"),
        ),
        EventHandler::new(
            "PermissionRequest",
            handler(
                "permission-request.sh",
                "termic: reporting that you are needed",
            ),
        ),
        EventHandler::new("Stop", handler("stop.sh", "termic: done")),
    ]
}

/// An older schema: other events, other status text.
pub fn wanted_v1() -> Vec<EventHandler> {
    vec![
        EventHandler::new("Notification", handler("notification.sh", "termic v1")),
        EventHandler::new(
            "PermissionRequest",
            handler("permission-request.sh", "termic v1"),
        ),
    ]
}

/// Every value of a parsed document except our handlers, for "the user's
/// content is untouched" checks. Both sides get the same normalisation:
/// our handlers dropped, then groups only they filled, then empty event
/// arrays and an empty `hooks` object (the byte-exact checks cover those).
pub fn without_ours(text: &str) -> Value {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value: Value = serde_json::from_str(body).expect("strict JSON");
    let Some(hooks) = value.get_mut("hooks").and_then(Value::as_object_mut) else {
        return value;
    };
    hooks.retain(|_, groups| {
        let Some(list) = groups.as_array_mut() else {
            return true;
        };
        list.retain_mut(|group| {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = handlers.len();
            handlers.retain(|h| {
                !h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_ours)
            });
            !(handlers.is_empty() && before > 0 && group.as_object().is_some_and(|g| g.len() == 1))
        });
        !list.is_empty()
    });
    if hooks.is_empty() {
        value.as_object_mut().expect("object").remove("hooks");
    }
    value
}
