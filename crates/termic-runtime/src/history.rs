//! Scrollback kept compactly, outside the screen model.
//!
//! vt100 keeps scrollback as full rows of 32-byte cells: 10,000 lines at 160
//! columns is ~51 MB per task, and pushing each row into its scrollback
//! allocates a new one (measured: 27.7 MB/s with 10,000 lines of scrollback
//! versus 62.7 MB/s with none, on the throughput payload at 160x45). So the
//! screen model runs with NO scrollback and every row that scrolls off the
//! top is captured here in vt100's compact form (the cells' text plus an
//! attribute record where attributes change: typically 1 to 3 bytes per
//! column), capped at the configured line count. Under a flood nearly every
//! captured row is dropped by the cap unseen, so capture must be cheap: the
//! compact form costs a third of vt100's formatted capture (see
//! vendor/vt100/TERMIC-PATCH.md). [`History::view`] turns the rows a user
//! scrolls back to into formatted text and rebuilds them as a small screen.

use std::collections::VecDeque;
use std::num::NonZeroU16;

use vt100::capture::{compact_to_formatted, RowContents};
use vt100::reflow::{CompactRow, Rewrap};

/// The history holds at most this many rows per line of its cap: the
/// memory bound, reached only by lines longer than this many rows at the
/// current width (a 10,000-line history of lines that each fill a 160
/// column row still holds every line at 40 columns).
pub const ROWS_PER_LINE_CAP: usize = 4;

/// Rows that scrolled off the top of a task's screen.
///
/// The rows' bytes sit end to end in one ring (`bytes`), so a flood that
/// scrolls a row off every line allocates and frees nothing per row
/// (a box per row cost a malloc and a free each: 5% of a flood's CPU).
#[derive(Debug, Default)]
pub struct History {
    /// The stored rows in vt100's compact form
    /// (`RowContents::write_compact`), oldest first, end to end.
    bytes: VecDeque<u8>,
    /// Where each stored row ends, counted in bytes ever stored.
    ends: VecDeque<u64>,
    /// Whether each stored row is soft-wrapped: its line goes on in the
    /// next row (or on the screen's first row, for the newest), so a
    /// reflow joins them.
    wrapped: VecDeque<bool>,
    /// Bytes ever stored before `bytes[0]` (where the oldest row starts).
    front: u64,
    /// Reused capture buffer.
    scratch: Vec<u8>,
    /// The cap, in lines: rows joined by soft wraps count once, so a
    /// reflow (which changes the rows, never the lines) drops nothing
    /// while the rows stay under [`ROWS_PER_LINE_CAP`] times it.
    capacity: usize,
    /// Stored rows that end a line (not soft-wrapped).
    line_ends: usize,
    /// Rows ever pushed (keeps growing after the cap: a "still scrolling?" signal).
    pushed: usize,
}

impl History {
    /// A task's screen model of `rows` x `cols`: no scrollback of vt100's
    /// own, since `self` keeps it (see the module's note).
    pub fn into_screen_model(self, rows: NonZeroU16, cols: NonZeroU16) -> vt100::Parser<History> {
        vt100::Parser::new_with_callbacks(rows, cols, 0, self)
    }

