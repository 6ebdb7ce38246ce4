//! End-to-end: closing a task and removing its worktree when it holds
//! uncommitted work. git refuses; termic says why (git's own words) and
//! offers to remove it anyway; `n` keeps it, `f` removes it.

use crate::git_support;
use crate::harness;

use git_support::git;
use harness::{Fixture, Termic};

/// A repository in the fixture's work dir; termic runs a task in a new
/// worktree of it that changes README, then closes it asking for removal.
fn close_a_dirty_worktree_task(f: &Fixture) -> (Termic, std::path::PathBuf) {
    git(&f.work, &["init", "-q"]);
    std::fs::write(f.work.join("README"), "r\n").unwrap();
    git(&f.work, &["add", "-A"]);
    git(
        &f.work,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "init",
        ],
    );
    let mut t = Termic::start(
        f,
        &[
            "run",
            "--worktree",
            "--name",
            "wt",
            "--",
            "sh",
            "-c",
            "echo changed > README; echo EDITED; sleep 600",
        ],
    );
    t.wait_text("EDITED");
    let list = git(&f.work, &["worktree", "list", "--porcelain"]);
    let path = list
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(std::path::PathBuf::from)
        .find(|p| p != &f.work && !f.work.starts_with(p))
        .unwrap_or_else(|| panic!("no task worktree in {list}"));
    t.prefix(b"x");
    t.wait_text("Close task");
    t.send(b"w");
    (t, path)
}

#[test]
fn a_refused_worktree_removal_says_why_and_offers_force() {
    let f = Fixture::new();
    let (mut t, path) = close_a_dirty_worktree_task(&f);
    let screen = t.wait_text("Worktree kept");
    assert!(
        screen.contains("contains modified or untracked"),
        "{screen}"
    );
    assert!(screen.contains("f remove it and its changes"), "{screen}");
    assert!(!screen.contains("fatal:"), "{screen}");
    assert!(path.exists(), "git refused: the worktree is still there");
    t.send(b"f");
    t.wait_text("Removed the worktree");
    assert!(!path.exists(), "forced: the worktree is gone");
    // The branch stays (it holds the work's history).
    assert!(git(&f.work, &["branch", "--list"]).contains("termic/"));
    t.quit();
}

#[test]
fn keeping_the_worktree_after_the_refusal_leaves_it_untouched() {
    let f = Fixture::new();
    let (mut t, path) = close_a_dirty_worktree_task(&f);
    t.wait_text("Worktree kept");
    t.send(b"n");
    t.wait_for("the dialog closed", |s| !s.contains("Worktree kept"));
    assert_eq!(
        std::fs::read_to_string(path.join("README")).unwrap(),
        "changed\n"
    );
    t.quit();
}
