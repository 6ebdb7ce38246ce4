//! What a task changed (issue 32): its base, taken when it starts, and
//! the diff from that base to the tree as it is now; and the merge of a
//! worktree task's branch ([`merge`]). Everything goes through the
//! user's `git` binary (docs/decisions.md says why), run with an argv,
//! bounded in time and output ([`git`]). This crate knows no other
//! termic crate: termic gives it what it needs (the agent dirs it links
//! into a worktree, `linked`) and draws the result.
//!
//! Both sides of the diff are trees written with a temporary index
//! (`GIT_INDEX_FILE` beside the user's index in the git dir; a copy of
//! the user's so unchanged files are not hashed again, kept between
//! reads, see [`snapshot_tree`]): `git add -A` then `git write-tree`. The user's index,
//! HEAD, refs and working tree are never written; only objects are added
//! to the repository, and for a plain-directory task one ref,
//! `refs/termic/snapshots/<n>`, keeps the start snapshot from `git gc`.
//! Untracked files that are not ignored count, as they would once added.

pub mod git;
pub mod merge;
pub mod model;
pub mod words;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use model::{Changes, Stat};

/// How long one git call of a snapshot or a diff may take.
pub const GIT_LIMIT: Duration = Duration::from_secs(20);
/// The most of a patch termic reads (the rest is dropped, `cut` says so).
pub const MAX_PATCH: usize = 8 << 20;
/// The most of a numstat termic reads.
const MAX_NUMSTAT: usize = 1 << 20;

/// What a task's changes are counted from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewBase {
    /// Where git runs: the task's worktree, or the top of the repository
    /// its directory is in.
    pub dir: PathBuf,
    /// The object the diff starts at: the commit a worktree was cut from,
    /// or the tree snapshot of a plain directory.
    pub object: String,
    /// The ref that keeps a snapshot reachable (none for a worktree: its
    /// base commit is on its branch).
    pub reference: Option<String>,
    pub kind: BaseKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseKind {
    /// A worktree's branch from the commit it was cut from.
    Worktree,
    /// A plain directory from the tree as it was when the task started.
    Snapshot,
}

/// Why there are no changes to show.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{dir} is not in a git repository, so termic took no snapshot when the task started", dir = dir.display())]
    NotARepo { dir: PathBuf },
    #[error("the snapshot of the task's start is gone ({what} no longer names it); termic cannot tell what the task changed")]
    SnapshotGone { what: String },
    #[error("the repository of {dir} is your home directory; termic takes no snapshot of it (it would hash every untracked file in it)", dir = dir.display())]
    HomeRepo { dir: PathBuf },
    #[error(transparent)]
    Git(#[from] git::GitError),
}

