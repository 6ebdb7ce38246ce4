//! Rules for a task that is not a coding agent (see `profile::Turns`): any
//! command, and a shell with termic's OSC 133 integration. And the one
//! runtime profile switch: an agent started inside such a task (the user
//! typed `claude` at the shell prompt) gets that agent's profile while it
//! runs in the foreground, and the task's own profile back when it leaves.
//!
//! A command's silence never means "needs you" or "done": it reads idle.
//! Titles, printed notifications, hook messages and OSC 7501 in such a task
//! are output of some program, recorded and never obeyed.

use crate::engine::span::Span;
use crate::engine::types::{LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::profile::{profile_for, AgentProfile, Turns};
use crate::signal::{ShellMark, Signal};

/// What the plain rules remember between calls.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct PlainTrack {
    /// The profile the task was started with (the switch comes back to it).
    pub base: &'static AgentProfile,
    /// An OSC 133 mark arrived: the integration is loaded, marks decide.
    pub marks_seen: bool,
    /// A `C` arrived and its `D` has not: a command runs at the shell.
    pub command_open: bool,
    /// The open command was an agent (the foreground switch ran): its
    /// state was the agent's, and what it prints on its way out is not a
    /// new piece of work (the `D` reports its status).
    pub agent_ran: bool,
}

impl PlainTrack {
    pub(in crate::engine) fn new(base: &'static AgentProfile) -> PlainTrack {
        PlainTrack {
            base,
            marks_seen: false,
            command_open: false,
            agent_ran: false,
        }
    }
}

impl Engine {
    /// The current profile is a command's or a shell's, not an agent's.
    pub(in crate::engine) fn plain_turns(&self) -> bool {
        self.profile.turns != Turns::Agent
    }

    /// Marks decide the turn (a shell whose integration has spoken).
    fn marks_decide(&self) -> bool {
        self.profile.turns == Turns::ShellMarks && self.plain.marks_seen
    }

    /// Output and its silence decide the state: a command, a shell whose
    /// integration has not spoken, or a command running at an integrated
    /// shell (between its `C` and its `D`: a REPL at `>>>` is quiet).
    fn output_decides(&self) -> bool {
        !self.marks_decide() || (self.plain.command_open && !self.plain.agent_ran)
    }

    /// A signal under the plain rules. Returns the signal when the agent
    /// rules' logging should handle it (bell, progress, probes, rejects).
    pub(in crate::engine) fn plain_signal(
        &mut self,
        now: u64,
        signal: Signal,
        out: &mut Vec<Transition>,
    ) -> Option<Signal> {
        match signal {
            Signal::Activity => {
                self.last_activity_at = now;
                if self.output_decides() && self.state != State::Working && !self.is_redraw(now) {
                    let detail = "the command printed output".to_string();
                    self.go(now, State::Working, Rule::OutputFlowing, detail, None, out);
                }
            }
            Signal::ShellMark(mark) => self.on_shell_mark(now, mark, out),
            Signal::Title(title) => {
                self.log.push(
                    now,
                    LogKind::Signal,
                    format!("title {title:?} (not used: a command's title is text)"),
                );
                self.title = title;
            }
            Signal::Notify { source, body } => self.log.push(
                now,
                LogKind::Signal,
                format!(
                    "notification ({}) {body:?} (not obeyed: printed by a command)",
                    source.as_str()
                ),
            ),
            Signal::Hook(msg) => self.log.push(
                now,
                LogKind::Signal,
                format!(
                    "hook message {} (not obeyed: no agent runs in the foreground)",
                    msg.event.as_str()
                ),
            ),
            Signal::Native(_) => self.log.push(
                now,
                LogKind::Signal,
                "native status (not obeyed: this task's program does not speak native status)"
                    .to_string(),
            ),
            other => return Some(other),
        }
        None
    }

