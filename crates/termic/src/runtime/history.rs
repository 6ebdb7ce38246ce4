//! Scrollback kept compactly, outside the screen model.
//!
//! vt100 keeps scrollback as full rows of 32-byte cells: 10,000 lines at 160
//! columns is ~51 MB per task, and pushing each row into its scrollback
//! allocates a new one (measured: 27.7 MB/s with 10,000 lines of scrollback
//! versus 62.7 MB/s with none, on the throughput payload at 160x45). So the
//! screen model runs with NO scrollback and every row that scrolls off the
//! top is captured here as its "basic formatted" text (characters plus SGR,
//! typically 1 to 3 bytes per column), capped at the configured line count.
//! [`History::view`] rebuilds any scrolled-back view as a small screen.

use std::collections::VecDeque;
use std::num::NonZeroU16;

use vt100::capture::{BasicFormattedCaptureState, RowContents};

/// Rows that scrolled off the top of a task's screen.
#[derive(Debug, Default)]
pub struct History {
    lines: VecDeque<Box<str>>,
    /// Reused formatting buffer: one allocation per captured row, exact size.
    scratch: String,
    capacity: usize,
    /// Rows ever pushed (keeps growing after the cap: a "still scrolling?" signal).
    pushed: usize,
}

impl History {
    pub fn new(capacity: usize) -> Self {
        History {
            lines: VecDeque::new(),
            scratch: String::with_capacity(1024),
            capacity,
            pushed: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Rows ever scrolled off, including those dropped by the cap.
    pub fn pushed(&self) -> usize {
        self.pushed
    }

    /// Bytes held by the stored lines (for memory accounting).
    pub fn text_bytes(&self) -> usize {
        self.lines.iter().map(|l| l.len()).sum()
    }

    fn push(&mut self, line: Box<str>) {
        self.pushed += 1;
        if self.capacity == 0 {
            return;
        }
        if self.lines.len() == self.capacity {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    /// Stored line `i` (0 = oldest).
    pub fn line(&self, i: usize) -> Option<&str> {
        self.lines.get(i).map(|l| &**l)
    }

    /// The view `offset` rows above the live screen: the last `rows` rows of
    /// (history followed by `live`, the live screen's formatted rows), ending
    /// `offset` rows before the bottom. `offset` is clamped to the history.
    pub fn view(&self, live: &[String], rows: u16, cols: u16, offset: usize) -> vt100::Parser {
        let offset = offset.min(self.lines.len());
        let total = self.lines.len() + live.len();
        let end = total - offset;
        let start = end.saturating_sub(usize::from(rows));
        let mut parser = vt100::Parser::new(
            NonZeroU16::new(rows).unwrap_or(NonZeroU16::MIN),
            NonZeroU16::new(cols).unwrap_or(NonZeroU16::MIN),
            0,
        );
        for i in start..end {
            if i > start {
                parser.process(b"\r\n");
            }
            // Each stored row starts from default attributes.
            parser.process(b"\x1b[m");
            match self.lines.get(i) {
                Some(line) => parser.process(line.as_bytes()),
                None => parser.process(live[i - self.lines.len()].as_bytes()),
            }
        }
        parser
    }
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
        let _ = contents
            .write_formatted_basic(&mut self.scratch, &mut BasicFormattedCaptureState::new());
        let line = Box::from(self.scratch.as_str());
        self.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parser(cap: usize) -> vt100::Parser<History> {
        vt100::Parser::new_with_callbacks(
            NonZeroU16::new(3).unwrap(),
            NonZeroU16::new(10).unwrap(),
            0,
            History::new(cap),
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
        assert_eq!(h.line(0), Some("line 3"));
        assert_eq!(h.line(3), Some("line 6"));
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
        let mut p = vt100::Parser::new_with_callbacks(
            NonZeroU16::new(45).unwrap(),
            NonZeroU16::new(160).unwrap(),
            0,
            History::new(10_000),
        );
        for i in 0..12_000 {
            p.process(format!("\x1b[32m{i:>6}\x1b[m some log text that is typical of a build, eighty columns wide......\r\n").as_bytes());
        }
        let h = p.callbacks();
        assert_eq!(h.len(), 10_000);
        // vt100's own scrollback would hold 10,000 x 160 x 32 bytes = 51 MB.
        assert!(h.text_bytes() < 1_500_000, "{} bytes", h.text_bytes());
    }
}
