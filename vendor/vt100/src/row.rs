use crate::term::BufWrite as _;
use alloc::{string::String, vec::Vec};

#[derive(Clone, Debug)]
pub struct Row {
    cells: Vec<crate::Cell>,
    wrapped: bool,
    /// termic: every cell at or past this index is blank
    /// (`Cell::is_blank`). Raised by whatever may write a non-blank cell,
    /// so the capture need not look for trailing blanks past it and a
    /// reset clears only the cells before it.
    written: usize,
    /// termic: this row's compact capture (what
    /// `RowContents::write_compact` gives), kept as the run paths append
    /// to the row from column 0 on, so that a row scrolling off is copied
    /// out instead of read back cell by cell. Valid while `shadow_cols` is
    /// not `SHADOW_INVALID`: then it covers the cells before `shadow_cols`
    /// and every cell from there on is blank. Anything else that changes
    /// the row's cells drops it.
    shadow: Vec<u8>,
    shadow_cols: usize,
    /// The attributes the shadow's last record set (default at its start).
    shadow_attrs: crate::attrs::Attrs,
    /// termic: the cells wait for the shadow (see `undefer`). While set,
    /// the shadow is valid and tells the row, every cell is physically
    /// blank, and only appends at the shadow's end keep it set: a row that
    /// is written left to right and scrolls off before anyone reads it is
    /// never written cell by cell, nor reset.
    deferred: bool,
}

/// termic: `Row::shadow_cols` once the shadow no longer tells the row.
const SHADOW_INVALID: usize = usize::MAX;

impl Row {
    /// termic: where this row's cells live, which identifies the row (for
    /// the debug check of the ring of rows in `Grid::scroll_up`).
    #[cfg(debug_assertions)]
    pub(crate) fn cells_ptr(&self) -> *const crate::Cell {
        self.cells.as_ptr()
    }

    pub fn new(cols: u16) -> Self {
        Self {
            cells: vec![crate::Cell::new(); usize::from(cols)],
            wrapped: false,
            written: 0,
            shadow: Vec::new(),
            shadow_cols: 0,
            shadow_attrs: crate::attrs::Attrs::default(),
            deferred: true,
        }
    }

    /// termic: writes the shadow into the cells if they wait for it. Every
    /// change of the cells other than an append at the shadow's end calls
    /// it first, and a reader of the cells needs it done (`Grid::settle`).
    pub(crate) fn undefer(&mut self) {
        if !self.deferred {
            return;
        }
        self.deferred = false;
        let mut attrs = crate::attrs::Attrs::default();
        let mut col = 0;
        let mut rest = &self.shadow[..];
        while let Some(&b) = rest.first() {
            if b == crate::capture::COMPACT_ATTRS {
                attrs = crate::capture::compact_attrs(rest);
                rest = &rest[crate::capture::COMPACT_ATTRS_LEN..];
            } else if b < 0x80 {
                self.cells[col].set_ascii(b, attrs);
                col += 1;
                rest = &rest[1..];
            } else {
                // a character of width 1 or 2 from `text_non_ascii`, written
                // as `write_char` writes it into blank cells
                let len = crate::capture::utf8_len(b);
                let c = core::str::from_utf8(&rest[..len])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\u{fffd}');
                let wide = unicode_width::UnicodeWidthChar::width(c) == Some(2);
                self.cells[col].set_char(c, wide, attrs);
                if wide {
                    let next = &mut self.cells[col + 1];
                    next.clear(crate::attrs::Attrs::default());
                    next.set_wide_continuation(true);
                }
                col += 1 + usize::from(wide);
                rest = &rest[len..];
            }
        }
        debug_assert_eq!(col, self.shadow_cols, "the shadow's cells");
        self.written = col;
    }

    /// termic: reading the cells would give other than the row: they wait
    /// for text in the shadow (a blank deferred row reads right as it is).
    pub(crate) fn waits_for_cells(&self) -> bool {
        self.deferred && self.shadow_cols > 0
    }

    /// termic: whether the cells of `col..` may be read: debug builds
    /// check that a reader settled the row first.
    fn debug_check_settled(&self, col: usize) {
        debug_assert!(
            !self.deferred || col >= self.shadow_cols,
            "a deferred row read at column {col} (the grid was not settled)"
        );
    }

