//! Types related to capturing terminal data.

#[cfg(doc)]
use crate::Screen;

/// Specifies which rows will be captured in
/// [`Screen::write_contents_formatted_basic`].
#[derive(Debug)]
pub enum BasicFormattedCaptureRange<'a> {
    /// Capture all rows, including scrollback.
    Full(
        /// Your existing [`BasicFormattedCaptureState`], if any.
        ///
        /// If you have an existing [`BasicFormattedCaptureState`] that you've
        /// been using with the [`on_scroll`](crate::Callbacks::on_scroll)
        /// callback, and you're writing into the same buffer, provide that
        /// state here. Otherwise, you can pass `&mut Default::default()`.
        &'a mut BasicFormattedCaptureState,
    ),
    /// Capture only the visible rows of the terminal.
    ///
    /// This will produce the same result as
    /// [`Screen::contents_formatted_basic`].
    Visible,
}

/// Represents the state of an in-progress capture of "basic formatted"
/// terminal data.
///
/// This type is needed if you're capturing terminal data in a streaming
/// fashion using [`RowContents::write_formatted_basic`] in the [`on_scroll`]
/// callback.
///
/// [`on_scroll`]: crate::Callbacks::on_scroll
#[derive(Debug, Default, Clone)]
pub struct BasicFormattedCaptureState {
    attrs: crate::attrs::Attrs,
    newline_pending: bool,
}

impl BasicFormattedCaptureState {
    /// Creates a new [`BasicFormattedCaptureState`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// Represents the contents of a row in the terminal.
///
/// This type is used by [`Callbacks::on_scroll`][on_scroll].
///
/// [on_scroll]: crate::Callbacks::on_scroll
pub struct RowContents<'a>(pub(crate) &'a crate::row::Row);

impl RowContents<'_> {
    /// Writes the contents of the row to the provided buffer, in the same
    /// format as [`Screen::contents_formatted_basic`].
    ///
    /// # Errors
    ///
    /// If the writer returns an error, this method will forward that error.
    /// Otherwise, this method will not return any errors of its own.
    pub fn write_formatted_basic(
        &self,
        writer: &mut impl alloc::fmt::Write,
        state: &mut BasicFormattedCaptureState,
    ) -> alloc::fmt::Result {
        if state.newline_pending {
            writer.write_char('\n')?;
        }
        self.0
            .write_contents_formatted_basic(writer, &mut state.attrs)?;
        state.newline_pending = !self.0.wrapped();
        Ok(())
    }
}

/// Iterator returned by [`basic_formatted_to_plain`].
pub struct BasicFormattedToPlain<'a> {
    indexed: BasicFormattedToPlainIndexed<'a>,
}

impl<'a> Iterator for BasicFormattedToPlain<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<Self::Item> {
        self.indexed.next().map(|(_i, s)| s)
    }
}

impl core::iter::FusedIterator for BasicFormattedToPlain<'_> {}

/// Iterator returned by [`basic_formatted_to_plain_indexed`].
pub struct BasicFormattedToPlainIndexed<'a> {
    capture: &'a str,
    index: usize,
}

impl<'a> Iterator for BasicFormattedToPlainIndexed<'a> {
    /// The first element is the byte index within the original capture of the
    /// plain substring; the second element is the plain substring itself.
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        while !self.capture.is_empty() {
            let index = self.index;
            let Some((before, after)) = self.capture.split_once('\x1b')
            else {
                self.index += self.capture.len();
                return Some((index, core::mem::take(&mut self.capture)));
            };

            self.index += before.len() + 1;
            self.capture =
                if let Some((esc_body, after_esc)) = after.split_once('m') {
                    self.index += esc_body.len() + 1;
                    after_esc
                } else {
                    self.index += after.len();
                    ""
                };

            if !before.is_empty() {
                return Some((index, before));
            }
        }
        None
    }
}

impl core::iter::FusedIterator for BasicFormattedToPlainIndexed<'_> {}

/// Converts a "basic formatted" capture into a plain text one.
///
/// This function splits a "basic formatted" screen capture, as returned by
/// [`Screen::contents_formatted_basic`], into a plain text one, by stripping
/// out the SGR escape sequences.
///
/// This function returns an iterator that yields pieces of the plain text
/// plain text capture, each containing no SGR escape sequences. To obtain the
/// plain text capture as a single string, use [`Iterator::collect::<String>`].
///
/// Every part of `capture` must have come from
/// [`Screen::contents_formatted_basic`] or
/// [`RowContents::write_formatted_basic`] (from the [`on_scroll`] callback).
/// If this requirement is not upheld, the results of this function are
/// undefined, other than that it will not panic.
///
/// [`on_scroll`]: crate::Callbacks::on_scroll
#[must_use]
pub fn basic_formatted_to_plain(capture: &str) -> BasicFormattedToPlain<'_> {
    BasicFormattedToPlain {
        indexed: basic_formatted_to_plain_indexed(capture),
    }
}

