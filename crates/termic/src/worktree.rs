//! New tasks in their own git worktree, in a termic-owned place:
//! `<data_dir>/worktrees/<repo>-<hash of the repo path>/<task>` on branch
//! `termic/<task>`.
//!
//! The repository's own agent config dirs (each built-in agent's
//! `linked_dirs`) are symlinked from the repo root into the worktree when
//! they exist there and the worktree has none (an untracked agent dir would
//! otherwise be missing from every worktree). termic never writes into them.
//! Removal is `git worktree remove`; the branch is kept (it holds the work).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use termic_runtime::slug::slug;

use crate::agents::builtin::linked_dirs;

/// Why a worktree operation failed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("{dir} is not inside a git repository (start termic in a repository, or run the task in the current directory)", dir = dir.display())]
    NotARepo { dir: PathBuf },
    #[error("`git {args}` failed in {dir}: {stderr}", dir = dir.display())]
    Git {
        dir: PathBuf,
        args: String,
        stderr: String,
    },
    /// git refused to remove a worktree: its reason first (a one-line
    /// message line may cut the end), then what was kept and the forced way.
    #[error(
        "worktree kept: {reason}. To delete it with its changes: git worktree remove --force {path}",
        path = path.display()
    )]
    Remove { path: PathBuf, reason: String },
    #[error("cannot run git: {0} (install git or put it on PATH)")]
    NoGit(#[source] std::io::Error),
    #[error("cannot link {link} to {target}: {source}", link = link.display(), target = target.display())]
    Link {
        link: PathBuf,
        target: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A created worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    pub repo_root: PathBuf,
    pub path: PathBuf,
    pub branch: String,
    /// Links made into the worktree, e.g. `<worktree>/.claude`.
    pub linked: Vec<PathBuf>,
}

/// FNV-1a 64: stable across builds (unlike std's hasher), enough to keep
/// two repos with the same name apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `<data_dir>/worktrees/<repo name>-<8 hex of the repo path hash>`.
pub fn repo_worktrees_dir(data_dir: &Path, repo_root: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let name = repo_root
        .file_name()
        .map_or_else(|| "repo".to_owned(), |n| slug(&n.to_string_lossy()));
    let hash = fnv1a(repo_root.as_os_str().as_bytes());
    data_dir
        .join("worktrees")
        .join(format!("{name}-{:08x}", hash >> 32))
}

fn git(dir: &Path, args: &[&OsStr]) -> Result<String, WorktreeError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(WorktreeError::NoGit)?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned())
    } else {
        Err(WorktreeError::Git {
            dir: dir.to_path_buf(),
            args: args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// The top of the repository containing `dir`.
pub fn repo_root(dir: &Path) -> Result<PathBuf, WorktreeError> {
    match git(dir, &["rev-parse".as_ref(), "--show-toplevel".as_ref()]) {
        Ok(top) => Ok(PathBuf::from(top)),
        Err(WorktreeError::Git { .. }) => Err(WorktreeError::NotARepo {
            dir: dir.to_path_buf(),
        }),
        Err(e) => Err(e),
    }
}

/// The branch checked out in `worktree`, if it is on one.
pub fn branch(worktree: &Path) -> Option<String> {
    git(
        worktree,
        &[
            "symbolic-ref".as_ref(),
            "--short".as_ref(),
            "-q".as_ref(),
            "HEAD".as_ref(),
        ],
    )
    .ok()
    .filter(|b| !b.is_empty())
}

/// [`remove`] (forced, as closing a task in the TUI does) for a worktree
/// whose repository is not known: git names it first in the worktree's
/// own list.
pub fn remove_anywhere(worktree: &Path) -> Result<(), WorktreeError> {
    let repo = list(worktree)?
        .into_iter()
        .next()
        .ok_or_else(|| WorktreeError::NotARepo {
            dir: worktree.to_path_buf(),
        })?;
    remove(&repo, worktree, true)
}

/// Every worktree of the repository at `repo_root`, the main one first
/// (`git worktree list --porcelain`).
pub fn list(repo_root: &Path) -> Result<Vec<PathBuf>, WorktreeError> {
    let out = git(
        repo_root,
        &["worktree".as_ref(), "list".as_ref(), "--porcelain".as_ref()],
    )?;
    Ok(out
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect())
}

fn branch_exists(repo: &Path, branch: &str) -> Result<bool, WorktreeError> {
    let reference = format!("refs/heads/{branch}");
    match git(
        repo,
        &[
            "show-ref".as_ref(),
            "--verify".as_ref(),
            "--quiet".as_ref(),
            reference.as_ref(),
        ],
    ) {
        Ok(_) => Ok(true),
        Err(WorktreeError::Git { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Create a worktree for task `name` of the repository containing `dir`,
/// on a new branch from the current HEAD. A taken name gets `-2`, `-3`...
pub fn create(data_dir: &Path, dir: &Path, name: &str) -> Result<Worktree, WorktreeError> {
    let repo_root = repo_root(dir)?;
    let parent = repo_worktrees_dir(data_dir, &repo_root);
    let base = slug(name);
    let mut n = 1;
    let (path, branch) = loop {
        let leaf = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let path = parent.join(&leaf);
        let branch = format!("termic/{leaf}");
        if !path.exists() && !branch_exists(&repo_root, &branch)? {
            break (path, branch);
        }
        n += 1;
    };
    git(
        &repo_root,
        &[
            "worktree".as_ref(),
            "add".as_ref(),
            "-b".as_ref(),
            branch.as_ref(),
            path.as_os_str(),
        ],
    )?;
    let linked = link_agent_dirs(&repo_root, &path)?;
    Ok(Worktree {
        repo_root,
        path,
        branch,
        linked,
    })
}

/// Symlink each agent dir (the built-ins' `linked_dirs`) present at the repo root and absent in
/// the worktree (a tracked dir is already checked out there).
pub fn link_agent_dirs(repo_root: &Path, worktree: &Path) -> Result<Vec<PathBuf>, WorktreeError> {
    let mut linked = Vec::new();
    for name in linked_dirs() {
        let target = repo_root.join(name);
        let link = worktree.join(name);
        if !target.is_dir() || std::fs::symlink_metadata(&link).is_ok() {
            continue;
        }
        std::os::unix::fs::symlink(&target, &link).map_err(|source| WorktreeError::Link {
            link: link.clone(),
            target: target.clone(),
            source,
        })?;
        linked.push(link);
    }
    Ok(linked)
}

/// Remove the links [`link_agent_dirs`] made (only links that still point
/// at the repo root's dir of the same name).
fn unlink_agent_dirs(repo_root: &Path, worktree: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for name in linked_dirs() {
        let link = worktree.join(name);
        let ours = std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink())
            && std::fs::read_link(&link).is_ok_and(|t| t == repo_root.join(name));
        if ours && std::fs::remove_file(&link).is_ok() {
            removed.push(link);
        }
    }
    removed
}

/// `git worktree remove` (with `--force` when asked: uncommitted changes
/// are then lost). termic's own links go first, since git counts them as
/// untracked files and would refuse; they are put back if git refuses for
/// another reason. The branch stays.
pub fn remove(repo_root: &Path, path: &Path, force: bool) -> Result<(), WorktreeError> {
    let unlinked = unlink_agent_dirs(repo_root, path);
    let mut args: Vec<&OsStr> = vec!["worktree".as_ref(), "remove".as_ref()];
    if force {
        args.push("--force".as_ref());
    }
    args.push(path.as_os_str());
    let result = git(repo_root, &args).map(|_| ()).map_err(|e| match e {
        WorktreeError::Git { stderr, .. } => WorktreeError::Remove {
            path: path.to_path_buf(),
            reason: git_reason(&stderr),
        },
        other => other,
    });
    if result.is_err() && !unlinked.is_empty() {
        let _ = link_agent_dirs(repo_root, path);
    }
    result
}

/// Why [`remove_merged`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum RemoveMergedError {
    /// Nothing was removed.
    #[error(transparent)]
    Worktree(#[from] WorktreeError),
    /// The worktree went, the branch stayed.
    #[error("removed the worktree, but {0}")]
    Branch(termic_review::git::GitError),
}

/// After a merge (`termic merge --remove`, the diff view's offer): the
/// task's worktree (refused by git when it has uncommitted changes), then
/// its branch, only when it is termic's (`termic/...`). `repo`: where the
/// base branch is checked out.
pub fn remove_merged(repo: &Path, worktree: &Path, branch: &str) -> Result<(), RemoveMergedError> {
    remove(repo, worktree, false)?;
    if branch.starts_with("termic/") {
        termic_review::git::run(
            repo,
            &["branch", "-D", branch],
            &[],
            termic_review::GIT_LIMIT,
            4096,
        )
        .map_err(RemoveMergedError::Branch)?;
    }
    Ok(())
}

/// git's message without its `fatal: ` / `error: ` prefix, on one line.
fn git_reason(stderr: &str) -> String {
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("git gave no reason");
    line.trim_start_matches("fatal: ")
        .trim_start_matches("error: ")
        .to_owned()
}

/// Undoes [`create`] for a task that never started: the worktree (forced:
/// nothing of the user's is in it yet) and its `termic/<task>` branch.
pub fn discard(repo_root: &Path, path: &Path) -> Result<(), WorktreeError> {
    let branch = git(
        path,
        &["symbolic-ref".as_ref(), "--short".as_ref(), "HEAD".as_ref()],
    );
    remove(repo_root, path, true)?;
    match branch {
        Ok(branch) if branch.starts_with("termic/") => git(
            repo_root,
            &["branch".as_ref(), "-D".as_ref(), branch.as_ref()],
        )
        .map(|_| ()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_dir_name_is_stable_and_keeps_same_named_repos_apart() {
        let d = Path::new("/data");
        let a = repo_worktrees_dir(d, Path::new("/home/u/proj"));
        let b = repo_worktrees_dir(d, Path::new("/home/v/proj"));
        assert_ne!(a, b);
        assert_eq!(a, repo_worktrees_dir(d, Path::new("/home/u/proj")));
        let leaf = a.file_name().unwrap().to_str().unwrap();
        assert!(
            leaf.starts_with("proj-") && leaf.len() == "proj-".len() + 8,
            "{leaf}"
        );
        assert!(a.starts_with("/data/worktrees"));
    }
}
