//! The diff view (issue 32): a task's changed files, their hunks and
//! lines, over the whole screen. Every name and line comes from the
//! repository and is data: cleaned ([`clean_line`]) before it is drawn.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use termic_signal::text::clean_line;

use crate::review::model::{FileDiff, FileStatus, LineKind};
use crate::review::view::{Content, DiffView, Row};
use crate::review::words;

/// The keys line at the bottom.
pub const KEYS: &str =
    "j k move  n N hunk  } { file  Space fold  z all  c comment  S send  m merge  q close";

/// The rows of changes an area of `height` rows shows (the keys line
/// and the frame excluded).
pub fn page_rows(height: u16) -> usize {
    usize::from(height.saturating_sub(5)).max(1)
}

pub fn render(frame: &mut Frame, view: &DiffView) {
    let area = frame.area();
    let stat = view
        .changes()
        .map(|c| format!(" ({})", c.stat()))
        .unwrap_or_default();
    let comments = match view.comments.len() {
        0 => String::new(),
        1 => ", 1 comment".to_owned(),
        n => format!(", {n} comments"),
    };
    let title = format!("Changes: {}{stat}{comments}", clean_line(&view.name));
    let inner = super::modal(
        frame,
        &title,
        area.width.saturating_sub(2),
        area.height.saturating_sub(1),
    );
    let rows = usize::from(inner.height.saturating_sub(1));
    let mut lines: Vec<Line> = Vec::with_capacity(rows + 1);
    match &view.content {
        Content::Loading => lines.push(Line::from("Reading the changes...")),
        Content::Failed(why) => lines.push(Line::styled(
            clean_line(why).into_owned(),
            Style::new().fg(Color::Red),
        )),
        Content::Ready(changes) => {
            if changes.files.is_empty() {
                lines.push(Line::from("No changes since the task started."));
            }
            let all = view.rows();
            for (i, row) in all.iter().enumerate().skip(view.top).take(rows) {
                let mut line = row_line(view, changes, *row);
                if view.commented(*row) {
                    line.spans
                        .insert(0, Span::styled("#", Style::new().fg(Color::Yellow)));
                }
                if i == view.cursor {
                    line = line.patch_style(Style::new().add_modifier(Modifier::REVERSED));
                }
                lines.push(line);
            }
            if changes.cut && lines.len() < rows {
                lines.push(Line::styled(
                    "(cut: the diff is longer than termic reads)",
                    Style::new().add_modifier(Modifier::DIM),
                ));
            }
        }
    }
    while lines.len() < rows {
        lines.push(Line::raw(""));
    }
    let bottom = match (&view.editing, &view.note) {
        (Some((_, text)), _) => Line::from(vec![
            Span::styled("Comment: ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!(
                "{}_  (Enter keeps it, Esc drops it)",
                clean_line(text)
            )),
        ]),
        (None, Some(note)) => Line::styled(
            clean_line(note).into_owned(),
            Style::new().fg(Color::Yellow),
        ),
        (None, None) => Line::styled(KEYS, Style::new().add_modifier(Modifier::DIM)),
    };
    lines.push(bottom);
    frame.render_widget(Paragraph::new(lines), inner);
}

fn file_label(f: &FileDiff) -> String {
    let path = clean_line(&f.path);
    match (&f.old_path, f.status) {
        (Some(old), _) => format!("{} -> {path}", clean_line(old)),
        (None, FileStatus::Added) => format!("{path} (new)"),
        (None, FileStatus::Deleted) => format!("{path} (deleted)"),
        (None, _) => path.into_owned(),
    }
}

