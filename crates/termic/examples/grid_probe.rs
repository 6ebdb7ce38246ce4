//! How cheap could termic's own grid be? A measurement for issue 14's first
//! route, not a screen model: the least a grid over the vendored vte must do
//! for the bench payload, to weigh the route before building it.
//!
//! usage: grid_probe FILE [ROUNDS=3]
//!
//! The probe handles exactly what `bench/gen_output.py` prints: printable
//! text (ASCII, and characters of width 1 or 2), CR, LF, BS, TAB, SGR and
//! OSC titles, with wrapping and scrolling, and every row that scrolls off
//! captured into a ring of bytes with its colours, as termic's history
//! does. Everything else a terminal does is missing (cursor moves, erases,
//! scroll regions, the alternate screen, combining characters), so its
//! figure is a floor for the route, not a promise. Its layout is the one
//! the route would take: a cell of 16 bytes (a `char` and the pen inline)
//! against vt100's 32, rows in a ring of one allocation, a written mark
//! per row, and the pen compared as two words and a half in the capture.
//!
//! Before timing, the probe checks itself against vt100 with termic's
//! history on the same file: every row, scrolled off or on the screen,
//! must read the same as plain text, or it exits non-zero. A floor for
//! work the probe does not do would mean nothing.

use std::collections::VecDeque;
use std::num::NonZeroU16;
use std::time::Instant;

use termic_runtime::history::History;
use unicode_width::UnicodeWidthChar;

const ROWS: usize = 45;
const COLS: usize = 160;
const HISTORY_LINES: usize = 10_000;

/// Colours and styles: a colour is 0 (default), `0x0100_0000 | index` or
/// `0x0200_0000 | rgb`.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
struct Pen {
    fg: u32,
    bg: u32,
    /// bold 1, dim 2, italic 4, underline 8, inverse 16
    flags: u8,
}

/// 16 bytes: the character, the pen, and whether it is the left (1) or
/// right (2) half of a wide character.
#[derive(Clone, Copy, Debug)]
struct Cell {
    ch: char,
    pen: Pen,
    wide: u8,
}

const BLANK: Cell = Cell {
    ch: ' ',
    pen: Pen {
        fg: 0,
        bg: 0,
        flags: 0,
    },
    wide: 0,
};

/// Rows that scrolled off, formatted, end to end in one ring of bytes.
#[derive(Default)]
struct Scrollback {
    bytes: VecDeque<u8>,
    lens: VecDeque<usize>,
}

impl Scrollback {
    fn push(&mut self, line: &[u8]) {
        if self.lens.len() == HISTORY_LINES {
            let old = self.lens.pop_front().unwrap_or(0);
            self.bytes.drain(..old);
        }
        self.bytes.extend(line);
        self.lens.push_back(line.len());
    }

    fn lines(&self) -> Vec<String> {
        let mut at = 0;
        let (a, b) = self.bytes.as_slices();
        let all = [a, b].concat();
        self.lens
            .iter()
            .map(|&n| {
                let line = String::from_utf8_lossy(&all[at..at + n]).into_owned();
                at += n;
                line
            })
            .collect()
    }
}

struct Grid {
    cells: Vec<Cell>,
    /// The physical row shown at the top (the ring's start).
    top: usize,
    /// Per physical row: every cell at or past it is blank.
    written: Vec<usize>,
    row: usize,
    /// `COLS` means a wrap is pending, as in vt100.
    col: usize,
    pen: Pen,
    title: Vec<u8>,
    scrollback: Scrollback,
    line: Vec<u8>,
}

impl Grid {
    fn new() -> Self {
        Grid {
            cells: vec![BLANK; ROWS * COLS],
            top: 0,
            written: vec![0; ROWS],
            row: 0,
            col: 0,
            pen: Pen::default(),
            title: Vec::new(),
            scrollback: Scrollback::default(),
            line: Vec::with_capacity(4 * COLS),
        }
    }

    fn physical(&self, row: usize) -> usize {
        (self.top + row) % ROWS
    }

    fn row_mut(&mut self, row: usize) -> (&mut [Cell], &mut usize) {
        let p = self.physical(row);
        (
            &mut self.cells[p * COLS..(p + 1) * COLS],
            &mut self.written[p],
        )
    }