    pub fn new(capacity: usize) -> Self {
        History {
            bytes: VecDeque::new(),
            ends: VecDeque::new(),
            wrapped: VecDeque::new(),
            front: 0,
            scratch: Vec::with_capacity(1024),
            capacity,
            line_ends: 0,
            pushed: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Rows ever scrolled off, including those dropped by the cap.
    pub fn pushed(&self) -> usize {
        self.pushed
    }

    /// Bytes held by the stored lines (for memory accounting).
    pub fn text_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Store the row captured in `scratch`, dropping the oldest at the cap.
    fn push_scratch(&mut self, wrapped: bool) {
        self.pushed += 1;
        let scratch = std::mem::take(&mut self.scratch);
        self.store(&scratch, wrapped);
        self.scratch = scratch;
    }

    /// Store `row` (compact form), dropping the oldest rows at the cap:
    /// more lines than the cap, or more rows than the cap times
    /// [`ROWS_PER_LINE_CAP`] (the memory bound, which a line that never
    /// ends, or a much narrower width, reaches). A row a reflow moves here
    /// is stored, not pushed: it is no new output.
    fn store(&mut self, row: &[u8], wrapped: bool) {
        if self.capacity == 0 {
            return;
        }
        while self.line_ends + usize::from(!wrapped) > self.capacity
            || self.ends.len() >= self.capacity.saturating_mul(ROWS_PER_LINE_CAP)
        {
            if !self.drop_oldest() {
                break;
            }
        }
        // The ring is the one buffer of a task that grows to a size the
        // user sets (up to a million lines): when the system cannot give
        // it more memory, it keeps what fits, dropping its oldest rows,
        // instead of the allocation failure ending the server and every
        // task in it.
        while self.bytes.try_reserve(row.len()).is_err()
            || self.ends.try_reserve(1).is_err()
            || self.wrapped.try_reserve(1).is_err()
        {
            if !self.drop_oldest() {
                return;
            }
        }
        self.bytes.extend(row);
        self.ends.push_back(self.front + self.bytes.len() as u64);
        self.wrapped.push_back(wrapped);
        self.line_ends += usize::from(!wrapped);
    }

    /// Drops the oldest stored row; false when there was none.
    fn drop_oldest(&mut self) -> bool {
        let Some(end) = self.ends.pop_front() else {
            return false;
        };
        let wrapped = self.wrapped.pop_front();
        self.line_ends -= usize::from(wrapped == Some(false));
        self.bytes.drain(..(end - self.front) as usize);
        self.front = end;
        true
    }

    /// Takes the oldest stored row out into `out` (replacing what it
    /// held); its wrapped flag, or `None` when there was none.
    fn take_oldest(&mut self, out: &mut Vec<u8>) -> Option<bool> {
        let end = self.ends.pop_front()?;
        out.clear();
        out.extend(self.bytes.drain(..(end - self.front) as usize));
        self.front = end;
        let wrapped = self.wrapped.pop_front();
        self.line_ends -= usize::from(wrapped == Some(false));
        wrapped
    }

    /// Takes out the newest rows that begin a line the screen goes on
    /// with (those after the last row that is not soft-wrapped), oldest
    /// first: a reflow joins them to the screen's first row.
    fn take_open_line(&mut self) -> Vec<CompactRow> {
        let mut rows = Vec::new();
        while self.wrapped.back() == Some(&true) {
            rows.extend(self.take_newest());
        }
        rows.reverse();
        rows
    }

    /// Takes the newest stored row out.
    fn take_newest(&mut self) -> Option<CompactRow> {
        let wrapped = self.wrapped.pop_back()?;
        self.line_ends -= usize::from(!wrapped);
        self.ends.pop_back();
        let start = self.ends.back().copied().unwrap_or(self.front);
        let at = (start - self.front) as usize;
        let bytes = self.bytes.range(at..).copied().collect();
        self.bytes.truncate(at);
        Some(CompactRow { bytes, wrapped })
    }

    /// Rewraps every stored line to `cols` columns, into a new ring
    /// holding at most the cap (the lines are as many as before; only a
    /// much narrower width can pass the bound on rows, and then the oldest
    /// rows are dropped as they are made, so memory stays under the old
    /// ring plus a full new one). A row alone on its line
    /// that fits is copied as it is. Every stored line must be whole
    /// (`take_open_line` first).
    fn rewrap(&mut self, cols: u16) {
        let mut out = History::new(self.capacity);
        out.pushed = self.pushed;
        let mut rewrap = Rewrap::new(cols);
        let mut row = std::mem::take(&mut self.scratch);
        // the row before was soft-wrapped: this one goes on its line
        let mut in_line = false;
        while let Some(wrapped) = self.take_oldest(&mut row) {
            // its text is at most as many cells as bytes
            if !in_line && !wrapped && row.len() <= usize::from(cols) {
                out.store(&row, false);
                continue;
            }
            let mut emit = |r: &[u8], w: bool| out.store(r, w);
            rewrap.feed(&row, &mut emit);
            if !wrapped {
                rewrap.end_line(&mut emit);
            }
            in_line = wrapped;
        }
        if in_line {
            rewrap.end_line(&mut |r: &[u8], w: bool| out.store(r, w));
        }
        out.scratch = row;
        *self = out;
    }

    /// Stored line `i` (0 = oldest) in compact form.
    fn compact(&self, i: usize) -> Option<Vec<u8>> {
        let end = *self.ends.get(i)?;
        let start = match i {
            0 => self.front,
            _ => self.ends[i - 1],
        };
        let range = (start - self.front) as usize..(end - self.front) as usize;
        Some(self.bytes.range(range).copied().collect())
    }

    /// Stored line `i` (0 = oldest) as formatted text (characters plus
    /// SGR, from default attributes).
    pub fn line(&self, i: usize) -> Option<String> {
        let mut text = String::new();
        let _ = compact_to_formatted(&self.compact(i)?, &mut text);
        Some(text)
    }

    /// The view `offset` rows above the live screen: the last `rows` rows of
    /// (history followed by `live`, the live screen's formatted rows), ending
    /// `offset` rows before the bottom. `offset` is clamped to the history.
    pub fn view(&self, live: &[String], rows: u16, cols: u16, offset: usize) -> vt100::Parser {
        let offset = offset.min(self.len());
        let total = self.len() + live.len();
        let end = total - offset;
        let start = end.saturating_sub(usize::from(rows));
        let text = (start..end).map(|i| match self.line(i) {
            Some(line) => line,
            None => live[i - self.len()].clone(),
        });
        screen_of_rows(text, rows, cols)
    }

    /// Every stored line, oldest first, followed by the live screen's
    /// rows, formatted and plain (copy mode takes the whole history at once).
    pub fn all_rows(&self, live: &vt100::Screen) -> AllRows {
        let (rows, cols) = live.size();
        let mut formatted: Vec<String> = (0..self.len()).filter_map(|i| self.line(i)).collect();
        let mut plain: Vec<String> = formatted.iter().map(|l| strip_sgr(l)).collect();
        formatted.extend(live.rows_formatted(0, cols.get()));
        plain.extend(live.rows(0, cols.get()).map(|r| r.trim_end().to_string()));
        AllRows {
            formatted,
            plain,
            rows: rows.get(),
            cols: cols.get(),
        }
    }
}

/// Resizes a task's screen model to `rows` x `cols`, reflowing as tmux
/// 3.x does: on a change of width, the rows of the normal screen and of the
/// history that soft wraps join rewrap to the new width (a hard line end
/// never joins, a wide character never splits), so nothing printed is lost
/// and a narrower then wider screen shows every character again.
///
/// The screen keeps its rows up to the last with text or the cursor's; a
/// line begun in the history and going on at the screen's top comes down
/// to the screen whole. The screen stays as full as it was (a full one
/// stays full): when the rewrapped rows are fewer (a wider screen, a
/// taller one), the newest rows of the history come back down to fill it,
/// as in tmux, while a screen cleared to its first row stays clear. When they are more rows than the
/// screen has, the top ones go to the history (as output scrolls them), up
/// to the cursor's row; rows below the cursor that still do not fit are
/// cut, as vt100 and xterm cut them. The cursor and the saved cursor stay
/// on the character they were on (past the text, the same distance past
/// its end). The alternate screen is resized without reflow: a full-screen
/// program redraws on SIGWINCH. The history's cap counts lines, so a
/// reflow drops none of them unless the rows pass the bound of
/// [`ROWS_PER_LINE_CAP`] per line (or the screen's rows, going up into a
/// full history, push its oldest lines out, as output would).
/// False when the size was this already (nothing changed).
pub fn resize(parser: &mut vt100::Parser<History>, rows: NonZeroU16, cols: NonZeroU16) -> bool {
    parser.settle();
    let (old_rows, old_cols) = parser.screen().size();
    if (old_rows, old_cols) == (rows, cols) {
        return false;
    }
    let normal = parser.screen().normal_rows_compact();
    let mut screen = normal.rows;
    let at = |(row, col): (u16, u16)| (usize::from(row), col);
    let (mut cursor, mut saved) = (at(normal.cursor), at(normal.saved_cursor));
    let kept = screen
        .iter()
        .rposition(|row| !row.bytes.is_empty())
        .map_or(0, |i| i + 1)
        .max(cursor.0 + 1);
    screen.truncate(kept.max(saved.0 + 1));
    let history = parser.callbacks_mut();
    let new_rows = if cols == old_cols {
        screen
    } else {
        let open = history.take_open_line();
        cursor.0 += open.len();
        saved.0 += open.len();
        screen.splice(0..0, open);
        history.rewrap(cols.get());
        let (new_rows, new_cursor) = rewrap_rows(&screen, cursor, cols.get());
        saved = rewrap_rows(&screen, saved, cols.get()).1;
        cursor = new_cursor;
        new_rows
    };
    // as full as it was (a full screen stays full): rows come back down
    // from the history
    let full = if kept >= usize::from(old_rows.get()) {
        usize::from(rows.get())
    } else {
        kept.min(usize::from(rows.get()))
    };
    let mut down = Vec::new();
    while down.len() + new_rows.len() < full {
        let Some(row) = history.take_newest() else {
            break;
        };
        down.push(row);
    }
    let new_rows = if down.is_empty() {
        new_rows
    } else {
        cursor.0 += down.len();
        saved.0 += down.len();
        down.reverse();
        down.extend(new_rows);
        down
    };
    let up = new_rows
        .len()
        .saturating_sub(usize::from(rows.get()))
        .min(cursor.0);
    for row in &new_rows[..up] {
        history.store(&row.bytes, row.wrapped);
    }
    // the cursor's row is on the screen now; the saved cursor is kept
    // inside it
    let on_screen = |(row, col): (usize, u16)| {
        let row = row.saturating_sub(up).min(usize::from(rows.get()) - 1);
        (row as u16, col)
    };
    parser.screen_mut().set_size_reflowed(
        rows,
        cols,
        &new_rows[up..],
        on_screen(cursor),
        on_screen(saved),
    );
    true
}

/// `rows` (compact, top to bottom, the first starting a line) rewrapped to
/// `cols`, and where the cell at `cursor` (row, column) lands.
fn rewrap_rows(
    rows: &[CompactRow],
    cursor: (usize, u16),
    cols: u16,
) -> (Vec<CompactRow>, (usize, u16)) {
    let mut out = Vec::new();
    let mut rewrap = Rewrap::new(cols);
    let mut new_cursor = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let mut emit = |bytes: &[u8], wrapped: bool| {
            out.push(CompactRow {
                bytes: bytes.to_vec(),
                wrapped,
            })
        };
        if i == cursor.0 {
            rewrap.mark(rewrap.fed() + usize::from(cursor.1));
        }
        rewrap.feed(&row.bytes, &mut emit);
        if !row.wrapped || i + 1 == rows.len() {
            // the line's rows are emitted from this index on
            let line_start = out.len() - rewrap.rows_emitted();
            let mut emit = |bytes: &[u8], wrapped: bool| {
                out.push(CompactRow {
                    bytes: bytes.to_vec(),
                    wrapped,
                })
            };
            if let Some((row, col)) = rewrap.end_line(&mut emit) {
                new_cursor = (line_start + row, col);
            }
        }
    }
    (out, new_cursor)
}

/// A task's history and screen, for copy mode: the same rows formatted
/// (to draw) and plain (to search and copy), and the screen's size.
#[derive(Debug, Clone, Default)]
pub struct AllRows {
    pub formatted: Vec<String>,
    pub plain: Vec<String>,
    pub rows: u16,
    pub cols: u16,
}

/// A screen of `rows` x `cols` showing `text` (formatted rows, each from
/// default attributes), top to bottom.
pub fn screen_of_rows(
    text: impl IntoIterator<Item = String>,
    rows: u16,
    cols: u16,
) -> vt100::Parser {
    let mut parser = vt100::Parser::new(
        NonZeroU16::new(rows).unwrap_or(NonZeroU16::MIN),
        NonZeroU16::new(cols).unwrap_or(NonZeroU16::MIN),
        0,
    );
    for (i, line) in text.into_iter().enumerate() {
        if i > 0 {
            parser.process(b"\r\n");
        }
        // Each stored row starts from default attributes.
        parser.process(b"\x1b[m");
        parser.process(line.as_bytes());
    }
    parser
}

/// The text of a stored row without its SGR sequences (the only escapes
/// [`compact_to_formatted`] writes), trailing blanks dropped.
pub fn strip_sgr(formatted: &str) -> String {
    let mut out = String::with_capacity(formatted.len());
    let mut chars = formatted.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // ESC [ params final: skip to the final byte.
            if chars.next() == Some('[') {
                for f in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&f) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out.truncate(out.trim_end().len());
    out
}

impl vt100::Callbacks for History {
    fn on_scroll(&mut self, contents: RowContents<'_>, alternate_screen: bool) {
        // A full-screen program's alternate screen has no scrollback.
        if alternate_screen {
            return;
        }
        if self.capacity == 0 {
            self.pushed += 1;
            return;
        }
        self.scratch.clear();
        contents.write_compact(&mut self.scratch);
        self.push_scratch(contents.wrapped());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parser(cap: usize) -> vt100::Parser<History> {
        parser_sized(3, 10, cap)
    }

    /// A screen of `rows` x `cols` whose scrollback is a `History` of `cap` rows.
    fn parser_sized(rows: u16, cols: u16, cap: usize) -> vt100::Parser<History> {
        History::new(cap).into_screen_model(
            NonZeroU16::new(rows).unwrap(),
            NonZeroU16::new(cols).unwrap(),
        )
    }

    fn live_rows(p: &vt100::Parser<History>) -> Vec<String> {
        p.screen().rows_formatted(0, 10).collect()
    }

    #[test]
    fn rows_scrolled_off_are_kept_up_to_the_cap() {
        let mut p = parser(4);
        for i in 1..=8 {
            p.process(format!("line {i}\r\n").as_bytes());
        }
        // Screen shows 7, 8 and an empty row; 1..=6 scrolled off, cap keeps 3..=6.
        let h = p.callbacks();
        assert_eq!(h.pushed(), 6);
        assert_eq!(h.len(), 4);
        assert_eq!(h.line(0).as_deref(), Some("line 3"));
        assert_eq!(h.line(3).as_deref(), Some("line 6"));
    }

    /// Rows of every length, far past the cap: the ring of bytes wraps
    /// many times and every stored row reads back whole.
    #[test]
    fn rows_read_back_whole_after_the_ring_wraps() {
        let mut p = parser_sized(2, 40, 7);
        let row = |i: usize| format!("{i} {}", "x".repeat(i * 7 % 37));
        for i in 0..500 {
            p.process(format!("{}\r\n", row(i)).as_bytes());
        }
        let h = p.callbacks();
        assert_eq!((h.pushed(), h.len()), (499, 7));
        let stored: Vec<String> = (0..7).filter_map(|i| h.line(i)).collect();
        let want: Vec<String> = (492..499).map(row).collect();
        assert_eq!(stored, want);
        let bytes: usize = want.iter().map(String::len).sum();
        assert_eq!(h.text_bytes(), bytes);
        assert_eq!(h.line(7), None);
    }

    #[test]
    fn colours_survive_the_round_trip() {
        let mut p = parser(10);
        p.process(b"\x1b[31mred\x1b[m plain\r\n\r\n\r\n\r\n");
        let view = p.callbacks().view(&live_rows(&p), 3, 10, 2);
        let cell = view.screen().cell(0, 0).unwrap();
        assert_eq!(cell.contents(), "r");
        assert_eq!(cell.fgcolor(), vt100::Color::Idx(1));
        let plain = view.screen().cell(0, 4).unwrap();
        assert_eq!(plain.fgcolor(), vt100::Color::Default);
    }

    /// Every visible property of a cell, for comparing screens. An erased
    /// cell and a space look the same (a rebuilt row writes a space).
    fn cell_facts(screen: &vt100::Screen, row: u16, col: u16) -> String {
        let c = screen.cell(row, col).unwrap();
        let text = if c.has_contents() { c.contents() } else { " " };
        format!(
            "{:?} {:?} {:?} b{} d{} i{} u{} r{} w{}",
            text,
            c.fgcolor(),
            c.bgcolor(),
            c.bold(),
            c.dim(),
            c.italic(),
            c.underline(),
            c.inverse(),
            c.is_wide()
        )
    }

    #[test]
    fn the_compact_capture_keeps_every_cell() {
        let (rows, cols) = (4, 20);
        let mut p = parser_sized(rows, cols, 100);
        // Wide and combining characters, every SGR kind, a coloured blank
        // run in the middle and coloured blanks at the end of a row.
        p.process(
            "日本語 e\u{301} \x1b[1;3;4;7mall\x1b[m\x1b[2mdim\x1b[m\r\n\
             \x1b[38;5;196mi\x1b[48;2;1;2;3m  \x1b[m|\x1b[44m   \x1b[m\r\n\
             plain\x1b[41m\x1b[K\x1b[m\r\n"
                .as_bytes(),
        );
        let before: Vec<String> = (0..3)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|(r, c)| cell_facts(p.screen(), r, c))
            .collect();
        p.process(b"\r\n\r\n\r\n\r\n");
        assert_eq!(p.callbacks().len(), 4);
        let live: Vec<String> = p.screen().rows_formatted(0, cols).collect();
        let view = p.callbacks().view(&live, rows, cols, 4);
        let after: Vec<String> = (0..3)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|(r, c)| cell_facts(view.screen(), r, c))
            .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn a_cut_off_attribute_record_ends_the_row() {
        let mut text = String::new();
        compact_to_formatted(b"ab\x1b\x01\x02", &mut text).unwrap();
        assert_eq!(text, "ab");
    }

