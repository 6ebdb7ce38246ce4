//! Claude Code's hook payloads, as measured (Qwen Code sends the same
//! shape).

use serde_json::{json, Value};

use crate::payload::{merge, Session};

/// Claude Code: every event carries `session_id, transcript_path, cwd,
/// prompt_id, hook_event_name`, and `permission_mode` except Notification.
pub fn payload(s: &Session, event: &str, extra: Value) -> Value {
    let mut base = json!({
        "session_id": s.id,
        "transcript_path": s.transcript,
        "cwd": s.cwd,
        "prompt_id": s.prompt_id(),
        "hook_event_name": event,
    });
    if event != "Notification" {
        base["permission_mode"] = json!("default");
    }
    merge(base, extra)
}

/// Claude's Stop extras: `stop_hook_active, last_assistant_message,
/// background_tasks, session_crons, effort`.
pub fn stop(s: &Session, last: &str, background: Vec<Value>) -> Value {
    payload(
        s,
        "Stop",
        json!({
            "stop_hook_active": false,
            "last_assistant_message": last,
            "background_tasks": background,
            "session_crons": [],
            "effort": "medium",
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::test_session as session;

    #[test]
    fn claude_fields() {
        let p = payload(
            &session(),
            "PermissionRequest",
            json!({"tool_name": "Write"}),
        );
        for k in [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "hook_event_name",
            "permission_mode",
            "tool_name",
        ] {
            assert!(p.get(k).is_some(), "{k} missing in {p}");
        }
        let n = payload(&session(), "Notification", json!({}));
        assert!(n.get("permission_mode").is_none());
        let stop = stop(&session(), "pong", vec![]);
        assert_eq!(stop["background_tasks"], json!([]));
        assert_eq!(stop["stop_hook_active"], json!(false));
    }
}
