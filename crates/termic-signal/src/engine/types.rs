//! The engine's public vocabulary: states, transitions, reasons, keys, config.

use std::fmt;

use super::constants::Constants;
use crate::limit::ResetAt;
use crate::stop::StopReason;

/// What the badge says about a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// No turn running (start-up, or a turn ended without a done to report).
    Idle,
    /// A turn is running.
    Working,
    /// The agent is blocked on the user (permission, question, or a fallback
    /// that cannot tell waiting from done).
    NeedsYou,
    /// The turn finished.
    Done,
    /// The user interrupted the turn (no badge, no bell, no done spent).
    Interrupted,
    /// The turn ended on an API error the agent gave up on (rate limit,
    /// overload, server error, auth failure): never a done.
    Error(StopReason),
    /// The agent stopped on a usage or rate limit (never done, never an
    /// error): until the reset time it named, when it named one. It leaves
    /// when the agent works again.
    RateLimited(Option<ResetAt>),
    /// The process exited. Terminal: nothing moves the task after this.
    Exited,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Working => "working",
            State::NeedsYou => "needs_you",
            State::Done => "done",
            State::Interrupted => "interrupted",
            State::Error(_) => "error",
            State::RateLimited(_) => "rate_limited",
            State::Exited => "exited",
        }
    }

    /// The state an agent's stop on `reason` lands in: a rate limit is its
    /// own state (with the reset time when known), any other reason an error.
    pub fn stopped(reason: StopReason, until: Option<ResetAt>) -> State {
        match reason {
            StopReason::RateLimited => State::RateLimited(until),
            other => State::Error(other),
        }
    }

    /// Working or needs you: a turn is open.
    pub fn in_turn(self) -> bool {
        matches!(self, State::Working | State::NeedsYou)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            State::Error(reason) => write!(f, "error ({reason})"),
            State::RateLimited(Some(until)) => write!(f, "rate limited until {until}"),
            State::RateLimited(None) => f.write_str("rate limited"),
            other => f.write_str(other.as_str()),
        }
    }
}

/// Every named rule that can move a task. One variant per rule, so the
/// Inspector, the docs and the tests all use the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    HookWorking,
    HookAttention,
    HookReleased,
    HookDone,
    HookInterrupted,
    NativeWorking,
    NativeBlocked,
    NativeDone,
    NativeIdle,
    NativeClear,
    TitleBusy,
    TitleNeedsYou,
    Notification,
    SubmitActivity,
    QuietResume,
    Settle,
    SettleCeiling,
    ByteQuiet,
    SettledScreen,
    ScrollbackStable,
    AbsoluteCeiling,
    InterruptTitle,
    InterruptQuiet,
    Exit,
    OutputFlowing,
    OutputQuiet,
    ShellCommandStart,
    ShellCommandEnd,
    ProfileSwitch,
    ScreenNeedsYou,
    ScreenCleared,
    TitleReleased,
    HookError,
    NativeError,
    ScreenError,
}

impl Rule {
    pub const ALL: [Rule; 35] = [
        Rule::HookWorking,
        Rule::HookAttention,
        Rule::HookReleased,
        Rule::HookDone,
        Rule::HookInterrupted,
        Rule::NativeWorking,
        Rule::NativeBlocked,
        Rule::NativeDone,
        Rule::NativeIdle,
        Rule::NativeClear,
        Rule::TitleBusy,
        Rule::TitleNeedsYou,
        Rule::Notification,
        Rule::SubmitActivity,
        Rule::QuietResume,
        Rule::Settle,
        Rule::SettleCeiling,
        Rule::ByteQuiet,
        Rule::SettledScreen,
        Rule::ScrollbackStable,
        Rule::AbsoluteCeiling,
        Rule::InterruptTitle,
        Rule::InterruptQuiet,
        Rule::Exit,
        Rule::OutputFlowing,
        Rule::OutputQuiet,
        Rule::ShellCommandStart,
        Rule::ShellCommandEnd,
        Rule::ProfileSwitch,
        Rule::ScreenNeedsYou,
        Rule::ScreenCleared,
        Rule::TitleReleased,
        Rule::HookError,
        Rule::NativeError,
        Rule::ScreenError,
    ];