    #[test]
    fn views_scroll_through_history_and_live_rows() {
        let mut p = parser(100);
        for i in 1..=6 {
            p.process(format!("line {i}\r\n").as_bytes());
        }
        p.process(b"prompt");
        let live = live_rows(&p);
        let h = p.callbacks();
        let text = |offset| h.view(&live, 3, 10, offset).screen().contents();
        assert_eq!(text(0), "line 5\nline 6\nprompt");
        assert_eq!(text(2), "line 3\nline 4\nline 5");
        // Clamped at the oldest line.
        assert_eq!(text(99), "line 1\nline 2\nline 3");
    }

    #[test]
    fn all_rows_are_plain_and_formatted_alike() {
        let mut p = parser(100);
        p.process(
            "\x1b[1;38;5;196mred\x1b[m a  b\r\n\u{4e2d}x\x1b[44m  \x1b[m\r\n\r\nlive \x1b[32mrow\x1b[m"
                .as_bytes(),
        );
        let all = p.callbacks().all_rows(p.screen());
        assert_eq!((all.rows, all.cols), (3, 10));
        assert_eq!(all.formatted.len(), 4);
        assert_eq!(all.plain, ["red a  b", "\u{4e2d}x", "", "live row"]);
        assert!(all.formatted[0].contains("\x1b["), "{:?}", all.formatted[0]);
    }