    fn line_feed(&mut self) {
        if self.row + 1 < ROWS {
            self.row += 1;
            return;
        }
        let p = self.top;
        self.capture(p);
        let written = std::mem::take(&mut self.written[p]);
        self.cells[p * COLS..p * COLS + written].fill(BLANK);
        self.top = (self.top + 1) % ROWS;
    }

    /// Physical row `p` as termic's history keeps it: SGR where the pen
    /// changes, trailing blanks dropped.
    fn capture(&mut self, p: usize) {
        let cells = &self.cells[p * COLS..p * COLS + self.written[p]];
        let end = cells
            .iter()
            .rposition(|c| c.ch != ' ' || c.pen != Pen::default())
            .map_or(0, |i| i + 1);
        let cells = &cells[..end];
        self.line.clear();
        let mut pen = Pen::default();
        let mut i = 0;
        while let Some(cell) = cells.get(i) {
            if cell.pen != pen {
                write_sgr(&mut self.line, cell.pen);
                pen = cell.pen;
            }
            // a run of ASCII cells with this pen, copied out at once
            let start = i;
            while cells
                .get(i)
                .is_some_and(|c| c.ch.is_ascii() && c.pen == pen && c.wide == 0)
            {
                i += 1;
            }
            if i > start {
                self.line.extend(cells[start..i].iter().map(|c| c.ch as u8));
                continue;
            }
            i += 1;
            if cell.wide != 2 {
                let mut utf8 = [0; 4];
                self.line
                    .extend_from_slice(cell.ch.encode_utf8(&mut utf8).as_bytes());
            }
        }
        self.scrollback.push(&self.line);
    }

    fn wrap_if_pending(&mut self) {
        if self.col == COLS {
            self.col = 0;
            self.line_feed();
        }
    }

    fn put_wide(&mut self, c: char, width: usize) {
        if self.col + width > COLS {
            self.col = COLS;
        }
        self.wrap_if_pending();
        let (col, pen) = (self.col, self.pen);
        let (cells, written) = self.row_mut(self.row);
        cells[col] = Cell {
            ch: c,
            pen,
            wide: u8::from(width == 2),
        };
        if width == 2 {
            cells[col + 1] = Cell {
                ch: ' ',
                pen,
                wide: 2,
            };
        }
        *written = (*written).max(col + width);
        self.col += width;
    }

    fn rows_plain(&self) -> Vec<String> {
        (0..ROWS)
            .map(|r| {
                let p = self.physical(r);
                let cells = &self.cells[p * COLS..p * COLS + self.written[p]];
                let text: String = cells.iter().filter(|c| c.wide != 2).map(|c| c.ch).collect();
                text.trim_end().to_string()
            })
            .collect()
    }
}

fn write_sgr(out: &mut Vec<u8>, pen: Pen) {
    out.extend_from_slice(b"\x1b[0");
    for (bit, code) in [(1, b'1'), (2, b'2'), (4, b'3'), (8, b'4'), (16, b'7')] {
        if pen.flags & bit != 0 {
            out.extend_from_slice(&[b';', code]);
        }
    }
    for (colour, base) in [(pen.fg, b"38"), (pen.bg, b"48")] {
        let parts: &[u32] = match colour >> 24 {
            1 => &[5, colour & 0xff],
            2 => &[
                2,
                (colour >> 16) & 0xff,
                (colour >> 8) & 0xff,
                colour & 0xff,
            ],
            _ => continue,
        };
        out.push(b';');
        out.extend_from_slice(base);
        for &n in parts {
            out.push(b';');
            write_decimal(out, n as u8);
        }
    }
    out.push(b'm');
}

fn write_decimal(out: &mut Vec<u8>, n: u8) {
    if n >= 100 {
        out.push(b'0' + n / 100);
    }
    if n >= 10 {
        out.push(b'0' + n / 10 % 10);
    }
    out.push(b'0' + n % 10);
}

impl vte::Perform for Grid {
    fn print(&mut self, c: char) {
        if let Some(w @ 1..=2) = c.width() {
            self.put_wide(c, w);
        }
    }