    /// termic: an append of characters at `col` is about to be written.
    /// True when only the shadow needs it (the cells are deferred and `col`
    /// is the shadow's end); otherwise the cells are undeferred for it.
    #[inline]
    pub(crate) fn append_is_deferred(&mut self, col: usize) -> bool {
        if self.deferred && col == self.shadow_cols {
            return true;
        }
        self.undefer();
        false
    }

    /// termic: `run` (printable ASCII) appended at `col` when only the
    /// shadow takes it: the row is deferred and `col` is the shadow's end.
    /// `write_ascii`'s first case, and on its own the run paths' hot case,
    /// inline (see `Screen::append_ascii_deferred`). False, with nothing
    /// done, if not.
    #[inline]
    pub(crate) fn append_ascii_deferred(
        &mut self,
        col: usize,
        run: &[u8],
        attrs: crate::attrs::Attrs,
    ) -> bool {
        if !(self.deferred && col == self.shadow_cols) {
            return false;
        }
        self.shadow_set_attrs(attrs);
        self.shadow.extend_from_slice(run);
        self.shadow_cols = col + run.len();
        true
    }

    /// termic: whether the last column holds a character or the second
    /// half of a wide one (what `new_character_should_wrap` asks), also
    /// while the cells are deferred.
    pub(crate) fn last_cell_filled(&self) -> bool {
        if self.deferred {
            // appended without gaps from column 0
            return self.shadow_cols == self.cells.len();
        }
        self.cells
            .last()
            .is_some_and(|c| c.has_contents() || c.is_wide_continuation())
    }

    /// termic: the shadow starts over: the row is blank.
    fn shadow_restart(&mut self) {
        self.shadow.clear();
        self.shadow_cols = 0;
        self.shadow_attrs = crate::attrs::Attrs::default();
    }

    /// termic: the row changed other than by an append (see `shadow`).
    fn shadow_drop(&mut self) {
        self.shadow_cols = SHADOW_INVALID;
    }

    /// termic: the row's compact capture, when the shadow still tells it.
    pub(crate) fn compact_shadow(&self) -> Option<&[u8]> {
        (self.shadow_cols != SHADOW_INVALID).then_some(&self.shadow[..])
    }

    /// termic: `text` written at `col` with `attrs`, covering the cells up
    /// to `end`, into cells that were blank. At or past the shadow's end
    /// it is appended (the blank cells between read as spaces with default
    /// attributes, as the capture reads them); before it, the shadow drops.
    #[inline]
    pub(crate) fn shadow_append(
        &mut self,
        col: usize,
        end: usize,
        text: &[u8],
        attrs: crate::attrs::Attrs,
    ) {
        if self.shadow_cols == SHADOW_INVALID {
            return;
        }
        if col < self.shadow_cols {
            self.shadow_drop();
            return;
        }
        if col > self.shadow_cols {
            self.shadow_set_attrs(crate::attrs::Attrs::default());
            let gap = col - self.shadow_cols;
            self.shadow.resize(self.shadow.len() + gap, b' ');
        }
        self.shadow_set_attrs(attrs);
        self.shadow.extend_from_slice(text);
        self.shadow_cols = end;
    }

    /// termic: the shadow's text from here on has `attrs` (a record only
    /// when they change).
    #[inline]
    fn shadow_set_attrs(&mut self, attrs: crate::attrs::Attrs) {
        if attrs != self.shadow_attrs {
            crate::capture::push_compact_attrs(&mut self.shadow, &attrs);
            self.shadow_attrs = attrs;
        }
    }

    fn cols(&self) -> u16 {
        self.cells
            .len()
            .try_into()
            // we limit the number of cols to a u16 (see Size)
            .unwrap()
    }

    pub fn clear(&mut self, attrs: crate::attrs::Attrs) {
        if attrs.is_default() {
            // blank: the cells past the written mark are blank already
            self.reset();
            return;
        }
        for cell in &mut self.cells {
            cell.clear(attrs);
        }
        self.deferred = false;
        self.shadow_drop();
        self.written = self.cells.len();
        self.wrapped = false;
    }