    #[test]
    fn the_alternate_screen_adds_nothing() {
        let mut p = parser(100);
        p.process(b"\x1b[?1049h");
        for i in 1..=8 {
            p.process(format!("full {i}\r\n").as_bytes());
        }
        assert_eq!(p.callbacks().pushed(), 0);
    }

    #[test]
    fn a_long_history_is_compact() {
        let mut p = parser_sized(45, 160, 10_000);
        for i in 0..12_000 {
            p.process(format!("\x1b[32m{i:>6}\x1b[m some log text that is typical of a build, eighty columns wide......\r\n").as_bytes());
        }
        let h = p.callbacks();
        assert_eq!(h.len(), 10_000);
        // vt100's own scrollback would hold 10,000 x 160 x 32 bytes = 51 MB.
        assert!(h.text_bytes() < 1_500_000, "{} bytes", h.text_bytes());
    }

    fn size(rows: u16, cols: u16) -> (NonZeroU16, NonZeroU16) {
        (
            NonZeroU16::new(rows).unwrap(),
            NonZeroU16::new(cols).unwrap(),
        )
    }

    fn resized(p: &mut vt100::Parser<History>, rows: u16, cols: u16) {
        let (rows, cols) = size(rows, cols);
        assert!(resize(p, rows, cols));
    }

