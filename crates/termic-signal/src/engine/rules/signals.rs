//! Scanner signals: titles, notifications, activity, and the ones only logged.

use crate::engine::span::Span;
use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::profile::{NativeStatus, TitleState};
use crate::signal::Signal;

impl Engine {
    pub(in crate::engine) fn handle_signal(
        &mut self,
        now: u64,
        signal: Signal,
        out: &mut Vec<Transition>,
    ) {
        let signal = if self.plain_turns() {
            match self.plain_signal(now, signal, out) {
                Some(rest) => rest,
                None => return,
            }
        } else {
            signal
        };
        match signal {
            Signal::ShellMark(mark) => self.on_shell_mark(now, mark, out),
            Signal::Activity => self.on_activity(now, out),
            Signal::Title(title) => self.on_title(now, title, out),
            Signal::Notify { source, body } => self.on_notify(now, source, body, out),
            Signal::Hook(msg) => self.on_hook(now, msg, out),
            Signal::Native(status) => self.on_native(now, status, out),
            Signal::HookRejected { raw, error } => self.log.push(
                now,
                LogKind::Signal,
                format!("rejected hook message ({error}): {raw:?}"),
            ),
            Signal::NativeProbe => {
                self.native_probe = true;
                self.log.push(
                    now,
                    LogKind::Signal,
                    "native status probe (OSC 7501 ; ?): answer it".to_string(),
                );
            }
            Signal::Progress { state, value } => self.log.push(
                now,
                LogKind::Signal,
                format!("progress state={state} value={value:?} (not used)"),
            ),
            Signal::Bell => {
                self.log.push(
                    now,
                    LogKind::Signal,
                    "bell (not used: ambiguous)".to_string(),
                );
            }
        }
    }

    /// Any output bytes. An interrupt key the agent ignored shows up as
    /// output that continues past the window.
    pub(in crate::engine) fn note_output(&mut self, now: u64) {
        self.last_bytes_at = now;
        if let Some(p) = self.pending_interrupt {
            if now > p.at + self.config.constants.interrupt_title_window_ms {
                self.pending_interrupt = None;
                self.log.push(
                    now,
                    LogKind::Fact,
                    format!(
                        "{} at {} did not take: output continued",
                        p.key.as_str(),
                        p.at
                    ),
                );
            }
        }
    }

    /// Output at `now` is the redraw or echo of a recent resize or typed
    /// key (logged once per cause): it must not be read as work.
    pub(in crate::engine) fn is_redraw(&mut self, now: u64) -> bool {
        let window = self.config.constants.redraw_window_ms;
        let Some(cause) = self.redraw.as_mut() else {
            return false;
        };
        if now.saturating_sub(cause.at) > window {
            self.redraw = None;
            return false;
        }
        if !std::mem::replace(&mut cause.logged, true) {
            let text = format!(
                "output {} after {}: its redraw or echo, not work",
                Span(now.saturating_sub(cause.at)),
                cause.what
            );
            self.log.push(now, LogKind::Fact, text);
        }
        true
    }

    fn on_activity(&mut self, now: u64, out: &mut Vec<Transition>) {
        self.last_activity_at = now;
        if self.is_redraw(now) {
            return;
        }
        if self.resume_after_fallback(now, Rule::ByteQuiet, "output resumed", out) {
            return;
        }
        let Some(submit_at) = self.submit_at else {
            return;
        };
        if now.saturating_sub(submit_at) > self.config.constants.submit_activity_window_ms {
            self.submit_at = None;
            return;
        }
        if self.screen_dialog_up() {
            // Enter answered one question of a form that is still on screen
            // (Claude's AskUserQuestion with several questions moves to the
            // next tab): the agent still waits. The dialog leaving the
            // screen resumes the turn (`screen_cleared`).
            return;
        }
        if !self.governed() && self.state != State::Working {
            let detail = format!(
                "Enter, then output {} later",
                Span(now.saturating_sub(submit_at))
            );
            self.go(now, State::Working, Rule::SubmitActivity, detail, None, out);
        }
    }

