//! Turn bookkeeping: every state change goes through `go`.

use crate::engine::span::Span;
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
        let mut attention = attention.filter(|_| to == State::NeedsYou);
        // A hook attention held in its debounce already said it: the title
        // or screen that raises this needs-you only came first.
        let mut hook_held = false;
        if to == State::NeedsYou {
            self.note_false_done(at);
            // A held hook attention knows the kind a title or a notification
            // cannot (grok paints Action Required before its hook lands).
            if let (Some(a), Some(held)) = (attention.as_mut(), self.pending_attention.take()) {
                hook_held = true;
                if is_vague(a) {
                    a.kind = held.attention.kind;
                }
            }
        }
        self.attention.clone_from(&attention);
        if to == State::Done {
            self.done_token = false;
            self.last_done_at = Some(at);
        }
        if to == State::Working && !from.in_turn() {
            self.start_turn(at);
        }
        if !to.in_turn() {
            self.hook_turn = false;
            self.pending_attention = None;
            self.pending_interrupt = None;
            self.entered_at = None;
        }
        self.fallback = None;
        self.needs_you_by = (to == State::NeedsYou).then_some(rule);
        self.needs_you_from_agent = to == State::NeedsYou && (speaks_for_agent(rule) || hook_held);
        self.submit_at = None;
        self.state = to;
        self.since = at;
        let transition = Transition {
            at,
            from,
            to,
            reason: crate::engine::Reason { rule, detail },
            attention,
        };
        let text = format!("{from} -> {to} ({})", transition.reason);
        self.log.push(at, LogKind::Transition, text);
        out.push(transition);
    }

    /// A new turn: the clocks the fallbacks measure from restart here.
    fn start_turn(&mut self, at: u64) {
        self.turn_started_at = at;
        self.interrupt_key_in_turn = false;
        // A native `working` held when another source opens the turn still
        // means native status reported this turn.
        self.native_turn = self.held_native_working.take().is_some();
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
            self.sharpen_attention(at, attention);
            self.needs_you_from_agent |= speaks_for_agent(rule);
            return;
        }
        self.go(at, State::NeedsYou, rule, detail, Some(attention), out);
    }

    /// A later, more specific report of the block the badge already shows
    /// fills in what the first one lacked (kind, message).
    fn sharpen_attention(&mut self, at: u64, newer: Attention) {
        let Some(current) = self.attention.as_mut() else {
            return;
        };
        let mut changed = false;
        if is_vague(current) && newer.kind.is_some() && !is_vague(&newer) {
            current.kind = newer.kind;
            changed = true;
        }
        if current.message.is_none() && newer.message.is_some() {
            current.message = newer.message;
            changed = true;
        }
        if changed {
            let kind = current.kind.clone().unwrap_or_default();
            self.log
                .push(at, LogKind::Fact, format!("attention is now kind={kind}"));
        }
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
                        "false done: needs you {} after the done",
                        Span(at.saturating_sub(done_at))
                    ),
                );
            }
        }
    }
}

/// Kinds that say only where the needs-you came from, not what it is.
fn is_vague(attention: &Attention) -> bool {
    matches!(
        attention.kind.as_deref(),
        None | Some("title" | "notification" | "unsure")
    )
}

/// A rule that reports what the agent itself says (a hook, its native
/// status), not a guess from what it printed.
fn speaks_for_agent(rule: Rule) -> bool {
    matches!(rule, Rule::HookAttention | Rule::NativeBlocked)
}
