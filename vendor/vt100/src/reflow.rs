//! termic: reflow. Rows in the compact form
//! ([`crate::capture::RowContents::write_compact`]) are rewrapped to a new
//! width ([`Rewrap`]), and the normal grid is rebuilt from such rows
//! ([`crate::Screen::set_size_reflowed`]). Rows joined by a soft wrap (the
//! row's wrapped flag) form one logical line; a hard line end never joins.
//! A wide character never splits: one that does not fit the rest of a row
//! starts the next, leaving the last cell blank (as vt100's own wrap does).
//! termic keeps the scrollback outside vt100 and drives the whole reflow
//! (crates/termic/src/runtime/history.rs).

use alloc::vec::Vec;

use crate::capture::{compact_attrs, push_compact_attrs, utf8_len, COMPACT_ATTRS, COMPACT_ATTRS_LEN};

/// A row in the compact form and whether it is soft-wrapped (its logical
/// line goes on in the next row).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompactRow {
    /// The row's text and attribute records (`write_compact`).
    pub bytes: Vec<u8>,
    /// The row's line goes on in the next row.
    pub wrapped: bool,
}

/// The normal screen as a reflow takes it
/// ([`crate::Screen::normal_rows_compact`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NormalScreen {
    /// Its rows, top to bottom.
    pub rows: Vec<CompactRow>,
    /// The cursor (row, column).
    pub cursor: (u16, u16),
    /// The saved cursor (row, column): where leaving the alternate screen
    /// puts the cursor back.
    pub saved_cursor: (u16, u16),
}

/// An attribute record of the compact form.
type Record = [u8; COMPACT_ATTRS_LEN];

/// The record of default attributes (each compact row starts with them).
fn default_record() -> Record {
    let mut v = Vec::with_capacity(COMPACT_ATTRS_LEN);
    push_compact_attrs(&mut v, &crate::attrs::Attrs::new());
    let mut record = [0; COMPACT_ATTRS_LEN];
    record.copy_from_slice(&v);
    record
}

