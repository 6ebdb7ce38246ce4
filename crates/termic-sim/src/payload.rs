//! Hook payloads in each agent's own field names, as measured: Claude's
//! snake_case (`session_id`, `hook_event_name`, ...), grok's camelCase with a
//! snake_case `hookEventName` value, agy's `conversationId` shapes.

use serde_json::{json, Map, Value};

use crate::config::snake_case;

/// Ids that stay fixed for one simulated session.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub cwd: String,
    pub transcript: String,
    /// Counts turns, for `prompt_id` / `executionNum`.
    pub turn: u32,
}

impl Session {
    pub fn new(seed: u64, cwd: &str, home: &str) -> Session {
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            (seed >> 32) as u32,
            (seed >> 16) as u16,
            seed as u16 & 0xfff,
            (seed >> 8) as u16 & 0xfff,
            seed & 0xffff_ffff_ffff
        );
        let slug = cwd.replace('/', "-");
        Session {
            transcript: format!("{home}/.claude/projects/{slug}/{id}.jsonl"),
            id,
            cwd: cwd.to_string(),
            turn: 0,
        }
    }

    pub fn prompt_id(&self) -> String {
        format!("{}-p{}", &self.id[..8], self.turn)
    }
}

/// `base` with `extra`'s fields added (both objects; otherwise `base`).
pub fn merge(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
        b.extend(e);
    }
    base
}

/// Claude Code: every event carries `session_id, transcript_path, cwd,
/// prompt_id, hook_event_name`, and `permission_mode` except Notification.
pub fn claude(s: &Session, event: &str, extra: Value) -> Value {
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
pub fn claude_stop(s: &Session, last: &str, background: Vec<Value>) -> Value {
    claude(
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

/// Grok: camelCase fields, the event value in snake_case.
pub fn grok(s: &Session, event: &str, extra: Value) -> Value {
    let base = json!({
        "hookEventName": snake_case(event),
        "sessionId": s.id,
        "cwd": s.cwd,
        "workspaceRoot": s.cwd,
        "timestamp": crate::clock::unix_ms() as u64,
        "permissionMode": "default",
        "transcriptPath": s.transcript,
    });
    merge(base, extra)
}

/// Antigravity: `conversationId`, `executionNum` and friends.
pub fn agy(s: &Session, event: &str, extra: Value) -> Value {
    let mut base = Map::new();
    base.insert("conversationId".into(), json!(s.id));
    base.insert("executionNum".into(), json!(s.turn.saturating_sub(1)));
    base.insert("transcriptPath".into(), json!(s.transcript));
    base.insert("workspacePaths".into(), json!([s.cwd]));
    if event == "Stop" {
        base.insert("fullyIdle".into(), json!(true));
        base.insert("terminationReason".into(), json!("NO_TOOL_CALL"));
        base.insert("error".into(), json!(""));
        base.insert("modelName".into(), json!("gemini-sim"));
        base.insert("workspacePaths".into(), json!([]));
    }
    merge(Value::Object(base), extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        let mut s = Session::new(0x1234_5678_9abc_def0, "/w/proj", "/h");
        s.turn = 1;
        s
    }

    #[test]
    fn claude_fields() {
        let p = claude(
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
        let n = claude(&session(), "Notification", json!({}));
        assert!(n.get("permission_mode").is_none());
        let stop = claude_stop(&session(), "pong", vec![]);
        assert_eq!(stop["background_tasks"], json!([]));
        assert_eq!(stop["stop_hook_active"], json!(false));
    }

    #[test]
    fn grok_is_camel_case_with_snake_event() {
        let p = grok(
            &session(),
            "UserPromptSubmit",
            json!({"prompt": "<user_query>x</user_query>"}),
        );
        assert_eq!(p["hookEventName"], "user_prompt_submit");
        assert!(p.get("sessionId").is_some() && p.get("session_id").is_none());
        assert!(p.get("workspaceRoot").is_some());
    }

    #[test]
    fn agy_stop_shape() {
        let p = agy(&session(), "Stop", json!({}));
        assert_eq!(p["fullyIdle"], true);
        assert_eq!(p["terminationReason"], "NO_TOOL_CALL");
        assert_eq!(p["executionNum"], 0);
    }

    #[test]
    fn session_ids_are_uuid_shaped() {
        let s = session();
        assert_eq!(s.id.len(), 36);
        assert_eq!(s.id.matches('-').count(), 4);
    }
}
