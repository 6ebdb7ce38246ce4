//! What a browser may say over its WebSocket, and the pump between it and
//! one protocol connection to the termic server. The browser never speaks
//! the protocol freely: its first message must be `"subscribe"` or a
//! `view`, and in a view only `input` follows (none from a read-only
//! device). Everything is re-encoded from what was checked, so nothing the
//! browser adds reaches the server (no `run`, `kill`, `stop`).

use serde_json::{json, Value};

/// The longest task argument taken (a number or a name).
const MAX_TASK: usize = 200;
/// The most scrollback lines a view asks for (the server's bound).
const MAX_HISTORY: u64 = 5000;

/// What a stream's first message asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum First {
    /// The request to send, as JSON; the server's frames follow until
    /// one side closes.
    Stream(String),
    /// A request with one answer (`answer`): sent, its answer passed on,
    /// and the WebSocket closed.
    Once(String),
    /// A view of a task of a remote host: the request goes to a
    /// connection the [`crate::Backend`] opens to that host.
    HostStream {
        host: String,
        task: String,
        request: String,
    },
    /// An answer for a task of a remote host: the [`crate::Backend`]
    /// sends it there (as `termic answer HOST:TASK CHOICE` does), its
    /// answer passed on, and the WebSocket closed.
    Remote {
        host: String,
        task: String,
        choice: String,
    },
}

/// The longest host name taken (config.toml's names are shorter).
const MAX_HOST: usize = 64;

/// Checks a stream's first message; Err: why it is refused.
pub fn first(text: &str, read_only: bool) -> Result<First, &'static str> {
    let v: Value = serde_json::from_str(text).map_err(|_| "not JSON")?;
    if v == json!("subscribe") || v == json!("hosts") {
        return Ok(First::Stream(v.to_string()));
    }
    if let Some(answer) = v.get("answer") {
        if read_only {
            return Err("a read-only device cannot answer");
        }
        let field = |k: &str| {
            answer
                .get(k)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty() && t.len() <= MAX_TASK)
                .ok_or("an answer names its task and choice")
        };
        let (task, choice) = (field("task")?, field("choice")?);
        if let Some(host) = answer.get("host") {
            let host = host_name(host)?;
            return Ok(First::Remote {
                host: host.to_string(),
                task: task.to_string(),
                choice: choice.to_string(),
            });
        }
        return Ok(First::Once(
            json!({"answer": {"task": task, "choice": choice}}).to_string(),
        ));
    }
    let view = v
        .get("view")
        .ok_or("only subscribe, hosts, view and answer are taken")?;
    let task = view
        .get("task")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty() && t.len() <= MAX_TASK)
        .ok_or("a view names its task")?;
    let size = |k: &str| {
        view.get(k)
            .and_then(Value::as_u64)
            .filter(|n| (1..=1000).contains(n))
            .ok_or("a view has a size")
    };
    let (cols, rows) = (size("cols")?, size("rows")?);
    // Scrollback lines before the first repaint; the server bounds them
    // too (docs/protocol.md).
    let history = match view.get("history") {
        None => 0,
        Some(h) => h
            .as_u64()
            .filter(|h| *h <= MAX_HISTORY)
            .ok_or("a view's history is a number of lines")?,
    };
    let request =
        json!({"view": {"task": task, "cols": cols, "rows": rows, "history": history}}).to_string();
    match view.get("host") {
        None => Ok(First::Stream(request)),
        Some(host) => Ok(First::HostStream {
            host: host_name(host)?.to_string(),
            task: task.to_string(),
            request,
        }),
    }
}