    fn print_ascii(&mut self, run: &[u8]) {
        let mut rest = run;
        while !rest.is_empty() {
            self.wrap_if_pending();
            let (col, pen) = (self.col, self.pen);
            let n = rest.len().min(COLS - col);
            let (cells, written) = self.row_mut(self.row);
            for (cell, &b) in cells[col..col + n].iter_mut().zip(rest) {
                *cell = Cell {
                    ch: char::from(b),
                    pen,
                    wide: 0,
                };
            }
            *written = (*written).max(col + n);
            self.col += n;
            rest = &rest[n..];
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\r' => self.col = 0,
            b'\n' => self.line_feed(),
            8 => self.col = self.col.min(COLS - 1).saturating_sub(1),
            b'\t' => self.col = ((self.col / 8 + 1) * 8).min(COLS - 1),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &vte::Params, _: &[u8], _: bool, action: char) {
        if action != 'm' {
            return;
        }
        let mut it = params.iter();
        if params.is_empty() {
            self.pen = Pen::default();
        }
        while let Some(p) = it.next() {
            let mut next = || it.next().map_or(0, |p| u32::from(p[0]) & 0xff);
            let pen = &mut self.pen;
            match p[0] {
                0 => *pen = Pen::default(),
                1 => pen.flags |= 1,
                2 => pen.flags |= 2,
                3 => pen.flags |= 4,
                4 => pen.flags |= 8,
                7 => pen.flags |= 16,
                22 => pen.flags &= !3,
                23 => pen.flags &= !4,
                24 => pen.flags &= !8,
                27 => pen.flags &= !16,
                n @ 30..=37 => pen.fg = 0x0100_0000 | u32::from(n - 30),
                n @ 90..=97 => pen.fg = 0x0100_0000 | u32::from(n - 82),
                n @ 40..=47 => pen.bg = 0x0100_0000 | u32::from(n - 40),
                39 => pen.fg = 0,
                49 => pen.bg = 0,
                n @ (38 | 48) => {
                    let colour = match next() {
                        5 => 0x0100_0000 | next(),
                        2 => 0x0200_0000 | next() << 16 | next() << 8 | next(),
                        _ => 0,
                    };
                    if n == 38 {
                        pen.fg = colour;
                    } else {
                        pen.bg = colour;
                    }
                }
                _ => {}
            }
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _: bool) {
        if let [b"0" | b"2", title, ..] = params {
            self.title.clear();
            self.title.extend_from_slice(title);
        }
    }
}

fn vt100_rows(bytes: &[u8]) -> Vec<String> {
    let mut p = vt100::Parser::new_with_callbacks(
        NonZeroU16::new(ROWS as u16).unwrap(),
        NonZeroU16::new(COLS as u16).unwrap(),
        0,
        History::new(HISTORY_LINES),
    );
    for chunk in bytes.chunks(64 * 1024) {
        p.process(chunk);
    }
    p.callbacks().all_rows(p.screen()).plain
}

fn probe(bytes: &[u8]) -> Grid {
    let mut grid = Grid::new();
    let mut parser = vte::Parser::new();
    for chunk in bytes.chunks(64 * 1024) {
        parser.advance(&mut grid, chunk);
    }
    grid
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: grid_probe FILE [ROUNDS]");
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("ROUNDS"));
    let bytes = std::fs::read(&path).expect("read FILE");

    // The same work as the screen model on this file, or no figure.
    let grid = probe(&bytes);
    let mut mine: Vec<String> = grid
        .scrollback
        .lines()
        .iter()
        .map(|l| termic_runtime::history::strip_sgr(l))
        .collect();
    mine.extend(grid.rows_plain());
    let theirs = vt100_rows(&bytes);
    if let Some(i) = (0..mine.len().max(theirs.len())).find(|&i| mine.get(i) != theirs.get(i)) {
        eprintln!(
            "the probe differs from vt100 at row {i} of {}:\n  probe: {:?}\n  vt100: {:?}",
            theirs.len(),
            mine.get(i),
            theirs.get(i)
        );
        return std::process::ExitCode::FAILURE;
    }
    println!("probe reads the same as vt100: {} rows", theirs.len());

    let mut secs: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(probe(&bytes));
            t.elapsed().as_secs_f64()
        })
        .collect();
    secs.sort_by(f64::total_cmp);
    let median = secs[secs.len() / 2];
    println!(
        "{:<34} {:7.1} MB/s",
        "own grid probe (16-byte cells)",
        bytes.len() as f64 / median / 1e6
    );
    std::process::ExitCode::SUCCESS
}
