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
    /// Bytes ever stored before `bytes[0]` (where the oldest row starts).
    front: u64,
    /// Reused capture buffer.
    scratch: Vec<u8>,
    capacity: usize,
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
            front: 0,
            scratch: Vec::with_capacity(1024),
            capacity,
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
    fn push_scratch(&mut self) {
        self.pushed += 1;
        if self.ends.len() == self.capacity {
            self.drop_oldest();
        }
        // The ring is the one buffer of a task that grows to a size the
        // user sets (up to a million lines): when the system cannot give
        // it more memory, it keeps what fits, dropping its oldest rows,
        // instead of the allocation failure ending the server and every
        // task in it.
        while self.bytes.try_reserve(self.scratch.len()).is_err()
            || self.ends.try_reserve(1).is_err()
        {
            if !self.drop_oldest() {
                return;
            }
        }
        self.bytes.extend(&self.scratch);
        self.ends.push_back(self.front + self.bytes.len() as u64);
    }

    /// Drops the oldest stored row; false when there was none.
    fn drop_oldest(&mut self) -> bool {
        let Some(end) = self.ends.pop_front() else {
            return false;
        };
        self.bytes.drain(..(end - self.front) as usize);
        self.front = end;
        true
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
        self.push_scratch();
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
}