    pub fn reset(&mut self) {
        self.debug_check_written();
        // a deferred row's cells are blank (its written mark is 0)
        self.cells[..self.written].fill(crate::Cell::new());
        self.written = 0;
        self.wrapped = false;
        self.shadow_restart();
        self.deferred = true;
    }

    /// termic: the cells before which every cell is blank (see `written`).
    pub(crate) fn written_cells(&self) -> &[crate::Cell] {
        self.debug_check_settled(0);
        self.debug_check_written();
        &self.cells[..self.written]
    }

    fn debug_check_written(&self) {
        debug_assert!(
            self.cells[self.written..].iter().all(crate::Cell::is_blank),
            "a non-blank cell past the written mark {}",
            self.written
        );
    }

    fn cells(&self) -> impl Iterator<Item = &crate::Cell> {
        self.debug_check_settled(0);
        self.cells.iter()
    }

    /// termic: writes a run of printable ASCII at `col` where it fits
    /// (`col + run.len() <= cols`), with the same result as `text` and
    /// `text_cleanup` give per byte: a wide character just before the run
    /// is cleared, and a wide character the run overwrites leaves a blank
    /// in its continuation cell (which the next byte then overwrites).
    #[inline]
    pub(crate) fn write_ascii(&mut self, col: usize, run: &[u8], attrs: crate::attrs::Attrs) {
        if self.append_ascii_deferred(col, run, attrs) {
            return;
        }
        self.undefer();
        let end = col + run.len();
        // non-blank cells are written up to the cell after the run
        self.written = self.written.max((end + 1).min(self.cells.len()));
        if col >= self.shadow_cols {
            // the common case: the shadow says every cell from `col` on is
            // blank (and the one before is no wide character's first half),
            // so there is no wide character to clean up
            debug_assert!(
                self.cells[col..end].iter().all(crate::Cell::is_blank),
                "a non-blank cell past the shadow's end {}",
                self.shadow_cols
            );
            for (cell, &b) in self.cells[col..end].iter_mut().zip(run) {
                cell.set_ascii(b, attrs);
            }
            self.shadow_append(col, end, run, attrs);
            return;
        }
        // over cells written before: the shadow no longer tells the row
        self.shadow_drop();
        let cells = &mut self.cells[..];
        if col > 0 && cells[col - 1].is_wide() {
            let prev = &mut cells[col - 1];
            let prev_attrs = *prev.attrs();
            prev.clear(prev_attrs);
        }
        let mut blanked = false;
        for (cell, &b) in cells[col..end].iter_mut().zip(run) {
            blanked = cell.is_wide() && !blanked;
            cell.set_ascii(b, attrs);
        }
        if blanked {
            if let Some(next) = cells.get_mut(end) {
                next.set(' ', attrs);
            }
        }
    }

    /// termic: writes a character of width 1 or 2 (`wide`) at `col` where
    /// it fits (`col + width <= cols`), with the same result as `text` and
    /// `text_cleanup` give when no wrap is needed: a wide character just
    /// before it is cleared, a wide character it overwrites with a narrow
    /// one leaves a blank after it, and a wide one makes the next cell its
    /// continuation (clearing what that cell's own wide character covered).
    /// The caller tells the shadow: a run of characters written left to
    /// right is one `shadow_append` of its text.
    #[inline]
    pub(crate) fn write_char(
        &mut self,
        col: usize,
        c: char,
        wide: bool,
        attrs: crate::attrs::Attrs,
    ) {
        debug_assert!(!self.deferred, "write_char on a deferred row");
        let end = col + 2 + usize::from(wide);
        self.written = self.written.max(end.min(self.cells.len()));
        let cells = &mut self.cells[..];
        let was_wide = cells[col].is_wide();
        cells[col].set_char(c, wide, attrs);
        if col > 0 && cells[col - 1].is_wide() {
            let prev = &mut cells[col - 1];
            let prev_attrs = *prev.attrs();
            prev.clear(prev_attrs);
        }
        if was_wide && !wide {
            if let Some(next) = cells.get_mut(col + 1) {
                next.set(' ', attrs);
            }
        } else if !was_wide && wide {
            let next = &mut cells[col + 1];
            let next_was_wide = next.is_wide();
            next.clear(crate::attrs::Attrs::default());
            next.set_wide_continuation(true);
            if next_was_wide {
                if let Some(after) = cells.get_mut(col + 2) {
                    after.clear(attrs);
                    if col + 3 == cells.len() {
                        self.wrapped = false;
                    }
                }
            }
        }
    }

