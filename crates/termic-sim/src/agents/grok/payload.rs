//! Grok's hook payloads, as measured.

use serde_json::{json, Value};

use crate::config::snake_case;
use crate::payload::{merge, Session};

/// Grok: camelCase fields, the event value in snake_case.
pub fn payload(s: &Session, event: &str, extra: Value) -> Value {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::test_session as session;

    #[test]
    fn grok_is_camel_case_with_snake_event() {
        let p = payload(
            &session(),
            "UserPromptSubmit",
            json!({"prompt": "<user_query>x</user_query>"}),
        );
        assert_eq!(p["hookEventName"], "user_prompt_submit");
        assert!(p.get("sessionId").is_some() && p.get("session_id").is_none());
        assert!(p.get("workspaceRoot").is_some());
    }
}
