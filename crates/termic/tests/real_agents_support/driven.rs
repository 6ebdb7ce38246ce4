//! A real agent under termic as a scenario drives it: keys in, termic's
//! event log out, whether termic runs as a library task or as the real
//! binary; and the scenarios every agent shares (a permission turn, an
//! Escape), with the assertions on the states they give.

use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::SEC;

/// One event-log line.
#[derive(Debug, Clone)]
pub struct Line {
    pub ts: u64,
    pub from: String,
    pub to: String,
    pub rule: String,
    pub kind: Option<String>,
    /// The error's reason (`"stopped":"overloaded"`) on a move to error.
    pub stopped: Option<String>,
    /// The reset time (`"until":"15:00"`) on a move to rate_limited.
    pub until: Option<String>,
}

/// Every line of an event log (a missing file reads as none yet).
pub fn read_lines(log: &Path) -> Vec<Line> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| Line {
            ts: v["ts"].as_u64().unwrap_or(0),
            from: v["from"].as_str().unwrap_or("").to_string(),
            to: v["to"].as_str().unwrap_or("").to_string(),
            rule: v["rule"].as_str().unwrap_or("").to_string(),
            kind: v["attention"]["kind"].as_str().map(str::to_string),
            stopped: v["stopped"].as_str().map(str::to_string),
            until: v["until"].as_str().map(str::to_string),
        })
        .collect()
}

/// A real agent running under termic, as a scenario drives it.
pub trait Driven {
    fn name(&self) -> &str;
    /// termic's event log for the task.
    fn event_log(&self) -> &Path;
    /// Sends keys to the agent; returns the unix ms they were sent.
    fn keys(&self, bytes: &[u8]) -> u64;
    /// Prints what a person needs to see why a scenario failed.
    fn dump(&self);

    /// Types `text`, then Enter; returns the unix ms of the Enter.
    fn prompt(&self, text: &str) -> u64 {
        self.keys(text.as_bytes());
        thread::sleep(Duration::from_millis(400));
        self.keys(b"\r")
    }

    fn lines(&self) -> Vec<Line> {
        read_lines(self.event_log())
    }