    pub fn get(&self, col: u16) -> Option<&crate::Cell> {
        self.debug_check_settled(usize::from(col));
        self.cells.get(usize::from(col))
    }

    pub fn get_mut(&mut self, col: u16) -> Option<&mut crate::Cell> {
        self.undefer();
        self.shadow_drop();
        let col = usize::from(col);
        if col < self.cells.len() {
            self.written = self.written.max(col + 1);
        }
        self.cells.get_mut(col)
    }

    /// Inserts empty cells without changing the size of the row.
    ///
    /// Cells at the end are dropped.
    pub fn insert(&mut self, i: u16, count: u16) {
        // termic: saturating: `i` is the cursor column, which is one past
        // the last column while a wrap is pending (upstream underflowed and
        // panicked on ICH there).
        self.undefer();
        self.shadow_drop();
        let count = usize::from(count)
            .min(self.cells.len().saturating_sub(usize::from(i)));
        if count == 0 {
            // Always "truncate", even when `count` is 0. However, because we
            // didn't actually insert any cells, we don't need to follow the
            // whole truncation procedure in `Self::set_truncated`; we can just
            // clear the `wrapped` flag.
            self.wrapped = false;
            return;
        }

        let is_wide_continuation = self.get_mut(i).is_some_and(|cell| {
            let is_wc = cell.is_wide_continuation();
            if is_wc {
                cell.set_wide_continuation(false);
            }
            is_wc
        });

        // cells move right by `count`
        self.written = (self.written + count).min(self.cells.len());
        let slice = &mut self.cells[usize::from(i)..];
        slice.rotate_right(count);
        slice[..count].fill(crate::Cell::new());
        if is_wide_continuation {
            self.get_mut(i).unwrap().set_wide_continuation(true);
        }
        self.set_truncated();
    }

    /// Removes cells without changing the size of the row.
    ///
    /// Empty cells are added to the end.
    pub fn remove(&mut self, range: core::ops::Range<u16>) {
        self.undefer();
        self.shadow_drop();
        self.wrapped = false;
        if range.start >= range.end {
            return;
        }

        self.clear_wide(range.start);
        let last = range.end - 1;
        if last != range.start {
            self.clear_wide(last);
        }

        let count = usize::from(range.end - range.start);
        let slice = &mut self.cells[usize::from(range.start)..];
        slice[..count].fill(crate::Cell::new());
        slice.rotate_left(count);
    }

    pub fn erase(&mut self, i: u16, attrs: crate::attrs::Attrs) {
        self.undefer();
        self.shadow_drop();
        let wide = self.cells[usize::from(i)].is_wide();
        self.clear_wide(i);
        self.cells[usize::from(i)].clear(attrs);
        if !attrs.is_default() {
            self.written = self.written.max(usize::from(i) + 1);
        }
        // `wide` is captured pre-erase on purpose: a 2-wide char occupies the
        // logical last column at cols() - 2. saturating_sub guards the
        // degenerate case of an orphaned wide cell in a one-column row, where
        // cols() - 2 would underflow.
        if i == self.cols().saturating_sub(if wide { 2 } else { 1 }) {
            self.wrapped = false;
        }
    }

    pub fn truncate(&mut self, len: u16) {
        self.undefer();
        self.shadow_drop();
        self.cells.truncate(usize::from(len));
        self.written = self.written.min(self.cells.len());
        self.set_truncated();
    }

    fn set_truncated(&mut self) {
        self.wrapped = false;
        if let Some(last_cell) = self.cells.last_mut() {
            if last_cell.is_wide() {
                last_cell.clear(*last_cell.attrs());
            }
        }
    }

