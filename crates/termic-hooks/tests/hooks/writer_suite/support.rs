//! Shared values: termic's handlers as an adapter would build them.

use serde_json::{json, Value};
use termic_hooks::edit::{
    command_has_prefix, install_grouped_hooks, query_grouped_hooks, remove_grouped_hooks, Edit,
    EditError, EventHandler, InstallRecord,
};

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

/// The entry an agy adapter would own.
pub fn named_entry() -> Value {
    json!({
        "enabled": true,
        "PreInvocation": [{"type": "command", "command": "/home/u/.gemini/termic-hooks/pre-invocation.sh"}],
        "Stop": [{"type": "command", "command": "/home/u/.gemini/termic-hooks/stop.sh"}],
    })
}

pub fn is_strict(text: &str) -> bool {
    serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}')).is_ok_and(|v| v.is_object())
}

/// Install, check, query, reinstall, remove. Returns the install and the
/// removal's text; `None` when the file is strict JSON but its `hooks` is
/// not an object (refused by design, nothing written).
pub fn claude_round_trip(name: &str, text: &str) -> Option<(Edit, String)> {
    let installed =
        match install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default()) {
            Ok(edit) => edit,
            Err(EditError::WrongType {
                key,
                expected: "an object",
                ..
            }) if key == "hooks" => {
                let value: Value = serde_json::from_str(text).unwrap();
                assert!(!value["hooks"].is_object(), "{name}");
                return None;
            }
            Err(err) => panic!("{name}: install refused: {err}"),
        };
    assert!(installed.changed, "{name}");
    assert!(
        is_strict(&installed.text),
        "{name}: output is not strict JSON"
    );
    assert_eq!(
        without_ours(&installed.text),
        without_ours(text),
        "{name}: user content changed"
    );
    assert_eq!(
        installed.text.starts_with('\u{feff}'),
        text.starts_with('\u{feff}'),
        "{name}: BOM"
    );
    assert_eq!(
        installed.text.contains("\r\n"),
        text.contains("\r\n"),
        "{name}: line ends"
    );
    assert_eq!(
        installed.text.ends_with('\n'),
        text.ends_with('\n'),
        "{name}: final newline"
    );
    let status = query_grouped_hooks(&installed.text, &is_ours).unwrap();
    assert_eq!(status.ours.len(), wanted().len(), "{name}");
    assert!(wanted().iter().all(|w| status.ours.contains(w)), "{name}");
    let again = install_grouped_hooks(
        Some(&installed.text),
        &wanted(),
        &is_ours,
        &installed.record,
    )
    .unwrap();
    assert!(
        !again.changed && again.text == installed.text,
        "{name}: second install changed the file"
    );
    let removed =
        remove_grouped_hooks(&installed.text, &wanted(), &is_ours, &installed.record).unwrap();
    assert!(
        query_grouped_hooks(&removed.text, &is_ours)
            .unwrap()
            .ours
            .is_empty(),
        "{name}"
    );
    // An upgrade from an older schema, then removal, ends in the same bytes.
    let v1 = install_grouped_hooks(
        Some(text),
        &wanted_v1(),
        &is_ours,
        &InstallRecord::default(),
    )
    .unwrap();
    let v2 = install_grouped_hooks(Some(&v1.text), &wanted(), &is_ours, &v1.record).unwrap();
    let after_upgrade = remove_grouped_hooks(&v2.text, &wanted(), &is_ours, &v2.record).unwrap();
    assert!(
        after_upgrade.text == removed.text,
        "{name}: removal after an upgrade differs"
    );
    Some((installed, removed.text))
}
