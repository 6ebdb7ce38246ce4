//! The I/O edge of an install: read a target's files into a [`Snapshot`],
//! apply an [`InstallPlan`], and the install/remove loops that re-plan when
//! a concurrent writer (the agent itself rewriting its settings) changed a
//! file between the read and the write, so no edit of theirs is lost.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::fsio::fault::{self, Op};
use crate::fsio::{self, DeleteOutcome, FsError, WriteOptions};
use crate::plan::{self, Action, InstallFacts, InstallPlan, PlanError, Snapshot};
use crate::target::InstallTarget;

/// How many times an install re-reads and re-plans after losing a race.
const MAX_ATTEMPTS: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("{0}")]
    Plan(#[from] PlanError),
    #[error("{0}")]
    Fs(#[from] FsError),
    #[error("could not read {path}: {source}. Nothing was written; check that you may read it, then try again")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "could not {doing} {path}: {source}. termic stopped there (the files listed before it were written); \
         fix the cause, often a permission, and run the command again"
    )]
    Write {
        doing: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "{path} kept changing while termic wrote it (another program is rewriting it); nothing of theirs \
         was overwritten. Close that program (often the agent itself) and try again"
    )]
    KeptChanging { path: PathBuf },
}

/// Every file a plan or status of `target` may look at: what
/// [`read_snapshot`] reads, so a caller watching these paths for change
/// watches exactly what status depends on.
pub fn snapshot_paths(target: &InstallTarget) -> Vec<PathBuf> {
    let mut rels = target.owned_rel_paths();
    if let Some(file) = target.schema().adapter().config_entry().file() {
        rels.push(format!(
            "{}/{}",
            target.schema().backup_dir(),
            file.rsplit('/').next().unwrap_or(file)
        ));
    }
    rels.extend(
        target
            .schema()
            .adapter()
            .extra_files()
            .iter()
            .map(|s| s.to_string()),
    );
    rels.iter().map(|rel| target.path(rel)).collect()
}

