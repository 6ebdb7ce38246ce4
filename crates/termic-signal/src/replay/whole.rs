//! Whole records or nothing: recordings and the event log are files of
//! newline-ended records (JSON lines), and a reader must never meet a torn
//! one, nor a record glued onto a torn one. A write that does not fully
//! land (a full disk's `ENOSPC`, a short write) cuts the sink back to the
//! end of its last whole record, and a [`WholeRecords`] writer stops there:
//! nothing is ever appended after a cut.
//!
//! Pure: the sink is anything that can be written and cut back
//! ([`Truncate`]); the file behind it is the caller's.

use std::io::{self, Write};

/// A sink that can be cut back (a file: `ftruncate`; a test: a buffer).
pub trait Truncate {
    /// Keep the first `len` bytes; the next write goes right after them.
    fn truncate_to(&mut self, len: u64) -> io::Result<()>;
}

impl<T: Truncate + ?Sized> Truncate for &mut T {
    fn truncate_to(&mut self, len: u64) -> io::Result<()> {
        (**self).truncate_to(len)
    }
}

/// A write of whole records that did not all land.
#[derive(Debug)]
pub struct Cut {
    /// Why the write stopped (the sink's error; a write of 0 bytes is
    /// `WriteZero`).
    pub error: io::Error,
    /// The sink's length after the cut: its whole records, nothing after.
    pub kept: u64,
    /// Cutting back failed too: the sink may end in a torn record.
    pub truncate_error: Option<io::Error>,
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)
    }
}

impl std::error::Error for Cut {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Write `records` (whole records, each ending in `\n`) to `out`, whose
/// length is `len`. Either all of them land, or `out` is cut back to `len`
/// plus the whole records that did land, and the error says how long it is.
pub fn write_whole<W: Write + Truncate>(out: &mut W, len: u64, records: &[u8]) -> Result<(), Cut> {
    let mut done = 0;
    let error = loop {
        if done == records.len() {
            return Ok(());
        }
        match out.write(&records[done..]) {
            Ok(0) => break io::Error::from(io::ErrorKind::WriteZero),
            Ok(n) => done += n.min(records.len() - done),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break e,
        }
    };
    let whole = records[..done]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let kept = len + whole as u64;
    let truncate_error = if whole == done {
        None
    } else {
        out.truncate_to(kept).err()
    };
    Err(Cut {
        error,
        kept,
        truncate_error,
    })
}

/// Buffer this much before writing (a recording of a flood), like
/// `BufWriter`'s default.
const FLUSH_AT: usize = 8 * 1024;

/// A buffered writer that puts only whole records on its sink: it writes
/// the buffer up to its last newline (a record's tail waits for its end),
/// and after a write that did not land it has cut the sink back to its
/// last whole record and refuses every later write ([`WholeRecords::cut`]
/// says why and where). Flushes what it holds when dropped.
pub struct WholeRecords<W: Write + Truncate> {
    out: W,
    /// The sink's length: whole records only.
    len: u64,
    pending: Vec<u8>,
    cut: Option<Cut>,
}

impl<W: Write + Truncate> WholeRecords<W> {
    /// `out` already holds `len` bytes of whole records (0 for a new file).
    pub fn new(out: W, len: u64) -> Self {
        WholeRecords {
            out,
            len,
            pending: Vec::new(),
            cut: None,
        }
    }

    /// The cut that stopped this writer, if any.
    pub fn cut(&self) -> Option<&Cut> {
        self.cut.as_ref()
    }

    /// Bytes of whole records on the sink.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get_ref(&self) -> &W {
        &self.out
    }

    fn stopped(&self) -> Option<io::Error> {
        self.cut.as_ref().map(|cut| {
            io::Error::new(
                cut.error.kind(),
                format!("stopped after a failed write: {}", cut.error),
            )
        })
    }

    /// Write the buffer's whole records.
    fn write_pending(&mut self) -> io::Result<()> {
        if let Some(e) = self.stopped() {
            return Err(e);
        }
        let whole = self
            .pending
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        if whole == 0 {
            return Ok(());
        }
        match write_whole(&mut self.out, self.len, &self.pending[..whole]) {
            Ok(()) => {
                self.len += whole as u64;
                self.pending.drain(..whole);
                Ok(())
            }
            Err(cut) => {
                self.len = cut.kept;
                self.pending = Vec::new();
                self.cut = Some(cut);
                Err(self.stopped().expect("just cut"))
            }
        }
    }
}

impl<W: Write + Truncate> Write for WholeRecords<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = self.stopped() {
            return Err(e);
        }
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= FLUSH_AT {
            self.write_pending()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.out.flush()
    }
}

