//! Worktrees against a real temporary git repository.

use crate::git_support;

use git_support::git;
use termic::worktree;

/// A repo with one commit, a tracked `.agents` dir and untracked `.claude`
/// and `.opencode` dirs.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    std::fs::write(root.join("README"), "hi\n").unwrap();
    std::fs::create_dir(root.join(".agents")).unwrap();
    std::fs::write(root.join(".agents/tracked.md"), "tracked\n").unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "init"]);
    std::fs::create_dir(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.local.json"), "{}\n").unwrap();
    std::fs::create_dir(root.join(".opencode")).unwrap();
    dir
}

#[test]
fn create_links_untracked_agent_dirs_and_remove_cleans_up() {
    let repo = repo();
    let data = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(repo.path()).unwrap();
    let sub = root.join(".claude");
    // Started from a subdirectory: the repo root is found.
    let wt = worktree::create(data.path(), &sub, "fix the bug").unwrap();
    assert_eq!(wt.repo_root, root);
    assert_eq!(wt.branch, "termic/fix-the-bug");
    assert!(wt.path.starts_with(data.path().join("worktrees")));
    assert!(wt.path.ends_with("fix-the-bug"));
    assert!(wt.path.join("README").is_file());
    // .claude and .opencode are linked; .agents is tracked, so checked out, not linked.
    let mut linked: Vec<_> = wt
        .linked
        .iter()
        .map(|p| p.file_name().unwrap().to_owned())
        .collect();
    linked.sort();
    assert_eq!(linked, [".claude", ".opencode"]);
    let link = wt.path.join(".claude");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_link(&link).unwrap(), root.join(".claude"));
    assert!(!std::fs::symlink_metadata(wt.path.join(".agents"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!wt.path.join(".grok").exists());
    let branches = git(&root, &["branch", "--list", "termic/*"]);
    assert!(branches.contains("termic/fix-the-bug"), "{branches}");

    // Same name again: a fresh suffix, not a clash.
    let again = worktree::create(data.path(), &root, "fix the bug").unwrap();
    assert_eq!(again.branch, "termic/fix-the-bug-2");

    worktree::remove(&root, &wt.path, false).unwrap();
    assert!(!wt.path.exists());
    // The repo's own dirs are untouched by the removal.
    assert!(root.join(".claude/settings.local.json").is_file());
    // The branch stays: it holds the work.
    assert!(git(&root, &["branch", "--list", "termic/*"]).contains("termic/fix-the-bug\n"));
}

#[test]
fn remove_refuses_uncommitted_work_unless_forced() {
    let repo = repo();
    let data = tempfile::tempdir().unwrap();
    let wt = worktree::create(data.path(), repo.path(), "t").unwrap();
    std::fs::write(wt.path.join("README"), "changed\n").unwrap();
    let err = worktree::remove(&wt.repo_root, &wt.path, false)
        .unwrap_err()
        .to_string();
    // What failed, git's reason (not only the command), and the fix.
    assert!(err.starts_with("worktree kept: "), "{err}");
    assert!(
        err.contains("contains modified or untracked files"),
        "{err}"
    );
    assert!(!err.contains("fatal:"), "{err}");
    assert!(
        err.contains(&format!(
            "git worktree remove --force {}",
            wt.path.display()
        )),
        "{err}"
    );
    assert!(wt.path.exists());
    // The links termic removed before asking git are back.
    assert!(std::fs::symlink_metadata(wt.path.join(".claude"))
        .unwrap()
        .file_type()
        .is_symlink());
    worktree::remove(&wt.repo_root, &wt.path, true).unwrap();
    assert!(!wt.path.exists());
}

#[test]
fn outside_a_repository_the_error_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let err = worktree::create(dir.path(), dir.path(), "t")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not inside a git repository"), "{err}");
}