fn row_line(view: &DiffView, changes: &crate::review::model::Changes, row: Row) -> Line<'static> {
    match row {
        Row::File(f) => {
            let file = &changes.files[f];
            let fold = if view.file_folded(f) { "+" } else { "-" };
            let counts = if file.binary {
                "binary".to_owned()
            } else {
                format!("+{} -{}", file.added, file.removed)
            };
            Line::from(vec![
                Span::styled(
                    format!("{fold} {}  ", file_label(file)),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::styled(counts, Style::new().fg(Color::Cyan)),
            ])
        }
        Row::Hunk(f, h) => {
            let hunk = &changes.files[f].hunks[h];
            let fold = if view.hunk_folded(f, h) { "+" } else { "-" };
            Line::styled(
                format!("  {fold} {}", clean_line(&hunk.header)),
                Style::new().fg(Color::Cyan),
            )
        }
        Row::Line(f, h, l) => {
            let line = &changes.files[f].hunks[h].lines[l];
            let number = line
                .new
                .or(line.old)
                .map_or_else(String::new, |n| n.to_string());
            let (mark, style) = match line.kind {
                LineKind::Added => ("+", Style::new().fg(Color::Green)),
                LineKind::Removed => ("-", Style::new().fg(Color::Red)),
                LineKind::Context => (" ", Style::new()),
                LineKind::NoNewline => ("", Style::new().add_modifier(Modifier::DIM)),
            };
            let number = Span::styled(
                format!("    {number:>5} "),
                Style::new().add_modifier(Modifier::DIM),
            );
            let hunk = &changes.files[f].hunks[h];
            let pieces = words::pairs(&hunk.lines)[l].and_then(|p| {
                let other = &hunk.lines[p].text;
                let (old, new) = match line.kind {
                    LineKind::Removed => words::word_diff(&line.text, other)?,
                    _ => words::word_diff(other, &line.text)?,
                };
                Some(if line.kind == LineKind::Removed {
                    old
                } else {
                    new
                })
            });
            let Some(pieces) = pieces else {
                return Line::from(vec![
                    number,
                    Span::styled(format!("{mark}{}", clean_line(&line.text)), style),
                ]);
            };
            // The changed words of a replaced line: reversed, in the line's colour.
            let mut spans = vec![number, Span::styled(mark, style)];
            spans.extend(pieces.iter().map(|p| {
                let style = if p.changed {
                    style.add_modifier(Modifier::REVERSED)
                } else {
                    style
                };
                Span::styled(clean_line(&p.text).into_owned(), style)
            }));
            Line::from(spans)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::model::{parse_numstat, parse_patch};
    use crate::ui::testing::{draw, text_lines};

    #[test]
    fn files_hunks_and_lines_are_drawn_coloured_and_hostile_text_cleaned() {
        let entries = parse_numstat(b"1\t1\tevil\x1b[31m.txt\x00");
        let patch = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\x1b]0;pwned\x07\x1b[2J\n";
        let mut v = DiffView::new(1, "fix\x1b[5m".into());
        v.content = Content::Ready(parse_patch(&entries, patch, false));
        let t = draw(100, 12, |f| render(f, &v));
        let lines = text_lines(&t);
        let all = lines.join("\n");
        assert!(all.contains("Changes: fix[5m (+1 -1, 1 file)"), "{all}");
        assert!(all.contains("- evil[31m.txt  +1 -1"), "{all}");
        assert!(all.contains("@@ -1 +1 @@"), "{all}");
        assert!(all.contains("1 -old"), "{all}");
        assert!(all.contains("1 +new]0;pwned[2J"), "{all}");
        assert!(!all.contains('\x1b') && !all.contains('\x07'), "{all:?}");
        assert!(all.contains("q close"), "{all}");
        // Added lines green, removed red.
        let row_of = |s: &str| lines.iter().position(|l| l.contains(s)).unwrap() as u16;
        let col_of = |s: &str, row: usize| {
            let line = &lines[row];
            line[..line.find(s).unwrap()].chars().count() as u16
        };
        let buf = t.backend().buffer();
        let r = row_of("+new");
        assert_eq!(buf[(col_of("+new", r.into()), r)].fg, Color::Green);
        let r = row_of("-old");
        assert_eq!(buf[(col_of("-old", r.into()), r)].fg, Color::Red);
    }

    #[test]
    fn a_replaced_line_shows_its_changed_words_reversed_and_the_rest_plain() {
        let entries = parse_numstat(b"1\t1\tx\x00");
        let patch =
            b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-let a = 1;\n+let b = 1;\n";
        let mut v = DiffView::new(1, "fix".into());
        v.content = Content::Ready(parse_patch(&entries, patch, false));
        let t = draw(100, 12, |f| render(f, &v));
        let lines = text_lines(&t);
        let buf = t.backend().buffer();
        let at = |line: &str, word: &str| {
            let r = lines.iter().position(|l| l.contains(line)).unwrap();
            let start = lines[r].find(line).unwrap() + line.find(word).unwrap();
            let c = lines[r][..start].chars().count();
            &buf[(c as u16, r as u16)]
        };
        let reversed = |c: &ratatui::buffer::Cell| c.modifier.contains(Modifier::REVERSED);
        assert!(reversed(at("+let b = 1;", "b")));
        assert!(!reversed(at("+let b = 1;", "let")));
        assert!(!reversed(at("+let b = 1;", "1")));
        assert!(reversed(at("-let a = 1;", "a")));
        assert!(!reversed(at("-let a = 1;", "=")));
        assert_eq!(at("+let b = 1;", "b").fg, Color::Green);
    }
}
