//! Settings: one hooks row per agent (from the hooks crate's verified
//! status), notification switches, and the way back into the wizard.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::Frame;

pub use crate::notify::NotifySettings;

/// What the hooks crate verified on disk for one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HooksState {
    NotInstalled,
    Installed,
    /// Our files are there but the agent would not run them (why, in words).
    NotWired {
        reason: String,
    },
    /// The agent's terminal already reports its state (codex); `why` is
    /// the whole phrase, e.g. "not needed (its terminal already reports this)".
    NotNeeded {
        why: String,
    },
    NotSupported,
    /// A file could not be read or parsed; nothing was written. The
    /// message names the file.
    Error {
        message: String,
    },
}

/// What a row offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAction {
    Install,
    Reinstall,
    Remove,
}

impl RowAction {
    pub fn label(self) -> &'static str {
        match self {
            RowAction::Install => "Install",
            RowAction::Reinstall => "Reinstall",
            RowAction::Remove => "Remove",
        }
    }
}

/// One agent's line in Settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HooksRow {
    pub agent: String,
    pub state: HooksState,
    /// Anything of termic's is on disk for this agent: Remove is offered
    /// whatever the state, so a user can always clean up.
    pub ours_on_disk: bool,
    /// An OSC 7501 status report was seen from this agent on some task.
    pub native_seen: bool,
    /// Extra help under the row (grok's opt-out, for example).
    pub help: Option<String>,
}

impl HooksRow {
    pub fn actions(&self) -> Vec<RowAction> {
        let mut out = match self.state {
            HooksState::NotInstalled => vec![RowAction::Install],
            HooksState::NotWired { .. } => vec![RowAction::Reinstall],
            _ => vec![],
        };
        if self.ours_on_disk {
            out.push(RowAction::Remove);
        }
        out
    }

    fn status_text(&self) -> String {
        match &self.state {
            HooksState::NotInstalled => "Hooks: not installed".into(),
            HooksState::Installed => "Hooks: installed".into(),
            HooksState::NotWired { reason } => format!("Hooks: installed but not wired: {reason}"),
            HooksState::NotNeeded { why } => format!("Hooks: {why}"),
            HooksState::NotSupported => "Hooks: not supported yet".into(),
            HooksState::Error { message } => format!("Hooks: error: {message}"),
        }
    }
}

/// An install or removal waiting for the user's yes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingChange {
    pub agent: String,
    pub action: RowAction,
    /// One line per file, from the InstallPlan: what is written where.
    pub files: Vec<String>,
    /// Set when the change would not take effect (e.g. `disableAllHooks`).
    pub warning: Option<String>,
}

/// Which line of Settings the cursor is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsItem {
    Agent(usize),
    Bell,
    Desktop,
    OscFallback,
    Wizard,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsView {
    pub rows: Vec<HooksRow>,
    pub notify: NotifySettings,
    pub selected: usize,
    pub pending: Option<PendingChange>,
    /// The result of the last action, shown at the bottom.
    pub message: Option<String>,
}

impl SettingsView {
    pub fn new(rows: Vec<HooksRow>, notify: NotifySettings) -> Self {
        SettingsView {
            rows,
            notify,
            selected: 0,
            pending: None,
            message: None,
        }
    }

    pub fn items(&self) -> Vec<SettingsItem> {
        let mut items: Vec<_> = (0..self.rows.len()).map(SettingsItem::Agent).collect();
        items.extend([
            SettingsItem::Bell,
            SettingsItem::Desktop,
            SettingsItem::OscFallback,
            SettingsItem::Wizard,
        ]);
        items
    }

    pub fn selected_item(&self) -> SettingsItem {
        let items = self.items();
        items[self.selected.min(items.len() - 1)]
    }

    pub fn move_selection(&mut self, delta: isize) {
        let n = self.items().len() as isize;
        self.selected = (self.selected as isize + delta).rem_euclid(n) as usize;
    }
}