    fn on_title(&mut self, now: u64, title: String, out: &mut Vec<Transition>) {
        if title == self.title {
            return;
        }
        // Only changed titles get here (about once a second at most), so
        // the full explanation is affordable and names the deciding rule.
        let explained = self.profile.explain(&title);
        let class = explained.state;
        let by = explained.decided_by.unwrap_or("no rule matched");
        self.log.push(
            now,
            LogKind::Signal,
            format!("title {title:?} ({}, {by})", class_name(class)),
        );
        let became_busy = class == TitleState::Busy && self.title_state != TitleState::Busy;
        if class != self.title_state {
            self.title_state = class;
            self.title_state_since = now;
        }
        if class == TitleState::Busy {
            self.last_busy_at = now;
        }
        // Only a title that turns busy says a held permission resolved by
        // itself. A new spinner frame of a title that was busy already says
        // nothing: grok paints one between its Notification hook and its
        // Action Required title on a loaded machine, and dropping the hook
        // there lost the permission's kind (CI run of 2026-12-06).
        if became_busy {
            self.cancel_pending_attention(now, "the title went busy");
        }
        if class == TitleState::Idle {
            self.interrupt_by_title(now, out);
            self.title_block_released(now, &title, out);
        }
        if self.native_seen {
            // Native status reports blocked and working exactly; a title
            // frame painted around it (Codex holds its Action Required title
            // ~1 s) would only add a flicker.
            self.title = title;
            return;
        }
        match class {
            TitleState::Busy => {
                let resumes = self.state == State::NeedsYou;
                let starts = !self.governed() && !self.state.in_turn();
                // Codex 0.171.0 paints its spinner title at start-up, before
                // its first OSC 7501 report, with no prompt (seen in one CI run
                // of the real-agent suite, 2026-12-06). An agent that always
                // reports native status says itself when a turn starts with
                // no Enter (a prompt argument), so its title cannot.
                let native_will_say =
                    self.profile.native_status == NativeStatus::Always && self.entered_at.is_none();
                if starts && native_will_say {
                    self.log.push(
                        now,
                        LogKind::Fact,
                        "busy title with no Enter first: not a turn, this agent's native \
                         status will say when one starts"
                            .to_string(),
                    );
                } else if resumes || starts {
                    let detail = format!("busy {title:?}");
                    self.go(now, State::Working, Rule::TitleBusy, detail, None, out);
                }
            }
            TitleState::NeedsYou => {
                let detail = format!("needs you {title:?}");
                let attention = Attention::from_output(Some("title".into()), Some(title.clone()));
                self.raise_attention(now, Rule::TitleNeedsYou, detail, attention, out);
            }
            TitleState::Idle | TitleState::Unknown => {}
        }
        self.title = title;
    }

    fn on_notify(
        &mut self,
        now: u64,
        source: crate::signal::NotifySource,
        body: String,
        out: &mut Vec<Transition>,
    ) {
        let named = format!("notification ({}) {body:?}", source.as_str());
        let unused = if !self.profile.printed_notifications {
            Some(" (not obeyed: this task's program output is only text)")
        } else if !self.profile.wants_attention(&body) {
            Some(" (ignored by the agent's notify filter)")
        } else if self.native_seen {
            Some(" (not used: native status governs)")
        } else {
            None
        };
        self.log.push(
            now,
            LogKind::Signal,
            format!("{named}{}", unused.unwrap_or_default()),
        );
        if unused.is_some() {
            return;
        }
        let detail = format!("notification {body:?}");
        let attention = Attention::from_output(Some("notification".into()), Some(body));
        self.raise_attention(now, Rule::Notification, detail, attention, out);
    }

    /// The title that said needs you (grok 0.2.111's Action Required) went
    /// idle: the prompt was answered (or rejected) and the agent is at its
    /// prompt again. The task goes back to working, so the settle timer can
    /// end the turn as for any idle title; a title frozen on a busy spinner
    /// never gets here, so it never reads as done.
    fn title_block_released(&mut self, now: u64, title: &str, out: &mut Vec<Transition>) {
        if self.state != State::NeedsYou
            || self.needs_you_by != Some(Rule::TitleNeedsYou)
            || self.governed()
        {
            return;
        }
        let detail = format!("the needs-you title went idle {title:?}: the prompt was answered");
        self.go(now, State::Working, Rule::TitleReleased, detail, None, out);
    }

    /// The agent shows work again after `rule`'s fallback asked the user to
    /// look, and no key was pressed since (so it is not typing echo).
    pub(in crate::engine) fn resume_after_fallback(
        &mut self,
        now: u64,
        rule: Rule,
        what: &str,
        out: &mut Vec<Transition>,
    ) -> bool {
        if self.state != State::NeedsYou || self.fallback != Some((rule, false)) {
            return false;
        }
        let detail = format!(
            "{what} after the {} fallback, with no key pressed",
            rule.as_str()
        );
        self.go(now, State::Working, Rule::QuietResume, detail, None, out);
        true
    }

    /// A resolution signal arrived before the debounced attention was shown.
    pub(in crate::engine) fn cancel_pending_attention(&mut self, now: u64, why: &str) {
        if self.pending_attention.take().is_some() {
            self.log.push(
                now,
                LogKind::Fact,
                format!("held attention dropped: {why} first"),
            );
        }
    }
}

fn class_name(class: TitleState) -> &'static str {
    match class {
        TitleState::Unknown => "no state",
        other => other.as_str(),
    }
}
