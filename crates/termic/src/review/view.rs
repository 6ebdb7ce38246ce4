//! The diff view's model (pure): rows over files, hunks and lines, a
//! cursor, folds, and the keys that move and fold (like tig and gitui).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::highlight;
use super::model::Changes;

/// The most hunks whose syntax colours the view keeps (then it forgets
/// them all and colours again what it draws).
const MAX_COLOURED_HUNKS: usize = 256;

/// The syntax spans of each line of a hunk, by (file, hunk).
type Coloured = HashMap<(usize, usize), Arc<Vec<highlight::Spans>>>;

/// One row of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    File(usize),
    Hunk(usize, usize),
    Line(usize, usize, usize),
}

impl Row {
    fn file(self) -> usize {
        match self {
            Row::File(f) | Row::Hunk(f, _) | Row::Line(f, _, _) => f,
        }
    }
}

/// What the view shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Loading,
    /// Why there is nothing to show (the message for the user).
    Failed(String),
    Ready(Changes),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffView {
    /// The task's runtime id and name.
    pub task: u64,
    pub name: String,
    pub content: Content,
    /// The cursor's row in [`DiffView::rows`].
    pub cursor: usize,
    /// The first row drawn.
    pub top: usize,
    folded_files: HashSet<usize>,
    folded_hunks: HashSet<(usize, usize)>,
    /// The comments made, in the order made.
    pub comments: Vec<Comment>,
    /// A comment being typed (`c`), for the row it was started on.
    pub editing: Option<(Row, String)>,
    /// A line for the user in place of the keys (why a send was refused,
    /// what was sent).
    pub note: Option<String>,
    /// A hunk (file, hunk) whose revert waits for `y` or `n`.
    pub confirm: Option<(usize, usize)>,
    /// The changes are being read again (the old ones stay shown).
    pub refreshing: bool,
    /// Syntax colours on (`[ui] diff_syntax`).
    pub syntax: bool,
    /// The syntax spans of each hunk drawn, by (file, hunk); boxed to keep
    /// the view (an `Overlay` variant) small.
    coloured: Box<RefCell<Coloured>>,
}

/// A comment on a line or a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// The row it is on; `None` once a refresh no longer shows that line.
    pub row: Option<Row>,
    pub path: String,
    /// The line's number (in the new file; the old one for a removed
    /// line); `None` for a hunk.
    pub line: Option<u32>,
    /// The line's text, or the hunk's header.
    pub quoted: String,
    pub text: String,
}

/// A key the view acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextHunk,
    PreviousHunk,
    NextFile,
    PreviousFile,
    /// Fold or unfold the file or hunk under the cursor.
    Toggle,
    /// Fold every file, or unfold all when all are folded.
    ToggleAll,
}

impl DiffView {
    pub fn new(task: u64, name: String) -> DiffView {
        DiffView {
            task,
            name,
            content: Content::Loading,
            cursor: 0,
            top: 0,
            folded_files: HashSet::new(),
            folded_hunks: HashSet::new(),
            comments: Vec::new(),
            editing: None,
            note: None,
            confirm: None,
            refreshing: false,
            syntax: true,
            coloured: Box::default(),
        }
    }

    /// The row under the cursor.
    pub fn current(&self) -> Option<Row> {
        self.rows().get(self.cursor).copied()
    }

    /// Starts a comment on the line or hunk under the cursor (a file row
    /// takes none). Returns whether one was started.
    pub fn start_comment(&mut self) -> bool {
        match self.current() {
            Some(row @ (Row::Line(..) | Row::Hunk(..))) => {
                self.editing = Some((row, String::new()));
                true
            }
            _ => false,
        }
    }