    /// Line `i` of the 110-character lines: its number, then letters.
    fn long_line(i: usize) -> String {
        let letters: String = (0..106)
            .map(|k| char::from(b'a' + ((i + k) % 26) as u8))
            .collect();
        format!("{i:03} {letters}")
    }

    /// A shell that printed 60 lines of 110 characters and a prompt.
    fn sixty_long_lines(rows: u16, cols: u16) -> vt100::Parser<History> {
        let mut p = parser_sized(rows, cols, 10_000);
        p.process(b"$ print\r\n");
        for i in 0..60 {
            p.process(format!("{}\r\n", long_line(i)).as_bytes());
        }
        p.process(b"$ ");
        p
    }

    /// The screen's rows (trailing blanks and blank rows at the bottom
    /// dropped), joined by newlines: `Screen::contents` joins soft wraps.
    fn rows_text(p: &vt100::Parser<History>) -> String {
        let cols = p.screen().size().1.get();
        let mut rows: Vec<String> = p
            .screen()
            .rows(0, cols)
            .map(|r| r.trim_end().to_string())
            .collect();
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        rows.join("\n")
    }

    /// History and screen as plain rows (copy mode's text).
    fn plain(p: &vt100::Parser<History>) -> Vec<String> {
        p.callbacks().all_rows(p.screen()).plain
    }

