//! `--event-log FILE` (or `$TERMIC_EVENT_LOG`): one JSON line per state
//! transition, appended, for scripts and end-to-end tests.
//!
//! ```json
//! {"ts":1764470000123,"task":"fix-bug","pid":4242,"agent":"claude","from":"working","to":"needs_you","rule":"native_blocked","reason":"native blocked: ...","attention":{"kind":"permission","message":"approve Write: out.txt"}}
//! ```
//!
//! `ts` is integer milliseconds since the Unix epoch; `pid` is the task's
//! process id (as `ps` and the task's details show it), which tells two
//! tasks of one name apart; `from`/`to` are one of idle, working, needs_you,
//! done, interrupted, error, rate_limited, exited; `attention` is there only
//! when the engine said what the agent needs; `stopped` only when `to` is
//! error: `overloaded`, `server_error`, `auth_failed` or `api_error` (a
//! rate limit is its own state); `until` only when `to` is rate_limited and
//! the agent named its reset time, `HH:MM`. A flood is summed up (see [`coalesce`]): a line
//! with `"repeated": N` and `"since": TS` stands for N transitions between
//! `since` and `ts`, from `from` to the final state `to`.
//!
//! Whole lines or nothing: each line is written on an `O_APPEND` file under
//! an `flock`, so lines from several termic processes sharing a log never
//! interleave, and a write that does not fully land (a full disk) is cut
//! back to the end of the last whole line (`write_whole`). The log then
//! stops for good: nothing is ever glued onto a cut, and the user is told
//! once ([`EventLog::take_notice`]). A new log is created 0600 (reasons
//! hold prompt text); an existing one keeps its mode.

pub mod coalesce;

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde::Serialize;
use termic_signal::engine::{State, Transition};
use termic_signal::replay::write_whole;

use crate::record_file::{why_write_failed, RecordFile};

pub use coalesce::{Coalescer, Entry};

/// What the log needs to know besides the transition.
#[derive(Debug, Clone, Copy)]
pub struct TaskLabel<'a> {
    pub task: &'a str,
    /// The task's process id: short, shown elsewhere, and not a secret
    /// (unlike `TERMIC_TASK_ID`, which must never reach a log).
    pub pid: i32,
    pub agent: &'a str,
}

/// The reason text is capped so no single line can be large.
const REASON_MAX_CHARS: usize = 400;

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
    pid: i32,
    agent: &'a str,
    from: &'a str,
    to: &'a str,
    rule: &'a str,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    attention: Option<AttentionLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeated: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<u64>,
}

fn capped(text: String) -> String {
    match text.char_indices().nth(REASON_MAX_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text,
    }
}

/// One JSON line (with its newline) for a transition at wall time `ts`.
pub fn format_line(ts: u64, label: TaskLabel<'_>, t: &Transition) -> String {
    format_json(ts, label, t, t.from, t.reason.to_string(), None)
}

/// One JSON line for what [`Coalescer`] decided; `wall` turns the
/// engine's clock into wall ms.
pub fn format_entry(label: TaskLabel<'_>, entry: &Entry, wall: impl Fn(u64) -> u64) -> String {
    match entry {
        Entry::Line(t) => format_line(wall(t.at), label, t),
        Entry::Repeated(r) => {
            let secs = r.last.at.saturating_sub(r.first_at) as f64 / 1000.0;
            let kinds = match r.kinds {
                1 => String::new(),
                n if n >= 8 => ", 8 or more kinds".to_string(),
                n => format!(", {n} kinds"),
            };
            let reason = format!(
                "repeated {} times in {secs:.1} s{kinds} (a flood: one line for all); the last: {}",
                r.count, r.last.reason
            );
            let since = wall(r.first_at);
            format_json(
                wall(r.last.at),
                label,
                &r.last,
                r.from,
                reason,
                Some((r.count, since)),
            )
        }
    }
}

