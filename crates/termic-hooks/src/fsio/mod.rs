//! The I/O edge for users' config files: read a snapshot, write atomically,
//! never lose a concurrent writer's edit, delete only what is ours.
//!
//! # API
//!
//! - [`read_config`]`(path)` gives a [`Snapshot`]: the bytes (`None` when
//!   the file does not exist), the RESOLVED target path (a symlink, as
//!   dotfiles managers make, is followed with a bounded `read_link` loop; a
//!   dangling link is an error, never an overwrite) and [`FileMeta`] (mode,
//!   owner, dev/ino, length, mtime).
//! - [`write_atomic`]`(snapshot, bytes, options)`: temp file in the target's
//!   own directory, the target's mode (and owner when we may), write, fsync,
//!   then swap it in with `renameat2(RENAME_EXCHANGE)` and compare the file
//!   it replaced with the snapshot's bytes: another writer's file goes back
//!   and [`FsError::ConcurrentChange`] is returned (see `commit`); then
//!   fsync the directory. Temp files a dead termic left are swept first. A link stays a link; only its target changes. A
//!   new file gets [`WriteOptions::new_file_mode`] (0644; 0755 for scripts)
//!   and its missing parent directories are created (and reported).
//! - [`write_if_unchanged`]`(path, before, after, options)`: the same for a
//!   caller that planned from bytes it read earlier (a shown plan): reads
//!   afresh and refuses unless the file still holds `before`.
//! - [`edit_file`]`(path, options, f)`: read, apply the pure edit `f`,
//!   write; when another writer (the agent itself rewrites settings.json)
//!   got in between, re-read and re-apply `f`, up to [`EDIT_ATTEMPTS`]
//!   times, so their edit is never lost. `f` may also ask to delete the
//!   file (only if it still holds the bytes `f` saw).
//! - [`delete_if_unchanged`]`(path, expected)`: delete a file we own only if
//!   its bytes are what we wrote.
//! - [`create_dirs`]`(dir)` / [`remove_dir_if_empty`]`(dir)`: directories we
//!   create, recorded so removal takes away exactly those.
//! - [`refuse_untrusted`]`(path)`: THE ownership rule ([`foreign`], pure,
//!   over `stat` values): a file, or a directory termic writes into, that
//!   another user owns or can write is refused, naming the path, the owner
//!   and the fix. [`write_atomic`] applies it to every write; plans apply
//!   it to every directory of an install first.
//! - [`backup_once`]`(original, backup)`: copy the original to the backup
//!   path only if no backup exists yet (first install wins).
//!
//! No agent takes a lock on its config; the exchange closes the race with
//! another writer instead (what remains is in docs/decisions.md, "Race
//! fix"). Every mutating call passes a [`fault`] point for the crash tests.

mod commit;
#[doc(hidden)]
pub mod fault;
mod owned;
mod snapshot;
mod sweep;
mod write;

pub use owned::{
    backup_once, create_dirs, delete_if_unchanged, foreign, me, named, private_gid,
    refuse_untrusted, remove_dir_if_empty, untrusted, write_dir, BackupOutcome, DeleteOutcome,
    Foreign, Me, Stat, Untrusted,
};
pub use snapshot::{
    may_replace, read_config, read_regular, replace_permission, resolve_target, FileMeta,
    Permission, Snapshot, MAX_CONFIG_BYTES,
};
pub use sweep::sweep_temps;
pub use write::{
    edit_file, write_atomic, write_if_unchanged, Change, EditFileError, EditOutcome, WriteOptions,
    WriteReport, EDIT_ATTEMPTS,
};

use std::path::PathBuf;

/// A failed file operation. Each names the file and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("could not read {path}: {source}. Check that it exists and that you may read it")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{link} is a symbolic link to {target}, which does not exist; termic will not replace the link. \
         Create the target or remove the link, then try again"
    )]
    DanglingLink { link: PathBuf, target: PathBuf },
    #[error("{path}: too many levels of symbolic links (a loop?); fix the links, then try again")]
    LinkLoop { path: PathBuf },
    #[error("{path} is not a regular file; termic only edits files. Move it away, then try again")]
    NotAFile { path: PathBuf },
    /// A directory where a config file belongs (the fix is not a permission).
    #[error(
        "{path} is a directory, not a file: move it away (termic writes a file there), then try again"
    )]
    Directory { path: PathBuf },
    #[error(
        "{path} is a {kind}, not a regular file; termic reads and edits only regular files. \
         Move it away or replace it with a regular file, then try again"
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "{path} is larger than {max_mib} MiB, too big to be a config; termic did not read it. \
         Move it away or shrink it, then try again"
    )]
    TooLarge { path: PathBuf, max_mib: u64 },
    #[error("could not write {path}: {source}. The file was not changed")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} changed while termic was editing it (another program, maybe the agent, wrote it); nothing \
         was written. Try again"
    )]
    ConcurrentChange { path: PathBuf },
    /// The file, or the directory it is written in, is another user's
    /// (owned by them, or writable by them): see [`foreign`].
    #[error("{}", .0.describe("write"))]
    Untrusted(Box<Untrusted>),
}

impl FsError {
    fn read(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FsError::Read {
            path: path.into(),
            source,
        }
    }

    fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FsError::Write {
            path: path.into(),
            source,
        }
    }
}
