//! The merge of a worktree task's branch into the branch it was cut from
//! (issue 32), or its pull request with `gh`.
//!
//! Every step runs in the checkout of the base branch (the task's
//! worktree is never written): `git merge --ff-only` (ff), `git
//! cherry-pick` of the task's commits onto the base (rebase: the base
//! gets them in a line, the task's branch is left as it was), `git merge
//! --squash` then one commit (squash). Before it: the base checkout must
//! have no change to a tracked file (a dirty base). A conflict is undone
//! (`cherry-pick --abort`, `reset --merge`) and then checked: HEAD and
//! `git status` must be as they were, or the error says they are not.
//! Only the task's commits merge: what it has not committed stays in its
//! worktree.

use std::path::{Path, PathBuf};

use crate::git::{self, GitError};
use crate::{BaseKind, ReviewBase, GIT_LIMIT};

/// How a task's branch reaches its base branch (`[review] merge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Fast-forward only: refused when the base has moved on.
    Ff,
    /// The task's commits replayed on the base, in a line.
    Rebase,
    /// All of the task's commits as one new commit on the base.
    Squash,
    /// A pull request with `gh pr create` (the branch pushed first when
    /// the repository has an `origin`).
    Pr,
}

impl How {
    pub const ALL: [How; 4] = [How::Ff, How::Rebase, How::Squash, How::Pr];

    pub fn as_str(self) -> &'static str {
        match self {
            How::Ff => "ff",
            How::Rebase => "rebase",
            How::Squash => "squash",
            How::Pr => "pr",
        }
    }

    pub fn parse(s: &str) -> Option<How> {
        How::ALL.into_iter().find(|h| h.as_str() == s)
    }
}

/// What a merge did (on the wire in a remote host's `merged` answer,
/// protocol 9).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Merged {
    /// The base branch now has the task's commits (`commits` of them, or
    /// one squashed commit); `head` is its new tip.
    Merged {
        branch: String,
        into: String,
        commits: usize,
        head: String,
    },
    /// `gh pr create` ran; its output (the pull request's address).
    PullRequest {
        branch: String,
        into: String,
        url: String,
    },
}

/// Why nothing merged. Each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("only a task in its own worktree merges (this one ran in a plain directory)")]
    NotAWorktree,
    #[error("the task's worktree is not on a branch (git says HEAD is detached)")]
    Detached,
    #[error("the task made no commit to merge (what it has not committed stays in its worktree: ask it to commit)")]
    NothingToMerge,
    #[error("{into} does not contain the commit the task was cut from: name the branch to merge into with --into")]
    NotTheBase { into: String },
    #[error(
        "no worktree has {into} checked out: check it out (git switch {into}) and merge again"
    )]
    BaseNotCheckedOut { into: String },
    #[error("{into} has uncommitted changes in {dir}: commit or stash them, then merge again (nothing was changed)", dir = dir.display())]
    DirtyBase { into: String, dir: PathBuf },
    #[error("{into} has moved on since the task was cut, so it cannot fast-forward: merge with rebase or squash (nothing was changed)")]
    NotFastForward { into: String },
    #[error("merging {branch} into {into} conflicts in {files}: nothing was changed. Ask the task to rebase on {into} and resolve them, then merge again")]
    Conflict {
        branch: String,
        into: String,
        files: String,
    },
    #[error("merging {branch} into {into} failed and termic could not put {dir} back as it was: {why}. Check it with git status", dir = dir.display())]
    NotRestored {
        branch: String,
        into: String,
        dir: PathBuf,
        why: String,
    },
    #[error("gh is not installed (or not on PATH): install it from https://cli.github.com, or merge with ff, rebase or squash")]
    NoGh,
    #[error("gh pr create failed: {0}")]
    Gh(String),
    #[error(transparent)]
    Git(#[from] GitError),
}

fn git_in(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let out = git::run(dir, args, &[], GIT_LIMIT, 1 << 20)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The checkout of every branch: `(worktree dir, branch)` from `git
/// worktree list --porcelain`, the main worktree first.
fn checkouts(dir: &Path) -> Result<Vec<(PathBuf, Option<String>)>, GitError> {
    let out = git_in(dir, &["worktree", "list", "--porcelain"])?;
    let mut all: Vec<(PathBuf, Option<String>)> = Vec::new();
    for line in out.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            all.push((PathBuf::from(path), None));
        } else if let Some(b) = line.strip_prefix("branch refs/heads/") {
            if let Some(last) = all.last_mut() {
                last.1 = Some(b.to_owned());
            }
        }
    }
    Ok(all)
}

