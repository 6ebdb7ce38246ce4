//! Copy mode over one task's history and screen, as tmux does it: move a
//! cursor with vi or emacs keys, search forward and back, select and copy.
//! Pure: rows in, key in, what to do out. The app draws [`CopyMode::view`]
//! in place of the live pane and sends a copy to the clipboards.
//!
//! The rows are taken once, when copy mode starts: the task keeps running
//! and its new output shows when copy mode ends (a view that moved under
//! the cursor while reading would lose the user's place).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::Span;

use termic_runtime::history::{screen_of_rows, AllRows};

/// Which key set copy mode answers to (tmux's `mode-keys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKeys {
    Vi,
    Emacs,
}

impl CopyKeys {
    /// tmux's rule: vi keys when `$VISUAL` or `$EDITOR` names vi or vim,
    /// emacs keys otherwise.
    pub fn from_editor(visual: Option<&str>, editor: Option<&str>) -> CopyKeys {
        let editor = visual.filter(|v| !v.is_empty()).or(editor).unwrap_or("");
        let program = editor.rsplit('/').next().unwrap_or("");
        if program.contains("vi") {
            CopyKeys::Vi
        } else {
            CopyKeys::Emacs
        }
    }
}

/// A place in the rows: line (0 = oldest) and character index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    pub line: usize,
    pub ch: usize,
}

/// A search being typed at the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub forward: bool,
    pub text: String,
}

/// What the app does after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyOutcome {
    Stay,
    Exit,
    /// Copy this text, then leave copy mode.
    Copy(String),
}

#[derive(Debug, Clone)]
pub struct CopyMode {
    /// The task this copy mode browses (the runtime's id).
    pub task: u64,
    pub keys: CopyKeys,
    formatted: Vec<String>,
    plain: Vec<Vec<char>>,
    rows: u16,
    cols: u16,
    /// First line shown.
    pub top: usize,
    pub cursor: Point,
    /// Where the selection started (`None`: nothing selected).
    pub anchor: Option<Point>,
    /// The last search, for `n` / `N` and the highlights.
    pub search: Option<(String, bool)>,
    pub prompt: Option<Prompt>,
    /// A one-line note (no match, copied).
    pub note: Option<String>,
}

impl CopyMode {
    /// Copy mode over a task's rows (history then screen), the cursor on
    /// the bottom line, showing the live screen's place.
    pub fn new(task: u64, keys: CopyKeys, all: AllRows) -> Self {
        let plain = all.plain.iter().map(|l| l.chars().collect()).collect();
        let mut mode = CopyMode {
            task,
            keys,
            formatted: all.formatted,
            plain,
            rows: all.rows.max(1),
            cols: all.cols.max(1),
            top: 0,
            cursor: Point { line: 0, ch: 0 },
            anchor: None,
            search: None,
            prompt: None,
            note: None,
        };
        mode.top = mode.max_top();
        let last = mode.plain.len().saturating_sub(1);
        mode.cursor = Point { line: last, ch: 0 };
        mode
    }

    /// Rows of the pane copy mode fills.
    pub fn view_rows(&self) -> u16 {
        self.rows
    }

    pub fn line_count(&self) -> usize {
        self.plain.len()
    }

    fn page(&self) -> usize {
        usize::from(self.rows)
    }

    fn max_top(&self) -> usize {
        self.plain.len().saturating_sub(self.page())
    }

    /// Lines above the live screen's top the view shows (0: the live place).
    pub fn lines_back(&self) -> usize {
        self.max_top() - self.top.min(self.max_top())
    }

    pub fn at_bottom(&self) -> bool {
        self.top >= self.max_top()
    }

    fn line_len(&self, line: usize) -> usize {
        self.plain.get(line).map_or(0, Vec::len)
    }

    /// Scrolls the view by `delta` lines (negative: back), the cursor kept
    /// on screen.
    pub fn scroll(&mut self, delta: isize) {
        self.top = self.top.saturating_add_signed(delta).min(self.max_top());
        let bottom = self.top + self.page() - 1;
        self.cursor.line = self.cursor.line.clamp(self.top, bottom.max(self.top));
        self.cursor.line = self.cursor.line.min(self.plain.len().saturating_sub(1));
        self.clamp_ch();
    }

