//! Screen rules (profile/screen.rs) applied to a task: the bottom rows of
//! the screen, matched against the profile's rules, may raise needs you
//! (an agent's permission, question or plan dialog is up) and may hold back
//! a guessed done (the settle timers wait while a rule matches). They never
//! end a turn: text on a screen is printable by any program in the task.
//!
//! They act only in an agent task (never a command or shell task, whose
//! profiles have no rules and whose output is only text) and only while
//! nothing better owns the turn: with hooks wired or native status seen, a
//! match is recorded in the Inspector and not obeyed.

use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::profile::{ScreenImplies, ScreenRows, ScreenRule};

/// What the screen rules last said for one task.
#[derive(Debug, Default, Clone)]
pub(in crate::engine) struct ScreenRuleTrack {
    /// The rule matching the last screen rows, if any.
    current: Option<&'static ScreenRule>,
    /// When a rule stopped matching (the settle timers measure from here).
    cleared_at: u64,
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

    /// A screen rule matches right now: a guessed done waits.
    pub(in crate::engine) fn screen_holds_done(&self) -> bool {
        self.screen_rules.current.is_some() && !self.plain_turns()
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
            if found.is_none() {
                self.screen_rules.cleared_at = now;
            }
        }
        match found.map(|r| (r, r.implies)) {
            // Only a dialog that just appeared raises: one still painted for
            // a frame after the answer (the agent already working again)
            // must not flip the badge back.
            Some((rule, ScreenImplies::NeedsYou { kind })) if found != before => {
                self.screen_needs_you(now, rule, kind, out);
            }
            Some((_, ScreenImplies::NeedsYou { .. })) => {}
            Some((_, ScreenImplies::NotDone)) | None => self.screen_release(now, out),
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