pub fn render(frame: &mut Frame, view: &SettingsView) {
    let area = frame.area();
    let inner = super::modal(
        frame,
        "Settings",
        area.width.saturating_sub(4).min(140),
        area.height.saturating_sub(2),
    );
    let mut lines = vec![
        Line::from("Hooks let an agent tell termic its state. Off until you install them."),
        Line::from("They go in the agent's global config; Remove restores it exactly."),
        Line::from(""),
    ];
    let selected = view.selected_item();
    let mut focus = 0;
    for (i, row) in view.rows.iter().enumerate() {
        if selected == SettingsItem::Agent(i) {
            focus = lines.len() + usize::from(row.native_seen) + usize::from(row.help.is_some());
        }
        lines.extend(row_lines(row, selected == SettingsItem::Agent(i)));
    }
    lines.push(Line::from(""));
    lines.push(Line::styled(
        "Notifications",
        Style::new().add_modifier(Modifier::BOLD),
    ));
    let items = [
        (
            SettingsItem::Bell,
            "Bell when a task needs you or is done",
            Some(view.notify.bell),
        ),
        (
            SettingsItem::Desktop,
            "Desktop notification",
            Some(view.notify.desktop),
        ),
        (
            SettingsItem::OscFallback,
            "No notification service: send it to this terminal (OSC 777)",
            Some(view.notify.osc_fallback),
        ),
        (
            SettingsItem::Wizard,
            "Show the first-run wizard again",
            None,
        ),
    ];
    for (item, label, on) in items {
        if selected == item {
            focus = lines.len();
        }
        lines.push(match on {
            Some(on) => toggle_line(label, on, selected == item),
            None => item_line(label, selected == item),
        });
    }
    if let Some(msg) = &view.message {
        lines.push(Line::from(""));
        lines.push(Line::styled(msg.clone(), Style::new().fg(Color::Cyan)));
        focus = lines.len() - 1;
    }
    let keys = Line::styled(
        "Up/Down choose  Enter do it  i install  r remove  Esc close",
        Style::new().add_modifier(Modifier::DIM),
    );
    super::body_with_keys(frame, inner, lines, focus, keys);
    if let Some(pending) = &view.pending {
        render_pending(frame, pending);
    }
}

fn row_lines(row: &HooksRow, selected: bool) -> Vec<Line<'static>> {
    let pointer = if selected { "> " } else { "  " };
    let name_style = if selected {
        Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
    } else {
        Style::new().add_modifier(Modifier::BOLD)
    };
    let status_style = match row.state {
        HooksState::Installed => Style::new().fg(Color::Green),
        HooksState::NotWired { .. } | HooksState::Error { .. } => Style::new().fg(Color::Red),
        _ => Style::new(),
    };
    let mut spans = vec![
        Span::raw(pointer),
        Span::styled(format!("{:<10}", row.agent), name_style),
        Span::styled(row.status_text(), status_style),
    ];
    for action in row.actions() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!("[{}]", action.label()),
            Style::new().fg(Color::Cyan),
        ));
    }
    let mut lines = vec![Line::from(spans)];
    let dim = Style::new().add_modifier(Modifier::DIM);
    if row.native_seen {
        lines.push(Line::styled(
            "            Also reports its state natively (OSC 7501), so hooks are a second channel.",
            dim,
        ));
    }
    if let Some(help) = &row.help {
        lines.push(Line::styled(format!("            {help}"), dim));
    }
    lines
}

fn toggle_line(label: &str, on: bool, selected: bool) -> Line<'static> {
    let mark = if on { "[on] " } else { "[off]" };
    item_line(&format!("{mark} {label}"), selected)
}

fn item_line(label: &str, selected: bool) -> Line<'static> {
    let pointer = if selected { "> " } else { "  " };
    let style = if selected {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    };
    Line::from(vec![
        Span::raw(pointer),
        Span::styled(label.to_string(), style),
    ])
}