    /// Moves the cursor to `line`, scrolling just enough to show it.
    fn goto_line(&mut self, line: usize) {
        let line = line.min(self.plain.len().saturating_sub(1));
        self.cursor.line = line;
        if line < self.top {
            self.top = line;
        } else if line >= self.top + self.page() {
            self.top = (line + 1 - self.page()).min(self.max_top());
        }
        self.clamp_ch();
    }

    fn clamp_ch(&mut self) {
        let len = self.line_len(self.cursor.line);
        self.cursor.ch = self.cursor.ch.min(len.saturating_sub(1));
    }

    fn move_lines(&mut self, delta: isize) {
        self.goto_line(self.cursor.line.saturating_add_signed(delta));
    }

    fn move_ch(&mut self, delta: isize) {
        self.cursor.ch = self.cursor.ch.saturating_add_signed(delta);
        self.clamp_ch();
    }

    fn page_by(&mut self, delta: isize) {
        let before = self.top;
        self.scroll(delta);
        if self.top == before {
            // At an end already: the cursor goes the rest of the way.
            self.move_lines(delta);
        }
    }

    /// The next (`forward`) or previous word start from the cursor.
    fn word(&mut self, forward: bool) {
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let mut p = self.cursor;
        let total = self.plain.len();
        let at = |p: Point, plain: &Vec<Vec<char>>| plain[p.line].get(p.ch).copied();
        let step = |p: &mut Point, plain: &Vec<Vec<char>>| -> bool {
            if forward {
                if p.ch + 1 < plain[p.line].len() {
                    p.ch += 1;
                } else if p.line + 1 < total {
                    *p = Point {
                        line: p.line + 1,
                        ch: 0,
                    };
                } else {
                    return false;
                }
            } else if p.ch > 0 {
                p.ch -= 1;
            } else if p.line > 0 {
                p.line -= 1;
                p.ch = plain[p.line].len().saturating_sub(1);
            } else {
                return false;
            }
            true
        };
        if total == 0 {
            return;
        }
        if forward {
            // Leave the current word, then skip blanks.
            while at(p, &self.plain).is_some_and(is_word) && step(&mut p, &self.plain) {}
            while !at(p, &self.plain).is_some_and(is_word) && step(&mut p, &self.plain) {}
        } else {
            let _ = step(&mut p, &self.plain);
            while !at(p, &self.plain).is_some_and(is_word) && step(&mut p, &self.plain) {}
            while p.ch > 0
                && self.plain[p.line]
                    .get(p.ch - 1)
                    .copied()
                    .is_some_and(is_word)
            {
                p.ch -= 1;
            }
        }
        self.goto_line(p.line);
        self.cursor.ch = p.ch;
    }

    fn toggle_selection(&mut self) {
        self.anchor = match self.anchor {
            Some(_) => None,
            None => Some(self.cursor),
        };
    }

    /// The selection, start before end, both included.
    pub fn selection(&self) -> Option<(Point, Point)> {
        let anchor = self.anchor?;
        Some(if anchor <= self.cursor {
            (anchor, self.cursor)
        } else {
            (self.cursor, anchor)
        })
    }

    /// The selected text: lines joined by newlines.
    pub fn selected_text(&self) -> Option<String> {
        let (start, end) = self.selection()?;
        let mut out = String::new();
        for line in start.line..=end.line {
            let chars = &self.plain[line];
            let from = if line == start.line { start.ch } else { 0 };
            let to = if line == end.line {
                (end.ch + 1).min(chars.len())
            } else {
                chars.len()
            };
            if line > start.line {
                out.push('\n');
            }
            out.extend(chars.get(from.min(to)..to).unwrap_or_default());
        }
        Some(out)
    }

