//! End-to-end: a task that fails to start (`termic run claude --worktree`
//! in a scratch repository) leaves no worktree and no branch, and says what
//! is missing and how to install it.

use crate::git_support;
use crate::harness;

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

/// Every path under `dir` (sorted), to see that nothing was added.
fn listing(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.is_symlink() {
                stack.push(path.clone());
            }
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn from_home_and_from_the_root_an_agent_not_on_path_says_how_to_install_it_and_leaves_nothing() {
    // Where a new user starts termic: HOME (not a repository) and `/`.
    let f = Fixture::new();
    let home_before = listing(&f.home);
    let data_before = listing(&f.data_dir);
    for cwd in [f.home.clone(), std::path::PathBuf::from("/")] {
        let mut t = harness::Termic::start_in(&f, &cwd, &["run", "claude", "--worktree"], &[]);
        let code = t.wait_exit();
        assert_ne!(code, 0, "from {}", cwd.display());
        let raw = String::from_utf8_lossy(&t.raw()).into_owned();
        assert!(
            raw.contains("claude not found on PATH: npm install -g @anthropic-ai/claude-code"),
            "from {}: {raw:?}",
            cwd.display()
        );
        assert!(
            !raw.contains(&f.tools.display().to_string()),
            "no PATH dump: {raw:?}"
        );
        assert_eq!(listing(&f.home), home_before, "from {}", cwd.display());
        assert!(
            !f.data_dir.join("worktrees").exists(),
            "from {}: no worktree made",
            cwd.display()
        );
        let added: Vec<_> = listing(&f.data_dir)
            .into_iter()
            .filter(|p| !data_before.contains(p))
            .collect();
        assert!(
            added
                .iter()
                .all(|p| !p.to_string_lossy().contains("worktree")),
            "from {}: {added:?}",
            cwd.display()
        );
    }
}
