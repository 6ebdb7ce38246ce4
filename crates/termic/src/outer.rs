//! termic to its outer terminal: the workspace's state, reported upward so
//! the tab that holds termic says "needs you" like a tab that holds one
//! agent (issue 30, item 4). Pure: the summary of the tasks' badges, its
//! encoding (OSC 7501 when the outer terminal answered the probe, else the
//! configured fallback: OSC 9;4 progress, OSC 777 notify or nothing), and
//! the rate limit, with time passed in. docs/protocol.md, "termic to its
//! outer terminal", is the wire.

use base64::Engine;

pub use crate::config::OuterFallback as Fallback;
use crate::notify::osc_notification;
use crate::ui::sidebar::Badge;
use termic_signal::text::clean_line;

/// How urgent the workspace is, least first: the order is the ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// No task, or none working, done or needing you (idle, interrupted,
    /// exited).
    Idle,
    /// A task finished its turn (done, or stopped on an API error).
    Done,
    Working,
    NeedsYou,
}

/// The workspace's state as one tab shows it: the most urgent level across
/// the tasks, how many tasks are at it, and the first of them (in sidebar
/// order) by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub level: Level,
    pub count: usize,
    pub first: Option<String>,
}

impl Summary {
    pub const IDLE: Summary = Summary {
        level: Level::Idle,
        count: 0,
        first: None,
    };

    /// One line for the outer terminal: how many, and the first's name
    /// (cleaned: task names are user data). `None` when idle.
    pub fn message(&self) -> Option<String> {
        let name = clean_line(self.first.as_deref().unwrap_or("")).into_owned();
        let name: String = name.chars().take(80).collect();
        let n = self.count;
        let text = match (self.level, n) {
            (Level::Idle, _) => return None,
            (Level::NeedsYou, 1) => format!("1 task needs you: {name}"),
            (Level::NeedsYou, _) => format!("{n} tasks need you, first: {name}"),
            (Level::Working, 1) => format!("1 task working: {name}"),
            (Level::Working, _) => format!("{n} tasks working"),
            (Level::Done, 1) => format!("1 task done: {name}"),
            (Level::Done, _) => format!("{n} tasks done"),
        };
        Some(text)
    }
}

/// A badge's level: needs you > working > done (and error, rate limited) > idle
/// (interrupted and exited count as idle: nothing runs, nothing asks).
pub fn level(badge: &Badge) -> Level {
    match badge {
        Badge::NeedsYou { .. } => Level::NeedsYou,
        Badge::Working => Level::Working,
        Badge::Done | Badge::Error(_) | Badge::RateLimited(_) => Level::Done,
        Badge::Idle | Badge::Interrupted | Badge::Exited(_) => Level::Idle,
    }
}

/// The workspace's summary from its tasks' names and badges, in sidebar
/// order.
pub fn summarize<'a>(tasks: impl IntoIterator<Item = (&'a str, &'a Badge)>) -> Summary {
    let mut best = Summary::IDLE;
    let mut first: Option<&str> = None;
    for (name, badge) in tasks {
        let l = level(badge);
        if l > best.level {
            best.level = l;
            best.count = 1;
            first = Some(name);
        } else if l == best.level && l != Level::Idle {
            best.count += 1;
        }
    }
    best.first = first.map(str::to_owned);
    best
}

/// How the summary reaches the outer terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The outer terminal answered `OSC 7501 ; ?`: it is told in the same
    /// grammar agents use.
    Osc7501,
    /// `OSC 9 ; 4` progress (ConEmu, Windows Terminal, Ghostty, ...).
    Progress,
    /// `OSC 777 ; notify` when the workspace starts needing you.
    Notify,
    /// Nothing.
    Off,
}

/// The mode for an outer terminal that did (`answered`) or did not answer
/// the probe, with the user's `fallback`.
pub fn mode(fallback: Fallback, answered: bool) -> Mode {
    match (answered, fallback) {
        (true, _) => Mode::Osc7501,
        (false, Fallback::Progress) => Mode::Progress,
        (false, Fallback::Notify) => Mode::Notify,
        (false, Fallback::None) => Mode::Off,
    }
}

/// The probe the attach client writes to its terminal.
pub const PROBE: &[u8] = b"\x1b]7501;?\x1b\\";

/// `OSC 7501` for a summary: `state=blocked|working|done|idle`, `app=termic`,
/// and the message in base64 (standard alphabet, padded).
pub fn osc_7501(summary: &Summary) -> Vec<u8> {
    let state = match summary.level {
        Level::NeedsYou => "blocked",
        Level::Working => "working",
        Level::Done => "done",
        Level::Idle => "idle",
    };
    let mut osc = format!("\x1b]7501;state={state}:app=termic");
    if let Some(msg) = summary.message() {
        osc.push_str(":msg=");
        osc.push_str(&base64::engine::general_purpose::STANDARD.encode(msg));
    }
    osc.push_str("\x1b\\");
    osc.into_bytes()
}

