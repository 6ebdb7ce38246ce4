//! Antigravity's hook payloads, as measured.

use serde_json::{json, Map, Value};

use crate::payload::{merge, Session};

/// Antigravity: `conversationId`, `executionNum` and friends.
pub fn payload(s: &Session, event: &str, extra: Value) -> Value {
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
    use crate::payload::test_session as session;

    #[test]
    fn agy_stop_shape() {
        let p = payload(&session(), "Stop", json!({}));
        assert_eq!(p["fullyIdle"], true);
        assert_eq!(p["terminationReason"], "NO_TOOL_CALL");
        assert_eq!(p["executionNum"], 0);
    }
}
