//! Timed rules. Without hooks or native status a turn's end is inferred:
//! the settle timer (title idle), its 90 s ceiling, and the fallbacks that
//! cannot tell done from waiting (byte-quiet, settled screen, scrollback
//! stability, the absolute ceiling), so they ask the user to look instead of
//! claiming a done. All of them stand down while hooks or native status own
//! the turn. The permission debounce and the interrupt quiet grace are timers
//! too and apply in every mode.

use crate::engine::span::Span;
use crate::engine::timers::TimerKind;
use crate::engine::types::{Attention, Rule, State, Transition};
use crate::engine::Engine;
use crate::profile::TitleState;

impl Engine {
    /// Every timer's deadline, derived from the current fields.
    pub(in crate::engine) fn deadlines(&self) -> [Option<u64>; 9] {
        let c = &self.config.constants;
        let mut due = [None; 9];
        let mut set = |kind: TimerKind, at: u64| due[kind as usize] = Some(at);
        if self.state == State::Exited {
            return due;
        }
        if let Some(plain) = self.plain_deadlines() {
            return plain;
        }
        if let Some(since) = self.held_native_working {
            set(TimerKind::NativeHold, since + c.native_hold_ms);
        }
        if let Some(p) = self.pending_interrupt {
            set(
                TimerKind::InterruptQuiet,
                p.at.max(self.last_bytes_at) + c.interrupt_quiet_grace_ms,
            );
        }
        if let Some(p) = &self.pending_attention {
            set(
                TimerKind::PermissionDebounce,
                p.at + c.permission_debounce_ms,
            );
        }
        if self.state != State::Working || self.pending_attention.is_some() {
            return due;
        }
        // Silence is measured from the later of the turn's start and the
        // moment it went back to working: a turn resumed after a long needs
        // you (Enter, a repaint that leaves the screen as it was) must not
        // find its settled-screen deadline already in the past and fire at
        // once (working -> needs_you -> working in one millisecond).
        let start = self.turn_started_at.max(self.since);
        if self.governed() {
            // Hooks or native status own the turn: nothing heuristic may end
            // it. The one exception asks rather than ends: an agent whose
            // hooks cannot say "needs you" (agy) still gets the byte-quiet
            // fallback, as the plan says, so a silent permission prompt is
            // not shown as working forever.
            if self.quiet_fallback_while_hooked() && self.pending_interrupt.is_none() {
                set(
                    TimerKind::ByteQuiet,
                    self.last_bytes_at.max(start) + c.byte_quiet_ms,
                );
            }
            return due;
        }
        // A screen rule that matches (an agent's dialog, its "still working"
        // line) holds a guessed done back; the settle counts from when it
        // stopped matching (rules/screen_rules.rs).
        if self.title_state == TitleState::Idle && !self.screen_holds_done() {
            let idle_since = self
                .title_state_since
                .max(start)
                .max(self.screen_cleared_at());
            set(
                TimerKind::Settle,
                idle_since.max(self.last_activity_at) + c.settle_ms,
            );
            set(TimerKind::SettleCeiling, idle_since + c.settle_ceiling_ms);
        }
        if self.pending_interrupt.is_some() {
            // The interrupt's own quiet grace owns silence right now.
            return due;
        }
        if self.screen_holds_quiet() {
            // The agent says its background work still runs: only the
            // absolute ceiling asks (rules/screen_rules.rs).
            set(
                TimerKind::AbsoluteCeiling,
                self.last_busy_at.max(start) + c.absolute_ceiling_ms,
            );
            return due;
        }
        // Counted from when a background-work screen rule last let go too:
        // the silence it held was not a question.
        let quiet_from = start.max(self.screen_quiet_released_at());
        set(
            TimerKind::ByteQuiet,
            self.last_bytes_at.max(quiet_from) + c.byte_quiet_ms,
        );
        if let Some(screen) = &self.screen {
            set(
                TimerKind::SettledScreen,
                screen.hash_changed_at.max(quiet_from) + c.settled_screen_ms,
            );
            if screen.grew_this_turn {
                set(
                    TimerKind::ScrollbackStable,
                    screen.lines_changed_at.max(self.last_busy_at) + c.scrollback_stable_ms,
                );
            }
        }
        set(
            TimerKind::AbsoluteCeiling,
            self.last_busy_at.max(start) + c.absolute_ceiling_ms,
        );
        due
    }

    /// Hooks are the only authority (no native status) and they have no
    /// attention event for this agent.
    fn quiet_fallback_while_hooked(&self) -> bool {
        self.config.hooks_wired && !self.native_seen && !self.profile.hooks_report_attention
    }