/// Like [`basic_formatted_to_plain`], but also provides the original index of
/// each substring.
///
/// The iterator returned by this function yields `(index, string)` tuples,
/// where `string` is the plain-text substring, and `index` is the byte index
/// of `string` within `capture`.
///
/// # Example
///
/// ```
/// # use vt100::capture::basic_formatted_to_plain_indexed;
/// let mut iter = basic_formatted_to_plain_indexed("hello\x1b[31;1mworld");
/// assert_eq!(iter.next(), Some((0, "hello")));
/// assert_eq!(iter.next(), Some((12, "world")));
/// assert_eq!(iter.next(), None);
/// ```
#[must_use]
pub fn basic_formatted_to_plain_indexed(
    capture: &str,
) -> BasicFormattedToPlainIndexed<'_> {
    BasicFormattedToPlainIndexed { capture, index: 0 }
}

/// Iterator returned by [`basic_formatted_rows`].
pub struct BasicFormattedRows<'a> {
    capture: Option<&'a str>,
    width: u16,
}

impl<'a> Iterator for BasicFormattedRows<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<Self::Item> {
        use unicode_width::UnicodeWidthChar as _;

        let capture = self.capture?;
        let mut width = 0_u16;
        let mut chars = capture.char_indices();

        while let Some((i, c)) = chars.next() {
            if c == '\x1b' {
                while chars.next().is_some_and(|(_, c)| c != 'm') {}
                continue;
            }
            if c == '\n' {
                let (row, rest) = capture.split_at(i);
                self.capture = Some(&rest[c.len_utf8()..]);
                return Some(row);
            }

            // This crate renders every character that has a width greater than
            // 1 in exactly 2 columns (see `Screen::prepare_text`), so clamp
            // the width to 2 to be consistent with how we render.
            let char_width = c.width().map_or(1, |w| {
                u16::try_from(w).unwrap_or(u16::MAX).clamp(0, 2)
            });

            // Always append zero-width characters, even if we're over the
            // width limit due to the case described below where a single
            // character exceeds the limit.
            if char_width == 0 {
                continue;
            }

            let old_width = width;
            if let Some(new_width) = width.checked_add(char_width) {
                width = new_width;
                if new_width <= self.width {
                    // We haven't reached the screen width yet; continue adding
                    // characters. Use `<=` instead of `<` because we may be
                    // able to add more zero-width characters even if we've hit
                    // the limit exactly.
                    continue;
                }
            }
            if old_width == 0 {
                // Appending `c` would cause the row width to exceed the screen
                // width, but the row is currently empty. This case is unlikely
                // -- a one-column-wide screen will discard wide characters
                // written to it. However, we could reach this branch if the
                // terminal was resized after we had already captured
                // scrollback.
                //
                // Yielding an empty row would cause this iterator never to
                // terminate, so `continue` here so that we yield the single
                // char, even though its width exceeds the screen width.
                continue;
            }

            let (before, after) = capture.split_at(i);
            self.capture = Some(after);
            return Some(before);
        }
        // The remaining data in the capture fits in a single row.
        self.capture.take()
    }
}

impl core::iter::FusedIterator for BasicFormattedRows<'_> {}

/// Splits a "basic formatted" capture into individual rows.
///
/// This function splits a "basic formatted" screen capture, as returned by
/// [`Screen::contents_formatted_basic`] into individual rows. It returns an
/// iterator that yields each row in order. The rows will not end with
/// newlines. SGR parameters will not be reset at the start/end of each row;
/// the iterator simply splits `capture` into rows as-is, except for the
/// stripping out of newlines.
///
/// `screen_width` is the width of the terminal in columns.
///
/// Every part of `capture` must have come from
/// [`Screen::contents_formatted_basic`] or
/// [`RowContents::write_formatted_basic`] (from the [`on_scroll`] callback).
/// If this requirement is not upheld, the results of this function are
/// undefined, other than that it will not panic.
///
/// [`on_scroll`]: crate::Callbacks::on_scroll
#[must_use]
pub fn basic_formatted_rows(
    capture: &str,
    screen_width: u16,
) -> BasicFormattedRows<'_> {
    BasicFormattedRows {
        capture: Some(capture),
        width: screen_width,
    }
}

/// Marks an attribute change in the compact form; cells never hold ESC.
pub(crate) const COMPACT_ATTRS: u8 = 0x1b;

/// The length of an attribute record: the mark, two packed colours, the
/// mode byte.
pub(crate) const COMPACT_ATTRS_LEN: usize = 10;

/// termic: the attributes of the whole record at the start of `record`.
pub(crate) fn compact_attrs(record: &[u8]) -> crate::attrs::Attrs {
    crate::attrs::Attrs::from_packed(
        [record[1], record[2], record[3], record[4]],
        [record[5], record[6], record[7], record[8]],
        record[9],
    )
}