    /// An OSC 133 mark. Obeyed only when the task's current profile is the
    /// shell's: anywhere else a mark is just printed text.
    pub(in crate::engine) fn on_shell_mark(
        &mut self,
        now: u64,
        mark: ShellMark,
        out: &mut Vec<Transition>,
    ) {
        if self.profile.turns != Turns::ShellMarks {
            self.log.push(
                now,
                LogKind::Signal,
                format!(
                    "shell mark {} (not obeyed: this task is not a shell with termic's integration)",
                    mark.letter()
                ),
            );
            return;
        }
        self.plain.marks_seen = true;
        match mark {
            ShellMark::CommandStart => {
                self.log
                    .push(now, LogKind::Signal, "shell mark C: a command runs".into());
                self.plain.command_open = true;
                self.plain.agent_ran = false;
                let detail = "the shell started a command".to_string();
                self.go(
                    now,
                    State::Working,
                    Rule::ShellCommandStart,
                    detail,
                    None,
                    out,
                );
            }
            ShellMark::CommandEnd { status } => {
                let status_text = status.map_or("an unknown status".to_string(), |s| s.to_string());
                if !std::mem::take(&mut self.plain.command_open) {
                    self.log.push(
                        now,
                        LogKind::Signal,
                        format!("shell mark D ({status_text}): no command was running"),
                    );
                    return;
                }
                self.log.push(
                    now,
                    LogKind::Signal,
                    format!("shell mark D: the command ended with {status_text}"),
                );
                let detail = format!("the command exited with status {status_text}");
                self.go(now, State::Done, Rule::ShellCommandEnd, detail, None, out);
            }
            ShellMark::PromptStart | ShellMark::PromptEnd => {
                self.log.push(
                    now,
                    LogKind::Signal,
                    format!("shell mark {}: prompt", mark.letter()),
                );
                if std::mem::take(&mut self.plain.command_open) {
                    // A shell that skipped D: the prompt is back, so the
                    // command is over (status unknown).
                    let detail = "the prompt came back (no exit status)".to_string();
                    self.go(now, State::Done, Rule::ShellCommandEnd, detail, None, out);
                } else if self.state == State::Working {
                    let detail = "the shell is at its prompt".to_string();
                    self.go(now, State::Idle, Rule::ShellCommandEnd, detail, None, out);
                }
            }
        }
    }

    /// The plain rules' one timer: a command that stopped printing reads
    /// idle (never needs you, never done). `None`: the agent rules' timers apply.
    pub(in crate::engine) fn plain_deadlines(&self) -> Option<[Option<u64>; 9]> {
        if !self.plain_turns() {
            return None;
        }
        let mut due = [None; 9];
        if self.state == State::Working && self.output_decides() {
            let quiet = self.config.constants.output_quiet_ms;
            due[crate::engine::TimerKind::ByteQuiet as usize] =
                Some(self.last_bytes_at.max(self.turn_started_at) + quiet);
        }
        Some(due)
    }

    /// The quiet timer fired under the plain rules.
    pub(in crate::engine) fn output_quiet(&mut self, at: u64, out: &mut Vec<Transition>) {
        let quiet = self.config.constants.output_quiet_ms;
        let detail = if self.marks_decide() {
            format!(
                "the command printed nothing for {}: it waits for input or works silently",
                Span(quiet)
            )
        } else {
            format!("no output for {}", Span(quiet))
        };
        self.go(at, State::Idle, Rule::OutputQuiet, detail, None, out);
    }

    /// The program in the task's foreground changed: `profile_id`'s profile
    /// applies from now on (`None`: the task's own again), with that
    /// program's hooks status. An agent taking over starts at its prompt, so
    /// the shell's "a command runs" becomes idle; the shell taking back
    /// leaves the state to its next mark (its `D` carries the agent's exit
    /// status). Recorded, so a replay switches at the same instant.
    pub fn set_foreground(
        &mut self,
        now: u64,
        profile_id: Option<&str>,
        hooks_wired: bool,
    ) -> Vec<Transition> {
        let mut out = Vec::new();
        if !self.begin(now, &mut out) {
            return out;
        }
        let next = profile_id.map_or(self.plain.base, profile_for);
        if !std::ptr::eq(next, self.profile) || self.config.hooks_wired != hooks_wired {
            let text = format!(
                "program: profile {} -> {} (hooks {})",
                self.profile.id,
                next.id,
                if hooks_wired { "wired" } else { "not wired" }
            );
            self.log.push(now, LogKind::Fact, text);
            let to_agent = next.turns == Turns::Agent && self.profile.turns != Turns::Agent;
            if next.turns == Turns::Agent {
                self.plain.agent_ran = true;
            }
            self.profile = next;
            self.config.hooks_wired = hooks_wired;
            // The new program has not spoken native status or a title yet.
            self.native_seen = false;
            self.native_turn = false;
            self.held_native_working = None;
            self.title_state = crate::profile::TitleState::Unknown;
            if to_agent && self.state != State::Idle {
                let detail = format!("{} started in this task", next.id);
                self.go(
                    now,
                    State::Idle,
                    Rule::ProfileSwitch,
                    detail,
                    None,
                    &mut out,
                );
            }
        }
        self.finish(now);
        out
    }

    /// The agent profile running in the foreground of a command or shell
    /// task, when it is not the task's own (the sidebar's "shell > claude").
    pub fn foreground_profile(&self) -> Option<&'static str> {
        (!std::ptr::eq(self.profile, self.plain.base)).then_some(self.profile.id)
    }

    /// The profile the engine applies right now.
    pub fn profile_id(&self) -> &'static str {
        self.profile.id
    }
}