fn git_in(dir: &Path, args: &[&str]) -> Result<String, git::GitError> {
    let out = git::run(dir, args, &[], GIT_LIMIT, 64 * 1024)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The tree of everything in the repository at `top` as it is now,
/// untracked files too (not ignored ones), written with a temporary
/// index: the user's index is read (copied), never written. `linked`:
/// the names of the agent dirs termic may have symlinked into a
/// worktree; such a symlink is left out.
///
/// The temporary index is kept between reads ([`KEPT_INDEX`], one per
/// git dir, named after the state of the user's index it was copied
/// from): git's stat cache in it makes the next `add -A` re-hash only
/// what changed since, and its cached trees make `write-tree` write only
/// the changed folders (bench/review_open.sh). When the user's index
/// changes, a new copy is made (so a file the user starts or stops
/// tracking counts as it would in a fresh copy). When the kept index is
/// busy (another read at the same moment) the read uses a copy of its
/// own, as every read did before 2026-12-06.
pub fn snapshot_tree(top: &Path, linked: &[&str]) -> Result<String, ReviewError> {
    let index = index_path(top)?;
    let index = index.as_path();
    let mut args = vec!["add".to_owned(), "-A".into(), "--".into(), ".".into()];
    args.extend(termic_links(top, linked).map(|name| format!(":(exclude,top){name}")));
    if let Some(kept) = kept_index(index) {
        match tree_with_index(top, &args, &kept) {
            Ok(tree) => return Ok(tree),
            Err(_) => unlock_stale(&kept),
        }
    }
    // Beside the user's index, in the git dir: not in a shared /tmp, where
    // other users could read the repository's file names.
    let tmp = temp_index_path(index);
    // A copy of the user's index: `add -A` then re-hashes only what
    // changed since it. No index yet (a new repository): git starts one.
    let _ = std::fs::copy(index, &tmp);
    let result = tree_with_index(top, &args, &tmp);
    let _ = std::fs::remove_file(&tmp);
    let _ = std::fs::remove_file(lock_of(&tmp));
    result
}

/// Where the index of the repository (or worktree) at `dir` is.
fn index_path(dir: &Path) -> Result<PathBuf, ReviewError> {
    let index = git_in(
        dir,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    )?;
    Ok(PathBuf::from(index))
}

/// The start of the kept index's name, in the git dir.
pub const KEPT_INDEX: &str = "termic-review-index-";

/// `add -A` (with `add`'s arguments) then `write-tree`, on `index`.
fn tree_with_index(top: &Path, add: &[String], index: &Path) -> Result<String, ReviewError> {
    let env = [("GIT_INDEX_FILE", index.as_os_str())];
    let add: Vec<&str> = add.iter().map(String::as_str).collect();
    git::run(top, &add, &env, GIT_LIMIT, 64 * 1024)?;
    let out = git::run(top, &["write-tree"], &env, GIT_LIMIT, 1024)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn lock_of(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// A kept index's lock left by a git that was stopped (it outlived
/// [`GIT_LIMIT`] twice over) is removed, so the next read can use it.
fn unlock_stale(kept: &Path) {
    let lock = lock_of(kept);
    let old = std::fs::metadata(&lock)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > GIT_LIMIT * 2);
    if old {
        let _ = std::fs::remove_file(lock);
    }
}

/// The kept index for the user's `index` as it is now: made (a copy, by
/// rename so a reader never sees half of it) when there is none for this
/// state of the user's index, and then the older ones removed. `None`:
/// the user has no index yet, or the copy failed.
fn kept_index(index: &Path) -> Option<PathBuf> {
    let dir = index.parent()?;
    let meta = std::fs::metadata(index).ok()?;
    let kept = dir.join(format!("{KEPT_INDEX}{}", index_stamp(&meta)));
    if kept.is_file() {
        return Some(kept);
    }
    let tmp = temp_index_path(index);
    let copied = std::fs::copy(index, &tmp).and_then(|_| std::fs::rename(&tmp, &kept));
    if copied.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    remove_kept(dir, Some(&kept));
    Some(kept)
}

/// Removes the kept indexes in the git dir `dir` but `keep` (their locks
/// too); answers how many went.
pub fn remove_kept(dir: &Path, keep: Option<&Path>) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(KEPT_INDEX))
                && Some(p.as_path()) != keep
                && keep.is_none_or(|k| *p != lock_of(k))
        })
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// The state of the user's index: its inode, size and change time, as 16
/// hex digits (any write of it changes them).
fn index_stamp(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in [
        meta.ino(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
        meta.ctime() as u64,
        meta.ctime_nsec() as u64,
    ] {
        for b in v.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The agent dirs termic linked into a worktree (symlinks named as a
/// built-in's `linked_dirs`): untracked, but not the task's work.
fn termic_links<'a>(top: &'a Path, linked: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    linked.iter().copied().filter(move |name| {
        std::fs::symlink_metadata(top.join(name)).is_ok_and(|m| m.file_type().is_symlink())
    })
}

fn temp_index_path(index: &Path) -> PathBuf {
    let mut r = [0u8; 8];
    let _ = getrandom::fill(&mut r);
    let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
    let dir = index.parent().unwrap_or_else(|| Path::new("."));
    dir.join(format!("termic-index-{hex}"))
}

/// The top of the repository `cwd` is in; Err: not in one, or git failed.
fn repo_top(cwd: &Path) -> Result<PathBuf, ReviewError> {
    match git_in(cwd, &["rev-parse", "--show-toplevel"]) {
        Ok(top) if !top.is_empty() => Ok(PathBuf::from(top)),
        Ok(_) | Err(git::GitError::Failed { .. }) => Err(ReviewError::NotARepo {
            dir: cwd.to_path_buf(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// The base of a task about to start in `cwd` (its worktree when it has
/// one). A worktree's base is the commit it was cut from (its HEAD now);
/// a plain directory's is a snapshot of its repository, kept by
/// `refs/termic/snapshots/<key>`. Err: not a repository, or git failed.
/// `linked`: as for [`snapshot_tree`].
pub fn take_base(
    cwd: &Path,
    worktree: Option<&Path>,
    key: &str,
    linked: &[&str],
) -> Result<ReviewBase, ReviewError> {
    if let Some(wt) = worktree {
        let object = git_in(wt, &["rev-parse", "--verify", "HEAD^{commit}"])?;
        return Ok(ReviewBase {
            dir: wt.to_path_buf(),
            object,
            reference: None,
            kind: BaseKind::Worktree,
        });
    }
    let top = repo_top(cwd)?;
    if is_home(&top) {
        return Err(ReviewError::HomeRepo {
            dir: cwd.to_path_buf(),
        });
    }
    let tree = snapshot_tree(&top, linked)?;
    let reference = format!("refs/termic/snapshots/{}", ref_safe(key));
    git_in(&top, &["update-ref", &reference, &tree])?;
    Ok(ReviewBase {
        dir: top,
        object: tree,
        reference: Some(reference),
        kind: BaseKind::Snapshot,
    })
}

/// The base a task had before a server restart, from what its record
/// kept (issue 31's restore): its worktree's fork commit (`object`), or
/// its snapshot ref (`reference`) and the tree it names. `None`: the
/// record kept no base (a record of a task that had none, or written
/// before 2026-12-06), so the caller takes a new one. A snapshot ref that
/// was deleted while its tree is still in the repository is made again;
/// a tree that is gone is [`ReviewError::SnapshotGone`].
pub fn kept_base(
    cwd: &Path,
    worktree: Option<&Path>,
    reference: Option<&str>,
    object: Option<&str>,
) -> Option<Result<ReviewBase, ReviewError>> {
    if let (Some(wt), Some(object)) = (worktree, object) {
        return Some(Ok(ReviewBase {
            dir: wt.to_path_buf(),
            object: object.to_owned(),
            reference: None,
            kind: BaseKind::Worktree,
        }));
    }
    let reference = reference.filter(|r| r.starts_with(SNAPSHOT_PREFIX) && worktree.is_none())?;
    Some((|| {
        let top = repo_top(cwd)?;
        let gone = || ReviewError::SnapshotGone {
            what: reference.to_owned(),
        };
        let tree = match object {
            Some(tree) => {
                // The ref again, in case it went (fails if the tree did).
                git_in(&top, &["update-ref", reference, tree]).map_err(|_| gone())?;
                tree.to_owned()
            }
            None => git_in(
                &top,
                &[
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("{reference}^{{tree}}"),
                ],
            )
            .map_err(|_| gone())?,
        };
        Ok(ReviewBase {
            dir: top,
            object: tree,
            reference: Some(reference.to_owned()),
            kind: BaseKind::Snapshot,
        })
    })())
}

/// Where termic keeps plain-directory snapshots; nothing else is ever
/// deleted by [`drop_base`] or [`sweep_snapshots`].
pub const SNAPSHOT_PREFIX: &str = "refs/termic/snapshots/";

/// Deletes a closed task's snapshot ref (a worktree base has none) and
/// the kept index of its repository ([`KEPT_INDEX`]; a worktree's goes
/// with its git dir). Only a ref under [`SNAPSHOT_PREFIX`] is ever
/// deleted.
pub fn drop_base(base: &ReviewBase) -> Result<(), ReviewError> {
    if let Some(reference) = base.reference.as_deref() {
        if reference.starts_with(SNAPSHOT_PREFIX) {
            git_in(&base.dir, &["update-ref", "-d", reference])?;
            // The kept index of its reads goes too (another task in the
            // repository makes a new one at its next read).
            if let Some(dir) = index_path(&base.dir)?.parent() {
                remove_kept(dir, None);
            }
        }
    }
    Ok(())
}

/// Deletes the snapshot refs of the repository at `dir` that `keep` does
/// not name (full ref names) and that were taken before `before_ms` (the
/// start time a [`snapshot_key`] begins with: a task starting while the
/// sweep runs keeps its ref); answers how many went. Only refs under
/// [`SNAPSHOT_PREFIX`] are listed, so no other ref is touched.
pub fn sweep_snapshots(
    dir: &Path,
    keep: &std::collections::HashSet<String>,
    before_ms: u64,
) -> Result<usize, ReviewError> {
    let listed = git_in(
        dir,
        &["for-each-ref", "--format=%(refname)", SNAPSHOT_PREFIX],
    )?;
    let mut gone = 0;
    for reference in listed.lines().map(str::trim) {
        let Some(key) = reference.strip_prefix(SNAPSHOT_PREFIX) else {
            continue;
        };
        let taken_ms = key.split('-').next().and_then(|ms| ms.parse::<u64>().ok());
        if taken_ms.is_some_and(|ms| ms < before_ms) && !keep.contains(reference) {
            git_in(dir, &["update-ref", "-d", reference])?;
            gone += 1;
        }
    }
    Ok(gone)
}

/// The most repositories one start sweeps (each git run is bounded by
/// `GIT_LIMIT`): the rest wait for a later start.
pub const MAX_SWEPT_REPOS: usize = 32;

/// At a server start: in each directory a journal record ran in, the
/// snapshot refs taken before `before_ms` that no record names (`named`)
/// are deleted. A directory that is not a repository, or whose git
/// fails, is skipped. Answers how many refs went.
pub fn sweep_unnamed(
    dirs: &[PathBuf],
    named: &std::collections::HashSet<String>,
    before_ms: u64,
) -> usize {
    let mut seen = std::collections::HashSet::new();
    dirs.iter()
        .filter(|d| seen.insert(d.as_path()))
        .take(MAX_SWEPT_REPOS)
        .filter_map(|d| sweep_snapshots(d, named, before_ms).ok())
        .sum()
}

/// `dir` is $HOME (a dotfiles repository there) or `/`.
fn is_home(dir: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let dir = canon(dir);
    dir == Path::new("/")
        || std::env::var_os("HOME").is_some_and(|home| canon(Path::new(&home)) == dir)
}

/// A ref name part from anything: letters, digits, `-`, `_`, `.` kept.
fn ref_safe(key: &str) -> String {
    let s: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() {
        "task".into()
    } else {
        s
    }
}

/// A unique key for a task's snapshot ref: the start time and 4 random
/// bytes, then the task's name.
pub fn snapshot_key(name: &str) -> String {
    let mut r = [0u8; 4];
    let _ = getrandom::fill(&mut r);
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
    format!("{ms}-{hex}-{name}")
}

/// The two trees to compare, after checking the base is still there.
fn endpoints(base: &ReviewBase, linked: &[&str]) -> Result<(String, String), ReviewError> {
    let want = match base.kind {
        BaseKind::Worktree => format!("{}^{{commit}}", base.object),
        BaseKind::Snapshot => format!("{}^{{tree}}", base.object),
    };
    if !base.dir.is_dir() {
        return Err(ReviewError::NotARepo {
            dir: base.dir.clone(),
        });
    }
    // The check and the snapshot run at once (two git processes): the diff
    // view waits for both before it shows anything (bench/review_open.sh).
    let (present, now) = std::thread::scope(|s| {
        let present = s.spawn(|| git_in(&base.dir, &["cat-file", "-e", &want]).is_ok());
        let now = snapshot_tree(&base.dir, linked);
        let present = present
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (present, now)
    });
    if !present {
        return Err(ReviewError::SnapshotGone {
            what: base
                .reference
                .clone()
                .unwrap_or_else(|| format!("commit {}", base.object)),
        });
    }
    Ok((base.object.clone(), now?))
}

const DIFF_FLAGS: [&str; 5] = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M"];

fn numstat(dir: &Path, from: &str, to: &str) -> Result<Vec<model::NumstatEntry>, ReviewError> {
    let mut args: Vec<&str> = DIFF_FLAGS.to_vec();
    args.extend(["--numstat", "-z", from, to, "--"]);
    let out = git::run(dir, &args, &[], GIT_LIMIT, MAX_NUMSTAT)?;
    Ok(model::parse_numstat(&out.stdout))
}

/// The stat of a task's changes (`linked`: as for [`snapshot_tree`]).
pub fn stat(base: &ReviewBase, linked: &[&str]) -> Result<Stat, ReviewError> {
    let (from, to) = endpoints(base, linked)?;
    Ok(model::stat_of(&numstat(&base.dir, &from, &to)?))
}

/// A task's changes: files, hunks, lines (`linked`: as for
/// [`snapshot_tree`]).
pub fn changes(base: &ReviewBase, linked: &[&str]) -> Result<Changes, ReviewError> {
    let (from, to) = endpoints(base, linked)?;
    // The numstat and the patch at once (two git processes).
    let (entries, out) = std::thread::scope(|s| {
        let entries = s.spawn(|| numstat(&base.dir, &from, &to));
        let mut args: Vec<&str> = DIFF_FLAGS.to_vec();
        args.extend(["--src-prefix=a/", "--dst-prefix=b/", &from, &to, "--"]);
        let out = git::run(&base.dir, &args, &[], GIT_LIMIT, MAX_PATCH);
        let entries = entries
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (entries, out)
    });
    let (entries, out) = (entries?, out?);
    Ok(model::parse_patch(&entries, &out.stdout, out.cut))
}

#[cfg(test)]
mod snapshot_ref_tests {
    use super::*;
    use std::collections::HashSet;

    fn git(dir: &Path, args: &[&str]) -> String {
        git_in(dir, args).unwrap()
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        dir
    }

    fn refs(dir: &Path) -> Vec<String> {
        let mut all: Vec<String> = git(dir, &["for-each-ref", "--format=%(refname)"])
            .lines()
            .map(str::to_owned)
            .collect();
        all.sort();
        all
    }

    #[test]
    fn drop_base_deletes_only_the_tasks_snapshot_ref() {
        let dir = repo();
        let top = dir.path();
        let a = take_base(top, None, "1-aa-one", &[]).unwrap();
        let b = take_base(top, None, "2-bb-two", &[]).unwrap();
        let tree = a.object.clone();
        git(top, &["update-ref", "refs/termic/user-kept", &tree]);
        git(top, &["update-ref", "refs/snapshots/mine", &tree]);
        drop_base(&a).unwrap();
        assert_eq!(
            refs(top),
            [
                "refs/snapshots/mine".to_owned(),
                "refs/termic/snapshots/2-bb-two".into(),
                "refs/termic/user-kept".into(),
            ]
        );
        drop_base(&b).unwrap();
        assert_eq!(refs(top), ["refs/snapshots/mine", "refs/termic/user-kept"]);
    }

    #[test]
    fn sweep_keeps_named_snapshots_and_every_other_ref() {
        let dir = repo();
        let top = dir.path();
        let kept = take_base(top, None, "1-aa-kept", &[]).unwrap();
        take_base(top, None, "2-bb-orphan", &[]).unwrap();
        take_base(top, None, "3-cc-orphan", &[]).unwrap();
        let tree = kept.object.clone();
        git(top, &["update-ref", "refs/termic/user-kept", &tree]);
        git(top, &["update-ref", "refs/tags/snapshots-like", &tree]);
        let keep: HashSet<String> = kept.reference.clone().into_iter().collect();
        assert_eq!(sweep_snapshots(top, &keep, u64::MAX).unwrap(), 2);
        assert_eq!(
            refs(top),
            [
                "refs/tags/snapshots-like".to_owned(),
                "refs/termic/snapshots/1-aa-kept".into(),
                "refs/termic/user-kept".into(),
            ]
        );
        assert_eq!(
            sweep_snapshots(top, &keep, u64::MAX).unwrap(),
            0,
            "nothing left to sweep"
        );
    }

    #[test]
    fn start_sweep_spares_refs_taken_after_it_began_and_non_repos() {
        let dir = repo();
        let top = dir.path();
        let named = take_base(top, None, "100-aa-named", &[]).unwrap();
        take_base(top, None, "200-bb-orphan", &[]).unwrap();
        take_base(top, None, "900-cc-started-later", &[]).unwrap();
        let user = format!("{SNAPSHOT_PREFIX}not-a-key");
        git(top, &["update-ref", &user, &named.object]);
        let not_repo = tempfile::tempdir().unwrap();
        let keep: HashSet<String> = named.reference.clone().into_iter().collect();
        let dirs = [
            not_repo.path().to_path_buf(),
            top.to_path_buf(),
            top.to_path_buf(),
        ];
        assert_eq!(sweep_unnamed(&dirs, &keep, 500), 1);
        assert_eq!(
            refs(top),
            [
                "refs/termic/snapshots/100-aa-named".to_owned(),
                "refs/termic/snapshots/900-cc-started-later".into(),
                user,
            ]
        );
    }

    fn kept_indexes(top: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(top.join(".git"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("termic-"))
            .collect();
        names.sort();
        names
    }

    /// The kept index is used again while the user's index stays as it
    /// was, made again when it changes (so what the user starts tracking
    /// counts, as with a fresh copy), bypassed while busy, and removed
    /// with the task's base.
    #[test]
    fn the_kept_index_follows_the_users_index_and_gives_the_trees_a_fresh_copy_gives() {
        let dir = repo();
        let top = dir.path();
        git(top, &["add", "a.txt"]);
        std::fs::write(top.join(".gitignore"), "*.log\n").unwrap();
        let base = take_base(top, None, "1-aa-t", &[]).unwrap();
        let first = kept_indexes(top);
        assert_eq!(first.len(), 1, "{first:?}");
        assert!(first[0].starts_with(KEPT_INDEX), "{first:?}");
        // An edit: the same kept index, and the tree is the work tree's.
        std::fs::write(top.join("a.txt"), "two\n").unwrap();
        let edited = snapshot_tree(top, &[]).unwrap();
        assert_eq!(kept_indexes(top), first);
        assert_ne!(edited, base.object);
        let blob = git(top, &["rev-parse", &format!("{edited}:a.txt")]);
        assert_eq!(git(top, &["cat-file", "-p", &blob]), "two");
        // An ignored file the user starts tracking: counted, as a fresh
        // copy of their index would count it; one kept index again.
        std::fs::write(top.join("keep.log"), "log\n").unwrap();
        assert!(git(
            top,
            &[
                "ls-tree",
                "-r",
                "--name-only",
                &snapshot_tree(top, &[]).unwrap()
            ]
        )
        .lines()
        .all(|l| l != "keep.log"));
        git(top, &["add", "-f", "keep.log"]);
        let tracked = snapshot_tree(top, &[]).unwrap();
        let names = git(top, &["ls-tree", "-r", "--name-only", &tracked]);
        assert!(names.lines().any(|l| l == "keep.log"), "{names}");
        let now = kept_indexes(top);
        assert_eq!(now.len(), 1, "{now:?}");
        assert_ne!(now, first, "a new copy for the new state of the index");
        // Busy (another read holds its lock): a copy of its own, same tree.
        let lock = top.join(".git").join(format!("{}.lock", now[0]));
        std::fs::write(&lock, "").unwrap();
        assert_eq!(snapshot_tree(top, &[]).unwrap(), tracked);
        std::fs::remove_file(&lock).unwrap();
        // Gone with the task's base.
        drop_base(&base).unwrap();
        assert!(kept_indexes(top).is_empty(), "{:?}", kept_indexes(top));
    }

    /// A restore's base from the record: a worktree's fork commit as
    /// kept; a snapshot's ref and tree, the ref made again when it was
    /// deleted while the tree is still there; a tree gone is said; a
    /// record with nothing kept takes a new base.
    #[test]
    fn kept_base_rebuilds_the_records_base_and_says_when_the_snapshot_is_gone() {
        let dir = repo();
        let top = dir.path();
        let taken = take_base(top, None, "1-aa-t", &[]).unwrap();
        let reference = taken.reference.as_deref();
        let again = kept_base(top, None, reference, Some(&taken.object)).unwrap();
        assert_eq!(again.unwrap(), taken);
        // Only the ref: the tree it names.
        let again = kept_base(top, None, reference, None).unwrap();
        assert_eq!(again.unwrap(), taken);
        // The ref deleted, the tree still there: the ref made again.
        git(top, &["update-ref", "-d", reference.unwrap()]);
        let again = kept_base(top, None, reference, Some(&taken.object)).unwrap();
        assert_eq!(again.unwrap(), taken);
        assert_eq!(git(top, &["rev-parse", reference.unwrap()]), taken.object);
        // A tree that is not in the repository: gone.
        let missing = "0123456789012345678901234567890123456789";
        let err = kept_base(top, None, reference, Some(missing))
            .unwrap()
            .unwrap_err();
        assert!(matches!(err, ReviewError::SnapshotGone { .. }), "{err}");
        // A worktree's commit, as kept.
        let wt = kept_base(top, Some(top), None, Some("abc"))
            .unwrap()
            .unwrap();
        assert_eq!((wt.kind, wt.object.as_str()), (BaseKind::Worktree, "abc"));
        // Nothing kept, or a ref outside termic's: a new base is taken.
        assert!(kept_base(top, None, None, None).is_none());
        assert!(kept_base(top, None, Some("refs/heads/main"), None).is_none());
    }
}