    /// A timer fell due at `at`.
    pub(in crate::engine) fn fire(&mut self, at: u64, kind: TimerKind, out: &mut Vec<Transition>) {
        let c = self.config.constants;
        match kind {
            TimerKind::NativeHold => self.release_held_working(at, out),
            TimerKind::InterruptQuiet => {
                if let Some(p) = self.pending_interrupt.take() {
                    let detail = format!(
                        "{}, then no output for {}",
                        p.key.as_str(),
                        Span(c.interrupt_quiet_grace_ms)
                    );
                    self.go(
                        at,
                        State::Interrupted,
                        Rule::InterruptQuiet,
                        detail,
                        None,
                        out,
                    );
                }
            }
            TimerKind::PermissionDebounce => {
                if let Some(p) = self.pending_attention.take() {
                    self.raise_attention(at, Rule::HookAttention, p.detail, p.attention, out);
                }
            }
            TimerKind::Settle => {
                let idle_for = at.saturating_sub(self.title_state_since.max(self.turn_started_at));
                let mut detail = format!("title idle for {}", Span(idle_for));
                if idle_for != c.settle_ms {
                    detail.push_str(&format!(", no output for {}", Span(c.settle_ms)));
                }
                if !self.end_on_screen_error(at, Rule::Settle, &detail, out) {
                    self.end_turn(at, Rule::Settle, detail, out);
                }
            }
            TimerKind::SettleCeiling => {
                let detail = format!(
                    "title idle for {} while output continued",
                    Span(c.settle_ceiling_ms)
                );
                if !self.end_on_screen_error(at, Rule::SettleCeiling, &detail, out) {
                    self.end_turn(at, Rule::SettleCeiling, detail, out);
                }
            }
            TimerKind::ByteQuiet if self.plain_turns() => self.output_quiet(at, out),
            TimerKind::ByteQuiet => {
                self.fallback(at, Rule::ByteQuiet, "no output", c.byte_quiet_ms, out);
            }
            TimerKind::SettledScreen => {
                let what = "screen unchanged";
                self.fallback(at, Rule::SettledScreen, what, c.settled_screen_ms, out);
            }
            TimerKind::ScrollbackStable => {
                let what = "no new lines and no busy title";
                self.fallback(
                    at,
                    Rule::ScrollbackStable,
                    what,
                    c.scrollback_stable_ms,
                    out,
                );
            }
            TimerKind::AbsoluteCeiling => {
                let what = "no busy sign";
                self.fallback(at, Rule::AbsoluteCeiling, what, c.absolute_ceiling_ms, out);
            }
        }
    }

    /// The fallbacks' outcome: the agent stopped showing work, and nothing
    /// says whether it finished or is waiting. Claiming done would be the
    /// false done this engine exists to prevent, so it asks the user to look.
    fn fallback(
        &mut self,
        at: u64,
        rule: Rule,
        what: &str,
        for_ms: u64,
        out: &mut Vec<Transition>,
    ) {
        let what = format!("{what} for {}", Span(for_ms));
        if self.end_on_screen_error(at, rule, &what, out) {
            return;
        }
        let attention = Attention::new(
            "unsure",
            Some(format!("{what}: finished or waiting for you")),
        );
        let detail = format!("{what}; cannot tell done from waiting");
        self.go(at, State::NeedsYou, rule, detail, Some(attention), out);
        self.fallback = Some((rule, false));
    }

    /// The caller's screen model after output.
    pub(in crate::engine) fn handle_screen(
        &mut self,
        now: u64,
        facts: crate::engine::ScreenFacts,
        out: &mut Vec<Transition>,
    ) {
        match &mut self.screen {
            None => {
                self.screen = Some(crate::engine::ScreenTrack {
                    facts,
                    hash_changed_at: now,
                    lines_changed_at: now,
                    grew_this_turn: false,
                });
            }
            Some(track) => {
                let changed = facts.hash != track.facts.hash;
                let grew = facts.scrollback_lines > track.facts.scrollback_lines;
                if changed {
                    track.hash_changed_at = now;
                }
                if facts.scrollback_lines != track.facts.scrollback_lines {
                    track.lines_changed_at = now;
                    track.grew_this_turn |= grew;
                }
                track.facts = facts;
                if changed {
                    self.resume_after_fallback(now, Rule::SettledScreen, "the screen changed", out);
                }
                if grew {
                    self.resume_after_fallback(now, Rule::ScrollbackStable, "new lines", out);
                }
            }
        }
    }
}