    fn grow_unchecked(&mut self, len: u16, cell: crate::Cell) {
        debug_assert!(self.cells.len() < usize::from(len));
        self.undefer();
        if !cell.is_blank() {
            self.written = usize::from(len);
            self.shadow_drop();
        }
        self.cells.resize(len.into(), cell);
        self.wrapped = false;
    }

    /// Like [`Self::resize`], but never decreases the size of the row.
    pub fn grow(&mut self, len: u16, cell: crate::Cell) {
        if self.cells.len() < usize::from(len) {
            self.grow_unchecked(len, cell);
        }
    }

    pub fn resize(&mut self, len: u16, cell: crate::Cell) {
        match usize::from(len).cmp(&self.cells.len()) {
            core::cmp::Ordering::Equal => {}
            core::cmp::Ordering::Less => {
                self.truncate(len);
            }
            core::cmp::Ordering::Greater => {
                self.grow_unchecked(len, cell);
            }
        }
    }

    /// Trims trailing blank cells from the row.
    pub fn trim(&mut self) {
        self.undefer();
        let excess = self
            .cells
            .iter()
            .rev()
            .take_while(|c| **c == crate::cell::Cell::DEFAULT)
            .count();
        self.cells.truncate(self.cells.len() - excess);
        self.cells.shrink_to_fit();
        self.written = self.written.min(self.cells.len());
    }

    pub fn wrap(&mut self, wrap: bool) {
        self.wrapped = wrap;
    }

    pub fn wrapped(&self) -> bool {
        self.wrapped
    }

    pub fn clear_wide(&mut self, col: u16) {
        self.undefer();
        self.shadow_drop();
        let col_idx = usize::from(col);
        let cell = &self.cells[col_idx];
        let other = if cell.is_wide() {
            let next = col_idx + 1;
            if next >= self.cells.len() {
                // Wide char at the last column with no continuation
                // (e.g. a shrinking resize that split the pair).
                // Clear the cell in place instead of indexing past
                // the end.
                let attrs = *self.cells[col_idx].attrs();
                self.cells[col_idx].clear(attrs);
                return;
            }
            &mut self.cells[next]
        } else if cell.is_wide_continuation() {
            &mut self.cells[usize::from(col - 1)]
        } else {
            return;
        };
        other.clear(*other.attrs());
    }

    pub fn write_contents(
        &self,
        contents: &mut String,
        start: u16,
        width: u16,
        wrapping: bool,
    ) {
        self.debug_check_settled(0);
        let mut prev_was_wide = false;

        let mut prev_col = start;
        for (col, cell) in self
            .cells()
            .enumerate()
            .skip(usize::from(start))
            .take(usize::from(width))
        {
            if prev_was_wide {
                prev_was_wide = false;
                continue;
            }
            prev_was_wide = cell.is_wide();

            // we limit the number of cols to a u16 (see Size)
            let col: u16 = col.try_into().unwrap();
            if cell.has_contents() {
                for _ in 0..(col - prev_col) {
                    contents.push(' ');
                }
                prev_col += col - prev_col;

                contents.push_str(cell.contents());
                prev_col += if cell.is_wide() { 2 } else { 1 };
            }
        }
        if prev_col == start && wrapping {
            contents.push('\n');
        }
    }