/// What a merge of task `base` would do, found before anything is
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The task's branch (`termic/<name>`).
    pub branch: String,
    /// The branch it merges into.
    pub into: String,
    /// Where `into` is checked out (none: only a pull request).
    pub checkout: Option<PathBuf>,
    /// The task's commits not yet on `into`.
    pub commits: usize,
    /// The task's worktree.
    pub worktree: PathBuf,
}

/// The plan of a merge: the task's branch, the branch it merges into
/// (`into`, or the branch checked out in the repository's main worktree,
/// where termic cut the task's worktree from), where that is checked out.
pub fn plan(base: &ReviewBase, into: Option<&str>) -> Result<Plan, MergeError> {
    if base.kind != BaseKind::Worktree {
        return Err(MergeError::NotAWorktree);
    }
    let wt = &base.dir;
    let branch = git_in(wt, &["symbolic-ref", "--short", "-q", "HEAD"])
        .ok()
        .filter(|b| !b.is_empty())
        .ok_or(MergeError::Detached)?;
    let all = checkouts(wt)?;
    let into = match into {
        Some(b) => b.to_owned(),
        None => all
            .first()
            .and_then(|(_, b)| b.clone())
            .ok_or_else(|| MergeError::NotTheBase {
                into: "the main worktree's branch (it is detached)".into(),
            })?,
    };
    let into_ref = format!("refs/heads/{into}");
    if git_in(
        wt,
        &["merge-base", "--is-ancestor", &base.object, &into_ref],
    )
    .is_err()
    {
        return Err(MergeError::NotTheBase { into });
    }
    let range = format!("{into_ref}..refs/heads/{branch}");
    let commits = git_in(wt, &["rev-list", "--count", &range])?
        .parse::<usize>()
        .unwrap_or(0);
    let checkout = all
        .into_iter()
        .find(|(_, b)| b.as_deref() == Some(into.as_str()))
        .map(|(d, _)| d);
    Ok(Plan {
        branch,
        into,
        checkout,
        commits,
        worktree: wt.clone(),
    })
}

/// The state of a checkout that a failed merge must leave as it was.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    head: String,
    status: String,
    /// The messages a squash leaves, as they were (none: absent).
    messages: Vec<Option<Vec<u8>>>,
}

/// The messages `merge --squash` leaves for the next commit.
const LEFT_MESSAGES: [&str; 2] = ["SQUASH_MSG", "MERGE_MSG"];

fn message_path(dir: &Path, name: &str) -> Option<PathBuf> {
    git_in(dir, &["rev-parse", "--git-path", name])
        .ok()
        .map(|p| dir.join(p))
}

fn snapshot(dir: &Path) -> Result<Snapshot, GitError> {
    Ok(Snapshot {
        head: git_in(dir, &["rev-parse", "HEAD"])?,
        status: git_in(dir, &["status", "--porcelain=v1", "-z"])?,
        messages: LEFT_MESSAGES
            .iter()
            .map(|m| message_path(dir, m).and_then(|p| std::fs::read(p).ok()))
            .collect(),
    })
}

/// Merges the task's branch as `plan` says, `how`. `message`: the
/// squashed commit's message. On any failure the base checkout is put
/// back as it was and checked.
pub fn merge(plan: &Plan, how: How, message: &str) -> Result<Merged, MergeError> {
    merge_with_gh(plan, how, message, std::ffi::OsStr::new("gh"))
}