    /// States entered at or after `since`, in order.
    fn states(&self, since: u64) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|l| l.ts >= since)
            .map(|l| l.to)
            .collect()
    }

    /// The first move to `to` at or after `since`, waited for.
    fn wait_state(&self, to: &str, since: u64, timeout: Duration) -> Option<Line> {
        let deadline = Instant::now() + timeout;
        loop {
            let found = self
                .lines()
                .into_iter()
                .find(|l| l.ts >= since && l.to == to);
            if found.is_some() || Instant::now() >= deadline {
                return found;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The first move to `to` at or after `since`, which must be there.
    fn first(&self, to: &str, since: u64) -> Line {
        let lines = self.lines();
        match lines.iter().find(|l| l.ts >= since && l.to == to) {
            Some(line) => line.clone(),
            None => panic!("{}: no {to} since {since}: {lines:?}", self.name()),
        }
    }

    /// The first needs-you at or after `since` came from `rule` (e.g.
    /// `hook_attention`, or `native` for any native rule) with attention
    /// `kind` when one is given.
    fn assert_needs_you_from(&self, since: u64, rule: &str, kind: Option<&str>) -> Line {
        let needs = self.first("needs_you", since);
        assert!(
            needs.rule.contains(rule),
            "needs you came from {}",
            needs.rule
        );
        if let Some(kind) = kind {
            assert_eq!(
                needs.kind.as_deref(),
                Some(kind),
                "needs you from {}",
                needs.rule
            );
        }
        needs
    }

    /// Prints the transitions so far under `label`.
    fn report(&self, label: &str) {
        eprintln!(
            "{label}: {:?}",
            self.lines()
                .iter()
                .map(|l| format!("{}->{} ({})", l.from, l.to, l.rule))
                .collect::<Vec<_>>()
        );
    }

    /// Waits for `to` or dumps and panics with `what`.
    fn expect_state(&self, to: &str, since: u64, timeout: Duration, what: &str) -> Line {
        match self.wait_state(to, since, timeout) {
            Some(line) => line,
            None => {
                self.report(self.name());
                self.dump();
                panic!("{}: {what}", self.name());
            }
        }
    }
}

/// The permission-prompt turn every agent gets: prompt, wait for needs-you,
/// approve, wait for done. Returns (prompt time, states after the prompt).
pub fn permission_turn(task: &impl Driven, approve: &[u8]) -> (u64, Vec<String>) {
    let t0 = task.prompt("create the file out.txt please");
    task.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
    task.report(task.name());
    thread::sleep(SEC); // a person reads the prompt first; keys sent sooner can be dropped
    let t_key = task.keys(approve);
    task.expect_state("done", t_key, 90 * SEC, "no done after approval");
    thread::sleep(3 * SEC); // anything late (a second done) shows up here
                            // The whole turn with its rules, for a failure of the caller's checks.
    task.report(&format!("{} after approval", task.name()));
    (t0, task.states(t0))
}

/// A slow turn interrupted with Escape 3 s in: waits for `interrupted` and
/// then 3 s more (a late done shows up). Returns the prompt time.
pub fn escape_turn(task: &impl Driven) -> u64 {
    let t0 = task.prompt("count slowly");
    task.expect_state("working", t0, 30 * SEC, "not working after the prompt");
    // The Escape must land mid-answer, 3 s in (a time, like a person's).
    thread::sleep(3 * SEC);
    let t_esc = task.keys(b"\x1b");
    let line = task.expect_state("interrupted", t_esc, 20 * SEC, "not interrupted by Escape");
    task.report(&format!("{} escape", task.name()));
    eprintln!(
        "{}: interrupted {} ms after Escape ({})",
        task.name(),
        line.ts - t_esc,
        line.rule
    );
    // Not a wait: a late done or state would show up in this window.
    thread::sleep(3 * SEC);
    t0
}

/// After the needs you, the approval put the task back to working (before
/// its one done).
pub fn assert_released_to_working(states: &[String]) {
    let needs = states
        .iter()
        .position(|s| s == "needs_you")
        .expect("needs_you");
    assert_eq!(
        states.get(needs + 1).map(String::as_str),
        Some("working"),
        "released back to working: {states:?}"
    );
}

/// Grok after its approval: back to working by its busy title, or straight
/// to the Stop hook's done. Grok has no hook between the approval and Stop
/// (per-tool hooks are never registered), and against the instant fake
/// model it may paint no busy title before its Stop hook lands (seen once
/// in .ci/run with two lanes loading both cores; docs/gotchas.md). What
/// must never happen is a guessed done (a settle) out of the needs you.
pub fn assert_grok_released(lines: &[Line], since: u64) {
    let turn: Vec<&Line> = lines.iter().filter(|l| l.ts >= since).collect();
    let needs = turn
        .iter()
        .position(|l| l.to == "needs_you")
        .expect("needs_you");
    let next = turn.get(needs + 1).expect("a state after needs you");
    assert!(
        next.to == "working" || (next.to == "done" && next.rule == "hook_done"),
        "needs you ended by {next:?}, not by the busy title or the Stop hook: {turn:?}"
    );
}

/// Working, needs you (no done before it), then done exactly once.
pub fn assert_honest_turn(states: &[String]) {
    honest_turn(states, &["working"]);
}

/// [`assert_honest_turn`] for Claude Code's native status alone, which it
/// sends with its frames: a state that lasts less than a frame is never
/// sent, so on a loaded machine (two agents at once) the turn's first
/// report can be its `blocked`, and the badge goes from idle straight to
/// needs you (docs/gotchas.md, "Claude Code sends its status with its
/// frames"). True either way; a done before the needs you never is.
pub fn assert_honest_turn_per_frame(states: &[String]) {
    honest_turn(states, &["working", "needs_you"]);
}

fn honest_turn(states: &[String], first: &[&str]) {
    let needs = states
        .iter()
        .position(|s| s == "needs_you")
        .expect("needs_you");
    assert!(
        states.first().is_some_and(|s| first.contains(&s.as_str())),
        "the turn opened with none of {first:?}: {states:?}"
    );
    assert!(
        !states[..needs].iter().any(|s| s == "done"),
        "a done before needs you: {states:?}"
    );
    assert_eq!(
        states.iter().filter(|s| *s == "done").count(),
        1,
        "{states:?}"
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("done"),
        "{states:?}"
    );
}
