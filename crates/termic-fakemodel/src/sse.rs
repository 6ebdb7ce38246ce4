//! Server-sent event framing, and the timed frame list every answer is
//! rendered into before it is written (so rendering is pure and testable).

use std::time::Duration;

use serde_json::Value;

/// Bytes to write after waiting `delay`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub delay: Duration,
    pub bytes: Vec<u8>,
}

impl Frame {
    pub fn now(bytes: Vec<u8>) -> Frame {
        Frame {
            delay: Duration::ZERO,
            bytes,
        }
    }
}

/// A named event (`event: NAME` then `data: JSON`), as the Anthropic and
/// Responses APIs send them.
pub fn named(name: &str, data: &Value) -> Vec<u8> {
    format!("event: {name}\ndata: {data}\n\n").into_bytes()
}

/// A data-only event, as chat completions send them.
pub fn data(data: &Value) -> Vec<u8> {
    format!("data: {data}\n\n").into_bytes()
}

/// The chat-completions end marker.
pub fn done_marker() -> Vec<u8> {
    b"data: [DONE]\n\n".to_vec()
}

/// Test helper: the data of each named-event frame, checking that the event
/// name and the data's `type` field agree (both the Messages and the
/// Responses APIs require it).
#[cfg(test)]
pub(crate) fn named_event_data(frames: &[Frame]) -> Vec<Value> {
    frames
        .iter()
        .map(|f| {
            let text = String::from_utf8(f.bytes.clone()).unwrap();
            let line = |prefix: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(prefix))
                    .map(str::to_string)
                    .unwrap()
            };
            let value: Value = serde_json::from_str(&line("data: ")).unwrap();
            assert_eq!(
                value["type"],
                line("event: "),
                "event name and type field agree"
            );
            value
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_named_event_is_two_lines_and_a_blank_line() {
        let bytes = named("ping", &json!({"type": "ping"}));
        assert_eq!(bytes, b"event: ping\ndata: {\"type\":\"ping\"}\n\n");
    }

    #[test]
    fn data_is_compact_json_on_one_line() {
        let bytes = data(&json!({"text": "a\nb"}));
        assert_eq!(bytes, b"data: {\"text\":\"a\\nb\"}\n\n");
        assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 2);
    }
}
