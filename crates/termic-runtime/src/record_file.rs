//! The files that hold records (the event log, recordings): created 0600,
//! since a recording made with `--record-input` holds what the user typed
//! (passwords among it) and the event log holds prompt text; cut back with
//! `ftruncate` when a write does not land ([`termic_signal::replay::WholeRecords`]
//! and `write_whole` decide where). Also how such a failure is told to the
//! user, and how the server writes to its log without dying of a full disk.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use termic_signal::replay::Truncate;

/// Mode of a file termic creates for records. An existing file keeps its
/// own mode (never loosened, nor changed behind the user's back).
pub const RECORD_FILE_MODE: u32 = 0o600;

/// A file of whole records.
#[derive(Debug)]
pub struct RecordFile(pub File);

impl RecordFile {
    /// A new file at `path` (never an existing one), 0600.
    pub fn create_new(path: &Path) -> io::Result<RecordFile> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(RECORD_FILE_MODE)
            .open(path)
            .map(RecordFile)
    }

    /// `path` for appending, created 0600 if missing.
    pub fn append(path: &Path) -> io::Result<RecordFile> {
        OpenOptions::new()
            .append(true)
            .create(true)
            .mode(RECORD_FILE_MODE)
            .open(path)
            .map(RecordFile)
    }
}

impl Write for RecordFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Truncate for RecordFile {
    fn truncate_to(&mut self, len: u64) -> io::Result<()> {
        self.0.set_len(len)?;
        // Not past the end: a later write must not leave a hole.
        self.0.seek(SeekFrom::Start(len)).map(|_| ())
    }
}

/// Why a write failed, for the user: plain words, no error numbers.
pub fn why_write_failed(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSPC) => "the disk is full".into(),
        Some(libc::EDQUOT) => "the disk quota is used up".into(),
        Some(libc::EFBIG) => "the file reached the size limit".into(),
        Some(libc::EIO) => "the disk reported an error".into(),
        _ => match e.kind() {
            io::ErrorKind::WriteZero => "the disk took no more bytes".into(),
            kind => kind.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn new_files_are_0600_and_an_existing_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let fresh = dir.path().join("a.cast");
        RecordFile::create_new(&fresh).unwrap();
        assert_eq!(mode(&fresh), 0o600);
        let log = dir.path().join("events.jsonl");
        RecordFile::append(&log).unwrap();
        assert_eq!(mode(&log), 0o600);
        let shared = dir.path().join("shared.jsonl");
        std::fs::write(&shared, "").unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o640)).unwrap();
        RecordFile::append(&shared).unwrap();
        assert_eq!(mode(&shared), 0o640);
    }

    #[test]
    fn a_cut_file_ends_at_the_cut_and_takes_the_next_write_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r");
        let mut f = RecordFile::create_new(&path).unwrap();
        f.write_all(b"one\ntw").unwrap();
        f.truncate_to(4).unwrap();
        f.write_all(b"two\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
    }

    #[test]
    fn a_full_disk_is_said_in_words() {
        assert_eq!(
            why_write_failed(&io::Error::from_raw_os_error(libc::ENOSPC)),
            "the disk is full"
        );
    }
}
