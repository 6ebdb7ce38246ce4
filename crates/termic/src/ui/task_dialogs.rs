//! Two small task screens: rename (prefix `,`) and details (prefix `t`).

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// Longest task name, in characters (a name is one sidebar line): the
/// runtime's rule, whoever renames.
pub use termic_runtime::names::NAME_LIMIT;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameView {
    /// The runtime id of the task being renamed.
    pub task: u64,
    pub old: String,
    pub name: String,
}

impl RenameView {
    pub fn new(task: u64, old: &str) -> Self {
        RenameView {
            task,
            old: old.to_string(),
            name: old.to_string(),
        }
    }

    /// Adds typed or pasted text; control and bidirectional characters are
    /// dropped (the runtime refuses them in a name) so a name can never
    /// carry an escape sequence into the sidebar or the log.
    pub fn push(&mut self, text: &str) {
        for c in text.chars().filter(|&c| !crate::printed::is_unprintable(c)) {
            if self.name.chars().count() < NAME_LIMIT {
                self.name.push(c);
            }
        }
    }
}

/// Facts about one task, as label and value rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailsView {
    pub title: String,
    pub rows: Vec<(String, String)>,
}

pub fn render_rename(frame: &mut Frame, view: &RenameView) {
    let inner = super::modal(frame, &format!("Rename {}", view.old), 60, 6);
    let lines = vec![
        Line::from(vec![
            Span::raw("Name: "),
            Span::styled(
                format!("{}_", view.name),
                Style::new().add_modifier(Modifier::BOLD),
            ),
        ]),
        Line::from(""),
        Line::styled("Enter rename  Esc cancel", Style::new().fg(Color::Cyan)),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

pub fn render_details(frame: &mut Frame, view: &DetailsView) {
    let label_width = view.rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    let height = view.rows.len() as u16 + 4;
    let inner = super::modal(frame, &view.title, 100, height);
    let mut lines: Vec<Line> = view
        .rows
        .iter()
        .map(|(label, value)| {
            Line::from(vec![
                Span::styled(
                    format!("{label:<label_width$}  "),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::raw(value.clone()),
            ])
        })
        .collect();
    lines.push(Line::from(""));
    lines.push(Line::styled("Esc close", Style::new().fg(Color::Cyan)));
    let area = Rect::new(inner.x, inner.y, inner.width, inner.height);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text};

    #[test]
    fn rename_shows_the_name_being_typed_and_drops_control_bytes() {
        let mut v = RenameView::new(3, "claude-2");
        v.name.clear();
        v.push("fix\x1b[31m login\n");
        assert_eq!(v.name, "fix[31m login");
        v.push(&"x".repeat(100));
        assert_eq!(v.name.chars().count(), NAME_LIMIT);
        let t = draw(70, 8, |f| render_rename(f, &RenameView::new(3, "claude-2")));
        let s = text(&t);
        assert!(s.contains("Rename claude-2"), "{s}");
        assert!(s.contains("Name: claude-2_"), "{s}");
        assert!(s.contains("Enter rename  Esc cancel"), "{s}");
    }

    #[test]
    fn details_align_their_labels() {
        let v = DetailsView {
            title: "fix (claude)".into(),
            rows: vec![
                ("directory".into(), "/work/app".into()),
                ("pid".into(), "4242".into()),
            ],
        };
        let t = draw(80, 8, |f| render_details(f, &v));
        let s = text(&t);
        assert!(s.contains("directory  /work/app"), "{s}");
        assert!(s.contains("pid        4242"), "{s}");
    }
}
