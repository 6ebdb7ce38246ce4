//! The state machine: timestamped facts in, transitions with reasons out.
//!
//! [`Engine`] is pure and deterministic. Time is `u64` milliseconds on the
//! caller's monotonic clock, passed into every call; the engine never reads a
//! clock, spawns a thread or touches a file. The caller feeds it output bytes
//! (scanned internally), keys, focus and hook facts, calls [`Engine::tick`]
//! at [`Engine::next_deadline`], and shows the returned [`Transition`]s.
//!
//! Files: `types` (public vocabulary), `constants` (the one timing table),
//! `keys` (input bytes to keys), `timers` (derived deadlines), `log`
//! (Inspector timeline), `rules/*` (one file per rule group). The rules and
//! their reasons are described in docs/state-machine.md.

mod constants;
mod keys;
mod log;
mod rules;
mod span;
mod timers;
mod types;

pub use crate::profile::TitleState;
pub use constants::Constants;
pub use log::LOG_CAPACITY;
pub use timers::TimerKind;
pub use types::{
    sanitize_output_text, Attention, EngineConfig, Key, LogEntry, LogKind, Reason, Rule,
    ScreenFacts, State, Transition, FROM_OUTPUT, OUTPUT_TEXT_MAX_CHARS,
};

use crate::profile::{profile_for, AgentProfile};
use crate::scanner::Scanner;
use crate::signal::Signal;
use log::Log;
use timers::Timers;

/// A hook's permission attention waiting out its debounce.
#[derive(Debug, Clone)]
struct PendingAttention {
    at: u64,
    attention: Attention,
    detail: String,
}

/// Escape or Ctrl-C pressed during a turn, waiting for evidence it took effect.
#[derive(Debug, Clone, Copy)]
struct PendingInterrupt {
    key: Key,
    at: u64,
}

/// A resize or a typed key: output within `redraw_window_ms` after it is
/// the program redrawing or echoing, not work.
#[derive(Debug, Clone, Copy)]
struct RedrawCause {
    at: u64,
    what: &'static str,
    /// The first output it explained was logged (once per cause).
    logged: bool,
}

/// What the caller's screen model last reported, with when each part changed.
#[derive(Debug, Clone, Copy)]
struct ScreenTrack {
    facts: ScreenFacts,
    hash_changed_at: u64,
    lines_changed_at: u64,
    /// Scrollback grew during the current turn (so stability means something).
    grew_this_turn: bool,
}