    /// Searches for `query` from the cursor, wrapping; moves the cursor to
    /// the match. Smart case: a query with a capital letter matches case.
    pub fn find(&mut self, query: &str, forward: bool) -> bool {
        self.search = Some((query.to_string(), forward));
        let needle: Vec<char> = query.chars().collect();
        if needle.is_empty() || self.plain.is_empty() {
            return false;
        }
        let fold = !query.chars().any(char::is_uppercase);
        let n = self.plain.len();
        let here = self.cursor;
        // Lines in search order, starting (and ending) at the cursor's line.
        for step in 0..=n {
            let line = if forward {
                (here.line + step) % n
            } else {
                (here.line + n * 2 - step) % n
            };
            let hits = matches_in(&self.plain[line], &needle, fold);
            let pick = if forward {
                hits.into_iter().find(|&ch| {
                    step > 0 && step < n
                        || (step == 0 && ch > here.ch)
                        || (step == n && ch <= here.ch)
                })
            } else {
                hits.into_iter().rev().find(|&ch| {
                    step > 0 && step < n
                        || (step == 0 && ch < here.ch)
                        || (step == n && ch >= here.ch)
                })
            };
            if let Some(ch) = pick {
                self.goto_line(line);
                self.cursor.ch = ch;
                self.note = None;
                return true;
            }
        }
        self.note = Some(format!("Not found: {query}"));
        false
    }

    /// Repeats the last search, the same way (`same`) or the other way.
    fn again(&mut self, same: bool) {
        if let Some((query, forward)) = self.search.clone() {
            self.find(&query, forward == same);
            // `find` stores the direction it went; keep the user's.
            self.search = Some((query, forward));
        }
    }

    /// Applies one key.
    pub fn key(&mut self, key: &KeyEvent) -> CopyOutcome {
        if let Some(mut prompt) = self.prompt.take() {
            match key.code {
                KeyCode::Enter => {
                    if !prompt.text.is_empty() {
                        self.find(&prompt.text, prompt.forward);
                    }
                }
                KeyCode::Esc => {}
                KeyCode::Char('g') if key.modifiers.contains(KeyModifiers::CONTROL) => {}
                KeyCode::Backspace => {
                    prompt.text.pop();
                    self.prompt = Some(prompt);
                }
                KeyCode::Char(c) if !c.is_control() => {
                    prompt.text.push(c);
                    self.prompt = Some(prompt);
                }
                _ => self.prompt = Some(prompt),
            }
            return CopyOutcome::Stay;
        }
        self.note = None;
        let page = self.page() as isize;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        // Keys both styles share.
        match key.code {
            KeyCode::Up => self.move_lines(-1),
            KeyCode::Down => self.move_lines(1),
            KeyCode::Left => self.move_ch(-1),
            KeyCode::Right => self.move_ch(1),
            KeyCode::PageUp => self.page_by(-page),
            KeyCode::PageDown => self.page_by(page),
            KeyCode::Home => self.cursor.ch = 0,
            KeyCode::End => self.cursor.ch = self.line_len(self.cursor.line).saturating_sub(1),
            KeyCode::Enter => return self.copy_or_exit(),
            KeyCode::Char('q') if !ctrl && !alt => return CopyOutcome::Exit,
            _ => {
                return match self.keys {
                    CopyKeys::Vi => self.vi_key(key, ctrl, page),
                    CopyKeys::Emacs => self.emacs_key(key, ctrl, alt, page),
                }
            }
        }
        CopyOutcome::Stay
    }

    fn copy_or_exit(&mut self) -> CopyOutcome {
        match self.selected_text() {
            Some(text) => CopyOutcome::Copy(text),
            None => CopyOutcome::Exit,
        }
    }

    fn start_prompt(&mut self, forward: bool) {
        self.prompt = Some(Prompt {
            forward,
            text: String::new(),
        });
    }