    #[test]
    fn narrower_then_wider_gives_every_character_back() {
        let mut p = sixty_long_lines(40, 160);
        let before = plain(&p);
        let screen_before = rows_text(&p);
        let cursor_before = p.screen().cursor_position();
        assert!(before.contains(&long_line(0)), "{before:?}");
        resized(&mut p, 40, 50);
        // at 50 columns each line is three rows, none cut: joined again,
        // the rows are the lines
        let narrow = plain(&p);
        assert!(narrow.iter().all(|row| row.chars().count() <= 50));
        let joined: String = narrow.concat();
        for i in 0..60 {
            assert!(
                joined.contains(&long_line(i)),
                "line {i} lost at 50 columns"
            );
        }
        assert_eq!(p.screen().cursor_position(), (39, 2));
        assert_eq!(rows_text(&p).lines().last(), Some("$"));
        resized(&mut p, 40, 160);
        assert_eq!(plain(&p), before);
        // the lines came down from the history to the screen: it shows the
        // same text, from the top, with the cursor after the prompt
        let screen_after = rows_text(&p);
        assert!(screen_before.ends_with(&screen_after), "{screen_after:?}");
        let last_line = screen_after.lines().count() as u16 - 1;
        assert_eq!(p.screen().cursor_position(), (last_line, 2));
        assert!(cursor_before.0 >= last_line);
        // and the shell goes on where it was
        p.process(b"ls\r\nout");
        assert!(rows_text(&p).ends_with("$ ls\nout"));
    }

    #[test]
    fn soft_wraps_join_and_hard_line_ends_stay() {
        let mut p = parser_sized(5, 10, 100);
        // "abcdefghijkl" wraps at 10; "xy" is a line of its own
        p.process(b"abcdefghijkl\r\nxy\r\n");
        resized(&mut p, 5, 20);
        assert_eq!(rows_text(&p), "abcdefghijkl\nxy");
        resized(&mut p, 5, 4);
        assert_eq!(rows_text(&p), "abcd\nefgh\nijkl\nxy");
        assert!(p.screen().row_wrapped(0) && p.screen().row_wrapped(1));
        assert!(!p.screen().row_wrapped(2) && !p.screen().row_wrapped(3));
    }

    #[test]
    fn a_line_ending_exactly_at_the_width_adds_no_row() {
        let mut p = parser_sized(4, 10, 100);
        p.process(b"0123456789\r\nnext");
        resized(&mut p, 4, 5);
        assert_eq!(rows_text(&p), "01234\n56789\nnext");
        assert_eq!(p.screen().cursor_position(), (2, 4));
        resized(&mut p, 4, 10);
        assert_eq!(rows_text(&p), "0123456789\nnext");
        assert!(!p.screen().row_wrapped(0));
        // a cursor right after a line that fills its last row: the wrap
        // is pending, so the next character starts the next row
        let mut p = parser_sized(4, 10, 100);
        p.process(b"01234567");
        resized(&mut p, 4, 4);
        assert_eq!(rows_text(&p), "0123\n4567");
        assert_eq!(p.screen().cursor_position(), (1, 4));
        p.process(b"x");
        assert_eq!(rows_text(&p), "0123\n4567\nx");
    }

    #[test]
    fn wide_characters_never_split_and_come_back_whole() {
        let mut p = parser_sized(6, 9, 100);
        // four CJK characters after one narrow one: 9 cells, one row
        let text = "a\u{4e2d}\u{6587}\u{5b57}\u{7b26}";
        p.process(format!("{text}\r\nz").as_bytes());
        // at 4 columns a wide character at column 3 would split: it starts
        // the next row
        resized(&mut p, 6, 4);
        assert_eq!(rows_text(&p), "a\u{4e2d}\n\u{6587}\u{5b57}\n\u{7b26}\nz");
        for row in 0..3 {
            for col in 0..4 {
                let cell = p.screen().cell(row, col).unwrap();
                assert!(
                    !(col == 3 && cell.is_wide()),
                    "a wide cell split at {row},{col}"
                );
            }
        }
        resized(&mut p, 6, 3);
        resized(&mut p, 6, 9);
        assert_eq!(rows_text(&p), format!("{text}\nz"));
        assert!(p.screen().cell(0, 1).unwrap().is_wide());
        assert_eq!(p.screen().cursor_position(), (1, 1));
    }

    #[test]
    fn wide_characters_printed_at_an_odd_width_join_again() {
        // at 7 columns the fourth CJK character finds one column left: it
        // wraps, the last cell stays blank, and the line goes on
        let mut p = parser_sized(4, 7, 100);
        let text = "\u{4e00}\u{4e8c}\u{4e09}\u{56db}\u{4e94}";
        p.process(format!("{text}\r\n").as_bytes());
        assert_eq!(rows_text(&p), "\u{4e00}\u{4e8c}\u{4e09}\n\u{56db}\u{4e94}");
        resized(&mut p, 4, 20);
        assert_eq!(rows_text(&p), text);
        // and an emoji the same way
        let mut p = parser_sized(4, 5, 100);
        p.process("ab\u{1f600}\u{1f600}z".as_bytes());
        assert_eq!(rows_text(&p), "ab\u{1f600}\n\u{1f600}z");
        resized(&mut p, 4, 9);
        assert_eq!(rows_text(&p), "ab\u{1f600}\u{1f600}z");
        assert_eq!(p.screen().cursor_position(), (0, 7));
    }

