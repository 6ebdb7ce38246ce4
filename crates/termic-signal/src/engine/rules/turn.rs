//! Turn bookkeeping: every state change goes through `go`.

use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::Engine;

impl Engine {
    /// Move to `to` (no-op when already there or exited) and record why.
    pub(in crate::engine) fn go(
        &mut self,
        at: u64,
        to: State,
        rule: Rule,
        detail: String,
        attention: Option<Attention>,
        out: &mut Vec<Transition>,
    ) {
        let from = self.state;
        if from == to || from == State::Exited {
            return;
        }
        if to == State::NeedsYou {
            self.note_false_done(at);
            self.pending_attention = None;
        }
        if to == State::Done {
            self.done_token = false;
            self.last_done_at = Some(at);
        }
        if to == State::Working && !from.in_turn() {
            self.start_turn(at);
        }
        if !to.in_turn() {
            self.pending_attention = None;
            self.pending_interrupt = None;
        }
        self.fallback = None;
        self.submit_at = None;
        self.state = to;
        self.since = at;
        let transition = Transition {
            at,
            from,
            to,
            reason: crate::engine::Reason { rule, detail },
            attention: if to == State::NeedsYou {
                attention
            } else {
                None
            },
        };
        let text = format!("{from} -> {to} ({})", transition.reason);
        self.log.push(at, LogKind::Transition, text);
        out.push(transition);
    }

    /// A new turn: the clocks the fallbacks measure from restart here.
    fn start_turn(&mut self, at: u64) {
        self.turn_started_at = at;
        self.last_busy_at = at;
        self.last_done_at = None;
        if let Some(screen) = &mut self.screen {
            screen.grew_this_turn = false;
        }
    }

    /// Enter, hook working or native working: the next end may be a done.
    pub(in crate::engine) fn refresh_token(&mut self, at: u64) {
        self.done_token = true;
        self.last_busy_at = at;
        self.last_done_at = None;
    }

    /// End the turn: done when this submit has not had its done yet,
    /// otherwise idle (one done per submit).
    pub(in crate::engine) fn end_turn(
        &mut self,
        at: u64,
        rule: Rule,
        detail: String,
        out: &mut Vec<Transition>,
    ) {
        if self.done_token {
            self.go(at, State::Done, rule, detail, None, out);
        } else {
            let detail = format!("{detail}; no Enter since the last done, so not reported as done");
            self.go(at, State::Idle, rule, detail, None, out);
        }
    }

    /// Needs you, unless it already does (two sources, one needs-you).
    pub(in crate::engine) fn raise_attention(
        &mut self,
        at: u64,
        rule: Rule,
        detail: String,
        attention: Attention,
        out: &mut Vec<Transition>,
    ) {
        if self.state == State::NeedsYou {
            self.log.push(
                at,
                LogKind::Signal,
                format!("{}: already needs you ({detail})", rule.label()),
            );
            return;
        }
        self.go(at, State::NeedsYou, rule, detail, Some(attention), out);
    }

    /// The false done's signature: a done, then an attention within the window.
    fn note_false_done(&mut self, at: u64) {
        let window = self.config.constants.false_done_window_ms;
        if let Some(done_at) = self.last_done_at.take() {
            if at.saturating_sub(done_at) <= window {
                self.false_done_count += 1;
                self.log.push(
                    at,
                    LogKind::Fact,
                    format!(
                        "false done: the done at {done_at} was followed by needs you {} ms later",
                        at.saturating_sub(done_at)
                    ),
                );
            }
        }
    }
}