    fn vi_key(&mut self, key: &KeyEvent, ctrl: bool, page: isize) -> CopyOutcome {
        let half = (page / 2).max(1);
        match (key.code, ctrl) {
            (KeyCode::Esc, _) if self.anchor.is_some() => self.anchor = None,
            (KeyCode::Esc, _) | (KeyCode::Char('c'), true) => return CopyOutcome::Exit,
            (KeyCode::Char('k'), false) => self.move_lines(-1),
            (KeyCode::Char('j'), false) => self.move_lines(1),
            (KeyCode::Char('h'), false) => self.move_ch(-1),
            (KeyCode::Char('l'), false) => self.move_ch(1),
            (KeyCode::Char('0' | '^'), false) => self.cursor.ch = 0,
            (KeyCode::Char('$'), false) => {
                self.cursor.ch = self.line_len(self.cursor.line).saturating_sub(1)
            }
            (KeyCode::Char('w'), false) => self.word(true),
            (KeyCode::Char('b'), false) => self.word(false),
            (KeyCode::Char('g'), false) => {
                self.top = 0;
                self.goto_line(0);
            }
            (KeyCode::Char('G'), false) => {
                self.top = self.max_top();
                self.goto_line(self.plain.len().saturating_sub(1));
            }
            (KeyCode::Char('u'), true) => self.page_by(-half),
            (KeyCode::Char('d'), true) => self.page_by(half),
            (KeyCode::Char('b'), true) => self.page_by(-page),
            (KeyCode::Char('f'), true) => self.page_by(page),
            (KeyCode::Char('y'), true) => self.scroll(-1),
            (KeyCode::Char('e'), true) => self.scroll(1),
            (KeyCode::Char('/'), false) => self.start_prompt(true),
            (KeyCode::Char('?'), false) => self.start_prompt(false),
            (KeyCode::Char('n'), false) => self.again(true),
            (KeyCode::Char('N'), false) => self.again(false),
            (KeyCode::Char('v' | ' '), false) => self.toggle_selection(),
            (KeyCode::Char('y'), false) => return self.copy_or_exit(),
            _ => {}
        }
        CopyOutcome::Stay
    }

    fn emacs_key(&mut self, key: &KeyEvent, ctrl: bool, alt: bool, page: isize) -> CopyOutcome {
        match (key.code, ctrl, alt) {
            (KeyCode::Esc, _, _) => return CopyOutcome::Exit,
            (KeyCode::Char('g'), true, _) if self.anchor.is_some() => self.anchor = None,
            (KeyCode::Char('g'), true, _) => return CopyOutcome::Exit,
            (KeyCode::Char('p'), true, _) => self.move_lines(-1),
            (KeyCode::Char('n'), true, _) => self.move_lines(1),
            (KeyCode::Char('b'), true, _) => self.move_ch(-1),
            (KeyCode::Char('f'), true, _) => self.move_ch(1),
            (KeyCode::Char('a'), true, _) => self.cursor.ch = 0,
            (KeyCode::Char('e'), true, _) => {
                self.cursor.ch = self.line_len(self.cursor.line).saturating_sub(1)
            }
            (KeyCode::Char('f'), false, true) => self.word(true),
            (KeyCode::Char('b'), false, true) => self.word(false),
            (KeyCode::Char('<'), false, true) => {
                self.top = 0;
                self.goto_line(0);
            }
            (KeyCode::Char('>'), false, true) => {
                self.top = self.max_top();
                self.goto_line(self.plain.len().saturating_sub(1));
            }
            (KeyCode::Char('v'), true, _) => self.page_by(page),
            (KeyCode::Char('v'), false, true) => self.page_by(-page),
            (KeyCode::Char('s'), true, _) => self.start_prompt(true),
            (KeyCode::Char('r'), true, _) => self.start_prompt(false),
            (KeyCode::Char('n'), false, false) => self.again(true),
            (KeyCode::Char('N'), false, false) => self.again(false),
            (KeyCode::Char(' ' | '@'), true, _) | (KeyCode::Null, _, _) => self.toggle_selection(),
            (KeyCode::Char('w'), false, true) | (KeyCode::Char('w'), true, _) => {
                return self.copy_or_exit()
            }
            _ => {}
        }
        CopyOutcome::Stay
    }

    /// The line and character under pane cell (`col`, `row`).
    pub fn point_at(&self, col: u16, row: u16) -> Point {
        let line = (self.top + usize::from(row)).min(self.plain.len().saturating_sub(1));
        let ch = self
            .plain
            .get(line)
            .map_or(0, |chars| ch_at_col(chars, col));
        Point { line, ch }
    }