fn render_pending(frame: &mut Frame, pending: &PendingChange) {
    let title = format!("{} hooks for {}", pending.action.label(), pending.agent);
    let verb = match pending.action {
        RowAction::Remove => "termic will change exactly these files:",
        _ => "termic will write exactly these files:",
    };
    let mut lines = vec![Line::from(verb)];
    lines.extend(pending.files.iter().map(|f| Line::from(format!("  {f}"))));
    if let Some(warning) = &pending.warning {
        lines.push(Line::styled(warning.clone(), Style::new().fg(Color::Red)));
    }
    // Wrapped paths take two rows each on a narrow screen.
    let height = 2 * lines.len() as u16 + 4;
    let inner = inner_rect(super::modal(frame, &title, 90, height));
    let keys = Line::from(format!(
        "y {}   n cancel",
        pending.action.label().to_lowercase()
    ));
    let last = lines.len() - 1;
    super::body_with_keys(frame, inner, lines, last, keys);
}

fn inner_rect(r: Rect) -> Rect {
    Rect::new(r.x + 1, r.y, r.width.saturating_sub(2), r.height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text};

    fn row(agent: &str, state: HooksState, ours: bool) -> HooksRow {
        HooksRow {
            agent: agent.into(),
            state,
            ours_on_disk: ours,
            native_seen: false,
            help: None,
        }
    }

    fn all_states() -> Vec<HooksRow> {
        let mut claude = row("claude", HooksState::NotInstalled, false);
        claude.native_seen = true;
        let mut grok = row("grok", HooksState::Installed, true);
        grok.help = Some("Grok also runs Claude's hooks; opt out with [compat.claude] hooks = false in ~/.grok/config.toml".into());
        vec![
            claude,
            grok,
            row(
                "agy",
                HooksState::NotWired {
                    reason: "the entry in ~/.gemini/config/hooks.json was changed".into(),
                },
                true,
            ),
            row(
                "codex",
                HooksState::NotNeeded {
                    why: "not needed (its terminal already reports this)".into(),
                },
                false,
            ),
            row(
                "opencode",
                HooksState::Error {
                    message: "~/.config/opencode/plugins/termic.js: permission denied".into(),
                },
                false,
            ),
            row("cursor", HooksState::NotSupported, false),
        ]
    }

    #[test]
    fn every_row_state_shows_its_words_and_buttons() {
        let view = SettingsView::new(
            all_states(),
            NotifySettings {
                bell: true,
                desktop: false,
                osc_fallback: true,
            },
        );
        let t = draw(140, 36, |f| render(f, &view));
        let s = text(&t);
        assert!(
            s.contains("> claude    Hooks: not installed [Install]"),
            "{s}"
        );
        assert!(
            s.contains("Also reports its state natively (OSC 7501)"),
            "{s}"
        );
        assert!(s.contains("  grok      Hooks: installed [Remove]"), "{s}");
        assert!(
            s.contains("[compat.claude] hooks = false in ~/.grok/config.toml"),
            "{s}"
        );
        assert!(s.contains(
            "  agy       Hooks: installed but not wired: the entry in ~/.gemini/config/hooks.json was changed [Reinstall] [Remove]"
        ), "{s}");
        let codex = s.lines().find(|l| l.contains("codex ")).unwrap();
        assert!(
            codex.contains("  codex     Hooks: not needed (its terminal already reports this)"),
            "{s}"
        );
        assert!(!codex.contains('['), "codex offers no button: {codex}");
        assert!(
            s.contains(
                "  opencode  Hooks: error: ~/.config/opencode/plugins/termic.js: permission denied"
            ),
            "{s}"
        );
        assert!(s.contains("  cursor    Hooks: not supported yet"), "{s}");
        assert!(s.contains("[on]  Bell"), "{s}");
        assert!(s.contains("[off] Desktop notification"), "{s}");
        assert!(
            s.contains("[on]  No notification service: send it to this terminal (OSC 777)"),
            "{s}"
        );
        assert!(!s.contains('\u{2014}'));
    }

    #[test]
    fn remove_is_offered_whenever_our_files_are_on_disk() {
        let r = row("claude", HooksState::NotInstalled, true);
        assert_eq!(r.actions(), vec![RowAction::Install, RowAction::Remove]);
        let r = row(
            "claude",
            HooksState::Error {
                message: "m".into(),
            },
            true,
        );
        assert_eq!(r.actions(), vec![RowAction::Remove]);
        let r = row("codex", HooksState::NotNeeded { why: "x".into() }, false);
        assert!(r.actions().is_empty());
    }

    #[test]
    fn pending_install_lists_the_files_before_writing() {
        let mut view = SettingsView::new(all_states(), all_on());
        view.pending = Some(PendingChange {
            agent: "claude".into(),
            action: RowAction::Install,
            files: vec![
                "~/.claude/settings.json (merge 3 entries)".into(),
                "~/.claude/termic-hooks/permission-request.sh (new)".into(),
            ],
            warning: Some(
                "disableAllHooks is set in ~/.claude/settings.json, so Claude will not run them."
                    .into(),
            ),
        });
        let t = draw(100, 36, |f| render(f, &view));
        let s = text(&t);
        assert!(s.contains("Install hooks for claude"), "{s}");
        assert!(s.contains("termic will write exactly these files:"), "{s}");
        assert!(
            s.contains("~/.claude/termic-hooks/permission-request.sh (new)"),
            "{s}"
        );
        assert!(s.contains("disableAllHooks is set"), "{s}");
        assert!(s.contains("y install   n cancel"), "{s}");
    }

    #[test]
    fn selection_wraps_over_rows_and_switches() {
        let mut view = SettingsView::new(all_states(), all_on());
        view.move_selection(-1);
        assert_eq!(view.selected_item(), SettingsItem::Wizard);
        view.move_selection(-3);
        assert_eq!(view.selected_item(), SettingsItem::Bell);
        view.move_selection(4);
        assert_eq!(view.selected_item(), SettingsItem::Agent(0));
    }

    fn all_on() -> NotifySettings {
        NotifySettings {
            bell: true,
            desktop: true,
            osc_fallback: true,
        }
    }

    fn eight_rows() -> Vec<HooksRow> {
        let mut rows = all_states();
        rows[1].help = Some(termic_hooks::agents::grok::SETTINGS_HELP.into());
        for agent in ["copilot", "cursor"] {
            rows.push(row(agent, HooksState::NotSupported, false));
        }
        rows
    }

    #[test]
    fn at_80x24_the_keys_stay_on_screen_and_the_selection_scrolls_into_view() {
        let mut view = SettingsView::new(eight_rows(), all_on());
        let s = text(&draw(80, 24, |f| render(f, &view)));
        assert!(s.contains("> claude"), "{s}");
        assert!(s.contains("Up/Down choose  Enter do it"), "{s}");
        view.move_selection(-1);
        let s = text(&draw(80, 24, |f| render(f, &view)));
        assert!(s.contains("> Show the first-run wizard again"), "{s}");
        assert!(s.contains("Esc close"), "{s}");
    }

    #[test]
    fn at_80x24_a_long_install_list_still_shows_how_to_answer() {
        let mut view = SettingsView::new(eight_rows(), all_on());
        let files: Vec<String> = (0..8)
            .map(|i| {
                format!(
                    "create   /home/someone/.claude/termic-hooks/hook-number-{i}.sh  (hook script)"
                )
            })
            .collect();
        view.pending = Some(PendingChange {
            agent: "claude".into(),
            action: RowAction::Install,
            files,
            warning: None,
        });
        let s = text(&draw(80, 24, |f| render(f, &view)));
        assert!(s.contains("y install   n cancel"), "{s}");
    }
}
