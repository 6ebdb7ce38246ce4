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
    let text_width = usize::from(inner.width)
        .saturating_sub(PREFIX_WIDTH)
        .max(10);
    let wrapped = |e: &InspectorEntry| wrap_words(&e.text, text_width).len();
    // Following the newest: start where the last entries, wrapped, fill
    // the window, so a long reason at the bottom is never cut off.
    let first = match view.scroll {
        None => {
            let mut used = 0;
            let mut first = view.entries.len();
            while first > 0 && used + wrapped(&view.entries[first - 1]) <= rows {
                first -= 1;
                used += wrapped(&view.entries[first]);
            }
            first
        }
        Some(_) => view.first_visible(rows),
    };
    let mut lines: Vec<Line> = Vec::with_capacity(rows + 2);
    if view.entries.is_empty() {
        lines.push(Line::from("Nothing seen yet on this task."));
    }
    let mut last = first;
    for entry in view.entries.iter().skip(first) {
        let entry_lines = entry_lines(entry, text_width);
        if lines.len() + entry_lines.len() > rows && last > first {
            break;
        }
        lines.extend(entry_lines);
        last += 1;
    }
    lines.truncate(rows);
    while lines.len() < rows {
        lines.push(Line::from(""));
    }
    lines.push(Line::from(""));
    let position = if view.entries.is_empty() {
        String::new()
    } else {
        format!("{}-{} of {}  ", first + 1, last, view.entries.len())
    };
    lines.push(Line::styled(
        format!("{position}Up/Down PgUp/PgDn scroll  Home top  End newest  Esc close"),
        Style::new().add_modifier(Modifier::DIM),
    ));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Columns before an entry's text: its time and its kind.
const PREFIX_WIDTH: usize = 23;

/// `text` split at spaces into lines of at most `width` characters (a word
/// longer than that is cut).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for word in text.split(' ') {
        let line = out.last_mut().expect("never empty");
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push(String::new());
        }
        let line = out.last_mut().expect("never empty");
        if !line.is_empty() {
            line.push(' ');
        }
        let mut rest = word;
        while rest.chars().count() > width {
            let cut = rest
                .char_indices()
                .nth(width)
                .map_or(rest.len(), |(i, _)| i);
            let line = out.last_mut().expect("never empty");
            line.push_str(&rest[..cut]);
            out.push(String::new());
            rest = &rest[cut..];
        }
        out.last_mut().expect("never empty").push_str(rest);
    }
    out
}

/// One entry: its time, kind and text, the text wrapped under itself.
fn entry_lines(entry: &InspectorEntry, text_width: usize) -> Vec<Line<'static>> {
    let at = format!("{:>9.3}s  ", entry.at.as_secs_f64());
    let (tag, style) = match entry.kind {
        EntryKind::Signal => ("signal      ", Style::new().add_modifier(Modifier::DIM)),
        EntryKind::Transition => (
            "transition  ",
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
    };
    wrap_words(&entry.text, text_width)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            if i == 0 {
                Line::from(vec![
                    Span::styled(at.clone(), Style::new().add_modifier(Modifier::DIM)),
                    Span::styled(tag, style),
                    Span::raw(text),
                ])
            } else {
                Line::from(format!("{:PREFIX_WIDTH$}{text}", ""))
            }
        })
        .collect()
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

    #[test]
    fn a_long_reason_wraps_under_its_text_at_80_columns() {
        let mut e = entries(3);
        e.push(InspectorEntry {
            at: Duration::from_secs(4),
            kind: EntryKind::Transition,
            text: "working -> needs_you (hook: attention kind=permission, held 1s) end-of-reason"
                .into(),
        });
        let view = InspectorView::new("t".into(), "claude".into(), e);
        let s = text(&draw(80, 24, |f| render(f, &view)));
        assert!(s.contains("end-of-reason"), "{s}");
        assert!(s.contains("1-4 of 4"), "{s}");
        assert_eq!(wrap_words("aaa bbb cccccc", 6), ["aaa", "bbb", "cccccc"],);
        assert_eq!(wrap_words("abcdefgh", 3), ["abc", "def", "gh"]);
    }
}
