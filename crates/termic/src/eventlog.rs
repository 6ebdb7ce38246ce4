//! `--event-log FILE` (or `$TERMIC_EVENT_LOG`): one JSON line per state
//! transition, appended, for scripts and end-to-end tests.
//!
//! ```json
//! {"ts":1764470000123,"task":"fix-bug","agent":"claude","from":"working","to":"needs_you","rule":"native_blocked","reason":"native blocked: ...","attention":{"kind":"permission","message":"approve Write: out.txt"}}
//! ```
//!
//! `ts` is integer milliseconds since the Unix epoch; `from`/`to` are one of
//! idle, working, needs_you, done, interrupted, error, exited; `attention` is
//! there only when the engine said what the agent needs; `stopped` only when
//! `to` is error: `rate_limited`, `overloaded`, `server_error`, `auth_failed`
//! or `api_error`. Each line is written with
//! one `write` on an `O_APPEND` file, so lines from several termic processes
//! sharing a log never interleave mid-line.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;
use termic_signal::engine::Transition;

/// What the log needs to know besides the transition.
#[derive(Debug, Clone, Copy)]
pub struct TaskLabel<'a> {
    pub task: &'a str,
    pub agent: &'a str,
}

#[derive(Debug, Serialize, PartialEq, Eq)]
struct AttentionLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct Line<'a> {
    ts: u64,
    task: &'a str,
    agent: &'a str,
    from: &'a str,
    to: &'a str,
    rule: &'a str,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    attention: Option<AttentionLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
}

/// One JSON line (with its newline) for a transition at wall time `ts`.
pub fn format_line(ts: u64, label: TaskLabel<'_>, t: &Transition) -> String {
    let attention = t.attention.as_ref().map(|a| AttentionLine {
        kind: a.kind.as_deref(),
        message: a.message.as_deref(),
    });
    let line = Line {
        ts,
        task: label.task,
        agent: label.agent,
        from: t.from.as_str(),
        to: t.to.as_str(),
        rule: t.reason.rule.as_str(),
        reason: t.reason.to_string(),
        attention,
        stopped: match t.to {
            termic_signal::engine::State::Error(reason) => Some(reason.as_wire()),
            _ => None,
        },
    };
    let mut text = serde_json::to_string(&line).unwrap_or_default();
    text.push('\n');
    text
}

/// Why the event log could not be used.
#[derive(Debug, thiserror::Error)]
#[error("cannot append to the event log {path}: {source} (check the path and its directory)", path = path.display())]
pub struct EventLogError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// An open event log.
#[derive(Debug)]
pub struct EventLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl EventLog {
    /// Open (creating) `path` for appending.
    pub fn open(path: &Path) -> Result<EventLog, EventLogError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| EventLogError {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(EventLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one transition. A failed write is reported to the caller,
    /// who decides whether it matters (the runtime ignores it: a full disk
    /// must not stop an agent).
    pub fn append(
        &self,
        ts: u64,
        label: TaskLabel<'_>,
        t: &Transition,
    ) -> Result<(), EventLogError> {
        let line = format_line(ts, label, t);
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(line.as_bytes())
            .map_err(|source| EventLogError {
                path: self.path.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use termic_signal::engine::{Attention, Reason, Rule, State};

    fn transition(to: State, attention: Option<Attention>) -> Transition {
        Transition {
            at: 5,
            from: State::Working,
            to,
            reason: Reason {
                rule: Rule::NativeBlocked,
                detail: "agent reported blocked".into(),
            },
            attention,
        }
    }

    #[test]
    fn a_line_has_the_contract_keys() {
        let t = transition(
            State::NeedsYou,
            Some(Attention::new(
                "permission",
                Some("approve Write: a \"b\"".into()),
            )),
        );
        let line = format_line(
            1_764_470_000_123,
            TaskLabel {
                task: "fix",
                agent: "claude",
            },
            &t,
        );
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["ts"], 1_764_470_000_123u64);
        assert_eq!(v["task"], "fix");
        assert_eq!(v["agent"], "claude");
        assert_eq!(v["from"], "working");
        assert_eq!(v["to"], "needs_you");
        assert_eq!(v["rule"], Rule::NativeBlocked.as_str());
        assert!(v["reason"]
            .as_str()
            .unwrap()
            .contains("agent reported blocked"));
        assert_eq!(v["attention"]["kind"], "permission");
        assert_eq!(v["attention"]["message"], "approve Write: a \"b\"");
    }

    #[test]
    fn attention_is_absent_when_there_is_none() {
        let line = format_line(
            1,
            TaskLabel {
                task: "t",
                agent: "a",
            },
            &transition(State::Done, None),
        );
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(v.get("attention").is_none());
        assert_eq!(v["to"], "done");
    }

    #[test]
    fn an_error_line_says_error_and_the_stop_reason() {
        let t = transition(
            State::Error(termic_signal::stop::StopReason::RateLimited),
            None,
        );
        let label = TaskLabel {
            task: "t",
            agent: "claude",
        };
        let v: serde_json::Value = serde_json::from_str(&format_line(1, label, &t)).unwrap();
        assert_eq!(
            (v["to"].as_str(), v["stopped"].as_str()),
            (Some("error"), Some("rate_limited"))
        );
        let done = format_line(1, label, &transition(State::Done, None));
        assert!(!done.contains("stopped"), "{done}");
    }

    #[test]
    fn append_adds_lines_to_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, "{\"earlier\":1}\n").unwrap();
        let log = EventLog::open(&path).unwrap();
        let label = TaskLabel {
            task: "t",
            agent: "a",
        };
        log.append(1, label, &transition(State::Done, None))
            .unwrap();
        log.append(2, label, &transition(State::Idle, None))
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.starts_with("{\"earlier\":1}\n"));
        let err = EventLog::open(&dir.path().join("no/such/dir/x")).unwrap_err();
        assert!(err.to_string().contains("no/such/dir"), "{err}");
    }
}