/// termic: the length of the UTF-8 character whose first byte is `lead`.
pub(crate) fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

impl RowContents<'_> {
    /// termic: whether the row is soft-wrapped (its line goes on in the
    /// next row), which a reflow needs to join it to that row.
    #[must_use]
    pub fn wrapped(&self) -> bool {
        self.0.wrapped()
    }

    /// Appends the row in a compact binary form: the cells' text, with an
    /// attribute record wherever the attributes change, trailing blank cells
    /// dropped. Several times cheaper than [`Self::write_formatted_basic`];
    /// [`compact_to_formatted`] turns it into that format when it is needed.
    pub fn write_compact(&self, out: &mut alloc::vec::Vec<u8>) {
        // termic: a row only appended to since it was blank carries its
        // capture already (`Row::compact_shadow`); debug builds check it
        // against the cells.
        if let Some(shadow) = self.0.compact_shadow() {
            // (cells that wait for the shadow's text: nothing to check)
            #[cfg(debug_assertions)]
            if !self.0.waits_for_cells() {
                let mut cells = alloc::vec::Vec::new();
                self.write_compact_cells(&mut cells);
                assert_eq!(
                    shadow,
                    &cells[..],
                    "the row's shadow capture differs from its cells"
                );
            }
            out.extend_from_slice(shadow);
            return;
        }
        self.write_compact_cells(out);
    }

    /// [`Self::write_compact`] read from the cells.
    fn write_compact_cells(&self, out: &mut alloc::vec::Vec<u8>) {
        // nothing past the row's written mark can be other than blank
        let cells = self.0.written_cells();
        let end = cells
            .iter()
            .rposition(|c| !c.is_blank())
            .map_or(0, |i| i + 1);
        let cells = &cells[..end];
        out.reserve(end + 16);
        let mut attrs = crate::attrs::Attrs::new();
        let mut i = 0;
        while let Some(cell) = cells.get(i) {
            let cell_attrs = cell.attrs();
            if *cell_attrs != attrs {
                push_compact_attrs(out, cell_attrs);
                attrs = *cell_attrs;
            }
            // the common case: a run of narrow one-byte cells (ASCII) with
            // these attributes, found first and then copied out in one
            // extend of known length (no capacity check per byte)
            let start = i;
            while cells.get(i).is_some_and(|c| c.is_single_byte_with(&attrs)) {
                i += 1;
            }
            if i > start {
                out.extend(cells[start..i].iter().map(crate::Cell::first_byte));
                continue;
            }
            // a wide character's continuation cell is not written
            i += if cell.is_wide() { 2 } else { 1 };
            match cell.contents_bytes() {
                [] => out.push(b' '),
                text => out.extend_from_slice(text),
            }
        }
    }
}

/// termic: the compact form's record of a change to `attrs`.
#[inline]
pub(crate) fn push_compact_attrs(out: &mut alloc::vec::Vec<u8>, attrs: &crate::attrs::Attrs) {
    // the packed colours are the record's bytes as they are
    let (fg, bg) = (attrs.packed_fg(), attrs.packed_bg());
    out.extend_from_slice(&[
        COMPACT_ATTRS,
        fg[0],
        fg[1],
        fg[2],
        fg[3],
        bg[0],
        bg[1],
        bg[2],
        bg[3],
        attrs.mode,
    ]);
}

/// Writes a row captured by [`RowContents::write_compact`] in the format of
/// [`Screen::contents_formatted_basic`] (text and SGR), starting from
/// default attributes.
///
/// # Errors
///
/// If the writer returns an error, this method will forward that error.
pub fn compact_to_formatted(
    compact: &[u8],
    writer: &mut impl alloc::fmt::Write,
) -> alloc::fmt::Result {
    let mut attrs = crate::attrs::Attrs::new();
    let mut rest = compact;
    while !rest.is_empty() {
        if rest[0] == COMPACT_ATTRS {
            // A cut-off record can only come from a damaged capture: stop
            // there rather than read it as text (which would never advance).
            if rest.len() < COMPACT_ATTRS_LEN {
                break;
            }
            let new_attrs = compact_attrs(rest);
            new_attrs.write_escape_code_diff_fmt(writer, &attrs)?;
            attrs = new_attrs;
            rest = &rest[COMPACT_ATTRS_LEN..];
            continue;
        }
        let run = rest
            .iter()
            .position(|&b| b == COMPACT_ATTRS)
            .unwrap_or(rest.len());
        // Cells hold whole UTF-8 characters, so a run is valid UTF-8.
        writer.write_str(core::str::from_utf8(&rest[..run]).unwrap_or(""))?;
        rest = &rest[run..];
    }
    Ok(())
}