    /// Stable snake_case id (traces, JSON, docs).
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::HookWorking => "hook_working",
            Rule::HookAttention => "hook_attention",
            Rule::HookReleased => "hook_released",
            Rule::HookDone => "hook_done",
            Rule::HookInterrupted => "hook_interrupted",
            Rule::NativeWorking => "native_working",
            Rule::NativeBlocked => "native_blocked",
            Rule::NativeDone => "native_done",
            Rule::NativeIdle => "native_idle",
            Rule::NativeClear => "native_clear",
            Rule::TitleBusy => "title_busy",
            Rule::TitleNeedsYou => "title_needs_you",
            Rule::Notification => "notification",
            Rule::SubmitActivity => "submit_activity",
            Rule::QuietResume => "quiet_resume",
            Rule::Settle => "settle",
            Rule::SettleCeiling => "settle_ceiling",
            Rule::ByteQuiet => "byte_quiet",
            Rule::SettledScreen => "settled_screen",
            Rule::ScrollbackStable => "scrollback_stable",
            Rule::AbsoluteCeiling => "absolute_ceiling",
            Rule::InterruptTitle => "interrupt_title",
            Rule::InterruptQuiet => "interrupt_quiet",
            Rule::Exit => "exit",
            Rule::OutputFlowing => "output_flowing",
            Rule::OutputQuiet => "output_quiet",
            Rule::ShellCommandStart => "shell_command_start",
            Rule::ShellCommandEnd => "shell_command_end",
            Rule::ProfileSwitch => "profile_switch",
            Rule::ScreenNeedsYou => "screen_needs_you",
            Rule::ScreenCleared => "screen_cleared",
            Rule::TitleReleased => "title_released",
            Rule::HookError => "hook_error",
            Rule::NativeError => "native_error",
            Rule::ScreenError => "screen_error",
        }
    }

    pub fn parse(s: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The short source shown before the detail: "hook: done (Stop)".
    pub fn label(self) -> &'static str {
        match self {
            Rule::HookWorking
            | Rule::HookAttention
            | Rule::HookReleased
            | Rule::HookDone
            | Rule::HookInterrupted
            | Rule::HookError => "hook",
            Rule::NativeWorking
            | Rule::NativeBlocked
            | Rule::NativeDone
            | Rule::NativeIdle
            | Rule::NativeClear
            | Rule::NativeError => "native",
            Rule::TitleBusy | Rule::TitleNeedsYou | Rule::TitleReleased => "title",
            Rule::Notification => "notify",
            Rule::SubmitActivity => "submit",
            Rule::QuietResume => "resume",
            Rule::Settle => "settle",
            Rule::SettleCeiling | Rule::AbsoluteCeiling => "ceiling",
            Rule::ByteQuiet | Rule::SettledScreen | Rule::ScrollbackStable => "fallback",
            Rule::InterruptTitle | Rule::InterruptQuiet => "interrupt",
            Rule::Exit => "exit",
            Rule::OutputFlowing | Rule::OutputQuiet => "output",
            Rule::ShellCommandStart | Rule::ShellCommandEnd => "shell",
            Rule::ProfileSwitch => "program",
            Rule::ScreenNeedsYou | Rule::ScreenCleared | Rule::ScreenError => "screen",
        }
    }

    /// True for the guessing rules that stand down when hooks or native
    /// status own the turn.
    pub fn is_heuristic_end(self) -> bool {
        matches!(
            self,
            Rule::Settle
                | Rule::SettleCeiling
                | Rule::ByteQuiet
                | Rule::SettledScreen
                | Rule::ScrollbackStable
                | Rule::AbsoluteCeiling
        )
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a transition happened: the rule and a human-readable detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub rule: Rule,
    pub detail: String,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule.label(), self.detail)
    }
}

/// What the agent needs from the user, for the badge and the notification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attention {
    /// `permission`, `question`, `plan`, `notification`, `title`, `unsure`.
    pub kind: Option<String>,
    /// Human-readable text, e.g. `approve Write: src/main.rs`.
    pub message: Option<String>,
}

/// The label on a message taken from the program's output.
pub const FROM_OUTPUT: &str = "from the program's output: ";

/// Longest message from the program's output that is shown, in chars.
pub const OUTPUT_TEXT_MAX_CHARS: usize = 200;

/// Text taken from a task's output, made safe to show: one line cleaned by
/// [`crate::text::clean_line`] (C0, C1, DEL and the bidirectional controls
/// removed, so a printed message cannot move the cursor, end a
/// notification's OSC or reorder what the user reads), trimmed, and capped
/// at [`OUTPUT_TEXT_MAX_CHARS`] with an ellipsis.
pub fn sanitize_output_text(raw: &str) -> String {
    let kept = crate::text::clean_line(raw);
    let kept = kept.trim();
    if kept.chars().count() <= OUTPUT_TEXT_MAX_CHARS {
        return kept.to_string();
    }
    let mut capped: String = kept.chars().take(OUTPUT_TEXT_MAX_CHARS - 1).collect();
    capped.push('\u{2026}');
    capped
}

impl Attention {
    /// An attention whose message came from bytes on the PTY (a native
    /// status, a title, a notification), not from a hook: sanitized, and
    /// labelled so every place that shows it says where it came from.
    pub fn from_output(kind: Option<String>, raw: Option<String>) -> Attention {
        let message = raw
            .map(|m| sanitize_output_text(&m))
            .filter(|m| !m.is_empty())
            .map(|m| format!("{FROM_OUTPUT}{m}"));
        Attention { kind, message }
    }