    /// Keeps the comment being typed (an empty one is dropped).
    pub fn finish_comment(&mut self) {
        let Some((row, text)) = self.editing.take() else {
            return;
        };
        let text = text.trim().to_owned();
        let Some(changes) = self.changes() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let (path, line, quoted) = match row {
            Row::Line(f, h, l) => {
                let line = &changes.files[f].hunks[h].lines[l];
                (
                    changes.files[f].path.clone(),
                    line.new.or(line.old),
                    line.text.clone(),
                )
            }
            Row::Hunk(f, h) => (
                changes.files[f].path.clone(),
                None,
                changes.files[f].hunks[h].header.clone(),
            ),
            Row::File(_) => return,
        };
        self.comments.push(Comment {
            row: Some(row),
            path,
            line,
            quoted,
            text,
        });
    }

    /// Whether `row` has a comment.
    pub fn commented(&self, row: Row) -> bool {
        self.comments.iter().any(|c| c.row == Some(row))
    }

    /// Every comment as one prompt for the agent: file, line, the quoted
    /// line and the comment, each (pure).
    pub fn prompt(&self) -> String {
        let mut out = String::from("Review comments on your changes:\n");
        for c in &self.comments {
            out.push('\n');
            match c.line {
                Some(n) => {
                    out.push_str(&format!("{} line {n}: `{}`\n", c.path, c.quoted.trim_end()))
                }
                None => out.push_str(&format!("{} hunk {}:\n", c.path, c.quoted.trim_end())),
            }
            for line in c.text.lines() {
                out.push_str(&format!("> {line}\n"));
            }
        }
        out
    }

    /// The hunk (file, hunk) of the row under the cursor (a file row has
    /// none).
    pub fn hunk_at_cursor(&self) -> Option<(usize, usize)> {
        match self.current()? {
            Row::Hunk(f, h) | Row::Line(f, h, _) => Some((f, h)),
            Row::File(_) => None,
        }
    }

    /// The question for a revert waiting for `y` or `n`.
    pub fn confirm_question(&self) -> Option<String> {
        let (f, h) = self.confirm?;
        let file = self.changes()?.files.get(f)?;
        let n = file.hunks.len();
        Some(format!(
            "Revert hunk {} of {n} in {}? y reverts, n keeps it",
            h + 1,
            file.path
        ))
    }

    /// New changes read again (after a revert, `R`, or the task's turn
    /// end): the cursor stays on the same file (on the same hunk or line
    /// of it when there still is one), folded files stay folded, and
    /// each comment finds its line again (same file, number and text).
    pub fn replace(&mut self, changes: Changes, page: usize) {
        let at = self.current();
        let old = self.changes().cloned().unwrap_or_default();
        let path_of = |f: usize| old.files.get(f).map(|x| x.path.clone());
        let folded: HashSet<String> = self
            .folded_files
            .iter()
            .filter_map(|f| path_of(*f))
            .collect();
        let find = |path: &str| changes.files.iter().position(|x| x.path == path);
        self.folded_files = folded.iter().filter_map(|p| find(p)).collect();
        self.folded_hunks.clear();
        for c in &mut self.comments {
            c.row = find(&c.path).and_then(|f| {
                let file = &changes.files[f];
                file.hunks
                    .iter()
                    .enumerate()
                    .find_map(|(h, hunk)| match c.line {
                        None => (hunk.header == c.quoted).then_some(Row::Hunk(f, h)),
                        Some(_) => hunk
                            .lines
                            .iter()
                            .position(|l| l.new.or(l.old) == c.line && l.text == c.quoted)
                            .map(|l| Row::Line(f, h, l)),
                    })
            });
        }
        let target = at.and_then(|row| {
            let f = find(&path_of(row.file())?)?;
            let file = &changes.files[f];
            Some(match row {
                Row::Hunk(_, h) if h < file.hunks.len() => Row::Hunk(f, h),
                Row::Line(_, h, l) if file.hunks.get(h).is_some_and(|x| l < x.lines.len()) => {
                    Row::Line(f, h, l)
                }
                _ => Row::File(f),
            })
        });
        let before = self.cursor;
        self.content = Content::Ready(changes);
        self.coloured.borrow_mut().clear();
        self.refreshing = false;
        self.confirm = None;
        let rows = self.rows();
        self.cursor = target
            .and_then(|t| rows.iter().position(|r| *r == t))
            .unwrap_or_else(|| before.min(rows.len().saturating_sub(1)));
        self.top = self.top.min(self.cursor);
        self.scroll_into_view(page);
    }

