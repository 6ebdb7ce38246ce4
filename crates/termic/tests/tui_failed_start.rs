//! End-to-end: a task that fails to start (`termic run claude --worktree`
//! in a scratch repository) leaves no worktree and no branch, and says what
//! is missing and how to install it.

#[path = "git_support/mod.rs"]
mod git_support;
#[path = "tui/harness.rs"]
mod harness;

use git_support::git;
use harness::{Fixture, Termic};

fn scratch_repo(f: &Fixture) -> (String, String) {
    git(&f.work, &["init", "-q"]);
    std::fs::write(f.work.join("README"), "r\n").unwrap();
    git(&f.work, &["add", "-A"]);
    git(&f.work, &["commit", "-qm", "init"]);
    (
        git(&f.work, &["worktree", "list", "--porcelain"]),
        git(&f.work, &["branch", "--list", "--all"]),
    )
}

fn assert_nothing_left(f: &Fixture, before: &(String, String)) {
    assert_eq!(git(&f.work, &["worktree", "list", "--porcelain"]), before.0);
    assert_eq!(git(&f.work, &["branch", "--list", "--all"]), before.1);
    assert!(
        !f.data_dir.join("worktrees").exists(),
        "nothing made under the data dir"
    );
}

#[test]
fn an_agent_not_on_path_leaves_no_worktree_and_no_branch_and_says_how_to_install_it() {
    let f = Fixture::new();
    let before = scratch_repo(&f);
    for _ in 0..2 {
        let mut t = Termic::start(&f, &["run", "claude", "--worktree"]);
        let code = t.wait_exit();
        assert_ne!(code, 0);
        let raw = String::from_utf8_lossy(&t.raw()).into_owned();
        assert!(
            raw.contains("claude not found on PATH: npm install -g @anthropic-ai/claude-code"),
            "{raw:?}"
        );
        assert!(
            !raw.contains(&f.tools.display().to_string()),
            "no PATH dump: {raw:?}"
        );
        assert_nothing_left(&f, &before);
    }
}