    /// The message without the label [`Attention::from_output`] puts on
    /// it, and whether it was there (the text came from the output).
    pub fn message_parts(&self) -> (Option<&str>, bool) {
        match self.message.as_deref() {
            Some(m) => match m.strip_prefix(FROM_OUTPUT) {
                Some(rest) => (Some(rest), true),
                None => (Some(m), false),
            },
            None => (None, false),
        }
    }

    pub fn new(kind: &str, message: Option<String>) -> Attention {
        Attention {
            kind: Some(kind.to_string()),
            message,
        }
    }
}

/// One state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// Milliseconds on the caller's clock (a timer's transition carries the
    /// timer's deadline, even when `tick` was called late).
    pub at: u64,
    pub from: State,
    pub to: State,
    pub reason: Reason,
    /// Set when `to` is [`State::NeedsYou`].
    pub attention: Option<Attention>,
}

impl fmt::Display for Transition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} -> {} ({})",
            self.at, self.from, self.to, self.reason
        )
    }
}

/// A keystroke the engine cares about (everything else is `Other`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// Enter: submits a prompt or answers a prompt.
    Submit,
    Escape,
    CtrlC,
    Other,
}

impl Key {
    pub fn as_str(self) -> &'static str {
        match self {
            Key::Submit => "Enter",
            Key::Escape => "Escape",
            Key::CtrlC => "Ctrl-C",
            Key::Other => "other key",
        }
    }
}

/// How the engine is set up for one task.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    /// Profile id (`claude`, `codex`, `grok`, `agy`, `opencode`; anything
    /// else gets the generic profile). Clones pass their base agent.
    pub agent: String,
    /// This task's `TERMIC_TASK_ID`; hook messages with another id are recorded, not obeyed.
    pub task_id: String,
    /// That agent's hooks are installed, verified and wired for this task.
    pub hooks_wired: bool,
    pub constants: Constants,
}

impl EngineConfig {
    pub fn new(agent: &str, task_id: &str, hooks_wired: bool) -> EngineConfig {
        EngineConfig {
            agent: agent.to_string(),
            task_id: task_id.to_string(),
            hooks_wired,
            constants: Constants::default(),
        }
    }
}

/// What the caller's screen model says right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScreenFacts {
    /// Hash of the visible screen contents (any stable hash).
    pub hash: u64,
    /// Lines that have scrolled off the top so far.
    pub scrollback_lines: usize,
}

/// What kind of Inspector timeline entry this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogKind {
    Signal,
    Key,
    Timer,
    Transition,
    Fact,
}

impl LogKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LogKind::Signal => "signal",
            LogKind::Key => "key",
            LogKind::Timer => "timer",
            LogKind::Transition => "transition",
            LogKind::Fact => "fact",
        }
    }
}

/// One line of the Signal Inspector's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub at: u64,
    pub kind: LogKind,
    pub text: String,
}

impl fmt::Display for LogEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.at, self.kind.as_str(), self.text)
    }
}

#[cfg(test)]
mod sanitize_tests {
    use super::{sanitize_output_text, Attention, OUTPUT_TEXT_MAX_CHARS};

    #[test]
    fn bidi_controls_are_removed() {
        let raw = "approve \u{202E}txt.exe\u{202C} \u{2066}x\u{2069}\u{200E}\u{200F}\u{061C}y";
        assert_eq!(sanitize_output_text(raw), "approve txt.exe xy");
    }

    #[test]
    fn escape_c1_and_del_are_removed() {
        let raw = "a\x1b]0;pwned\x07b\u{9b}31mc\x7fd\u{85}e";
        assert_eq!(sanitize_output_text(raw), "a]0;pwnedb31mcde");
    }

    #[test]
    fn cr_lf_become_spaces_and_the_ends_are_trimmed() {
        assert_eq!(sanitize_output_text("\r\nrm -rf ~\r\nok\n"), "rm -rf ~  ok");
    }

    #[test]
    fn long_text_is_capped_with_an_ellipsis() {
        let out = sanitize_output_text(&"x".repeat(10_000));
        assert_eq!(out.chars().count(), OUTPUT_TEXT_MAX_CHARS);
        assert!(out.ends_with('\u{2026}'));
        let short = "y".repeat(OUTPUT_TEXT_MAX_CHARS);
        assert_eq!(sanitize_output_text(&short), short);
    }

    #[test]
    fn output_attention_is_labelled_and_empty_text_is_dropped() {
        let a = Attention::from_output(Some("permission".into()), Some("ok\x1b[2J".into()));
        assert_eq!(
            a.message.as_deref(),
            Some("from the program's output: ok[2J")
        );
        let empty = Attention::from_output(None, Some("\x1b\x07".into()));
        assert_eq!(empty.message, None);
    }
}