    pub fn write_contents_formatted(
        &self,
        contents: &mut String,
        start: u16,
        width: u16,
        row: u16,
        wrapping: bool,
        prev_pos: Option<crate::grid::Pos>,
        prev_attrs: Option<crate::attrs::Attrs>,
    ) -> (crate::grid::Pos, crate::attrs::Attrs) {
        self.debug_check_settled(0);
        let mut prev_was_wide = false;

        let mut prev_pos = prev_pos.unwrap_or_else(|| {
            if wrapping {
                crate::grid::Pos {
                    row: row - 1,
                    col: self.cols(),
                }
            } else {
                crate::grid::Pos { row, col: start }
            }
        });
        let mut prev_attrs = prev_attrs.unwrap_or_default();

        let first_cell = &self.cells[usize::from(start)];
        if wrapping && first_cell == &crate::cell::Cell::DEFAULT {
            let default_attrs = crate::cell::Cell::DEFAULT.attrs();
            if prev_attrs != *default_attrs {
                default_attrs.write_escape_code_diff(contents, &prev_attrs);
                prev_attrs = *default_attrs;
            }
            contents.push(' ');
            crate::term::Backspace.write_buf(contents);
            crate::term::EraseChar::new(1).write_buf(contents);
            prev_pos = crate::grid::Pos { row, col: 0 };
        }

        let mut erase: Option<(u16, &crate::attrs::Attrs)> = None;
        for (col, cell) in self
            .cells()
            .enumerate()
            .skip(usize::from(start))
            .take(usize::from(width))
        {
            if prev_was_wide {
                prev_was_wide = false;
                continue;
            }
            prev_was_wide = cell.is_wide();

            // we limit the number of cols to a u16 (see Size)
            let col: u16 = col.try_into().unwrap();
            let pos = crate::grid::Pos { row, col };

            if let Some((prev_col, attrs)) = erase {
                if cell.has_contents() || cell.attrs() != attrs {
                    let new_pos = crate::grid::Pos { row, col: prev_col };
                    if wrapping
                        && prev_pos.row + 1 == new_pos.row
                        && prev_pos.col >= self.cols()
                    {
                        (prev_pos, prev_attrs) =
                            self.wrap_into(contents, row, prev_attrs);
                    }
                    crate::term::MoveFromTo::new(prev_pos, new_pos)
                        .write_buf(contents);
                    prev_pos = new_pos;
                    if &prev_attrs != attrs {
                        attrs.write_escape_code_diff(contents, &prev_attrs);
                        prev_attrs = *attrs;
                    }
                    crate::term::EraseChar::new(pos.col - prev_col)
                        .write_buf(contents);
                    erase = None;
                }
            }

            if *cell != crate::cell::Cell::DEFAULT {
                let attrs = cell.attrs();
                if cell.has_contents() {
                    if pos != prev_pos {
                        if !wrapping
                            || prev_pos.row + 1 != pos.row
                            || prev_pos.col
                                < self.cols() - u16::from(cell.is_wide())
                            || pos.col != 0
                        {
                            crate::term::MoveFromTo::new(prev_pos, pos)
                                .write_buf(contents);
                        }
                        prev_pos = pos;
                    }

                    if &prev_attrs != attrs {
                        attrs.write_escape_code_diff(contents, &prev_attrs);
                        prev_attrs = *attrs;
                    }

                    prev_pos.col += if cell.is_wide() { 2 } else { 1 };
                    let cell_contents = cell.contents();
                    contents.push_str(cell_contents);
                } else if erase.is_none() {
                    erase = Some((pos.col, attrs));
                }
            }
        }
        if let Some((prev_col, attrs)) = erase {
            let new_pos = crate::grid::Pos { row, col: prev_col };
            if wrapping
                && prev_pos.row + 1 == new_pos.row
                && prev_pos.col >= self.cols()
            {
                (prev_pos, prev_attrs) =
                    self.wrap_into(contents, row, prev_attrs);
            }
            crate::term::MoveFromTo::new(prev_pos, new_pos)
                .write_buf(contents);
            prev_pos = new_pos;
            if &prev_attrs != attrs {
                attrs.write_escape_code_diff(contents, &prev_attrs);
                prev_attrs = *attrs;
            }
            crate::term::ClearRowForward.write_buf(contents);
        }

        (prev_pos, prev_attrs)
    }

    pub fn write_contents_formatted_basic(
        &self,
        writer: &mut impl alloc::fmt::Write,
        current_attrs: &mut crate::attrs::Attrs,
    ) -> alloc::fmt::Result {
        let mut prev_was_wide = false;
        let mut num_empty = 0;

        for cell in self.cells() {
            if core::mem::take(&mut prev_was_wide) {
                continue;
            }
            prev_was_wide = cell.is_wide();

            if *cell == crate::cell::Cell::DEFAULT {
                num_empty += 1;
                continue;
            }

            for _ in 0..core::mem::take(&mut num_empty) {
                writer.write_char(' ')?;
            }

            let new_attrs = *cell.attrs();
            new_attrs.write_escape_code_diff_fmt(writer, current_attrs)?;
            *current_attrs = new_attrs;
            if cell.has_contents() {
                writer.write_str(cell.contents())?;
            } else {
                writer.write_char(' ')?;
            }
        }
        Ok(())
    }

