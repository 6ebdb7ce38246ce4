//! The diff view (issue 32): a task's changed files, their hunks and
//! lines, over the whole screen. Every name and line comes from the
//! repository and is data: cleaned ([`clean_line`]) before it is drawn.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use termic_signal::text::clean_line;

use crate::review::highlight::Class;
use crate::review::model::{FileDiff, FileStatus, LineKind};
use crate::review::view::{Content, DiffView, Row};
use crate::review::words;

/// The keys line at the bottom.
pub const KEYS: &str =
    "j k  n N hunk  } { file  Space z fold  c comment  S send  r revert  R reload  m merge  q close";

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
    let reading = if view.refreshing {
        ", reading again"
    } else {
        ""
    };
    let title = format!(
        "Changes: {}{stat}{comments}{reading}",
        clean_line(&view.name)
    );
    let inner = super::modal(
        frame,
        &title,
        area.width.saturating_sub(2),
        area.height.saturating_sub(1),
    );
    let bottom = bottom_lines(view, inner.width);
    let rows = usize::from(inner.height).saturating_sub(bottom.len());
    let mut lines: Vec<Line> = Vec::with_capacity(rows + bottom.len());
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
    lines.extend(bottom);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The most rows a note takes at the bottom (a host's refusal names a
/// path and what to do, longer than a row).
pub const NOTE_ROWS: usize = 3;

/// The bottom of the view: the revert question, the comment being
/// typed, the note (wrapped to `width`, at most [`NOTE_ROWS`] rows) or
/// the keys.
fn bottom_lines(view: &DiffView, width: u16) -> Vec<Line<'static>> {
    let line = match (&view.editing, &view.note) {
        _ if view.confirm.is_some() => Line::styled(
            clean_line(&view.confirm_question().unwrap_or_default()).into_owned(),
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        (Some((_, text)), _) => Line::from(vec![
            Span::styled("Comment: ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!(
                "{}_  (Enter keeps it, Esc drops it)",
                clean_line(text)
            )),
        ]),
        (None, Some(note)) => {
            let width = usize::from(width).max(1);
            return super::inspector::wrap_words(&clean_line(note), width)
                .into_iter()
                .take(NOTE_ROWS)
                .map(|l| Line::styled(l, Style::new().fg(Color::Yellow)))
                .collect();
        }
        (None, None) => Line::styled(KEYS, Style::new().add_modifier(Modifier::DIM)),
    };
    vec![line]
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
            // The changed words of a replaced line: byte ranges over the raw text.
            let mut changed = Vec::new();
            let mut at = 0;
            for p in pieces.iter().flatten() {
                if p.changed {
                    changed.push(at..at + p.text.len());
                }
                at += p.text.len();
            }
            let syntax = match line.kind {
                LineKind::NoNewline => None,
                _ => view.syntax_spans(f, h),
            };
            let no_spans = Vec::new();
            let syntax = syntax.as_ref().and_then(|s| s.get(l)).unwrap_or(&no_spans);
            let mut spans = vec![number, Span::styled(mark, style)];
            spans.extend(styled_text(&line.text, &changed, syntax, style));
            Line::from(spans)
        }
    }
}

/// The colour of a piece of code: the outer terminal's own palette (its
/// theme), so it reads on a dark or a light background alike.
pub fn class_colour(class: Class) -> Color {
    match class {
        Class::Keyword => Color::Magenta,
        Class::String => Color::Yellow,
        Class::Comment => Color::DarkGray,
        Class::Number | Class::Constant => Color::LightCyan,
        Class::Function => Color::Blue,
        Class::Type => Color::LightBlue,
    }
}

