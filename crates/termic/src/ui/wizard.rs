//! The first-run wizard: which agents are here, hooks for the ones termic can
//! wire, notifications. Shown once, skippable, reopenable from Settings.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::settings::NotifySettings;

/// A detected agent that termic can wire, with the user's choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookChoice {
    pub agent: String,
    pub install: bool,
    /// The files its install would write (from the InstallPlan), shown before
    /// anything is written.
    pub files: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WizardStep {
    Agents,
    Hooks,
    Notifications,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WizardView {
    /// Agent ids found on PATH, in display order.
    pub detected: Vec<String>,
    /// Detected agents offered no toggle, with the whole reason: "not
    /// needed (its terminal already reports this)" for codex, or why an
    /// install would fail (an old Claude Code). The wizard never promises
    /// what it cannot deliver.
    pub without_toggle: Vec<(String, String)>,
    /// Detected agents termic can wire. Only these get a toggle.
    pub hooks: Vec<HookChoice>,
    pub notify: NotifySettings,
    /// Index into [`WizardView::steps`].
    pub step: usize,
    /// Cursor inside the current step.
    pub selected: usize,
}

impl WizardView {
    pub fn new(
        detected: Vec<String>,
        without_toggle: Vec<(String, String)>,
        hooks: Vec<HookChoice>,
        notify: NotifySettings,
    ) -> Self {
        WizardView {
            detected,
            without_toggle,
            hooks,
            notify,
            step: 0,
            selected: 0,
        }
    }

    /// The steps this machine gets: no hooks step when no detected agent can
    /// be wired, so the count is right whatever was found.
    pub fn steps(&self) -> Vec<WizardStep> {
        let mut steps = vec![WizardStep::Agents];
        if !self.hooks.is_empty() {
            steps.push(WizardStep::Hooks);
        }
        steps.push(WizardStep::Notifications);
        steps
    }

    pub fn current(&self) -> WizardStep {
        let steps = self.steps();
        steps[self.step.min(steps.len() - 1)]
    }

    pub fn is_last(&self) -> bool {
        self.step + 1 >= self.steps().len()
    }

    pub fn next(&mut self) {
        if !self.is_last() {
            self.step += 1;
            self.selected = 0;
        }
    }

    pub fn back(&mut self) {
        self.step = self.step.saturating_sub(1);
        self.selected = 0;
    }

    fn choices_in_step(&self) -> usize {
        match self.current() {
            WizardStep::Agents => 0,
            WizardStep::Hooks => self.hooks.len(),
            WizardStep::Notifications => 2,
        }
    }

    pub fn move_selection(&mut self, delta: isize) {
        let n = self.choices_in_step() as isize;
        if n > 0 {
            self.selected = (self.selected as isize + delta).rem_euclid(n) as usize;
        }
    }

    /// Flips the switch under the cursor.
    pub fn toggle(&mut self) {
        match self.current() {
            WizardStep::Agents => {}
            WizardStep::Hooks => {
                if let Some(choice) = self.hooks.get_mut(self.selected) {
                    choice.install = !choice.install;
                }
            }
            WizardStep::Notifications => {
                if self.selected == 0 {
                    self.notify.bell = !self.notify.bell;
                } else {
                    self.notify.desktop = !self.notify.desktop;
                }
            }
        }
    }
}

pub fn render(frame: &mut Frame, view: &WizardView) {
    let inner = super::modal(frame, "Welcome to termic", 80, 24);
    let steps = view.steps();
    let header = format!("Step {} of {}", view.step + 1, steps.len());
    let mut lines = vec![
        Line::styled(header, Style::new().add_modifier(Modifier::DIM)),
        Line::from(""),
    ];
    match view.current() {
        WizardStep::Agents => agents_step(view, &mut lines),
        WizardStep::Hooks => hooks_step(view, &mut lines),
        WizardStep::Notifications => notify_step(view, &mut lines),
    }
    lines.push(Line::from(""));
    let next = if view.is_last() {
        "Enter finish"
    } else {
        "Enter next"
    };
    let back = if view.step > 0 { "  Left back" } else { "" };
    // Space only means something on a step with switches.
    let space = if view.current() == WizardStep::Agents {
        ""
    } else {
        "  Space switch"
    };
    lines.push(Line::styled(
        format!("{next}{back}{space}  Esc skip (change it later in Settings)"),
        Style::new().add_modifier(Modifier::DIM),
    ));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

fn agents_step(view: &WizardView, lines: &mut Vec<Line<'static>>) {
    if view.detected.is_empty() {
        lines.push(Line::from("No agent CLIs were found on your PATH."));
        lines.push(Line::from(
            "termic can still run any command as a task. Install an agent and it shows up here.",
        ));
        return;
    }
    lines.push(Line::from("Agent CLIs found on your PATH:"));
    for agent in &view.detected {
        lines.push(Line::from(format!("  {agent}")));
    }
}

fn hooks_step(view: &WizardView, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::from(
        "Hooks let an agent tell termic when it needs you or is done.",
    ));
    lines.push(Line::from(
        "They go into that agent's global config. Off unless you switch them on.",
    ));
    lines.push(Line::from(""));
    for (i, choice) in view.hooks.iter().enumerate() {
        let pointer = if i == view.selected { "> " } else { "  " };
        let mark = if choice.install { "[on] " } else { "[off]" };
        let style = if i == view.selected {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::styled(
            format!("{pointer}{mark} {}", choice.agent),
            style,
        ));
        if choice.install {
            for file in &choice.files {
                lines.push(Line::styled(
                    format!("        writes {file}"),
                    Style::new().fg(Color::Cyan),
                ));
            }
        }
    }
    for (agent, why) in &view.without_toggle {
        lines.push(Line::styled(
            format!("  {agent}: {why}"),
            Style::new().add_modifier(Modifier::DIM),
        ));
    }
}

fn notify_step(view: &WizardView, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::from(
        "When a task you are not watching needs you or is done:",
    ));
    let items = [
        ("Ring the bell", view.notify.bell),
        ("Send a desktop notification", view.notify.desktop),
    ];
    for (i, (label, on)) in items.iter().enumerate() {
        let pointer = if i == view.selected { "> " } else { "  " };
        let mark = if *on { "[on] " } else { "[off]" };
        lines.push(Line::from(format!("{pointer}{mark} {label}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text};

    fn choice(agent: &str) -> HookChoice {
        HookChoice {
            agent: agent.into(),
            install: false,
            files: vec![format!("~/.{agent}/termic-hooks/")],
        }
    }

    fn wizard(detected: &[&str]) -> WizardView {
        let wireable = ["claude", "grok", "agy", "opencode"];
        let hooks = detected
            .iter()
            .filter(|a| wireable.contains(a))
            .map(|a| choice(a))
            .collect();
        let without_toggle = detected
            .iter()
            .filter(|a| **a == "codex")
            .map(|a| {
                (
                    a.to_string(),
                    "not needed (its terminal already reports this)".to_string(),
                )
            })
            .collect();
        WizardView::new(
            detected.iter().map(|s| s.to_string()).collect(),
            without_toggle,
            hooks,
            NotifySettings {
                bell: true,
                desktop: true,
                osc_fallback: true,
            },
        )
    }

    fn screen(view: &WizardView) -> String {
        text(&draw(84, 26, |f| render(f, view)))
    }

    #[test]
    fn zero_agents_gets_two_steps_and_says_none_found() {
        let mut w = wizard(&[]);
        let s = screen(&w);
        assert!(s.contains("Step 1 of 2"), "{s}");
        assert!(s.contains("No agent CLIs were found on your PATH."), "{s}");
        assert!(
            !s.contains("Space switch"),
            "nothing to switch on step 1: {s}"
        );
        w.next();
        let s = screen(&w);
        assert!(s.contains("Step 2 of 2"), "{s}");
        assert!(s.contains("Space switch"), "{s}");
        assert!(s.contains("Ring the bell"), "{s}");
        assert!(s.contains("Enter finish"), "{s}");
    }

    #[test]
    fn one_wireable_agent_gets_three_steps_and_one_toggle() {
        let mut w = wizard(&["claude"]);
        assert!(screen(&w).contains("Step 1 of 3"));
        w.next();
        let s = screen(&w);
        assert!(s.contains("Step 2 of 3"), "{s}");
        assert!(s.contains("> [off] claude"), "{s}");
        w.toggle();
        let s = screen(&w);
        assert!(s.contains("> [on]  claude"), "{s}");
        assert!(s.contains("writes ~/.claude/termic-hooks/"), "{s}");
        w.next();
        assert!(screen(&w).contains("Step 3 of 3"));
    }

    #[test]
    fn three_agents_list_exactly_those_and_codex_gets_no_toggle() {
        let mut w = wizard(&["claude", "codex", "opencode"]);
        let s = screen(&w);
        assert!(s.contains("Step 1 of 3"), "{s}");
        for a in ["  claude", "  codex", "  opencode"] {
            assert!(s.contains(a), "{s}");
        }
        assert!(!s.contains("grok"), "{s}");
        w.next();
        let s = screen(&w);
        assert!(
            s.contains("[off] claude") && s.contains("[off] opencode"),
            "{s}"
        );
        assert!(!s.contains("[off] codex"), "{s}");
        assert!(
            s.contains("codex: not needed (its terminal already reports this)"),
            "{s}"
        );
    }

    #[test]
    fn only_codex_skips_the_hooks_step() {
        let w = wizard(&["codex"]);
        assert_eq!(
            w.steps(),
            vec![WizardStep::Agents, WizardStep::Notifications]
        );
    }

    #[test]
    fn back_and_toggle_notifications() {
        let mut w = wizard(&[]);
        w.next();
        w.move_selection(1);
        w.toggle();
        assert!(!w.notify.desktop);
        w.back();
        assert_eq!(w.current(), WizardStep::Agents);
    }
}