/// One task's state machine. See the module docs.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    profile: &'static AgentProfile,
    scanner: Scanner,
    /// Reused by `feed_output` so scanning allocates nothing per chunk.
    scratch: Vec<Signal>,
    state: State,
    since: u64,
    watched: bool,
    native_seen: bool,
    /// One done per submit: set by Enter, hook working or native working,
    /// spent by a done.
    done_token: bool,
    turn_started_at: u64,
    last_bytes_at: u64,
    last_activity_at: u64,
    title: String,
    title_state: TitleState,
    title_state_since: u64,
    /// Last busy sign: a busy title change, Enter, hook or native working.
    last_busy_at: u64,
    submit_at: Option<u64>,
    screen: Option<ScreenTrack>,
    pending_attention: Option<PendingAttention>,
    pending_interrupt: Option<PendingInterrupt>,
    /// An Escape or Ctrl-C was pressed during the current turn, watched or
    /// not (rules/native.rs: an agent's native `idle` after `working` is
    /// an interrupt only then, for a profile that says so).
    interrupt_key_in_turn: bool,
    /// The current needs-you came from a fallback (which one, and whether a
    /// key was pressed since: typing echo is not the agent resuming).
    fallback: Option<(Rule, bool)>,
    last_done_at: Option<u64>,
    false_done_count: u32,
    native_probe: bool,
    /// The caller answered this task's `OSC 7501 ; ?` probe (see
    /// [`Engine::native_probe_answered`]).
    probe_answered: bool,
    /// A hook of this task reported during the current turn: native
    /// status may not end it by itself (rules/native.rs).
    hook_turn: bool,
    /// When Enter was last pressed since the last turn ended (a native
    /// `working` without one is held, see rules/native.rs; an error report
    /// soon after one is that submit's, see rules/error.rs).
    entered_at: Option<u64>,
    /// When the user last pressed any key (the limit-continue check: it
    /// types only if nobody typed since the limit).
    last_key_at: Option<u64>,
    /// A native `working` with no Enter first, held since this time.
    held_native_working: Option<u64>,
    /// Native status reported `working` during the current turn.
    native_turn: bool,
    /// The current needs-you's attention (upgraded when a more specific
    /// source reports the same block later).
    attention: Option<Attention>,
    timers: Timers,
    log: Log,
    /// Transitions from timers fired inside `focus` / `set_hooks_wired`
    /// (which return nothing), handed out by the next call.
    deferred: Vec<Transition>,
    /// Command and shell tasks, and the runtime profile switch (rules/plain.rs).
    plain: rules::plain::PlainTrack,
    /// The rule that raised the current needs-you (None unless needs you).
    needs_you_by: Option<Rule>,
    /// A hook or the agent's native status said the current needs-you,
    /// first or after a title or a screen rule did (see
    /// [`Engine::needs_you_from_agent`]).
    needs_you_from_agent: bool,
    /// The profile's screen rules (rules/screen_rules.rs).
    screen_rules: rules::screen_rules::ScreenRuleTrack,
    /// The last resize (or, in a command or shell task, typed key) whose
    /// redraw or echo may still be arriving.
    redraw: Option<RedrawCause>,
    /// The agent's own conversation id, as its last hook message carrying
    /// `session=` said (a restore resumes it).
    session: Option<String>,
    /// The agent's last message, as its last end-of-turn hook sent it
    /// (`message=`, decoded; not cleaned: it is data).
    last_message: Option<String>,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        let profile = profile_for(&config.agent);
        Engine {
            profile,
            plain: rules::plain::PlainTrack::new(profile),
            config,
            scanner: Scanner::new(),
            scratch: Vec::new(),
            state: State::Idle,
            since: 0,
            watched: false,
            native_seen: false,
            done_token: true,
            turn_started_at: 0,
            last_bytes_at: 0,
            last_activity_at: 0,
            title: String::new(),
            title_state: TitleState::Unknown,
            title_state_since: 0,
            last_busy_at: 0,
            submit_at: None,
            screen: None,
            pending_attention: None,
            pending_interrupt: None,
            interrupt_key_in_turn: false,
            fallback: None,
            last_done_at: None,
            false_done_count: 0,
            native_probe: false,
            probe_answered: false,
            hook_turn: false,
            entered_at: None,
            last_key_at: None,
            held_native_working: None,
            native_turn: false,
            attention: None,
            timers: Timers::default(),
            log: Log::default(),
            deferred: Vec::new(),
            needs_you_by: None,
            needs_you_from_agent: false,
            screen_rules: Default::default(),
            redraw: None,
            session: None,
            last_message: None,
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Output bytes from the PTY, scanned for signals.
    pub fn feed_output(&mut self, now: u64, bytes: &[u8]) -> Vec<Transition> {
        let mut out = Vec::new();
        if !self.begin(now, &mut out) {
            return out;
        }
        if bytes.is_empty() {
            self.finish(now);
            return out;
        }
        let mut signals = std::mem::take(&mut self.scratch);
        self.scanner.feed(bytes, &mut signals);
        self.note_output(now);
        for signal in signals.drain(..) {
            self.handle_signal(now, signal, &mut out);
        }
        self.scratch = signals;
        self.finish(now);
        out
    }

    /// One already-scanned signal (tests and replay). It counts as output
    /// arriving at `now`, since every signal came from output bytes.
    pub fn on_signal(&mut self, now: u64, signal: Signal) -> Vec<Transition> {
        self.on_signals(now, [signal])
    }

    /// A batch of already-scanned signals from one output chunk (what
    /// `feed_output` does after scanning; for callers that scan themselves).
    pub fn on_signals(
        &mut self,
        now: u64,
        signals: impl IntoIterator<Item = Signal>,
    ) -> Vec<Transition> {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            self.note_output(now);
            for signal in signals {
                self.handle_signal(now, signal, &mut out);
            }
            self.finish(now);
        }
        out
    }

    /// A key the user pressed in this task.
    pub fn key(&mut self, now: u64, key: Key) -> Vec<Transition> {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            self.last_key_at = Some(now);
            self.handle_key(now, key);
            self.finish(now);
        }
        out
    }

    /// Whether the user is watching this task (focused task AND outer terminal
    /// focused). Interrupt keys only count while watched. Timers already due
    /// fire first; their transitions come back from the next call that
    /// returns transitions (this one returns none).
    pub fn focus(&mut self, now: u64, watched: bool) {
        let mut out = Vec::new();
        if self.begin(now, &mut out) && self.watched != watched {
            self.watched = watched;
            let text = if watched {
                "the user is watching this task"
            } else {
                "the user is not watching this task"
            };
            self.log.push(now, LogKind::Fact, text.to_string());
        }
        self.deferred = out;
    }

    /// Whether this agent's hooks are installed and wired. While true the
    /// heuristics that can end a turn stand down (their timers are dropped).
    /// Timers already due fire first, as in `focus`.
    pub fn set_hooks_wired(&mut self, now: u64, wired: bool) {
        let mut out = Vec::new();
        if self.begin(now, &mut out) && self.config.hooks_wired != wired {
            self.config.hooks_wired = wired;
            let text = if wired {
                "hooks wired: the heuristics stand down"
            } else {
                "hooks not wired: the heuristics are active"
            };
            self.log.push(now, LogKind::Fact, text.to_string());
            self.finish(now);
        }
        self.deferred = out;
    }

    /// The caller's screen model after output was applied.
    pub fn screen(&mut self, now: u64, facts: ScreenFacts) -> Vec<Transition> {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            self.handle_screen(now, facts, &mut out);
            self.finish(now);
        }
        out
    }

    /// The task's terminal was resized (the program got SIGWINCH). Output in
    /// the next `redraw_window_ms` is its redraw: it starts no work, resumes
    /// no turn after a fallback and opens no turn after Enter. Timers already
    /// due fire first, as in `focus` (their transitions come from the next call).
    pub fn resize(&mut self, now: u64) {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            self.log.push(
                now,
                LogKind::Fact,
                format!(
                    "the terminal was resized: output in the next {} is the program's redraw, \
                     not work",
                    span::Span(self.config.constants.redraw_window_ms)
                ),
            );
            self.redraw = Some(RedrawCause {
                at: now,
                what: "a resize",
                logged: false,
            });
            self.finish(now);
        }
        self.deferred = out;
    }

    /// The agent process exited (`None`: killed by a signal or unknown).
    pub fn exited(&mut self, now: u64, code: Option<i32>) -> Vec<Transition> {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            let detail = match code {
                Some(c) => format!("process exited with code {c}"),
                None => "process ended without an exit code".to_string(),
            };
            self.go(now, State::Exited, Rule::Exit, detail, None, &mut out);
            self.finish(now);
        }
        out
    }

    /// Fire every timer due at or before `now`.
    pub fn tick(&mut self, now: u64) -> Vec<Transition> {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            self.finish(now);
        }
        out
    }

    /// When [`Engine::tick`] must next be called; `None` when no timer is armed.
    /// Transitions deferred by `focus` / `set_hooks_wired` count as due at once.
    pub fn next_deadline(&self) -> Option<u64> {
        match self.deferred.first() {
            Some(t) => Some(t.at),
            None => self.timers.earliest().map(|(at, _)| at),
        }
    }

    /// Every armed timer and its deadline, earliest first (for the Inspector:
    /// "settle due in 3.2 s").
    pub fn armed_timers(&self) -> Vec<(TimerKind, u64)> {
        self.timers.armed()
    }

    /// Hooks are wired or native status was seen: the heuristics stand down.
    pub fn is_governed(&self) -> bool {
        self.governed()
    }

    /// What the current needs-you is about (None unless needs you). Can be
    /// more specific than the transition's: grok's title says needs-you
    /// ~20 ms before its hook says `kind=permission`.
    pub fn attention(&self) -> Option<&Attention> {
        self.attention.as_ref()
    }

    /// The rule that raised the current needs-you (None unless needs you):
    /// a hook's or a native status' report, or a guess (a screen rule, a
    /// title, a fallback).
    pub fn needs_you_by(&self) -> Option<Rule> {
        self.needs_you_by
    }

    /// The agent's own channel (one of termic's hooks, or its native
    /// status) said the current needs-you, whether it raised it or
    /// confirmed it after a guess (a title, a screen rule) did. False
    /// unless needs you. What a client may answer for the user rests on it
    /// (issue 30): printed text alone never sets it.
    pub fn needs_you_from_agent(&self) -> bool {
        self.needs_you_from_agent
    }

    /// The last window title and what the agent's profile says it means.
    pub fn title(&self) -> (&str, TitleState) {
        (&self.title, self.title_state)
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// What to type to make this agent go on after a usage limit (its
    /// profile's `continue_prompt`).
    pub fn continue_prompt(&self) -> Option<&'static str> {
        self.profile.continue_prompt
    }

    /// When the last key of the user reached this task (`None`: never).
    pub fn last_key_at(&self) -> Option<u64> {
        self.last_key_at
    }

    /// The agent's conversation id, as its hooks last reported it
    /// (`session=`; it changes on Claude's `/clear`).
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The agent's last message of a turn, as its end-of-turn hook last
    /// sent it (`message=`), decoded but not cleaned: printed text, clean
    /// it before it is shown. `None` before any.
    pub fn last_message(&self) -> Option<&str> {
        self.last_message.as_deref()
    }

    /// Time of the last transition (0 before any).
    pub fn since(&self) -> u64 {
        self.since
    }

    /// An OSC 7501 report arrived for this task: it governs the turn.
    pub fn native_status_seen(&self) -> bool {
        self.native_seen
    }

    /// Times a done was followed by an attention within the false-done window.
    pub fn false_done_count(&self) -> u32 {
        self.false_done_count
    }

    /// True once after the agent probed `OSC 7501 ; ?`: the caller should
    /// answer `ESC ] 7501 ; ? ESC \` so the agent reports its state natively.
    pub fn take_native_probe(&mut self) -> bool {
        std::mem::take(&mut self.native_probe)
    }

    /// The caller wrote the answer to this task's `OSC 7501 ; ?` probe into
    /// its input. Call it BEFORE the answer is queued, so the program's first
    /// report (sent after it reads the answer) finds it set. From then on a
    /// profile with `NativeStatus::AfterProbe` has its reports obeyed.
    pub fn native_probe_answered(&mut self, now: u64) {
        let mut out = Vec::new();
        if self.begin(now, &mut out) && !self.probe_answered {
            self.probe_answered = true;
            self.log.push(
                now,
                LogKind::Fact,
                "native status probe answered: this task's OSC 7501 reports count if its \
                 program speaks it after a probe"
                    .to_string(),
            );
        }
        self.deferred.extend(out);
    }

    /// The Inspector timeline since the last drain.
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        self.log.drain()
    }

    /// Common entry: hands back transitions deferred by `focus` or
    /// `set_hooks_wired`, fires timers already due, then says whether input
    /// may be processed (nothing moves an exited task).
    fn begin(&mut self, now: u64, out: &mut Vec<Transition>) -> bool {
        out.append(&mut self.deferred);
        self.fire_due(now, out);
        self.state != State::Exited
    }

    /// Common exit: re-derive the timers from the new state. A deadline
    /// already in the past is due now (never before input already handled).
    fn finish(&mut self, now: u64) {
        let fresh = self.deadlines().map(|d| d.map(|d| d.max(now)));
        self.timers.update(now, fresh, &mut self.log);
    }

    fn fire_due(&mut self, now: u64, out: &mut Vec<Transition>) {
        while let Some((at, kind)) = self.timers.earliest().filter(|(at, _)| *at <= now) {
            self.timers.fired(kind);
            self.log
                .push(at, LogKind::Timer, format!("{} fired", kind.as_str()));
            self.fire(at, kind, out);
            self.finish(at);
        }
    }

    /// Hooks are wired or native status was seen: only they (or an
    /// interrupt, or exit) end a turn.
    fn governed(&self) -> bool {
        self.config.hooks_wired || self.native_seen
    }
}