/// A piece of a compact row.
#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    /// An attribute record: the cells after it have these attributes.
    Attrs(&'a [u8]),
    /// A run of narrow one-byte cells (ASCII), one cell per byte.
    Ascii(&'a [u8]),
    /// One cell: its text (a character and the zero-width ones after it)
    /// and whether it is wide (two cells).
    Cell(&'a [u8], bool),
}

/// The tokens of a compact row, in order. A cut-off attribute record (a
/// damaged capture) ends the row, as [`crate::capture::compact_to_formatted`]
/// reads it.
struct Tokens<'a> {
    rest: &'a [u8],
}

impl<'a> Tokens<'a> {
    fn new(compact: &'a [u8]) -> Self {
        Self { rest: compact }
    }

    /// The length of the character at `at` and whether it has width zero
    /// (it joins the cell before it, as `Screen::text` appends it).
    fn char_at(&self, at: usize) -> Option<(usize, bool)> {
        let lead = *self.rest.get(at)?;
        if lead < 0x80 {
            return Some((1, false));
        }
        let len = utf8_len(lead).min(self.rest.len() - at);
        let c = core::str::from_utf8(&self.rest[at..at + len])
            .ok()
            .and_then(|s| s.chars().next())?;
        Some((len, unicode_width::UnicodeWidthChar::width(c) == Some(0)))
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        let rest = self.rest;
        let first = *rest.first()?;
        if first == COMPACT_ATTRS {
            if rest.len() < COMPACT_ATTRS_LEN {
                self.rest = &[];
                return None;
            }
            self.rest = &rest[COMPACT_ATTRS_LEN..];
            return Some(Token::Attrs(&rest[..COMPACT_ATTRS_LEN]));
        }
        if first < 0x80 {
            let mut run = rest
                .iter()
                .position(|&b| b >= 0x80 || b == COMPACT_ATTRS)
                .unwrap_or(rest.len());
            // the last byte of the run is a cell of its own with the
            // combining characters after it
            if run < rest.len() && rest[run] != COMPACT_ATTRS {
                if let Some((_, true)) = self.char_at(run) {
                    run -= 1;
                }
            }
            if run > 0 {
                self.rest = &rest[run..];
                return Some(Token::Ascii(&rest[..run]));
            }
        }
        // one cell: a character and the zero-width ones after it
        let (mut end, _) = self.char_at(0)?;
        while let Some((len, true)) = self.char_at(end) {
            end += len;
        }
        let text = &rest[..end];
        self.rest = &rest[end..];
        let wide = match core::str::from_utf8(text) {
            // the cell decides its width (a U+FE0F widens), as when written
            Ok(s) => {
                let mut cell = crate::Cell::new();
                cell.set_contents(s, crate::attrs::Attrs::new());
                cell.is_wide()
            }
            Err(_) => false,
        };
        Some(Token::Cell(text, wide))
    }
}

/// Rewraps logical lines, given as their compact rows, to `cols` columns.
/// Feed each row of a line ([`Self::feed`]), then end the line
/// ([`Self::end_line`]); every finished row goes to `emit` as it is made,
/// each starting from default attributes. [`Self::mark`] finds where a
/// cell of the line (the cursor's) lands.
#[derive(Debug)]
pub struct Rewrap {
    cols: u16,
    /// The row being made, in the compact form.
    row: Vec<u8>,
    /// Cells in `row`.
    col: u16,
    /// The attributes in effect at the end of `row`.
    row_attrs: Record,
    /// The attributes of the input's next cell.
    attrs: Record,
    default: Record,
    /// Rows of the current line emitted.
    rows: usize,
    /// Cells of the current line fed.
    fed: usize,
    /// The cell (counted from the line's start) whose new place is wanted.
    mark: Option<usize>,
    found: Option<(usize, u16)>,
}

impl Rewrap {
    /// A rewrap to `cols` columns (at least 1).
    #[must_use]
    pub fn new(cols: u16) -> Self {
        let default = default_record();
        Self {
            cols: cols.max(1),
            row: Vec::new(),
            col: 0,
            row_attrs: default,
            attrs: default,
            default,
            rows: 0,
            fed: 0,
            mark: None,
            found: None,
        }
    }

    /// Cells of the current line fed so far.
    #[must_use]
    pub fn fed(&self) -> usize {
        self.fed
    }

    /// Rows of the current line emitted so far (all soft-wrapped).
    #[must_use]
    pub fn rows_emitted(&self) -> usize {
        self.rows
    }

    /// Wants the place of the line's cell `cell` (counted from the line's
    /// start; past the text it is the blank at that distance), told by
    /// [`Self::end_line`].
    pub fn mark(&mut self, cell: usize) {
        self.mark = Some(cell);
        self.found = None;
    }

    /// Feeds the next row of the current line (it starts from default
    /// attributes, as every compact row does).
    pub fn feed(&mut self, compact: &[u8], emit: &mut impl FnMut(&[u8], bool)) {
        self.attrs = self.default;
        for token in Tokens::new(compact) {
            match token {
                Token::Attrs(record) => self.attrs.copy_from_slice(record),
                Token::Ascii(mut run) => {
                    while !run.is_empty() {
                        if self.col >= self.cols {
                            self.next_row(emit);
                        }
                        let n = run.len().min(usize::from(self.cols - self.col));
                        self.place(&run[..n], n, true);
                        run = &run[n..];
                    }
                }
                Token::Cell(text, wide) => {
                    let width = if wide { 2 } else { 1 };
                    // a wide character never splits: it starts the next row
                    // (a one-column row holds it alone)
                    if self.col > 0 && self.col + width > self.cols {
                        self.next_row(emit);
                    }
                    self.place(text, usize::from(width), false);
                }
            }
        }
    }

    /// Appends `text`, `width` cells that fit on the row (one cell per
    /// byte when `per_byte`, else one cell), with the input's current
    /// attributes.
    fn place(&mut self, text: &[u8], width: usize, per_byte: bool) {
        if let Some(mark) = self.mark.filter(|_| self.found.is_none()) {
            if (self.fed..self.fed + width).contains(&mark) {
                // a mark on a wide character's second half is its first
                let into = if per_byte { mark - self.fed } else { 0 };
                self.found = Some((self.rows, self.col + into as u16));
            }
        }
        if self.attrs != self.row_attrs {
            self.row.extend_from_slice(&self.attrs);
            self.row_attrs = self.attrs;
        }
        self.row.extend_from_slice(text);
        // width is at most the row's width here, or 2 on a one-column row
        self.col += width as u16;
        self.fed += width;
    }

    /// Ends the row being made as a soft-wrapped one.
    fn next_row(&mut self, emit: &mut impl FnMut(&[u8], bool)) {
        emit(&self.row, true);
        self.row.clear();
        self.col = 0;
        self.row_attrs = self.default;
        self.rows += 1;
    }

    /// Ends the current line: its last row goes to `emit`, not wrapped.
    /// Returns where the marked cell landed (the row counted from the
    /// line's first, the column), if a mark was set: past the text, the
    /// same distance past its end on the last row, at most the last
    /// column; right after a full last row, the column past it (the wrap
    /// is pending, as the cursor is after printing the last column).
    pub fn end_line(&mut self, emit: &mut impl FnMut(&[u8], bool)) -> Option<(usize, u16)> {
        let found = match self.mark.take() {
            Some(mark) => Some(self.found.take().unwrap_or_else(|| {
                let past = mark.saturating_sub(self.fed);
                let col = if past == 0 {
                    self.col
                } else {
                    (usize::from(self.col) + past).min(usize::from(self.cols) - 1) as u16
                };
                (self.rows, col)
            })),
            None => None,
        };
        emit(&self.row, false);
        self.row.clear();
        self.col = 0;
        self.row_attrs = self.default;
        self.rows = 0;
        self.fed = 0;
        found
    }
}

/// The compact row `compact` written into a new row of `cols` cells:
/// what does not fit is dropped.
pub(crate) fn row_of_compact(compact: &[u8], cols: u16, wrapped: bool) -> crate::row::Row {
    let mut row = crate::row::Row::new(cols);
    let mut attrs = crate::attrs::Attrs::new();
    let mut col: u16 = 0;
    for token in Tokens::new(compact) {
        match token {
            Token::Attrs(record) => attrs = compact_attrs(record),
            Token::Ascii(run) => {
                let n = run.len().min(usize::from(cols - col));
                if n > 0 {
                    row.write_ascii(usize::from(col), &run[..n], attrs);
                }
                col += n as u16;
            }
            Token::Cell(text, wide) => {
                let width = if wide { 2 } else { 1 };
                if col + width > cols {
                    break;
                }
                let text = core::str::from_utf8(text).unwrap_or(" ");
                if let Some(cell) = row.get_mut(col) {
                    cell.set_contents(text, attrs);
                }
                if wide {
                    if let Some(next) = row.get_mut(col + 1) {
                        next.clear(crate::attrs::Attrs::new());
                        next.set_wide_continuation(true);
                    }
                }
                col += width;
            }
        }
        if col >= cols {
            break;
        }
    }
    row.wrap(wrapped);
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    fn rewrap(rows: &[(&str, bool)], cols: u16) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        let mut emit = |row: &[u8], wrapped: bool| {
            out.push((String::from_utf8(row.to_vec()).unwrap(), wrapped));
        };
        let mut rw = Rewrap::new(cols);
        for &(row, wrapped) in rows {
            rw.feed(row.as_bytes(), &mut emit);
            if !wrapped {
                rw.end_line(&mut emit);
            }
        }
        out
    }

    #[test]
    fn tokens_keep_combining_characters_with_their_cell() {
        let t: Vec<Token<'_>> = Tokens::new("abe\u{301}x\u{4e2d}".as_bytes()).collect();
        assert_eq!(
            t,
            [
                Token::Ascii(b"ab"),
                Token::Cell("e\u{301}".as_bytes(), false),
                Token::Ascii(b"x"),
                Token::Cell("\u{4e2d}".as_bytes(), true),
            ]
        );
    }

    #[test]
    fn soft_wrapped_rows_join_and_hard_ends_do_not() {
        let rows = [("abcd", true), ("ef", false), ("gh", false)];
        assert_eq!(
            rewrap(&rows, 3),
            [
                ("abc".into(), true),
                ("def".into(), false),
                ("gh".into(), false)
            ]
        );
        assert_eq!(
            rewrap(&rows, 10),
            [("abcdef".into(), false), ("gh".into(), false)]
        );
    }

    #[test]
    fn a_wide_character_that_does_not_fit_starts_the_next_row() {
        let rows = [("a\u{4e2d}\u{6587}", false)];
        assert_eq!(
            rewrap(&rows, 4),
            [("a\u{4e2d}".into(), true), ("\u{6587}".into(), false)]
        );
        assert_eq!(
            rewrap(&rows, 2),
            [
                ("a".into(), true),
                ("\u{4e2d}".into(), true),
                ("\u{6587}".into(), false)
            ]
        );
    }

    #[test]
    fn each_new_row_starts_from_default_attributes() {
        let red = {
            let mut attrs = crate::attrs::Attrs::new();
            attrs.set_fgcolor(crate::Color::Idx(1));
            let mut v = Vec::new();
            push_compact_attrs(&mut v, &attrs);
            v
        };
        let mut row = red.clone();
        row.extend_from_slice(b"abcd");
        let mut out = Vec::new();
        let mut rw = Rewrap::new(2);
        rw.feed(&row, &mut |r: &[u8], w| out.push((r.to_vec(), w)));
        rw.end_line(&mut |r: &[u8], w| out.push((r.to_vec(), w)));
        let want = |text: &[u8]| [red.as_slice(), text].concat();
        assert_eq!(out, [(want(b"ab"), true), (want(b"cd"), false)]);
    }

    #[test]
    fn the_mark_lands_on_its_cell_or_past_the_text() {
        let mut rw = Rewrap::new(3);
        let mut sink = |_: &[u8], _: bool| {};
        rw.mark(4);
        rw.feed(b"abcdefg", &mut sink);
        assert_eq!(rw.end_line(&mut sink), Some((1, 1)));
        // past the text: the same distance on the last row
        rw.mark(8);
        rw.feed(b"abcdefg", &mut sink);
        assert_eq!(rw.end_line(&mut sink), Some((2, 2)));
        // right after a full last row: the wrap is pending
        rw.mark(6);
        rw.feed(b"abcdef", &mut sink);
        assert_eq!(rw.end_line(&mut sink), Some((1, 3)));
        // on a wide character's second half: its first
        rw.mark(2);
        rw.feed("a\u{4e2d}b".as_bytes(), &mut sink);
        assert_eq!(rw.end_line(&mut sink), Some((0, 1)));
    }
}
