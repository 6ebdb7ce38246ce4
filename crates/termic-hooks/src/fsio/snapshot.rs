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
    match read_regular(target)? {
        Some((bytes, meta)) => Ok((Some(bytes), Some(meta))),
        None => Ok((None, None)),
    }
}

/// Largest file termic reads from a user's config dirs. The biggest real
/// settings.json measured is a few MB; anything past this is not a config.
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The one way termic reads a file in a user's config dirs: `None` when
/// nothing is there, else the bytes and metadata of a regular file of at
/// most [`MAX_CONFIG_BYTES`]. Never blocks and never reads without bound:
/// the type is checked with `stat` before the open (a device is never even
/// opened) and again with `fstat` on the fd (something swapped in between
/// is caught), the open is `O_NONBLOCK|O_NOCTTY|O_CLOEXEC` (a FIFO that
/// appears in that gap opens without waiting for a writer), and the read
/// stops one byte past the cap whatever `st_size` says. A dangling symlink
/// is an error, not an absent file.
pub fn read_regular(path: &Path) -> Result<Option<(Vec<u8>, FileMeta)>, FsError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;

    let not_found = || match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(FsError::DanglingLink {
            link: path.to_path_buf(),
            target: std::fs::read_link(path).unwrap_or_default(),
        }),
        _ => Ok(None),
    };
    match std::fs::metadata(path) {
        Err(err) if err.kind() == ErrorKind::NotFound => return not_found(),
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(FsError::LinkLoop {
                path: path.to_path_buf(),
            })
        }
        Err(err) => return Err(FsError::read(path, err)),
        Ok(meta) => refuse_special(path, &meta)?,
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path);
    let file = match file {
        Ok(file) => file,
        Err(err) if err.kind() == ErrorKind::NotFound => return not_found(),
        // A socket swapped in after the stat: open says ENXIO.
        Err(err) if err.raw_os_error() == Some(libc::ENXIO) => {
            return Err(FsError::NotRegular {
                path: path.to_path_buf(),
                kind: "socket",
            })
        }
        Err(err) => return Err(FsError::read(path, err)),
    };
    let meta = file.metadata().map_err(|e| FsError::read(path, e))?;
    refuse_special(path, &meta)?;
    let mut bytes = Vec::with_capacity(meta.len().min(MAX_CONFIG_BYTES) as usize);
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FsError::read(path, e))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(too_large(path));
    }
    Ok(Some((bytes, FileMeta::of(&meta))))
}

fn too_large(path: &Path) -> FsError {
    FsError::TooLarge {
        path: path.to_path_buf(),
        max_mib: MAX_CONFIG_BYTES / (1024 * 1024),
    }
}

/// Refuses anything but a regular file of at most [`MAX_CONFIG_BYTES`].
fn refuse_special(path: &Path, meta: &std::fs::Metadata) -> Result<(), FsError> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let kind = if t.is_file() {
        return if meta.len() > MAX_CONFIG_BYTES {
            Err(too_large(path))
        } else {
            Ok(())
        };
    } else if t.is_fifo() {
        "named pipe (FIFO)"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() || t.is_block_device() {
        "device"
    } else if t.is_dir() {
        return Err(FsError::Directory {
            path: path.to_path_buf(),
        });
    } else {
        "special file"
    };
    Err(FsError::NotRegular {
        path: path.to_path_buf(),
        kind,
    })
}

/// Whether the user running termic may replace an existing file, decided
/// from values so it can be tested for any user: `access_w_ok` is what
/// `faccessat(AT_EACCESS, W_OK)` said (it sees group, mode and ACLs).
///
/// Root passes `access` for every file, so three rules hold for everyone: a
/// file with no write bit for anyone was made read-only on purpose, a file
/// another user owns or can write is refused by the ownership rule
/// ([`super::foreign`]), and a file owned by root when we are not root is
/// not ours either (replacing it by rename would hand it to us, as only
/// root may give a file away).
pub fn replace_permission(me: super::Me, meta: &FileMeta, access_w_ok: bool) -> Permission {
    let st = super::Stat {
        uid: meta.uid,
        gid: meta.gid,
        mode: meta.mode,
        dir: false,
    };
    if meta.mode & 0o222 == 0 || !access_w_ok {
        Permission::ReadOnly
    } else if let Some(why) = super::foreign(me, st) {
        Permission::NotYours(why)
    } else if meta.uid != me.euid {
        Permission::NotYours(super::Foreign::Owner { uid: meta.uid })
    } else {
        Permission::Writable
    }
}

/// What [`replace_permission`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permission {
    Writable,
    /// No write bit, or `access` refused the write (mode, group, ACL).
    ReadOnly,
    /// Another user's: owned by them (or by root), or writable by them.
    NotYours(super::Foreign),
}

/// [`replace_permission`] for the real file at `path` and the current user.
pub fn may_replace(path: &Path, meta: &FileMeta) -> Permission {
    use std::os::unix::ffi::OsStrExt;
    let access_w_ok = std::ffi::CString::new(path.as_os_str().as_bytes()).is_ok_and(|c| {
        // SAFETY: a valid NUL-terminated path; faccessat only reads it.
        unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
    });
    replace_permission(super::me(), meta, access_w_ok)
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