/// A host name as config.toml spells them: letters, digits, `-` and `_`.
pub(crate) fn host_name(v: &Value) -> Result<&str, &'static str> {
    v.as_str()
        .filter(|h| {
            !h.is_empty()
                && h.len() <= MAX_HOST
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .ok_or("a host is a name from config.toml")
}

/// What to do with a message the browser sends in a view.
#[derive(Debug, PartialEq, Eq)]
pub enum Later {
    /// Send this request to the server.
    Forward(String),
    /// Tell the browser this (the stream goes on).
    Refuse(&'static str),
    /// End the stream.
    Close,
}

/// The input event kinds a browser may send.
const INPUT_KINDS: &[&str] = &["key", "paste", "mouse", "focus", "resize"];

pub fn later(text: &str, read_only: bool) -> Later {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Later::Close;
    };
    let Some(event) = v.get("input").and_then(Value::as_object) else {
        return Later::Close;
    };
    if event.len() != 1 || !INPUT_KINDS.contains(&event.keys().next().map_or("", |k| k.as_str())) {
        return Later::Close;
    }
    // A resize is the page's size, not input to the task: a read-only page
    // may still fit its screen.
    if read_only && !event.contains_key("resize") {
        return Later::Refuse("This device is read-only: it cannot type.");
    }
    Later::Forward(json!({ "input": event }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_subscribe_and_view_open_a_stream() {
        assert_eq!(
            first("\"subscribe\"", true),
            Ok(First::Stream("\"subscribe\"".into()))
        );
        let Ok(First::Stream(v)) =
            first(r#"{"view":{"task":"3","cols":80,"rows":24,"x":"y"}}"#, true)
        else {
            panic!("a view")
        };
        assert_eq!(
            v,
            r#"{"view":{"cols":80,"history":0,"rows":24,"task":"3"}}"#
        );
        assert_eq!(
            first("\"hosts\"", true),
            Ok(First::Stream("\"hosts\"".into()))
        );
        let Ok(First::Stream(v)) = first(
            r#"{"view":{"task":"3","cols":80,"rows":24,"history":5000}}"#,
            true,
        ) else {
            panic!("a view with history")
        };
        assert_eq!(
            v,
            r#"{"view":{"cols":80,"history":5000,"rows":24,"task":"3"}}"#
        );
        for bad in [
            "\"stop\"",
            r#"{"run":{"program":{"command":{"argv":["sh"]}}}}"#,
            r#"{"kill":{"task":"1"}}"#,
            r#"{"view":{"task":3,"cols":80,"rows":24}}"#,
            r#"{"view":{"task":"3","cols":0,"rows":24}}"#,
            r#"{"view":{"task":"3","cols":80,"rows":24,"history":5001}}"#,
            r#"{"view":{"task":"3","cols":80,"rows":24,"history":-1}}"#,
            "nope",
        ] {
            assert!(first(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_answer_is_one_request_and_none_from_a_read_only_device() {
        let a = r#"{"answer":{"task":"3","choice":"approve_once","extra":1}}"#;
        assert_eq!(
            first(a, false),
            Ok(First::Once(
                r#"{"answer":{"choice":"approve_once","task":"3"}}"#.into()
            ))
        );
        assert!(first(a, true).is_err());
        assert!(first(r#"{"answer":{"task":"3"}}"#, false).is_err());
        let far = r#"{"answer":{"host":"far","task":"2","choice":"deny"}}"#;
        assert_eq!(
            first(far, false),
            Ok(First::Remote {
                host: "far".into(),
                task: "2".into(),
                choice: "deny".into()
            })
        );
        assert!(first(far, true).is_err());
        let far_view = r#"{"view":{"task":"2","cols":80,"rows":24,"host":"far"}}"#;
        assert_eq!(
            first(far_view, true),
            Ok(First::HostStream {
                host: "far".into(),
                task: "2".into(),
                request: r#"{"view":{"cols":80,"history":0,"rows":24,"task":"2"}}"#.into()
            })
        );
        assert!(first(
            r#"{"view":{"task":"2","cols":80,"rows":24,"host":"a b"}}"#,
            true
        )
        .is_err());
        // Only a name (termic then takes only a host config.toml lists).
        for bad in ["", "far;ls", "-oProxyCommand=x", "a b", "far:1"] {
            let a = json!({"answer": {"host": bad, "task": "2", "choice": "deny"}});
            assert!(first(&a.to_string(), false).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_view_takes_input_only_and_none_from_a_read_only_device() {
        let key = r#"{"input":{"key":{"code":{"char":"y"}}}}"#;
        assert_eq!(later(key, false), Later::Forward(key.into()));
        assert!(matches!(later(key, true), Later::Refuse(_)));
        let resize = r#"{"input":{"resize":{"cols":80,"rows":24}}}"#;
        assert_eq!(later(resize, true), Later::Forward(resize.into()));
        assert_eq!(later("\"stop\"", false), Later::Close);
        assert_eq!(later(r#"{"kill":{"task":"1"}}"#, false), Later::Close);
        assert_eq!(
            later(r#"{"input":{"key":{},"paste":"x"}}"#, false),
            Later::Close
        );
    }
}