    // while it's true that most of the logic in this is identical to
    // write_contents_formatted, i can't figure out how to break out the
    // common parts without making things noticeably slower.
    /// termic: from the pending wrap at the end of the row above, onto
    /// column 0 of this (wrapped) row without changing a cell: its first
    /// cell is written again (it is unchanged: the caller is past it), so
    /// the terminal wraps, then the cursor steps back. Upstream wrote
    /// spaces up to the first erased column, which blanked unchanged cells
    /// before it (found by termic's view property test, 2026-12-06).
    fn wrap_into(
        &self,
        contents: &mut String,
        row: u16,
        mut prev_attrs: crate::attrs::Attrs,
    ) -> (crate::grid::Pos, crate::attrs::Attrs) {
        let first = &self.cells[0];
        let attrs = first.attrs();
        if &prev_attrs != attrs {
            attrs.write_escape_code_diff(contents, &prev_attrs);
            prev_attrs = *attrs;
        }
        let written = first.contents();
        contents.push_str(if written.is_empty() { " " } else { written });
        crate::term::Backspace.write_buf(contents);
        if first.is_wide() {
            crate::term::Backspace.write_buf(contents);
        }
        if written.is_empty() {
            crate::term::EraseChar::new(1).write_buf(contents);
        }
        (crate::grid::Pos { row, col: 0 }, prev_attrs)
    }

