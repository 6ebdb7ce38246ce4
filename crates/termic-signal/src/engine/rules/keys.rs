//! Keys: Enter refreshes the done token; Escape and Ctrl-C are interrupt
//! evidence, never an interrupt on their own (opencode ignores the first
//! Escape and keeps streaming).

use crate::engine::span::Span;
use crate::engine::types::{Key, LogKind, Rule, State, Transition};
use crate::engine::{Engine, PendingInterrupt};
use crate::profile::TitleState;

impl Engine {
    pub(in crate::engine) fn handle_key(&mut self, now: u64, key: Key) {
        if let Some((_, pressed)) = &mut self.fallback {
            *pressed = true;
        }
        if self.plain_turns() {
            // A command's or a shell's keys start and end nothing: its
            // output and its shell marks do. The output right after a key
            // other than Enter is its echo (a REPL, an editor, `read`), so
            // it does not make a waiting program working; after Enter,
            // output is the program's answer.
            if key != Key::Other {
                self.log.push(now, LogKind::Key, key.as_str().to_string());
            }
            self.redraw = (key != Key::Submit)
                .then_some(crate::engine::RedrawCause {
                    at: now,
                    what: "a typed key",
                    logged: false,
                })
                .or(self.redraw.filter(|r| r.what == "a resize"));
            return;
        }
        match key {
            Key::Submit => {
                self.log.push(now, LogKind::Key, "Enter".to_string());
                self.refresh_token(now);
                self.submit_at = Some(now);
                self.entered_at = Some(now);
                self.pending_interrupt = None;
            }
            Key::Escape | Key::CtrlC => self.interrupt_key(now, key),
            Key::Other => {}
        }
    }

    fn interrupt_key(&mut self, now: u64, key: Key) {
        let name = key.as_str();
        // Whether the key is read as an interrupt now (below) or not, an
        // agent's own later `idle` may say it took (rules/native.rs).
        self.interrupt_key_in_turn |= self.state.in_turn();
        if !self.state.in_turn() {
            self.log
                .push(now, LogKind::Key, format!("{name} (no turn running)"));
        } else if !self.watched {
            self.log.push(
                now,
                LogKind::Key,
                format!("{name} ignored: the task is not being watched"),
            );
        } else {
            self.log.push(
                now,
                LogKind::Key,
                format!("{name}: an interrupt if the title goes idle or the output stops"),
            );
            self.pending_interrupt = Some(PendingInterrupt { key, at: now });
        }
    }

    /// The title went idle: with an interrupt key pressed within the window,
    /// the turn was interrupted.
    pub(in crate::engine) fn interrupt_by_title(&mut self, now: u64, out: &mut Vec<Transition>) {
        debug_assert_eq!(self.title_state, TitleState::Idle);
        let Some(p) = self.pending_interrupt else {
            return;
        };
        let after = now.saturating_sub(p.at);
        if after <= self.config.constants.interrupt_title_window_ms {
            let detail = format!(
                "{}, then the title went idle {} later",
                p.key.as_str(),
                Span(after)
            );
            self.go(
                now,
                State::Interrupted,
                Rule::InterruptTitle,
                detail,
                None,
                out,
            );
        }
    }
}