    #[test]
    fn the_cursor_stays_on_its_character() {
        let mut p = parser_sized(8, 20, 100);
        // a command line being edited: the cursor moved back into it
        p.process(b"$ echo one two three four five six seven");
        let line = "$ echo one two three four five six seven";
        // cursor onto column 20 + 5 of the line: the second row's column 5
        p.process(b"\x1b[2;6H");
        let on = line.chars().nth(25).unwrap();
        assert_eq!(p.screen().cell(1, 5).unwrap().contents(), on.to_string());
        resized(&mut p, 8, 7);
        let (row, col) = p.screen().cursor_position();
        assert_eq!((row, col), (3, 4), "25 cells in at 7 columns");
        assert_eq!(
            p.screen().cell(row, col).unwrap().contents(),
            on.to_string()
        );
        resized(&mut p, 8, 40);
        assert_eq!(p.screen().cursor_position(), (0, 25));
        // an empty row under the text keeps the cursor below it
        let mut p = parser_sized(5, 10, 100);
        p.process(b"abcdefghijkl\r\n\r\n  ");
        resized(&mut p, 5, 20);
        assert_eq!(p.screen().cursor_position(), (2, 2));
    }

    #[test]
    fn a_line_going_on_from_the_history_to_the_screen_rewraps_whole() {
        let mut p = parser_sized(2, 5, 100);
        // one line of 15 characters: three rows, the first in the history
        p.process(b"abcdefghijklmno");
        assert_eq!(p.callbacks().len(), 1);
        resized(&mut p, 2, 15);
        assert_eq!(p.callbacks().len(), 0);
        assert_eq!(rows_text(&p), "abcdefghijklmno");
        resized(&mut p, 2, 5);
        assert_eq!(plain(&p), ["abcde", "fghij", "klmno"]);
        assert_eq!(p.screen().cursor_position(), (1, 5));
    }

    #[test]
    fn colours_survive_a_reflow() {
        let mut p = parser_sized(3, 10, 100);
        p.process(b"ab\x1b[31mcdefghij\x1b[44mkl\x1b[m\r\n");
        resized(&mut p, 3, 4);
        resized(&mut p, 3, 20);
        let cell = |c| p.screen().cell(0, c).unwrap().clone();
        assert_eq!(cell(1).fgcolor(), vt100::Color::Default);
        assert_eq!(cell(2).fgcolor(), vt100::Color::Idx(1));
        assert_eq!(cell(11).bgcolor(), vt100::Color::Idx(4));
        assert_eq!(cell(11).fgcolor(), vt100::Color::Idx(1));
        assert_eq!(rows_text(&p), "abcdefghijkl");
    }

    #[test]
    fn a_taller_full_screen_takes_rows_back_and_a_cleared_one_stays_clear() {
        let mut p = parser_sized(3, 10, 100);
        p.process(b"one\r\ntwo\r\nthree\r\nfour\r\n$ ");
        assert_eq!(p.callbacks().len(), 2);
        resized(&mut p, 5, 10);
        assert_eq!(rows_text(&p), "one\ntwo\nthree\nfour\n$");
        assert_eq!(p.screen().cursor_position(), (4, 2));
        assert_eq!(p.callbacks().len(), 0);
        resized(&mut p, 3, 10);
        assert_eq!(rows_text(&p), "three\nfour\n$");
        // cleared: the prompt alone at the top, and it stays so
        p.process(b"\x1b[H\x1b[2J$ ");
        resized(&mut p, 5, 10);
        assert_eq!(rows_text(&p), "$");
        assert_eq!(p.callbacks().len(), 2);
        resized(&mut p, 5, 4);
        assert_eq!(rows_text(&p), "$");
    }

    #[test]
    fn the_alternate_screen_is_not_reflowed_but_the_normal_one_is() {
        let mut p = parser_sized(3, 10, 100);
        p.process(b"abcdefghijkl\x1b[?1049h\x1b[Hfull-scr");
        resized(&mut p, 3, 5);
        // the alternate screen is cut, as vt100 and tmux do (the program
        // redraws); the normal one is rewrapped under it
        assert_eq!(rows_text(&p), "full-");
        p.process(b"\x1b[?1049l");
        assert_eq!(rows_text(&p), "abcde\nfghij\nkl");
        assert_eq!(p.screen().cursor_position(), (2, 2));
    }

    #[test]
    fn a_reflow_keeps_every_line_under_the_bound_on_rows() {
        let mut p = parser_sized(2, 20, 10);
        for i in 0..30 {
            p.process(format!("{i:02}-abcdefghijklm\r\n").as_bytes());
        }
        let h = p.callbacks();
        assert_eq!(h.len(), 10);
        let lines: Vec<Option<String>> = (0..10).map(|i| h.line(i)).collect();
        // each line is two rows at 8 columns: all ten lines stay
        resized(&mut p, 2, 8);
        let h = p.callbacks();
        assert_eq!(h.len(), 21, "ten lines, and the screen's top row gone up");
        assert_eq!(h.line(0).as_deref(), Some("19-abcde"));
        assert_eq!(h.line(20).as_deref(), Some("29-abcde"));
        assert_eq!(h.pushed(), 29, "a reflow is no new output");
        resized(&mut p, 2, 20);
        let h = p.callbacks();
        assert_eq!((0..10).map(|i| h.line(i)).collect::<Vec<_>>(), lines);
        // new output keeps the cap in lines
        p.process(b"30\r\n31\r\n");
        assert_eq!(p.callbacks().len(), 10);
        assert_eq!(p.callbacks().line(9).as_deref(), Some("30"));
        // at 2 columns each line is 8 rows: the bound (4 rows per line of
        // the cap) keeps the newest 40 rows
        resized(&mut p, 2, 2);
        let h = p.callbacks();
        assert_eq!(h.len(), 40);
        assert_eq!(h.line(39).as_deref(), Some("30"));
    }