    pub fn write_contents_diff(
        &self,
        contents: &mut String,
        prev: &Self,
        start: u16,
        width: u16,
        row: u16,
        wrapping: bool,
        prev_wrapping: bool,
        mut prev_pos: crate::grid::Pos,
        mut prev_attrs: crate::attrs::Attrs,
    ) -> (crate::grid::Pos, crate::attrs::Attrs) {
        self.debug_check_settled(0);
        prev.debug_check_settled(0);
        let mut prev_was_wide = false;

        let first_cell = &self.cells[usize::from(start)];
        let prev_first_cell = &prev.cells[usize::from(start)];
        if wrapping
            && !prev_wrapping
            && first_cell == prev_first_cell
            && prev_pos.row + 1 == row
            && prev_pos.col
                >= self.cols() - u16::from(prev_first_cell.is_wide())
        {
            let first_cell_attrs = first_cell.attrs();
            if &prev_attrs != first_cell_attrs {
                first_cell_attrs
                    .write_escape_code_diff(contents, &prev_attrs);
                prev_attrs = *first_cell_attrs;
            }
            let mut cell_contents = prev_first_cell.contents();
            let need_erase = if cell_contents.is_empty() {
                cell_contents = " ";
                true
            } else {
                false
            };
            contents.push_str(cell_contents);
            crate::term::Backspace.write_buf(contents);
            if prev_first_cell.is_wide() {
                crate::term::Backspace.write_buf(contents);
            }
            if need_erase {
                crate::term::EraseChar::new(1).write_buf(contents);
            }
            prev_pos = crate::grid::Pos { row, col: 0 };
        }

        let mut erase: Option<(u16, &crate::attrs::Attrs)> = None;
        for (col, (cell, prev_cell)) in self
            .cells()
            .zip(prev.cells())
            .enumerate()
            .skip(usize::from(start))
            .take(usize::from(width))
        {
            if prev_was_wide {
                prev_was_wide = false;
                continue;
            }
            prev_was_wide = cell.is_wide();

            // we limit the number of cols to a u16 (see Size)
            let col: u16 = col.try_into().unwrap();
            let pos = crate::grid::Pos { row, col };

            if let Some((prev_col, attrs)) = erase {
                if cell.has_contents() || cell.attrs() != attrs {
                    let new_pos = crate::grid::Pos { row, col: prev_col };
                    if wrapping
                        && prev_pos.row + 1 == new_pos.row
                        && prev_pos.col >= self.cols()
                    {
                        (prev_pos, prev_attrs) =
                            self.wrap_into(contents, row, prev_attrs);
                    }
                    crate::term::MoveFromTo::new(prev_pos, new_pos)
                        .write_buf(contents);
                    prev_pos = new_pos;
                    if &prev_attrs != attrs {
                        attrs.write_escape_code_diff(contents, &prev_attrs);
                        prev_attrs = *attrs;
                    }
                    crate::term::EraseChar::new(pos.col - prev_col)
                        .write_buf(contents);
                    erase = None;
                }
            }

            if cell != prev_cell {
                let attrs = cell.attrs();
                if cell.has_contents() {
                    if pos != prev_pos {
                        if !wrapping
                            || prev_pos.row + 1 != pos.row
                            || prev_pos.col
                                < self.cols() - u16::from(cell.is_wide())
                            || pos.col != 0
                        {
                            crate::term::MoveFromTo::new(prev_pos, pos)
                                .write_buf(contents);
                        }
                        prev_pos = pos;
                    }

                    if &prev_attrs != attrs {
                        attrs.write_escape_code_diff(contents, &prev_attrs);
                        prev_attrs = *attrs;
                    }

                    prev_pos.col += if cell.is_wide() { 2 } else { 1 };
                    contents.push_str(cell.contents());
                } else if erase.is_none() {
                    erase = Some((pos.col, attrs));
                }
            }
        }
        if let Some((prev_col, attrs)) = erase {
            let new_pos = crate::grid::Pos { row, col: prev_col };
            if wrapping
                && prev_pos.row + 1 == new_pos.row
                && prev_pos.col >= self.cols()
            {
                (prev_pos, prev_attrs) =
                    self.wrap_into(contents, row, prev_attrs);
            }
            crate::term::MoveFromTo::new(prev_pos, new_pos)
                .write_buf(contents);
            prev_pos = new_pos;
            if &prev_attrs != attrs {
                attrs.write_escape_code_diff(contents, &prev_attrs);
                prev_attrs = *attrs;
            }
            crate::term::ClearRowForward.write_buf(contents);
        }

        // if this row is going from wrapped to not wrapped, we need to erase
        // and redraw the last character to break wrapping. if this row is
        // wrapped, we need to redraw the last character without erasing it to
        // position the cursor after the end of the line correctly so that
        // drawing the next line can just start writing and be wrapped.
        if (!self.wrapped && prev.wrapped) || (!prev.wrapped && self.wrapped)
        {
            let end_pos = if self.cells[usize::from(self.cols() - 1)]
                .is_wide_continuation()
            {
                crate::grid::Pos {
                    row,
                    col: self.cols() - 2,
                }
            } else {
                crate::grid::Pos {
                    row,
                    col: self.cols() - 1,
                }
            };
            crate::term::MoveFromTo::new(prev_pos, end_pos)
                .write_buf(contents);
            prev_pos = end_pos;
            if !self.wrapped {
                crate::term::EraseChar::new(1).write_buf(contents);
            }
            let end_cell = &self.cells[usize::from(end_pos.col)];
            if end_cell.has_contents() {
                let attrs = end_cell.attrs();
                if &prev_attrs != attrs {
                    attrs.write_escape_code_diff(contents, &prev_attrs);
                    prev_attrs = *attrs;
                }
                contents.push_str(end_cell.contents());
                prev_pos.col += if end_cell.is_wide() { 2 } else { 1 };
            }
        }

        (prev_pos, prev_attrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An orphaned wide cell (wide flag set, no continuation) in a
    // one-column row must not make Row::erase underflow when it derives the
    // logical last column as cols() - 2. Covers the Copilot review note on
    // the clear_wide OOB fix: clear_wide itself was hardened, but its caller
    // erase computed cols() - 2 == 1 - 2 from the captured `wide` value.
    #[test]
    fn erase_wide_cell_in_one_column_row_does_not_underflow() {
        let attrs = crate::attrs::Attrs::default();
        let mut row = Row::new(1);
        // A 2-wide char in the only column: a wide cell with no room for a
        // continuation cell.
        row.get_mut(0).unwrap().set('中', attrs);
        assert!(row.get(0).unwrap().is_wide());

        row.erase(0, attrs);

        let cell = row.get(0).unwrap();
        assert!(!cell.is_wide(), "erased cell must no longer be wide");
        assert!(!cell.has_contents(), "erased cell must be empty");
    }
}