/// A line's text as spans: `base` (the line's colour), a syntax class's
/// colour where it has one, reversed where a word changed; each piece
/// cleaned before it is drawn. Ranges are byte ranges of `text`.
fn styled_text(
    text: &str,
    changed: &[std::ops::Range<usize>],
    syntax: &[(std::ops::Range<usize>, Class)],
    base: Style,
) -> Vec<Span<'static>> {
    let mut cuts: Vec<usize> = vec![0, text.len()];
    for r in changed.iter().chain(syntax.iter().map(|(r, _)| r)) {
        cuts.extend([r.start.min(text.len()), r.end.min(text.len())]);
    }
    cuts.retain(|&c| text.is_char_boundary(c));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<Span<'static>> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mut style = base;
        if let Some((_, class)) = syntax.iter().find(|(r, _)| r.start <= a && b <= r.end) {
            style = style.fg(class_colour(*class));
        }
        if changed.iter().any(|r| r.start <= a && b <= r.end) {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let piece = clean_line(&text[a..b]).into_owned();
        match out.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(&piece),
            _ => out.push(Span::styled(piece, style)),
        }
    }
    out
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

    #[test]
    fn code_is_drawn_in_syntax_colours_cleaned_and_off_when_the_config_says() {
        let entries = parse_numstat(b"1\t1\tsrc/x.rs\x001\t0\tb.py\x00");
        let patch =
            b"diff --git a/src/x.rs b/src/x.rs\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n\
-let a = 1;\n+let s = \"\x1b]0;pwned\x07\x1b[2J\";\n\
diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1,2 @@\n import os\n+def go(): pass\n";
        let mut v = DiffView::new(1, "fix".into());
        v.content = Content::Ready(parse_patch(&entries, patch, false));
        let t = draw(100, 16, |f| render(f, &v));
        let lines = text_lines(&t);
        let all = lines.join("\n");
        assert!(all.contains("+let s = \"]0;pwned[2J\";"), "{all}");
        assert!(!all.contains('\x1b') && !all.contains('\x07'), "{all:?}");
        let buf = t.backend().buffer();
        let at = |line: &str, word: &str| {
            let r = lines.iter().position(|l| l.contains(line)).unwrap();
            let start = lines[r].find(line).unwrap() + line.find(word).unwrap();
            let c = lines[r][..start].chars().count();
            buf[(c as u16, r as u16)].clone()
        };
        // Keywords in their colour, the rest of an added line green, the
        // mark green; a removed line's keyword too, its changed word reversed.
        assert_eq!(at("+let s", "let").fg, Color::Magenta);
        assert_eq!(at("+let s", "+").fg, Color::Green);
        assert_eq!(
            at("+let s = \"]0;pwned", "pwned").fg,
            Color::Yellow,
            "a string"
        );
        assert_eq!(at("-let a", "let").fg, Color::Magenta);
        assert!(at("-let a = 1", "a =")
            .modifier
            .contains(Modifier::REVERSED));
        assert_eq!(at("-let a = 1", "a =").fg, Color::Red);
        assert_eq!(at("+def go", "def").fg, Color::Magenta);
        assert_eq!(at(" import os", "import").fg, Color::Magenta);
        // Off: only added and removed colours.
        v.syntax = false;
        let t = draw(100, 16, |f| render(f, &v));
        let buf = t.backend().buffer();
        let r = lines.iter().position(|l| l.contains("+let s")).unwrap();
        let c = lines[r][..lines[r].find("+let s").unwrap() + 1]
            .chars()
            .count();
        assert_eq!(buf[(c as u16, r as u16)].fg, Color::Green);
    }
    /// A note longer than a row (a host's refusal, naming a path and what
    /// to do) wraps at the bottom, at most [`NOTE_ROWS`] rows, cleaned.
    #[test]
    fn a_long_note_wraps_at_the_bottom_and_a_short_one_takes_one_row() {
        let entries = parse_numstat(b"1\t0\tx\x00");
        let patch = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+new\n";
        let mut v = DiffView::new(1, "fix".into());
        v.content = Content::Ready(parse_patch(&entries, patch, false));
        v.note = Some(format!(
            "Not removed: host far: the worktree is kept: {}. Have the agent commit \x1b[2J its \
             changes and merge again, or delete them with: git worktree remove --force /far/wt",
            "word ".repeat(12).trim_end()
        ));
        let t = draw(100, 12, |f| render(f, &v));
        let lines = text_lines(&t);
        let all = lines.join("\n");
        assert!(!all.contains('\x1b'), "{all:?}");
        assert!(all.contains("+new"), "the changes stay shown: {all}");
        let row_of = |s: &str| lines.iter().position(|l| l.contains(s));
        let first = row_of("Not removed: host far:").expect(&all);
        let last = row_of("--force /far/wt").expect(&all);
        assert_eq!(last, first + NOTE_ROWS - 1, "{all}");
        v.note = Some("Kept the hunk.".into());
        let all = text_lines(&draw(100, 12, |f| render(f, &v))).join("\n");
        assert!(all.contains("Kept the hunk."), "{all}");
        assert_eq!(all.matches("Kept").count(), 1, "{all}");
    }
}
