//! Atomic replacement of a config file, and the read-edit-write loop that
//! never loses a concurrent writer's edit.

use std::path::{Path, PathBuf};

use super::commit::TempFile;
use super::fault::{self, Op};
use super::owned::{create_dirs, sync_dir};
use super::snapshot::{read_config, Snapshot};
use super::sweep::sweep_temps;
use super::FsError;

/// How often [`edit_file`] re-reads and re-applies its edit when another
/// writer keeps getting in first.
pub const EDIT_ATTEMPTS: u32 = 5;

/// Options for a write.
#[derive(Clone, Copy)]
pub struct WriteOptions<'a> {
    /// Mode of a file that does not exist yet (an existing file keeps its own).
    pub new_file_mode: u32,
    /// Test seam: runs after the temp file is written and synced, just
    /// before the exchange (and the concurrent-change check after it).
    pub before_commit: Option<&'a dyn Fn(&Path)>,
    /// Test seam: runs right after the exchange with the path that now
    /// holds the REPLACED file (where an in-place writer that had it open
    /// would still be writing), before it is compared.
    pub after_swap: Option<&'a dyn Fn(&Path)>,
}

impl Default for WriteOptions<'_> {
    /// A config: 0644.
    fn default() -> Self {
        WriteOptions {
            new_file_mode: 0o644,
            before_commit: None,
            after_swap: None,
        }
    }
}

impl WriteOptions<'_> {
    /// A hook script: 0755.
    pub fn script() -> Self {
        WriteOptions {
            new_file_mode: 0o755,
            ..WriteOptions::default()
        }
    }
}

/// What a successful write did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteReport {
    /// The file replaced (a link's target, not the link).
    pub target: PathBuf,
    /// Parent directories that did not exist and were created, outermost first.
    pub created_dirs: Vec<PathBuf>,
    /// The directory holding the rename was fsynced (false only if that
    /// failed after the rename, which then still happened).
    pub dir_synced: bool,
}

/// Replaces `snapshot.target` with `bytes`, refusing if the file no longer
/// holds `snapshot.bytes` (see the module doc and `commit`), or if the file
/// or the directory it lands in is another user's ([`super::foreign`]).
pub fn write_atomic(
    snapshot: &Snapshot,
    bytes: &[u8],
    options: &WriteOptions<'_>,
) -> Result<WriteReport, FsError> {
    let target = &snapshot.target;
    // Before anything is created: a refused write leaves no dir or temp file.
    super::owned::refuse_untrusted_target(target)?;
    let dir = parent_dir(target);
    let created_dirs = if dir.exists() {
        Vec::new()
    } else {
        create_dirs(dir)?
    };
    sweep_temps(dir, target);
    let temp = TempFile::create(dir, target)?;
    temp.fill(bytes, snapshot, options.new_file_mode)
        .map_err(|e| FsError::write(target, e))?;
    if let Some(hook) = options.before_commit {
        hook(target);
    }
    temp.commit(snapshot, options.after_swap)?;
    let dir_synced = fault::check(Op::Fsync).is_ok() && sync_dir(dir).is_ok();
    Ok(WriteReport {
        target: target.clone(),
        created_dirs,
        dir_synced,
    })
}

/// For a caller that planned from bytes it read earlier: replaces the file
/// at `path` (through links) with `after` only if it still holds `before`
/// (`None`: absent), else [`FsError::ConcurrentChange`] and nothing written.
pub fn write_if_unchanged(
    path: &Path,
    before: Option<&[u8]>,
    after: &[u8],
    options: &WriteOptions<'_>,
) -> Result<WriteReport, FsError> {
    let snapshot = read_config(path)?;
    if snapshot.bytes.as_deref() != before {
        return Err(FsError::ConcurrentChange {
            path: path.to_path_buf(),
        });
    }
    write_atomic(&snapshot, after, options)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// What an edit function wants done with the file it was shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing to do.
    Keep,
    /// Replace the file with these bytes.
    Write(Vec<u8>),
    /// Delete the file (termic created it and it is now empty of content).
    /// Through a symlink nothing is deleted: the link is the user's.
    Delete,
}

/// The result of [`edit_file`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditOutcome {
    /// The file as the applied edit saw it (the pre-edit state to record).
    pub before: Snapshot,
    /// What was done.
    pub applied: Change,
    /// 1 unless another writer got in between.
    pub attempts: u32,
    /// Set for a write.
    pub report: Option<WriteReport>,
}

/// [`edit_file`] failed: in the file system, or the edit refused the file.
#[derive(Debug, thiserror::Error)]
pub enum EditFileError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error("{path}: {source}")]
    Edit { path: PathBuf, source: E },
}

/// Reads `path`, applies `edit`, writes the result atomically; retries on
/// a concurrent change (see the module doc).
pub fn edit_file<E: std::error::Error + 'static>(
    path: &Path,
    options: &WriteOptions<'_>,
    mut edit: impl FnMut(&Snapshot) -> Result<Change, E>,
) -> Result<EditOutcome, EditFileError<E>> {
    for attempt in 1..=EDIT_ATTEMPTS {
        let before = read_config(path)?;
        let change = edit(&before).map_err(|source| EditFileError::Edit {
            path: path.to_path_buf(),
            source,
        })?;
        let report = match &change {
            Change::Keep => None,
            Change::Write(bytes) => match write_atomic(&before, bytes, options) {
                Ok(report) => Some(report),
                Err(FsError::ConcurrentChange { .. }) => continue,
                Err(err) => return Err(err.into()),
            },
            Change::Delete if before.path != before.target || before.bytes.is_none() => {
                return Ok(EditOutcome {
                    before,
                    applied: Change::Keep,
                    attempts: attempt,
                    report: None,
                });
            }
            Change::Delete => {
                let expected = before.bytes.as_deref().unwrap_or_default();
                match super::delete_if_unchanged(&before.target, expected)? {
                    super::DeleteOutcome::Changed => continue,
                    _ => None,
                }
            }
        };
        return Ok(EditOutcome {
            before,
            applied: change,
            attempts: attempt,
            report,
        });
    }
    Err(FsError::ConcurrentChange {
        path: path.to_path_buf(),
    }
    .into())
}