/// `OSC 9 ; 4` progress, ConEmu's and Windows Terminal's states: needs you
/// is 4 (paused: yellow) at 100, working is 3 (indeterminate), done and
/// idle are 0 (removed).
pub fn osc_progress(level: Level) -> Vec<u8> {
    let (state, value) = match level {
        Level::NeedsYou => (4, 100),
        Level::Working => (3, 0),
        Level::Done | Level::Idle => (0, 0),
    };
    format!("\x1b]9;4;{state};{value}\x1b\\").into_bytes()
}

/// `bytes` for the terminal outside tmux: wrapped in tmux's passthrough
/// (it forwards them with `allow-passthrough on`, drops them otherwise).
fn through_tmux(bytes: Vec<u8>, tmux: bool) -> Vec<u8> {
    if !tmux || bytes.is_empty() {
        return bytes;
    }
    let mut out = b"\x1bPtmux;".to_vec();
    for b in bytes {
        if b == 0x1b {
            out.push(0x1b);
        }
        out.push(b);
    }
    out.extend_from_slice(b"\x1b\\");
    out
}

/// The bytes that tell `summary` in `mode` (empty: nothing to say).
/// `before` is what was said last, for the notify mode, which speaks only
/// when the workspace starts needing you or the first one changes.
pub fn encode(mode: Mode, summary: &Summary, before: Option<&Summary>, tmux: bool) -> Vec<u8> {
    let bytes = match mode {
        Mode::Osc7501 => osc_7501(summary),
        Mode::Progress => osc_progress(summary.level),
        Mode::Notify => {
            let news = summary.level == Level::NeedsYou
                && before.is_none_or(|b| b.level != Level::NeedsYou || b.first != summary.first);
            match summary.message().filter(|_| news) {
                // osc_notification wraps for tmux itself.
                Some(text) => return osc_notification(&text, tmux),
                None => Vec::new(),
            }
        }
        Mode::Off => Vec::new(),
    };
    through_tmux(bytes, tmux)
}

/// Reports the summary to one outer terminal: only what changed, at most
/// one report per [`Reporter::MIN_GAP_MS`] (the last change in a burst is
/// sent when the gap ends), and a reset that leaves the tab clean.
#[derive(Debug, Clone)]
pub struct Reporter {
    mode: Mode,
    tmux: bool,
    /// What the outer terminal was told last.
    sent: Option<Summary>,
    /// When (ms on the app clock).
    sent_at: Option<u64>,
}

impl Reporter {
    /// At most 4 reports a second.
    pub const MIN_GAP_MS: u64 = 250;

    pub fn new(mode: Mode, tmux: bool) -> Reporter {
        Reporter {
            mode,
            tmux,
            sent: None,
            sent_at: None,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bytes to write at `now` for the workspace's `summary`: empty when
    /// nothing changed, or when the last report was under the gap ago (then
    /// [`Reporter::next_at`] says when to ask again). A first summary that
    /// is idle says nothing (the tab is clean already).
    pub fn update(&mut self, summary: &Summary, now: u64) -> Vec<u8> {
        match &self.sent {
            Some(sent) if sent == summary => return Vec::new(),
            None if summary.level == Level::Idle => return Vec::new(),
            _ => {}
        }
        if self.next_at(summary, now).is_some() {
            return Vec::new();
        }
        let bytes = encode(self.mode, summary, self.sent.as_ref(), self.tmux);
        self.sent = Some(summary.clone());
        self.sent_at = Some(now);
        bytes
    }

    /// When a change held back by the gap may be sent (`None`: nothing
    /// held, or it may be sent now).
    pub fn next_at(&self, summary: &Summary, now: u64) -> Option<u64> {
        if self.sent.as_ref() == Some(summary) {
            return None;
        }
        let at = self.sent_at? + Self::MIN_GAP_MS;
        (at > now).then_some(at)
    }

    /// The bytes that leave the outer tab clean (`state=idle`, or progress
    /// removed) when termic stops reporting; empty when nothing was said.
    pub fn reset(&self) -> Vec<u8> {
        if self.sent.is_none() {
            return Vec::new();
        }
        Self::reset_for(self.mode, self.tmux)
    }

    /// The bytes that leave a tab clean in `mode`, whatever was said (the
    /// attach client's, when its server stopped or was lost without).
    pub fn reset_for(mode: Mode, tmux: bool) -> Vec<u8> {
        let bytes = match mode {
            Mode::Osc7501 => osc_7501(&Summary::IDLE),
            Mode::Progress => osc_progress(Level::Idle),
            Mode::Notify | Mode::Off => Vec::new(),
        };
        through_tmux(bytes, tmux)
    }
}

#[cfg(test)]
#[path = "outer_tests.rs"]
mod tests;
