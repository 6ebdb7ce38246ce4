//! Reading a config: resolve links, then capture bytes and identity.

use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::FsError;

/// Enough links for any dotfiles setup, few enough to stop a loop.
const MAX_LINK_DEPTH: usize = 40;

/// What a file looked like when an edit was computed from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The path as asked for (maybe a symlink).
    pub path: PathBuf,
    /// The file actually read and to be replaced (no symlink).
    pub target: PathBuf,
    /// `None` when the file does not exist.
    pub bytes: Option<Vec<u8>>,
    pub meta: Option<FileMeta>,
}

/// Mode, owner and identity of an existing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// Permission bits (`0o644`), without the file type.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime_ns: i128,
}

impl FileMeta {
    fn of(meta: &std::fs::Metadata) -> Self {
        FileMeta {
            mode: meta.mode() & 0o7777,
            uid: meta.uid(),
            gid: meta.gid(),
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }
}

/// Follows symlinks one at a time (relative links resolve against the
/// link's directory). A missing file at the end of a link is an error; a
/// missing file at `path` itself is fine (it will be created).
pub fn resolve_target(path: &Path) -> Result<PathBuf, FsError> {
    let mut current = path.to_path_buf();
    for depth in 0..MAX_LINK_DEPTH {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = std::fs::read_link(&current).map_err(|e| FsError::read(&current, e))?;
                current = match current.parent() {
                    Some(dir) => dir.join(next),
                    None => next,
                };
            }
            Ok(_) => return Ok(current),
            Err(err) if err.kind() == ErrorKind::NotFound && depth > 0 => {
                return Err(FsError::DanglingLink {
                    link: path.to_path_buf(),
                    target: current,
                });
            }
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(current),
            Err(err) => return Err(FsError::read(&current, err)),
        }
    }
    Err(FsError::LinkLoop {
        path: path.to_path_buf(),
    })
}

/// Reads `path` (through links) into a snapshot.
pub fn read_config(path: &Path) -> Result<Snapshot, FsError> {
    let target = resolve_target(path)?;
    let (bytes, meta) = read_target(&target)?;
    Ok(Snapshot {
        path: path.to_path_buf(),
        target,
        bytes,
        meta,
    })
}

/// The bytes and metadata of a resolved, non-link path.
pub(crate) fn read_target(target: &Path) -> Result<(Option<Vec<u8>>, Option<FileMeta>), FsError> {
    let meta = match std::fs::metadata(target) {
        Ok(meta) => meta,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok((None, None)),
        Err(err) => return Err(FsError::read(target, err)),
    };
    if !meta.is_file() {
        return Err(FsError::NotAFile {
            path: target.to_path_buf(),
        });
    }
    let bytes = std::fs::read(target).map_err(|e| FsError::read(target, e))?;
    Ok((Some(bytes), Some(FileMeta::of(&meta))))
}

impl Snapshot {
    /// The bytes as text, for the pure edits (`None`: no file). A file
    /// that is not UTF-8 is refused by the edit layer's own error.
    pub fn text(&self) -> Result<Option<&str>, crate::edit::EditError> {
        match &self.bytes {
            None => Ok(None),
            Some(bytes) => {
                std::str::from_utf8(bytes)
                    .map(Some)
                    .map_err(|e| crate::edit::EditError::NotUtf8 {
                        offset: e.valid_up_to(),
                    })
            }
        }
    }
}