    /// The syntax spans of each line of hunk `h` of file `f` (none when
    /// colours are off), worked out once and kept.
    pub fn syntax_spans(&self, f: usize, h: usize) -> Option<Arc<Vec<highlight::Spans>>> {
        if !self.syntax {
            return None;
        }
        if let Some(spans) = self.coloured.borrow().get(&(f, h)) {
            return Some(spans.clone());
        }
        let file = self.changes()?.files.get(f)?;
        let spans = Arc::new(highlight::hunk(&file.path, file.hunks.get(h)?));
        let mut kept = self.coloured.borrow_mut();
        if kept.len() >= MAX_COLOURED_HUNKS {
            kept.clear();
        }
        kept.insert((f, h), spans.clone());
        Some(spans)
    }

    pub fn changes(&self) -> Option<&Changes> {
        match &self.content {
            Content::Ready(c) => Some(c),
            _ => None,
        }
    }

    /// Every row not hidden by a fold, in order.
    pub fn rows(&self) -> Vec<Row> {
        let Some(changes) = self.changes() else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for (f, file) in changes.files.iter().enumerate() {
            rows.push(Row::File(f));
            if self.folded_files.contains(&f) {
                continue;
            }
            for (h, hunk) in file.hunks.iter().enumerate() {
                rows.push(Row::Hunk(f, h));
                if self.folded_hunks.contains(&(f, h)) {
                    continue;
                }
                rows.extend((0..hunk.lines.len()).map(|l| Row::Line(f, h, l)));
            }
        }
        rows
    }

    pub fn file_folded(&self, f: usize) -> bool {
        self.folded_files.contains(&f)
    }

    pub fn hunk_folded(&self, f: usize, h: usize) -> bool {
        self.folded_hunks.contains(&(f, h))
    }

    /// Acts on a key; `page` is the rows drawn.
    pub fn apply(&mut self, m: Move, page: usize) {
        let rows = self.rows();
        if rows.is_empty() {
            return;
        }
        let last = rows.len() - 1;
        let at = self.cursor.min(last);
        let find_after = |pred: &dyn Fn(Row) -> bool| {
            (at + 1..rows.len()).find(|&i| pred(rows[i])).unwrap_or(at)
        };
        let find_before =
            |pred: &dyn Fn(Row) -> bool| (0..at).rev().find(|&i| pred(rows[i])).unwrap_or(at);
        let is_hunk = |r: Row| matches!(r, Row::Hunk(..));
        let is_file = |r: Row| matches!(r, Row::File(_));
        self.cursor = match m {
            Move::Down => (at + 1).min(last),
            Move::Up => at.saturating_sub(1),
            Move::PageDown => (at + page.max(1)).min(last),
            Move::PageUp => at.saturating_sub(page.max(1)),
            Move::Top => 0,
            Move::Bottom => last,
            Move::NextHunk => find_after(&is_hunk),
            Move::PreviousHunk => find_before(&is_hunk),
            Move::NextFile => find_after(&is_file),
            Move::PreviousFile => find_before(&is_file),
            Move::Toggle => {
                let row = rows[at];
                match row {
                    Row::File(f) => toggle(&mut self.folded_files, f),
                    Row::Hunk(f, h) => toggle(&mut self.folded_hunks, (f, h)),
                    // On a line: its hunk folds, the cursor goes to it.
                    Row::Line(f, h, _) => {
                        toggle(&mut self.folded_hunks, (f, h));
                    }
                }
                self.land_on(row)
            }
            Move::ToggleAll => {
                let files = self.changes().map_or(0, |c| c.files.len());
                if self.folded_files.len() == files {
                    self.folded_files.clear();
                } else {
                    self.folded_files = (0..files).collect();
                }
                let file = Row::File(rows[at].file());
                self.land_on(file)
            }
        };
        self.scroll_into_view(page);
    }