fn format_json(
    ts: u64,
    label: TaskLabel<'_>,
    t: &Transition,
    from: State,
    reason: String,
    repeated: Option<(u64, u64)>,
) -> String {
    let attention = t.attention.as_ref().map(|a| AttentionLine {
        kind: a.kind.as_deref(),
        message: a.message.as_deref(),
    });
    let line = Line {
        ts,
        task: label.task,
        pid: label.pid,
        agent: label.agent,
        from: from.as_str(),
        to: t.to.as_str(),
        rule: t.reason.rule.as_str(),
        reason: capped(reason),
        attention,
        repeated: repeated.map(|(n, _)| n),
        since: repeated.map(|(_, s)| s),
        stopped: match t.to {
            termic_signal::engine::State::Error(reason) => Some(reason.as_wire()),
            _ => None,
        },
        until: match t.to {
            termic_signal::engine::State::RateLimited(until) => until.map(|t| t.as_wire()),
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
    file: Mutex<RecordFile>,
    /// A write did not land: the log was cut back and takes nothing more.
    stopped: AtomicBool,
    /// What to tell the user about the stop, until someone takes it.
    notice: Mutex<Option<String>>,
}

impl EventLog {
    /// Open (creating, 0600) `path` for appending.
    pub fn open(path: &Path) -> Result<EventLog, EventLogError> {
        let file = RecordFile::append(path).map_err(|source| EventLogError {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(EventLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            stopped: AtomicBool::new(false),
            notice: Mutex::new(None),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a failed write stopped the log.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// What to tell the user, once, after a failed write stopped the log.
    pub fn take_notice(&self) -> Option<String> {
        self.notice.lock().unwrap_or_else(|e| e.into_inner()).take()
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
        self.write_line(&format_line(ts, label, t))
    }

    /// Append what the task's [`Coalescer`] decided to write.
    pub fn append_entry(
        &self,
        label: TaskLabel<'_>,
        entry: &Entry,
        wall: impl Fn(u64) -> u64,
    ) -> Result<(), EventLogError> {
        self.write_line(&format_entry(label, entry, wall))
    }

    fn error(&self, source: std::io::Error) -> EventLogError {
        EventLogError {
            path: self.path.clone(),
            source,
        }
    }

    fn write_line(&self, line: &str) -> Result<(), EventLogError> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if self.stopped() {
            return Err(self.error(std::io::Error::other(
                "the event log stopped after a failed write",
            )));
        }
        // Other termic processes may append to the same log: one writer at
        // a time, so the length read here is where this line starts and a
        // cut never takes another process's line.
        let _locked = FileLock::exclusive(&file.0);
        let len = file.0.metadata().map_err(|e| self.error(e))?.len();
        write_whole(&mut *file, len, line.as_bytes()).map_err(|cut| {
            self.stopped.store(true, Ordering::SeqCst);
            let torn = if cut.truncate_error.is_some() {
                " Its last line may be cut short."
            } else {
                " The lines before are whole."
            };
            *self.notice.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!(
                "The event log {} stopped: {}.{torn}",
                self.path.display(),
                why_write_failed(&cut.error)
            ));
            self.error(cut.error)
        })
    }
}

/// An `flock` held until dropped (none if the file system refuses it: the
/// line is still written whole by this process).
struct FileLock(Option<std::os::fd::RawFd>);

impl FileLock {
    fn exclusive(file: &std::fs::File) -> FileLock {
        let fd = file.as_raw_fd();
        loop {
            // SAFETY: flock on an fd the caller keeps open while we live.
            if unsafe { libc::flock(fd, libc::LOCK_EX) } == 0 {
                return FileLock(Some(fd));
            }
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return FileLock(None);
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if let Some(fd) = self.0 {
            // SAFETY: the fd is still open (the caller's file outlives us).
            unsafe { libc::flock(fd, libc::LOCK_UN) };
        }
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
                pid: 4242,
                agent: "claude",
            },
            &t,
        );
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["ts"], 1_764_470_000_123u64);
        assert_eq!(v["task"], "fix");
        assert_eq!(v["pid"], 4242);
        assert!(v.get("repeated").is_none() && v.get("since").is_none());
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
                pid: 1,
                agent: "a",
            },
            &transition(State::Done, None),
        );
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(v.get("attention").is_none());
        assert_eq!(v["to"], "done");
    }

    #[test]
    fn a_repeated_record_carries_the_count_the_span_and_the_final_state() {
        let mut last = transition(State::NeedsYou, None);
        last.at = 2_500;
        last.reason.detail = "x".repeat(5_000);
        let entry = Entry::Repeated(coalesce::Repeated {
            count: 99_984,
            kinds: 2,
            first_at: 1_000,
            from: State::Idle,
            last,
        });
        let label = TaskLabel {
            task: "flood",
            pid: 7,
            agent: "codex",
        };
        let line = format_entry(label, &entry, |at| 1_700_000_000_000 + at);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["repeated"], 99_984);
        assert_eq!(v["since"], 1_700_000_001_000u64);
        assert_eq!(v["ts"], 1_700_000_002_500u64);
        assert_eq!(v["from"], "idle");
        assert_eq!(v["to"], "needs_you");
        let reason = v["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("repeated 99984 times in 1.5 s, 2 kinds"),
            "{reason}"
        );
        assert!(
            line.len() < 1_000,
            "a long reason is capped: {}",
            line.len()
        );
    }

    #[test]
    fn an_error_line_says_error_and_the_stop_reason() {
        let t = transition(
            State::Error(termic_signal::stop::StopReason::Overloaded),
            None,
        );
        let label = TaskLabel {
            task: "t",
            pid: 1,
            agent: "claude",
        };
        let v: serde_json::Value = serde_json::from_str(&format_line(1, label, &t)).unwrap();
        assert_eq!(
            (v["to"].as_str(), v["stopped"].as_str()),
            (Some("error"), Some("overloaded"))
        );
        let done = format_line(1, label, &transition(State::Done, None));
        assert!(!done.contains("stopped"), "{done}");
    }

    #[test]
    fn a_rate_limited_line_says_until_when_the_agent_named_the_reset() {
        let label = TaskLabel {
            task: "t",
            pid: 1,
            agent: "claude",
        };
        let until = termic_signal::limit::ResetAt::new(15, 0);
        let line = format_line(1, label, &transition(State::RateLimited(until), None));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (v["to"].as_str(), v["until"].as_str(), v.get("stopped")),
            (Some("rate_limited"), Some("15:00"), None)
        );
        let line = format_line(1, label, &transition(State::RateLimited(None), None));
        assert!(!line.contains("until"), "{line}");
    }

    #[test]
    fn append_adds_lines_to_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, "{\"earlier\":1}\n").unwrap();
        let log = EventLog::open(&path).unwrap();
        let label = TaskLabel {
            task: "t",
            pid: 1,
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

    #[test]
    fn a_full_disk_stops_the_log_and_says_so_once() {
        // /dev/full answers every write with ENOSPC.
        let log = EventLog::open(Path::new("/dev/full")).unwrap();
        let label = TaskLabel {
            task: "t",
            pid: 1,
            agent: "a",
        };
        let err = log
            .append(1, label, &transition(State::Done, None))
            .unwrap_err();
        assert_eq!(err.source.raw_os_error(), Some(libc::ENOSPC));
        assert!(log.stopped());
        let notice = log.take_notice().expect("told once");
        assert_eq!(
            notice,
            "The event log /dev/full stopped: the disk is full. The lines before are whole."
        );
        assert!(log
            .append(2, label, &transition(State::Idle, None))
            .is_err());
        assert_eq!(log.take_notice(), None, "and only once");
    }
}