/// [`merge`] with the `gh` program named (tests name a fake one).
pub fn merge_with_gh(
    plan: &Plan,
    how: How,
    message: &str,
    gh: &std::ffi::OsStr,
) -> Result<Merged, MergeError> {
    if how == How::Pr {
        return pull_request(plan, gh);
    }
    if plan.commits == 0 {
        return Err(MergeError::NothingToMerge);
    }
    let dir = plan
        .checkout
        .clone()
        .ok_or_else(|| MergeError::BaseNotCheckedOut {
            into: plan.into.clone(),
        })?;
    let dirty = git_in(&dir, &["status", "--porcelain=v1", "--untracked-files=no"])?;
    if !dirty.is_empty() {
        return Err(MergeError::DirtyBase {
            into: plan.into.clone(),
            dir,
        });
    }
    let before = snapshot(&dir)?;
    let branch_ref = format!("refs/heads/{}", plan.branch);
    let can_ff = git_in(&dir, &["merge-base", "--is-ancestor", "HEAD", &branch_ref]).is_ok();
    let result = match how {
        How::Ff | How::Rebase if can_ff => {
            git_in(&dir, &["merge", "--ff-only", "--no-edit", &branch_ref]).map(|_| ())
        }
        How::Ff => {
            return Err(MergeError::NotFastForward {
                into: plan.into.clone(),
            })
        }
        How::Rebase => {
            let range = format!("HEAD..{branch_ref}");
            git_in(&dir, &["cherry-pick", "--allow-empty", &range]).map(|_| ())
        }
        How::Squash => git_in(&dir, &["merge", "--squash", &branch_ref])
            .and_then(|_| git_in(&dir, &["commit", "--no-edit", "-m", message]))
            .map(|_| ()),
        How::Pr => unreachable!("handled above"),
    };
    match result {
        Ok(()) => Ok(Merged::Merged {
            branch: plan.branch.clone(),
            into: plan.into.clone(),
            commits: if how == How::Squash { 1 } else { plan.commits },
            head: git_in(&dir, &["rev-parse", "HEAD"])?,
        }),
        Err(e) => Err(undo(plan, &dir, how, &before, e)),
    }
}

/// Puts the base checkout back after a failed merge and says why.
fn undo(plan: &Plan, dir: &Path, how: How, before: &Snapshot, e: GitError) -> MergeError {
    let conflicted = git_in(dir, &["diff", "--name-only", "--diff-filter=U", "-z"])
        .unwrap_or_default()
        .split('\0')
        .filter(|f| !f.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    if how == How::Rebase {
        let _ = git_in(dir, &["cherry-pick", "--abort"]);
    }
    let _ = git_in(dir, &["reset", "--merge"]);
    if how == How::Squash {
        // `merge --squash` leaves its message for the next commit: the
        // user's next `git commit` would open with it. One that was
        // there before is the user's: its bytes go back.
        for (name, was) in LEFT_MESSAGES.iter().zip(&before.messages) {
            if let Some(p) = message_path(dir, name) {
                let _ = match was {
                    Some(bytes) => std::fs::write(p, bytes),
                    None => std::fs::remove_file(p),
                };
            }
        }
    }
    if snapshot(dir).ok().as_ref() != Some(before) {
        // A squash that failed after its merge step (a hook refused the
        // commit): the index holds the squash; `reset --merge` undid it
        // unless a hook wrote files.
        let _ = git_in(dir, &["reset", "--merge", &before.head]);
    }
    match snapshot(dir) {
        Ok(now) if &now == before => {
            if conflicted.is_empty() {
                MergeError::Git(e)
            } else {
                MergeError::Conflict {
                    branch: plan.branch.clone(),
                    into: plan.into.clone(),
                    files: conflicted,
                }
            }
        }
        Ok(_) => MergeError::NotRestored {
            branch: plan.branch.clone(),
            into: plan.into.clone(),
            dir: dir.to_path_buf(),
            why: e.to_string(),
        },
        Err(e2) => MergeError::NotRestored {
            branch: plan.branch.clone(),
            into: plan.into.clone(),
            dir: dir.to_path_buf(),
            why: format!("{e}; then {e2}"),
        },
    }
}

/// `gh pr create --base INTO --head BRANCH --fill`, in the task's
/// worktree, after `git push -u origin BRANCH` when there is an origin.
fn pull_request(plan: &Plan, gh: &std::ffi::OsStr) -> Result<Merged, MergeError> {
    if plan.commits == 0 {
        return Err(MergeError::NothingToMerge);
    }
    if git_in(&plan.worktree, &["remote", "get-url", "origin"]).is_ok() {
        git_in(
            &plan.worktree,
            &["push", "--set-upstream", "origin", &plan.branch],
        )?;
    }
    let out = std::process::Command::new(gh)
        .current_dir(&plan.worktree)
        .args([
            "pr",
            "create",
            "--base",
            &plan.into,
            "--head",
            &plan.branch,
            "--fill",
        ])
        .env("GH_PROMPT_DISABLED", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => MergeError::NoGh,
            _ => MergeError::Gh(e.to_string()),
        })?;
    if !out.status.success() {
        return Err(MergeError::Gh(git::first_line(&String::from_utf8_lossy(
            &out.stderr,
        ))));
    }
    Ok(Merged::PullRequest {
        branch: plan.branch.clone(),
        into: plan.into.clone(),
        url: String::from_utf8_lossy(&out.stdout).trim().to_owned(),
    })
}

#[cfg(test)]
mod tests;