    /// The row index of `row` after a fold, or of what holds it now.
    fn land_on(&self, row: Row) -> usize {
        let rows = self.rows();
        let target = match row {
            Row::Line(f, h, _) => Row::Hunk(f, h),
            other => other,
        };
        rows.iter()
            .position(|r| *r == row)
            .or_else(|| rows.iter().position(|r| *r == target))
            .or_else(|| rows.iter().position(|r| *r == Row::File(row.file())))
            .unwrap_or(0)
    }

    /// Moves `top` so the cursor is within `page` rows of it.
    pub fn scroll_into_view(&mut self, page: usize) {
        let page = page.max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + page {
            self.top = self.cursor + 1 - page;
        }
    }
}

fn toggle<T: std::hash::Hash + Eq>(set: &mut HashSet<T>, v: T) {
    if !set.remove(&v) {
        set.insert(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::model::{parse_numstat, parse_patch};

    fn view() -> DiffView {
        let entries = parse_numstat(b"2\t1\ta.txt\x001\t0\tb.txt\x00");
        let patch = b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n\
@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n@@ -9 +9,2 @@\n nine\n+ten\n\
diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1,2 @@\n b\n+b2\n";
        let mut v = DiffView::new(1, "t".into());
        v.content = Content::Ready(parse_patch(&entries, patch, false));
        v
    }

    #[test]
    fn rows_list_files_hunks_and_lines_and_keys_move_between_them() {
        let mut v = view();
        let rows = v.rows();
        // a.txt, hunk, 3 lines, hunk, 2 lines, b.txt, hunk, 2 lines.
        assert_eq!(rows.len(), 12, "{rows:?}");
        assert_eq!(rows[0], Row::File(0));
        assert_eq!(rows[1], Row::Hunk(0, 0));
        assert_eq!(rows[8], Row::File(1));
        v.apply(Move::NextHunk, 5);
        assert_eq!(v.rows()[v.cursor], Row::Hunk(0, 0));
        v.apply(Move::NextHunk, 5);
        assert_eq!(v.rows()[v.cursor], Row::Hunk(0, 1));
        v.apply(Move::NextFile, 5);
        assert_eq!(v.rows()[v.cursor], Row::File(1));
        // Scrolled so the cursor shows in a 5-row page.
        assert!(v.cursor >= v.top && v.cursor < v.top + 5, "{v:?}");
        v.apply(Move::PreviousFile, 5);
        assert_eq!(v.cursor, 0);
        assert_eq!(v.top, 0);
        v.apply(Move::Bottom, 5);
        assert_eq!(v.cursor, 11);
        v.apply(Move::Down, 5);
        assert_eq!(v.cursor, 11, "the cursor stops at the last row");
    }

    #[test]
    fn folding_hides_a_files_hunks_or_a_hunks_lines_and_keeps_the_cursor_on_it() {
        let mut v = view();
        v.apply(Move::Toggle, 10);
        assert!(v.file_folded(0));
        assert_eq!(v.rows()[..2], [Row::File(0), Row::File(1)]);
        v.apply(Move::Toggle, 10);
        assert_eq!(v.rows().len(), 12);
        // On a line, its hunk folds and the cursor goes to the hunk.
        v.apply(Move::Down, 10);
        v.apply(Move::Down, 10);
        v.apply(Move::Toggle, 10);
        assert!(v.hunk_folded(0, 0));
        assert_eq!(v.rows()[v.cursor], Row::Hunk(0, 0));
        assert_eq!(v.rows().len(), 9);
        v.apply(Move::ToggleAll, 10);
        assert_eq!(v.rows(), [Row::File(0), Row::File(1)]);
        v.apply(Move::ToggleAll, 10);
        assert_eq!(v.rows().len(), 9, "the hunk fold stays");
    }

    #[test]
    fn comments_on_a_line_and_a_hunk_make_one_prompt_with_file_line_and_quote() {
        let mut v = view();
        assert!(!v.start_comment(), "a file row takes no comment");
        v.apply(Move::Down, 10);
        v.apply(Move::Down, 10);
        v.apply(Move::Down, 10);
        assert_eq!(v.current(), Some(Row::Line(0, 0, 1)));
        assert!(v.start_comment());
        v.editing.as_mut().unwrap().1.push_str("why remove two?");
        v.finish_comment();
        v.apply(Move::NextFile, 10);
        v.apply(Move::NextHunk, 10);
        assert!(v.start_comment());
        v.editing.as_mut().unwrap().1.push_str("  ");
        v.finish_comment();
        assert_eq!(v.comments.len(), 1, "an empty comment is dropped");
        assert!(v.start_comment());
        v.editing.as_mut().unwrap().1.push_str("add a test");
        v.finish_comment();
        assert!(v.commented(Row::Line(0, 0, 1)));
        assert_eq!(
            v.prompt(),
            "Review comments on your changes:\n\na.txt line 2: `two`\n> why remove two?\n\n\
             b.txt hunk @@ -1 +1,2 @@:\n> add a test\n"
        );
    }

    #[test]
    fn a_refresh_keeps_the_cursor_on_the_same_file_and_comments_on_their_lines() {
        let mut v = view();
        v.apply(Move::NextFile, 10);
        v.apply(Move::Down, 10);
        v.apply(Move::Down, 10);
        assert_eq!(v.current(), Some(Row::Line(1, 0, 0)));
        assert!(v.start_comment());
        v.editing.as_mut().unwrap().1.push_str("keep b");
        v.finish_comment();
        v.apply(Move::Top, 10);
        v.apply(Move::Toggle, 10);
        assert!(v.file_folded(0));
        v.apply(Move::NextFile, 10);
        v.apply(Move::Down, 10);
        v.apply(Move::Down, 10);
        assert_eq!(v.current(), Some(Row::Line(1, 0, 0)));
        // Read again: a new file comes first, a.txt lost its first hunk.
        let entries = parse_numstat(b"1\t0\t0.txt\x001\t0\ta.txt\x001\t0\tb.txt\x00");
        let patch =
            b"diff --git a/0.txt b/0.txt\n--- a/0.txt\n+++ b/0.txt\n@@ -1 +1,2 @@\n z\n+z2\n\
diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -9 +9,2 @@\n nine\n+ten\n\
diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1,2 @@\n b\n+b2\n";
        v.refreshing = true;
        v.replace(parse_patch(&entries, patch, false), 10);
        assert!(!v.refreshing);
        assert_eq!(v.current(), Some(Row::Line(2, 0, 0)), "same line of b.txt");
        assert!(v.file_folded(1), "a.txt stays folded");
        assert!(!v.file_folded(0));
        assert!(v.commented(Row::Line(2, 0, 0)));
        // A file gone: the cursor stays where it was, within the rows.
        let entries = parse_numstat(b"1\t0\t0.txt\x00");
        let patch =
            b"diff --git a/0.txt b/0.txt\n--- a/0.txt\n+++ b/0.txt\n@@ -1 +1,2 @@\n z\n+z2\n";
        v.replace(parse_patch(&entries, patch, false), 10);
        assert_eq!(v.cursor, 3);
        assert_eq!(v.comments[0].row, None, "its line is gone");
        assert_eq!(v.comments.len(), 1, "the comment is still sent");
    }

    #[test]
    fn a_revert_asks_about_the_hunk_under_the_cursor() {
        let mut v = view();
        assert_eq!(v.hunk_at_cursor(), None, "a file row has no hunk");
        v.apply(Move::NextHunk, 10);
        v.apply(Move::NextHunk, 10);
        v.apply(Move::Down, 10);
        assert_eq!(v.hunk_at_cursor(), Some((0, 1)));
        v.confirm = v.hunk_at_cursor();
        assert_eq!(
            v.confirm_question().unwrap(),
            "Revert hunk 2 of 2 in a.txt? y reverts, n keeps it"
        );
    }

    #[test]
    fn an_empty_or_loading_view_ignores_keys() {
        let mut v = DiffView::new(1, "t".into());
        v.apply(Move::Down, 5);
        v.apply(Move::Toggle, 5);
        assert_eq!(v.cursor, 0);
    }
}