impl<W: Write + Truncate> Drop for WholeRecords<W> {
    fn drop(&mut self) {
        if self.cut.is_none() {
            let _ = self.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that takes `room` bytes in all, then fails: with `ENOSPC`, or
    /// (`short`) first with a short write, as a nearly full disk does.
    struct Disk {
        data: Vec<u8>,
        room: usize,
        short: bool,
        truncate_fails: bool,
    }

    impl Disk {
        fn new(room: usize, short: bool) -> Disk {
            Disk {
                data: Vec::new(),
                room,
                short,
                truncate_fails: false,
            }
        }
    }

    impl Write for Disk {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let free = self.room.saturating_sub(self.data.len());
            if free == 0 && !buf.is_empty() {
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            // A short write takes what fits; otherwise a write that does
            // not fit fails whole (both happen on a full disk).
            let n = if buf.len() <= free || self.short {
                buf.len().min(free)
            } else {
                return Err(io::Error::from_raw_os_error(28));
            };
            self.data.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Truncate for Disk {
        fn truncate_to(&mut self, len: u64) -> io::Result<()> {
            if self.truncate_fails {
                return Err(io::Error::from_raw_os_error(5)); // EIO
            }
            self.data.truncate(len as usize);
            Ok(())
        }
    }

    fn records(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| format!("[{i}, \"o\", \"{}\"]\n", "x".repeat(i % 7)).into_bytes())
            .collect()
    }

    /// Whether `data` is the first k of `records`, for some k.
    fn whole_prefix(data: &[u8], records: &[Vec<u8>]) -> Option<usize> {
        let mut at = 0;
        for (k, r) in records.iter().enumerate() {
            if at == data.len() {
                return Some(k);
            }
            if !data[at..].starts_with(r) {
                return None;
            }
            at += r.len();
        }
        (at == data.len()).then_some(records.len())
    }

    #[test]
    fn a_write_that_fails_at_any_byte_leaves_whole_records_only() {
        let all = records(40);
        let total: usize = all.iter().map(Vec::len).sum();
        for short in [false, true] {
            for room in 0..=total + 1 {
                // One record per write, as the event log writes.
                let mut disk = Disk::new(room, short);
                let mut len = 0;
                for r in &all {
                    match write_whole(&mut disk, len, r) {
                        Ok(()) => len += r.len() as u64,
                        Err(cut) => {
                            assert_eq!(cut.kept, len, "room {room}");
                            assert_eq!(cut.error.raw_os_error(), Some(28));
                            break;
                        }
                    }
                }
                let k = whole_prefix(&disk.data, &all)
                    .unwrap_or_else(|| panic!("room {room} short {short}: torn"));
                assert_eq!(disk.data.len() as u64, len);
                assert!(room >= total || k < all.len());
            }
        }
    }

    #[test]
    fn a_buffered_writer_keeps_the_records_that_landed_and_stops() {
        let all = records(3_000);
        let total: usize = all.iter().map(Vec::len).sum();
        // Every byte around the buffer's boundaries, and a spread beyond.
        let rooms = (0..FLUSH_AT + 64).chain((FLUSH_AT + 64..total + 2).step_by(97));
        for short in [false, true] {
            for room in rooms.clone() {
                let mut disk = Disk::new(room, short);
                let mut w = WholeRecords::new(&mut disk, 0);
                let mut failed = false;
                for r in &all {
                    // The recorder writes a record as one `write_all`.
                    if w.write_all(r).is_err() {
                        failed = true;
                        break;
                    }
                }
                if !failed {
                    failed = w.flush().is_err();
                }
                if failed {
                    let kept = w.cut().expect("a failed write is a cut").kept;
                    assert!(w.write_all(&all[0]).is_err(), "stopped for good");
                    assert!(w.flush().is_err());
                    drop(w);
                    assert_eq!(disk.data.len() as u64, kept);
                } else {
                    drop(w);
                }
                let k = whole_prefix(&disk.data, &all)
                    .unwrap_or_else(|| panic!("room {room} short {short}: torn"));
                assert_eq!(failed, k < all.len(), "room {room}");
                // What fits is kept: at most one buffer's worth is lost.
                let fits = room.min(total);
                assert!(disk.data.len() + FLUSH_AT + 64 >= fits, "room {room}");
            }
        }
    }

    #[test]
    fn a_record_split_across_writes_waits_for_its_end() {
        let mut disk = Disk::new(1 << 20, false);
        let mut w = WholeRecords::new(&mut disk, 0);
        w.write_all(b"[1, \"o\", \"a").unwrap();
        w.flush().unwrap();
        assert_eq!(w.len(), 0, "half a record is not written");
        w.write_all(b"b\"]\n[2, \"o\"").unwrap();
        w.flush().unwrap();
        drop(w);
        assert_eq!(disk.data, b"[1, \"o\", \"ab\"]\n");
    }

    #[test]
    fn a_failed_cut_back_is_reported() {
        let mut disk = Disk::new(7, true);
        disk.truncate_fails = true;
        let cut = write_whole(&mut disk, 0, b"abcd\nefgh\n").unwrap_err();
        assert_eq!(cut.kept, 5, "the whole record that landed");
        assert_eq!(cut.truncate_error.unwrap().raw_os_error(), Some(5));
    }
}
