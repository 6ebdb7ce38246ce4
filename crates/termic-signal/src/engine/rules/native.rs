//! OSC 7501 program status: the agent's own report, ranked with hooks.
//! From the first report on, the heuristics stand down for this task.
//!
//! Two measured quirks shape it (real-agents re-measurement, Codex 0.171.0):
//! Codex reports `working` then `idle` ~100 ms apart at start-up with no
//! prompt, so a `working` with no Enter since the last turn is held for
//! `native_hold_ms` and dropped if `idle` follows; and an early Enter can
//! let the heuristics open a turn that Codex's first `idle` then closes, so
//! `idle` only means "interrupted" for a turn native status itself reported.

use crate::engine::span::Span;
use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::profile::NativeStatus;
use crate::signal::{NativeState, ProgramStatus};

impl Engine {
    /// Why this report is not obeyed, or None when it is (docs/protocol.md,
    /// "Who may report native status").
    fn native_refusal(&self, state: NativeState) -> Option<&'static str> {
        match self.profile.native_status {
            NativeStatus::Never => {
                return Some("this task's program does not speak native status");
            }
            NativeStatus::AfterProbe if !self.probe_answered => {
                return Some("termic has not answered this task's OSC 7501 probe");
            }
            NativeStatus::AfterProbe | NativeStatus::Always => {}
        }
        // Only a done: idle or clear after working is the agent saying it
        // was interrupted, which Claude's hooks never report (no Stop on
        // Escape, measured on 2.1.332 through the binary), and it can only
        // ever lead to interrupted, never to a false done.
        if state == NativeState::Done && self.hook_turn && self.state.in_turn() {
            return Some("a hook owns this turn, only its hook ends it");
        }
        None
    }

    pub(in crate::engine) fn on_native(
        &mut self,
        now: u64,
        status: ProgramStatus,
        out: &mut Vec<Transition>,
    ) {
        if let Some(why) = self.native_refusal(status.state) {
            let summary = describe(&status);
            self.log.push(
                now,
                LogKind::Signal,
                format!("native {summary} (not obeyed: {why})"),
            );
            return;
        }
        if !self.native_seen {
            self.native_seen = true;
            self.log.push(
                now,
                LogKind::Fact,
                "native status seen: it owns the turn, the heuristics stand down".to_string(),
            );
        }
        let summary = describe(&status);
        self.log
            .push(now, LogKind::Signal, format!("native {summary}"));
        match status.state {
            NativeState::Working => self.native_working(now, summary, out),
            NativeState::Blocked => {
                self.release_held_working(now, out);
                if let Some(reason) = self.profile.blocked_kind_error(status.kind.as_deref()) {
                    self.native_blocked_error(now, reason, &summary, out);
                    return;
                }
                let attention = Attention::from_output(status.kind, status.message);
                self.raise_attention(now, Rule::NativeBlocked, summary, attention, out);
            }
            NativeState::Done => {
                self.release_held_working(now, out);
                if self.state.in_turn() {
                    self.end_turn(now, Rule::NativeDone, summary, out);
                }
            }
            NativeState::Idle | NativeState::Clear => self.native_stop(now, status.state, out),
            NativeState::Error => {
                self.release_held_working(now, out);
                self.native_error(now, status.message.as_deref(), out);
            }
        }
    }

    fn native_working(&mut self, now: u64, summary: String, out: &mut Vec<Transition>) {
        self.cancel_pending_attention(now, "native working");
        let unsolicited = !self.state.in_turn() && self.entered_at.is_none();
        if unsolicited && self.config.constants.native_hold_ms > 0 {
            if self.held_native_working.is_none() {
                self.held_native_working = Some(now);
                self.log.push(
                    now,
                    LogKind::Fact,
                    format!(
                        "native working with no Enter first: held {} (Codex reports a \
                         working/idle pair at start-up)",
                        Span(self.config.constants.native_hold_ms)
                    ),
                );
            }
            return;
        }
        self.refresh_token(now);
        self.go(now, State::Working, Rule::NativeWorking, summary, None, out);
        self.native_turn = true;
    }

    /// A held `working` becomes the turn's start: its hold ran out, or
    /// `blocked` / `done` proved it real.
    pub(in crate::engine) fn release_held_working(&mut self, now: u64, out: &mut Vec<Transition>) {
        let Some(since) = self.held_native_working.take() else {
            return;
        };
        self.refresh_token(now);
        let detail = format!(
            "working (reported {} earlier with no Enter first, held)",
            Span(now.saturating_sub(since))
        );
        self.go(now, State::Working, Rule::NativeWorking, detail, None, out);
        self.native_turn = true;
    }

    fn native_stop(&mut self, now: u64, state: NativeState, out: &mut Vec<Transition>) {
        if self.held_native_working.take().is_some() {
            self.log.push(
                now,
                LogKind::Fact,
                "held native working dropped: idle followed (not a turn)".to_string(),
            );
            return;
        }
        if !self.state.in_turn() {
            return;
        }
        if let (NativeState::Clear, Some(why)) = (state, self.profile.native_clear_mid_turn) {
            self.log.push(
                now,
                LogKind::Fact,
                format!("native clear during a turn is not an interrupt: {why}"),
            );
            return;
        }
        let (rule, what) = match state {
            NativeState::Clear => (Rule::NativeClear, "status cleared"),
            _ => (Rule::NativeIdle, "idle"),
        };
        if self.native_turn {
            if let (NativeState::Idle, Some(why)) =
                (state, self.profile.native_idle_needs_interrupt_key)
            {
                // Any Escape or Ctrl-C in the turn, not only one within the
                // title window: an unwatched task's key is not a pending
                // interrupt, and a loaded machine can delay the agent's
                // `idle` past the window; `/clear` sends neither key.
                if !self.interrupt_key_in_turn {
                    let detail = format!(
                        "idle after working, with no Escape or Ctrl-C before it: no turn ran ({why})"
                    );
                    self.go(now, State::Idle, Rule::NativeIdle, detail, None, out);
                    return;
                }
            }
            let detail = format!("{what} after working without a done");
            self.go(now, State::Interrupted, rule, detail, None, out);
        } else {
            // The turn was opened by a heuristic and the agent says it has none.
            let detail = format!("{what}: the agent reports no turn running");
            self.go(now, State::Idle, rule, detail, None, out);
        }
    }
}

/// `blocked kind=permission` style summary (the message goes in the attention).
fn describe(status: &ProgramStatus) -> String {
    let state = match status.state {
        NativeState::Working => "working",
        NativeState::Blocked => "blocked",
        NativeState::Done => "done",
        NativeState::Idle => "idle",
        NativeState::Clear => "clear",
        NativeState::Error => "error",
    };
    match &status.kind {
        Some(kind) => format!("{state} kind={kind}"),
        None => state.to_string(),
    }
}
