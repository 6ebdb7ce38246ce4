//! Files and directories termic owns: delete only what is ours, create and
//! remove our directories, keep one backup of the user's original.

use std::fs::{DirBuilder, File};
use std::io::ErrorKind;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use super::commit::TempFile;
use super::fault::{self, Op};
use super::snapshot::read_config;
use super::sweep::sweep_temps;
use super::FsError;

/// What [`delete_if_unchanged`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    /// Nothing there.
    Missing,
    /// Someone changed it since we wrote it: kept.
    Changed,
    /// It is a symlink now (a dotfiles manager's): kept.
    IsLink,
}

/// Deletes `path` only if it holds exactly `expected`.
pub fn delete_if_unchanged(path: &Path, expected: &[u8]) -> Result<DeleteOutcome, FsError> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(DeleteOutcome::Missing),
        Err(err) => return Err(FsError::read(path, err)),
        Ok(meta) if meta.file_type().is_symlink() => return Ok(DeleteOutcome::IsLink),
        Ok(meta) if !meta.is_file() => {
            return Err(FsError::NotAFile {
                path: path.to_path_buf(),
            })
        }
        Ok(_) => {}
    }
    let bytes = std::fs::read(path).map_err(|e| FsError::read(path, e))?;
    if bytes != expected {
        return Ok(DeleteOutcome::Changed);
    }
    fault::check(Op::Unlink)
        .and_then(|()| std::fs::remove_file(path))
        .map_err(|e| FsError::write(path, e))?;
    if let Some(dir) = path.parent() {
        let _ = fault::check(Op::Fsync).and_then(|()| sync_dir(dir));
    }
    Ok(DeleteOutcome::Deleted)
}

/// Creates `dir` and its missing parents (0755); returns the ones created,
/// outermost first, for the caller to record.
pub fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, FsError> {
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    for d in missing.iter().rev() {
        let made = fault::check(Op::Mkdir).and_then(|()| DirBuilder::new().mode(0o755).create(d));
        match made {
            Err(err) if err.kind() != ErrorKind::AlreadyExists => {
                return Err(FsError::write(d, err))
            }
            _ => {}
        }
    }
    Ok(missing.into_iter().rev().collect())
}

/// Removes `dir` if it exists and is empty; true if it was removed.
pub fn remove_dir_if_empty(dir: &Path) -> Result<bool, FsError> {
    match fault::check(Op::Rmdir).and_then(|()| std::fs::remove_dir(dir)) {
        Ok(()) => Ok(true),
        Err(err)
            if err.kind() == ErrorKind::NotFound || err.kind() == ErrorKind::DirectoryNotEmpty =>
        {
            Ok(false)
        }
        Err(err) => Err(FsError::write(dir, err)),
    }
}

/// What [`backup_once`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackupOutcome {
    Created,
    /// A backup was already there (an earlier install made it): untouched.
    AlreadyExists,
    /// No original file to back up.
    NoOriginal,
}

/// Copies `original` (through links) to `backup` unless `backup` exists.
/// The copy is 0600: settings files can hold tokens.
pub fn backup_once(original: &Path, backup: &Path) -> Result<BackupOutcome, FsError> {
    if std::fs::symlink_metadata(backup).is_ok() {
        return Ok(BackupOutcome::AlreadyExists);
    }
    let Some(bytes) = read_config(original)?.bytes else {
        return Ok(BackupOutcome::NoOriginal);
    };
    let dir = backup
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_dirs(dir)?;
    sweep_temps(dir, backup);
    // The temp file is 0600 from creation and removed when dropped.
    let temp = TempFile::create(dir, backup)?;
    // A hard link never replaces an existing backup (rename would).
    let written = temp
        .write_synced(&bytes)
        .and_then(|()| fault::check(Op::Link))
        .and_then(|()| std::fs::hard_link(temp.path(), backup));
    drop(temp);
    match written {
        Ok(()) => {
            let _ = fault::check(Op::Fsync).and_then(|()| sync_dir(dir));
            Ok(BackupOutcome::Created)
        }
        Err(err) if err.kind() == ErrorKind::AlreadyExists => Ok(BackupOutcome::AlreadyExists),
        Err(err) => Err(FsError::write(backup, err)),
    }
}

/// fsync of a directory, so a rename or unlink in it survives a crash.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
