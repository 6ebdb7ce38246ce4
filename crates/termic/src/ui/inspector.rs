//! The Signal Inspector: for one task, every signal termic saw and every
//! transition with its reason, oldest first. Where a user goes when a badge
//! looks wrong.

use std::time::Duration;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// Something the scanner or the user produced (title, hook, key, timer).
    Signal,
    /// A state change, with its reason.
    Transition,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectorEntry {
    /// Time since the task started.
    pub at: Duration,
    pub kind: EntryKind,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectorView {
    pub task: String,
    pub agent: String,
    pub entries: Vec<InspectorEntry>,
    /// First entry shown. `None` follows the newest entries.
    pub scroll: Option<usize>,
}

impl InspectorView {
    pub fn new(task: String, agent: String, entries: Vec<InspectorEntry>) -> Self {
        InspectorView {
            task,
            agent,
            entries,
            scroll: None,
        }
    }

    /// The first entry to show in a window of `rows` lines.
    pub fn first_visible(&self, rows: usize) -> usize {
        let last_page = self.entries.len().saturating_sub(rows);
        self.scroll.map_or(last_page, |s| s.min(last_page))
    }

    /// Scrolls by `delta` entries; scrolling past the end follows again.
    pub fn scroll_by(&mut self, delta: isize, rows: usize) {
        let last_page = self.entries.len().saturating_sub(rows);
        let next = (self.first_visible(rows) as isize + delta).max(0) as usize;
        self.scroll = (next < last_page).then_some(next);
    }

    pub fn scroll_to_top(&mut self) {
        self.scroll = Some(0);
    }

    pub fn follow(&mut self) {
        self.scroll = None;
    }
}

/// Rows of entries the Inspector shows at once for a screen `height` tall.
pub fn visible_rows(height: u16) -> usize {
    height.saturating_sub(2 + 4) as usize
}

pub fn render(frame: &mut Frame, view: &InspectorView) {
    let area = frame.area();
    let title = format!("Inspector: {} ({})", view.task, view.agent);
    let inner = super::modal(
        frame,
        &title,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let rows = inner.height.saturating_sub(2) as usize;
    let first = view.first_visible(rows);
    let mut lines: Vec<Line> = Vec::with_capacity(rows + 2);
    if view.entries.is_empty() {
        lines.push(Line::from("Nothing seen yet on this task."));
    }
    for entry in view.entries.iter().skip(first).take(rows) {
        lines.push(entry_line(entry));
    }
    while lines.len() < rows {
        lines.push(Line::from(""));
    }
    lines.push(Line::from(""));
    let position = if view.entries.is_empty() {
        String::new()
    } else {
        format!(
            "{}-{} of {}  ",
            first + 1,
            (first + rows).min(view.entries.len()),
            view.entries.len()
        )
    };
    lines.push(Line::styled(
        format!("{position}Up/Down PgUp/PgDn scroll  Home top  End newest  Esc close"),
        Style::new().add_modifier(Modifier::DIM),
    ));
    frame.render_widget(Paragraph::new(lines), inner);
}

fn entry_line(entry: &InspectorEntry) -> Line<'static> {
    let at = format!("{:>9.3}s  ", entry.at.as_secs_f64());
    let (tag, style) = match entry.kind {
        EntryKind::Signal => ("signal      ", Style::new().add_modifier(Modifier::DIM)),
        EntryKind::Transition => (
            "transition  ",
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
    };
    Line::from(vec![
        Span::styled(at, Style::new().add_modifier(Modifier::DIM)),
        Span::styled(tag, style),
        Span::raw(entry.text.clone()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text};

    fn entries(n: usize) -> Vec<InspectorEntry> {
        (0..n)
            .map(|i| InspectorEntry {
                at: Duration::from_millis(i as u64 * 1500),
                kind: if i % 2 == 0 {
                    EntryKind::Signal
                } else {
                    EntryKind::Transition
                },
                text: format!("entry {i}"),
            })
            .collect()
    }

    #[test]
    fn shows_a_transition_with_its_reason() {
        let view = InspectorView::new(
            "fix".into(),
            "claude".into(),
            vec![
                InspectorEntry {
                    at: Duration::from_millis(1200),
                    kind: EntryKind::Signal,
                    text: "hook attention kind=permission".into(),
                },
                InspectorEntry {
                    at: Duration::from_millis(1201),
                    kind: EntryKind::Transition,
                    text: "working -> needs_you: hook PermissionRequest (kind=permission)".into(),
                },
            ],
        );
        let s = text(&draw(100, 20, |f| render(f, &view)));
        assert!(s.contains("Inspector: fix (claude)"), "{s}");
        assert!(
            s.contains("    1.200s  signal      hook attention kind=permission"),
            "{s}"
        );
        assert!(s.contains("    1.201s  transition  working -> needs_you: hook PermissionRequest (kind=permission)"), "{s}");
        assert!(s.contains("1-2 of 2"), "{s}");
    }

    #[test]
    fn follows_the_newest_until_scrolled_and_returns_at_the_end() {
        let mut view = InspectorView::new("t".into(), "a".into(), entries(50));
        assert_eq!(view.first_visible(10), 40);
        view.scroll_by(-5, 10);
        assert_eq!(view.first_visible(10), 35);
        let s = text(&draw(80, 14, |f| render(f, &view)));
        assert!(s.contains("entry 35") && !s.contains("entry 34"), "{s}");
        view.scroll_by(100, 10);
        assert_eq!(view.scroll, None);
        view.scroll_to_top();
        assert_eq!(view.first_visible(10), 0);
    }

    #[test]
    fn empty_timeline_says_so() {
        let view = InspectorView::new("t".into(), "a".into(), vec![]);
        let s = text(&draw(80, 10, |f| render(f, &view)));
        assert!(s.contains("Nothing seen yet on this task."));
    }
}
