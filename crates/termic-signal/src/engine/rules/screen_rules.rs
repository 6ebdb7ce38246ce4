//! Screen rules (profile/screen.rs) applied to a task: the bottom rows of
//! the screen, matched against the profile's rules, may raise needs you
//! (an agent's permission, question or plan dialog is up) and may hold back
//! a guessed done (the settle timers wait while a rule matches). They never
//! end a turn: text on a screen is printable by any program in the task.
//!
//! A `Stopped` rule (the agent's own API-error line right above its own
//! empty prompt) moves nothing by itself and holds nothing back: only when a
//! guessing rule ends the turn (settle, its ceiling, a fallback), and only
//! if the rule began matching during this turn, is that end an error with
//! the reason the matched text names, instead of a done or a "needs you
//! [unsure]". So text printed mid-turn cannot make a working task read
//! error, and cannot keep a real done from coming: at worst it names a
//! guessed end wrongly, at the instant that end was due anyway.
//!
//! They act only in an agent task (never a command or shell task, whose
//! profiles have no rules and whose output is only text) and only while
//! nothing better owns the turn: with hooks wired or native status seen, a
//! match is recorded in the Inspector and not obeyed. One exception: an
//! agent whose profile says its hooks send no end of turn when it gives up
//! on an API error (Copilot CLI 1.0.102 on a 429) has its `Stopped` rule,
//! when it begins to match during a turn its hooks started, end that turn
//! as the error it names; else the task would read working forever.

use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::limit::ResetAt;
use crate::profile::{ScreenImplies, ScreenRows, ScreenRule, ScreenStop};
use crate::stop::StopReason;

/// A `Stopped` rule matching: since when, and the reason its match names.
#[derive(Debug, Clone, Copy)]
struct StoppedScreen {
    rule: &'static ScreenRule,
    since: u64,
    reason: StopReason,
    /// The profile's error text that named the reason (none: "API error").
    by: Option<&'static str>,
    /// A usage limit's reset time, when the matched text names one.
    until: Option<ResetAt>,
}

/// What the screen rules last said for one task.
#[derive(Debug, Default, Clone)]
pub(in crate::engine) struct ScreenRuleTrack {
    /// The rule matching the last screen rows, if any.
    current: Option<&'static ScreenRule>,
    /// When a rule stopped matching (the settle timers measure from here).
    cleared_at: u64,
    /// When a `StillWorking` rule stopped matching (the quiet fallbacks
    /// count from here: the silence it held was not a question).
    quiet_released_at: u64,
    /// The current rule, when it says the agent stopped on an API error.
    stopped: Option<StoppedScreen>,
}

impl Engine {
    /// How many of the screen's last non-blank rows the engine wants (0: no
    /// screen rule applies to this task, send none).
    pub fn screen_rows_wanted(&self) -> usize {
        if self.plain_turns() {
            return 0;
        }
        self.profile.screen_rows_wanted()
    }

    /// The bottom rows of the caller's screen model (see
    /// [`Engine::screen_rows_wanted`]), after output was applied.
    pub fn screen_rows(&mut self, now: u64, rows: &ScreenRows) -> Vec<Transition> {
        let mut out = Vec::new();
        if self.begin(now, &mut out) {
            self.handle_screen_rows(now, rows, &mut out);
            self.finish(now);
        }
        out
    }

    /// A dialog or "still working" rule matches right now: a guessed done
    /// waits. (A `Stopped` rule does not hold: it renames the end.)
    pub(in crate::engine) fn screen_holds_done(&self) -> bool {
        holds_done(self.screen_rules.current) && !self.plain_turns()
    }

    /// A needs-you screen rule raised the current needs you and still
    /// matches: the dialog is up.
    pub(in crate::engine) fn screen_dialog_up(&self) -> bool {
        self.state == State::NeedsYou
            && self.needs_you_by == Some(Rule::ScreenNeedsYou)
            && self
                .screen_rules
                .current
                .is_some_and(|r| matches!(r.implies, ScreenImplies::NeedsYou { .. }))
    }

    /// The agent's screen says work it started still runs (a background
    /// shell): silence is not a question, the quiet fallbacks wait.
    pub(in crate::engine) fn screen_holds_quiet(&self) -> bool {
        self.screen_rules
            .current
            .is_some_and(|r| r.implies == ScreenImplies::StillWorking)
            && !self.plain_turns()
    }

    /// A guessing rule is about to end the turn (`rule`, `detail`): when the
    /// agent's API-error screen came up during this turn and still shows,
    /// the end is that error instead. True when it was.
    pub(in crate::engine) fn end_on_screen_error(
        &mut self,
        at: u64,
        rule: Rule,
        detail: &str,
        out: &mut Vec<Transition>,
    ) -> bool {
        let Some(stopped) = self.screen_rules.stopped else {
            return false;
        };
        if self.plain_turns() || self.governed() || stopped.since < self.turn_started_at {
            return false;
        }
        let by = stopped.by.unwrap_or("no error text matched");
        let detail = format!(
            "API error on screen ({}, {by}) when the {} ended the turn ({detail}): stopped: {}",
            stopped.rule.id,
            rule.label(),
            stopped.reason
        );
        let to = State::stopped(stopped.reason, stopped.until);
        self.stop_on_error(at, to, Rule::ScreenError, detail, out);
        true
    }