    /// Mouse drag: select from `from` to `to` (pane cells).
    pub fn drag(&mut self, from: (u16, u16), to: (u16, u16)) {
        self.anchor = Some(self.point_at(from.0, from.1));
        let to = self.point_at(to.0, to.1);
        self.cursor = to;
    }

    /// What the pane shows: the visible rows as a screen, and the cells to
    /// highlight.
    pub fn view(&self) -> CopyView {
        let end = (self.top + self.page()).min(self.formatted.len());
        let parser = screen_of_rows(
            self.formatted[self.top.min(end)..end].iter().cloned(),
            self.rows,
            self.cols,
        );
        let mut marks = Vec::new();
        let fold_query = self.search.as_ref().map(|(q, _)| {
            (
                q.chars().collect::<Vec<char>>(),
                !q.chars().any(char::is_uppercase),
            )
        });
        let selection = self.selection();
        for (row, line) in (self.top..end).enumerate() {
            let chars = &self.plain[line];
            let row = row as u16;
            if let Some((needle, fold)) = &fold_query {
                for ch in matches_in(chars, needle, *fold) {
                    let from = col_of(chars, ch);
                    let to = col_of(chars, ch + needle.len());
                    marks.push(Mark {
                        row,
                        cols: from..to,
                        kind: MarkKind::Match,
                    });
                }
            }
            if let Some((start, end)) = selection {
                if (start.line..=end.line).contains(&line) {
                    let from = if line == start.line { start.ch } else { 0 };
                    let to = if line == end.line {
                        end.ch + 1
                    } else {
                        chars.len().max(1)
                    };
                    marks.push(Mark {
                        row,
                        cols: col_of(chars, from)..col_of(chars, to).max(col_of(chars, from) + 1),
                        kind: MarkKind::Selection,
                    });
                }
            }
        }
        if (self.top..end).contains(&self.cursor.line) {
            let chars = &self.plain[self.cursor.line];
            let col = col_of(chars, self.cursor.ch);
            marks.push(Mark {
                row: (self.cursor.line - self.top) as u16,
                cols: col..col + 1,
                kind: MarkKind::Cursor,
            });
        }
        CopyView { parser, marks }
    }

    /// `[12/340]`: the cursor's line of all lines, as tmux shows it.
    pub fn position(&self) -> String {
        format!("[{}/{}]", self.cursor.line + 1, self.plain.len())
    }
}

/// Cells to highlight in the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub row: u16,
    pub cols: std::ops::Range<u16>,
    pub kind: MarkKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    Match,
    Selection,
    Cursor,
}

pub struct CopyView {
    pub parser: vt100::Parser,
    pub marks: Vec<Mark>,
}

fn char_width(c: char) -> u16 {
    let mut buf = [0; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width() as u16
}

/// The cell column where character `ch` of `chars` starts.
fn col_of(chars: &[char], ch: usize) -> u16 {
    let known: u16 = chars.iter().take(ch).map(|&c| char_width(c)).sum();
    // Past the end, one cell per character.
    known + ch.saturating_sub(chars.len()) as u16
}

/// The character under cell column `col`.
fn ch_at_col(chars: &[char], col: u16) -> usize {
    let mut at = 0;
    for (i, &c) in chars.iter().enumerate() {
        let w = char_width(c);
        if col < at + w.max(1) {
            return i;
        }
        at += w;
    }
    chars.len().saturating_sub(1)
}

/// Where `needle` starts in `hay` (character indices), folding case when asked.
fn matches_in(hay: &[char], needle: &[char], fold: bool) -> Vec<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    let eq = |a: char, b: char| {
        if fold {
            a.to_lowercase().eq(b.to_lowercase())
        } else {
            a == b
        }
    };
    (0..=hay.len() - needle.len())
        .filter(|&i| needle.iter().zip(&hay[i..]).all(|(&n, &h)| eq(h, n)))
        .collect()
}

#[cfg(test)]
#[path = "copy_mode_tests.rs"]
mod tests;
