//! Hook messages (docs/protocol.md): the agent reporting its own turn.
//!
//! A message whose task id is not this task's is recorded, never obeyed: it
//! may be a `cat` of a hostile file or another task's hook on a reused PTY.

use crate::engine::span::Span;
use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::{Engine, PendingAttention};
use crate::wire::{self, field, HookEvent, HookMessage};

impl Engine {
    pub(in crate::engine) fn on_hook(
        &mut self,
        now: u64,
        msg: HookMessage,
        out: &mut Vec<Transition>,
    ) {
        let named = match msg.field(field::HOOK) {
            Some(hook) => format!("{} ({hook})", msg.event),
            None => msg.event.to_string(),
        };
        if msg.task_id != self.config.task_id {
            self.log.push(
                now,
                LogKind::Signal,
                format!(
                    "hook {named} for another task (id {:?}): recorded, not obeyed",
                    msg.task_id
                ),
            );
            return;
        }
        self.log.push(now, LogKind::Signal, format!("hook {named}"));
        if let Some(session) = msg.field(field::SESSION).filter(|s| wire::is_session_id(s)) {
            if self.session.as_deref() != Some(session) {
                self.log.push(
                    now,
                    LogKind::Fact,
                    format!("the agent's conversation is {session}"),
                );
                self.session = Some(session.to_owned());
            }
        }
        let said = msg.field(field::MESSAGE).map(wire::decode_text);
        if let Some(text) = &said {
            self.last_message = Some(text.clone());
        }
        if self.config.hooks_wired && msg.event == HookEvent::Working {
            self.hook_turn = true;
        }
        match msg.event {
            HookEvent::Working => {
                self.refresh_token(now);
                self.cancel_pending_attention(now, "hook working");
                self.go(now, State::Working, Rule::HookWorking, named, None, out);
            }
            HookEvent::Attention => self.hook_attention(now, &msg, out),
            HookEvent::Released => {
                self.cancel_pending_attention(now, "hook released");
                if self.state == State::NeedsYou {
                    self.go(now, State::Working, Rule::HookReleased, named, None, out);
                }
            }
            HookEvent::Done if msg.field(field::BACKGROUND) == Some("1") => self.log.push(
                now,
                LogKind::Fact,
                "done with background tasks still running: stays working".to_string(),
            ),
            HookEvent::Done
                if self.state.in_turn()
                    && self
                        .profile
                        .error_message
                        .is_some_and(|(m, _)| said.as_deref() == Some(m)) =>
            {
                let why = self.profile.error_message.map_or("", |(_, why)| why);
                let named = format!("{named} with its error message ({why})");
                self.hook_error(now, &msg, named, out);
            }
            HookEvent::Done if self.state.in_turn() => {
                if let Some(detail) = self.done_hook_after_interrupt_key(now, &named) {
                    self.go(
                        now,
                        State::Interrupted,
                        Rule::HookInterrupted,
                        detail,
                        None,
                        out,
                    );
                } else {
                    self.end_turn(now, Rule::HookDone, named, out);
                }
            }
            // An agent that waits out its own limit (opencode) can be
            // stopped during that wait: the wait is the turn it ends.
            HookEvent::Interrupted
                if self.state.in_turn() || matches!(self.state, State::RateLimited(_)) =>
            {
                self.go(
                    now,
                    State::Interrupted,
                    Rule::HookInterrupted,
                    named,
                    None,
                    out,
                );
            }
            HookEvent::Error => self.hook_error(now, &msg, named, out),
            HookEvent::Done | HookEvent::Interrupted => self.log.push(
                now,
                LogKind::Fact,
                format!("hook {named} ignored: no turn is running"),
            ),
        }
    }

    /// For an agent whose end-of-turn hook fires on an interrupt too
    /// (Gemini CLI's AfterAgent): a hook done within the interrupt window
    /// after Escape or Ctrl-C is that interrupt. The detail, when it is.
    fn done_hook_after_interrupt_key(&self, now: u64, named: &str) -> Option<String> {
        let why = self.profile.done_hook_on_interrupt?;
        let p = self.pending_interrupt?;
        let after = now.saturating_sub(p.at);
        (after <= self.config.constants.interrupt_title_window_ms).then(|| {
            format!(
                "{}, then {named} {} later ({why})",
                p.key.as_str(),
                Span(after)
            )
        })
    }

    /// Permission requests can be resolved without a human (a rule, another
    /// hook, a reviewer agent), so they wait out a short debounce; questions
    /// and plans always need a person and show at once.
    fn hook_attention(&mut self, now: u64, msg: &HookMessage, out: &mut Vec<Transition>) {
        let kind = msg.field(field::KIND).unwrap_or("permission");
        let attention = Attention::new(kind, None);
        let detail = match msg.field(field::HOOK) {
            Some(hook) => format!("attention kind={kind} ({hook})"),
            None => format!("attention kind={kind}"),
        };
        let debounce = self.config.constants.permission_debounce_ms;
        if kind != "permission" || debounce == 0 || self.state == State::NeedsYou {
            self.raise_attention(now, Rule::HookAttention, detail, attention, out);
            return;
        }
        if self.pending_attention.is_none() {
            self.log.push(
                now,
                LogKind::Fact,
                format!(
                    "permission attention held {} in case it resolves by itself",
                    Span(debounce)
                ),
            );
            self.pending_attention = Some(PendingAttention {
                at: now,
                attention,
                detail: format!("{detail}, held {}", Span(debounce)),
            });
        }
    }
}