    /// An agent whose hooks send no end of turn when it gives up on an
    /// API error (its profile says why): its own error screen, appearing
    /// during a turn its hooks own, ends that turn as the error it names.
    fn end_hooked_turn_on_screen_error(&mut self, now: u64, out: &mut Vec<Transition>) {
        let (Some(why), Some(stopped)) = (
            self.profile.screen_stop_ends_hooked_turn,
            self.screen_rules.stopped,
        ) else {
            return;
        };
        if !self.governed() || !self.state.in_turn() || stopped.since < self.turn_started_at {
            return;
        }
        let by = stopped.by.unwrap_or("no error text matched");
        let to = State::stopped(stopped.reason, stopped.until);
        let detail = format!(
            "API error on screen ({}, {by}) during a turn its hooks own, and {why}: stopped: {to}",
            stopped.rule.id
        );
        self.stop_on_error(now, to, Rule::ScreenError, detail, out);
    }

    /// When a background-work rule last stopped matching (0: never).
    pub(in crate::engine) fn screen_quiet_released_at(&self) -> u64 {
        self.screen_rules.quiet_released_at
    }

    /// When the last screen rule stopped matching (0: never matched).
    pub(in crate::engine) fn screen_cleared_at(&self) -> u64 {
        self.screen_rules.cleared_at
    }

    fn handle_screen_rows(&mut self, now: u64, rows: &ScreenRows, out: &mut Vec<Transition>) {
        // The profile's explain(), as for titles: the verdict and the rule.
        let found = if self.plain_turns() {
            None
        } else {
            self.profile.explain_screen(rows).decided_by
        };
        let before = self.screen_rules.current;
        if found != before {
            self.screen_rules.current = found;
            self.log_screen_change(now, before, found);
            // The settle counts from when the last holding rule let go (an
            // error rule does not hold, so going from one to it lets go).
            if !holds_done(found) {
                self.screen_rules.cleared_at = now;
            }
            let held_quiet = |r: Option<&'static ScreenRule>| {
                r.is_some_and(|r| r.implies == ScreenImplies::StillWorking)
            };
            if held_quiet(before) && !held_quiet(found) {
                self.screen_rules.quiet_released_at = now;
            }
        }
        self.screen_rules.stopped = match found {
            Some(rule) if rule.implies == ScreenImplies::Stopped => {
                let since = match self.screen_rules.stopped {
                    Some(s) if s.rule == rule => s.since,
                    _ => now,
                };
                self.profile.screen_stop_reason(rule, rows).map(
                    |ScreenStop { reason, by, until }| StoppedScreen {
                        rule,
                        since,
                        reason,
                        by,
                        until,
                    },
                )
            }
            _ => None,
        };
        if found != before {
            self.end_hooked_turn_on_screen_error(now, out);
        }
        match found.map(|r| (r, r.implies)) {
            // Only a dialog that just appeared raises: one still painted for
            // a frame after the answer (the agent already working again)
            // must not flip the badge back.
            Some((rule, ScreenImplies::NeedsYou { kind })) if found != before => {
                self.screen_needs_you(now, rule, kind, out);
            }
            Some((_, ScreenImplies::NeedsYou { .. })) => {}
            Some((
                _,
                ScreenImplies::NotDone | ScreenImplies::StillWorking | ScreenImplies::Stopped,
            ))
            | None => self.screen_release(now, out),
        }
    }

    fn log_screen_change(
        &mut self,
        now: u64,
        before: Option<&'static ScreenRule>,
        found: Option<&'static ScreenRule>,
    ) {
        let text = match (before, found) {
            (_, Some(rule)) => format!(
                "screen rule {} matches ({}, {}, measured on {}): {}",
                rule.id,
                rule.implies.as_str(),
                rule.region,
                rule.measured_on,
                rule.why
            ),
            (Some(rule), None) => format!("screen rule {} no longer matches", rule.id),
            (None, None) => return,
        };
        self.log.push(now, LogKind::Signal, text);
    }

    fn screen_needs_you(
        &mut self,
        now: u64,
        rule: &'static ScreenRule,
        kind: &str,
        out: &mut Vec<Transition>,
    ) {
        if !self.state.in_turn() {
            return;
        }
        if self.governed() {
            self.log.push(
                now,
                LogKind::Signal,
                format!(
                    "screen rule {} not obeyed: hooks or native status own the turn",
                    rule.id
                ),
            );
            return;
        }
        let detail = format!("{} dialog on screen ({})", kind, rule.id);
        let attention = Attention::new(kind, Some(format!("{kind} dialog on screen")));
        // Already needs you (grok's title came first): the rule only
        // sharpens the attention's kind.
        self.raise_attention(now, Rule::ScreenNeedsYou, detail, attention, out);
    }

    /// The dialog a rule raised needs you for left the screen (answered):
    /// the agent goes on, so the task is working again, never done.
    fn screen_release(&mut self, now: u64, out: &mut Vec<Transition>) {
        if self.state != State::NeedsYou || self.needs_you_by != Some(Rule::ScreenNeedsYou) {
            return;
        }
        let detail = "the dialog left the screen".to_string();
        self.go(now, State::Working, Rule::ScreenCleared, detail, None, out);
    }
}

/// A dialog or "still working" rule holds a guessed done; an error rule
/// does not (it renames the end instead).
fn holds_done(rule: Option<&'static ScreenRule>) -> bool {
    rule.is_some_and(|r| r.implies != ScreenImplies::Stopped)
}