    /// Every row of the history and the screen, plain, without the blank
    /// rows at the bottom.
    fn text_rows(p: &vt100::Parser<History>) -> Vec<String> {
        let mut rows = plain(p);
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        rows
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Any text (narrow, wide, combining, spaces, colours, hard and
        /// soft line ends) on any screen, resized through any sizes and
        /// back to its own: every row reads as before, and the cursor is
        /// where it was.
        #[test]
        fn any_sizes_and_back_give_the_same_rows(
            rows in 2u16..8,
            cols in 2u16..24,
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "bc", "defgh", " ", "  ", "\u{4e2d}", "\u{1f600}", "e\u{301}",
                    "\x1b[31m", "\x1b[m", "\x1b[44m", "\r\n", "\r\n\r\n",
                ]),
                0..80,
            ),
            sizes in proptest::collection::vec((1u16..10, 2u16..30), 1..4),
        ) {
            let mut p = parser_sized(rows, cols, 10_000);
            p.process(pieces.concat().as_bytes());
            let before = text_rows(&p);
            // the cursor counted from the history's first row
            let cursor_at = |p: &vt100::Parser<History>| {
                let (row, col) = p.screen().cursor_position();
                (p.callbacks().len() + usize::from(row), col)
            };
            let cursor = cursor_at(&p);
            for (h, w) in sizes {
                let (r, c) = size(h, w);
                resize(&mut p, r, c);
            }
            let (r, c) = size(rows, cols);
            resize(&mut p, r, c);
            proptest::prop_assert_eq!(&text_rows(&p), &before);
            proptest::prop_assert_eq!(cursor_at(&p), cursor);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Any output (cursor moves, erases, the alternate screen, scroll
        /// regions, saved cursors, insert and no-wrap modes) between any
        /// resizes: no panic, the cursor on the screen, the history
        /// within its bounds, and output goes on.
        #[test]
        fn resizes_between_any_output_keep_the_screen_whole(
            steps in proptest::collection::vec(
                (
                    proptest::collection::vec(
                        proptest::sample::select(vec![
                            "abc", "defghijkl", " ", "\u{4e2d}", "\u{1f600}", "e\u{301}",
                            "\u{2764}\u{fe0f}", "\r\n", "\r", "\n", "\x08", "\t",
                            "\x1b[2;3H", "\x1b[A", "\x1b[5C", "\x1b[K", "\x1b[1K", "\x1b[2J",
                            "\x1b[J", "\x1b7", "\x1b8", "\x1b[?1049h", "\x1b[?1049l",
                            "\x1b[2;3r", "\x1b[r", "\x1b[?7l", "\x1b[?7h", "\x1b[4h",
                            "\x1b[4l", "\x1b[31m", "\x1b[m", "\x1b[2L", "\x1b[M", "\x1b[3@",
                            "\x1b[2P", "\x1bM", "\x1b[S", "\x1b[T",
                        ]),
                        0..30,
                    ),
                    1u16..8,
                    1u16..20,
                ),
                1..6,
            ),
            cap in 0usize..20,
        ) {
            let mut p = parser_sized(4, 10, cap);
            for (pieces, h, w) in steps {
                p.process(pieces.concat().as_bytes());
                let (r, c) = size(h, w);
                resize(&mut p, r, c);
                let (row, col) = p.screen().cursor_position();
                proptest::prop_assert!(row < h && col <= w, "{row},{col} on {h}x{w}");
                proptest::prop_assert!(p.callbacks().len() <= cap * ROWS_PER_LINE_CAP);
                let _ = p.screen().contents();
            }
            p.process(b"\x1b[?1049l\x1b[r\x1b[?7h\x1b[4l\r\nZ");
            proptest::prop_assert!(p.screen().contents().contains('Z'));
        }
    }

    /// The figure in docs/design.md: a full history of 10,000 lines at
    /// 160 columns rewrapped to 50 and back. Run with
    /// `cargo test --release -p termic-runtime history::tests::reflow_of_a_full -- --ignored`
    /// (it fails past 2 s, and then shows every figure).
    #[test]
    #[ignore = "a measurement"]
    fn reflow_of_a_full_scrollback_is_fast() {
        let mut p = parser_sized(45, 160, 10_000);
        for i in 0..12_000 {
            p.process(format!("{}\r\n", long_line(i)).as_bytes());
        }
        // The runtime prints nothing, tests included: the figures are in
        // the failure message, and the bound is 20x the 2026-12-06 figure.
        let mut figures = String::new();
        let mut slowest = std::time::Duration::ZERO;
        for cols in [50, 160, 80, 159] {
            let at = std::time::Instant::now();
            resized(&mut p, 45, cols);
            let took = at.elapsed();
            slowest = slowest.max(took);
            figures.push_str(&format!(
                "reflow to {cols} columns: {took:?}, {} rows\n",
                p.callbacks().len()
            ));
        }
        assert!(slowest < std::time::Duration::from_secs(2), "{figures}");
    }
}