/// Every directory an install of `target` writes into or places scripts
/// in: the agent's config dir and the dir of each file termic writes
/// (its hooks folder, opencode's plugins dir). One that does not exist yet
/// stands for the nearest existing ancestor, where termic would create it.
/// Symlinks are followed: the ownership rule looks at the real directory.
fn write_dirs(target: &InstallTarget) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let config_dir = match std::fs::metadata(target.dir()) {
        Ok(_) => Some(target.dir().to_path_buf()),
        Err(_) => fsio::write_dir(target.dir()),
    };
    let files = target.owned_rel_paths();
    let file_dirs = files.iter().map(|rel| fsio::write_dir(&target.path(rel)));
    for dir in std::iter::once(config_dir).chain(file_dirs).flatten() {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Reads every file a plan or status of `target` may look at.
pub fn read_snapshot(target: &InstallTarget) -> Result<Snapshot, ApplyError> {
    let mut snap = Snapshot::default();
    let me = fsio::me();
    for dir in write_dirs(target) {
        if let Some(u) = fsio::untrusted(me, &dir) {
            snap.insert_untrusted(u);
        }
    }
    for path in snapshot_paths(target) {
        // The one bounded, non-blocking read: a FIFO, device, socket,
        // directory, dangling link or oversized file is refused here, in
        // planning, before anything is written.
        match fsio::read_regular(&path)? {
            Some((bytes, meta)) => {
                let st = fsio::Stat {
                    uid: meta.uid,
                    gid: meta.gid,
                    mode: meta.mode,
                    dir: false,
                };
                if let Some(why) = fsio::foreign(me, st) {
                    snap.insert_untrusted(fsio::named(&path, st, why));
                }
                let permission = fsio::may_replace(&path, &meta);
                snap.insert_file_with(path, bytes, meta.mode, permission);
            }
            None => {
                for anc in path.ancestors().skip(1) {
                    if anc.as_os_str().is_empty() {
                        break;
                    }
                    if let Ok(meta) = std::fs::symlink_metadata(anc) {
                        // `~/.claude` as a link to nowhere: an install would
                        // fail at its first mkdir, so refuse it now.
                        if meta.file_type().is_symlink() && !anc.exists() {
                            return Err(FsError::DanglingLink {
                                link: anc.to_path_buf(),
                                target: std::fs::read_link(anc).unwrap_or_default(),
                            }
                            .into());
                        }
                        break;
                    }
                    snap.insert_missing_dir(anc.to_path_buf());
                }
            }
        }
    }
    Ok(snap)
}

/// Applies `plan` in order. A file that no longer holds the bytes the plan
/// expected stops the apply with `Conflict` (nothing of it is overwritten).
/// A change whose guard does not hold is skipped (the backup stays).
fn apply_once(plan: &InstallPlan) -> Result<Outcome, ApplyError> {
    for c in &plan.changes {
        if let Some(guard) = &c.guard {
            if fsio::read_config(&guard.path)?.bytes != guard.holds {
                continue;
            }
        }
        match c.action {
            Action::CreateDir => {
                match fault::check(Op::Mkdir).and_then(|()| std::fs::create_dir(&c.path)) {
                    Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                        return Err(write_err("create the directory", &c.path, e))
                    }
                    _ => {}
                }
            }
            Action::Create | Action::Modify => {
                let after = c.after.as_deref().unwrap_or_default();
                let options = WriteOptions {
                    new_file_mode: c.mode.unwrap_or(0o644),
                    ..WriteOptions::default()
                };
                match fsio::write_if_unchanged(&c.path, c.before.as_deref(), after, &options) {
                    Ok(_) => {}
                    Err(FsError::ConcurrentChange { .. }) => return Ok(Outcome::Conflict),
                    Err(e) => return Err(e.into()),
                }
                // An existing file keeps its mode through the write; a file we
                // own (a script that lost its execute bit) gets ours back.
                if let Some(mode) = c.mode {
                    let set_mode = |e| write_err("set the mode of", &c.path, e);
                    let now = std::fs::metadata(&c.path).map_err(set_mode)?;
                    if now.permissions().mode() & 0o7777 != mode {
                        fault::check(Op::Chmod)
                            .and_then(|()| {
                                std::fs::set_permissions(
                                    &c.path,
                                    std::fs::Permissions::from_mode(mode),
                                )
                            })
                            .map_err(set_mode)?;
                    }
                }
            }
            Action::Delete => {
                let before = c.before.as_deref().unwrap_or_default();
                match fsio::delete_if_unchanged(&c.path, before)? {
                    DeleteOutcome::Deleted | DeleteOutcome::Missing => {}
                    DeleteOutcome::Changed => return Ok(Outcome::Conflict),
                    // A dotfiles manager's link: never ours to delete.
                    DeleteOutcome::IsLink => {}
                }
            }
            // Only when empty: anything the user (or the agent) put there stays.
            Action::RemoveDirIfEmpty => {
                fsio::remove_dir_if_empty(&c.path)?;
            }
        }
    }
    Ok(Outcome::Done)
}

enum Outcome {
    Done,
    Conflict,
}

/// Applies a plan the user has seen; when a file changed underneath, re-reads
/// and re-plans with `replan` (up to a bound) so the other writer's edit is
/// kept. Returns the plan that was finally applied.
pub fn apply(
    target: &InstallTarget,
    first: InstallPlan,
    replan: impl Fn(&InstallTarget, &Snapshot) -> Result<InstallPlan, PlanError>,
) -> Result<InstallPlan, ApplyError> {
    // Temp files a killed run left next to any file of this target go first.
    for path in snapshot_paths(target) {
        if let Some(dir) = path.parent() {
            fsio::sweep_temps(dir, &path);
        }
    }
    let mut plan = first;
    for _ in 0..MAX_ATTEMPTS {
        if let Outcome::Done = apply_once(&plan)? {
            return Ok(plan);
        }
        plan = replan(target, &read_snapshot(target)?)?;
    }
    let path = plan
        .changes
        .iter()
        .find(|c| c.before.is_some())
        .map_or_else(|| target.dir().to_path_buf(), |c| c.path.clone());
    Err(ApplyError::KeptChanging { path })
}

/// Reads, plans and applies an install of `target` in one go.
pub fn install(target: &InstallTarget, facts: &InstallFacts) -> Result<InstallPlan, ApplyError> {
    let first = plan::plan_install(target, &read_snapshot(target)?, facts)?;
    apply(target, first, |t, s| plan::plan_install(t, s, facts))
}

/// Reads, plans and applies a removal of `target` in one go.
pub fn remove(target: &InstallTarget) -> Result<InstallPlan, ApplyError> {
    let first = plan::plan_remove(target, &read_snapshot(target)?)?;
    apply(target, first, plan::plan_remove)
}

fn write_err(doing: &'static str, path: &Path, source: io::Error) -> ApplyError {
    ApplyError::Write {
        doing,
        path: path.to_path_buf(),
        source,
    }
}
