//! The review slice of issue 32 in the workspace: a worktree task that
//! changed files shows its stat in the sidebar when it goes done, and
//! prefix `v` shows its changes (files, hunks, lines), moves and folds,
//! with a hostile file name and content drawn cleaned.

use crate::git_support::git;
use crate::harness::{hook, Fixture, Termic};

#[test]
fn a_done_worktree_task_shows_its_stat_and_its_changes_in_the_diff_view() {
    let f = Fixture::new();
    git(&f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(f.work.join("a.txt"), "a\n").unwrap();
    std::fs::write(f.work.join("b.txt"), "b\n").unwrap();
    git(&f.work, &["add", "."]);
    git(&f.work, &["commit", "-qm", "first"]);
    let script = [
        hook("working", ""),
        "printf 'agent a\\n' >> a.txt".into(),
        "printf 'agent b\\n' >> b.txt".into(),
        "printf 'x\\033]0;pwned\\007\\033[2Jy\\n' > \"$(printf 'evil\\033[31m.txt')\"".into(),
        hook("done", ""),
        "echo READY".into(),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--worktree", "--name", "wt"]);
    t.wait_text("READY");
    // The sidebar (narrow): the counts after the badge.
    t.wait_text("done +3 -0");

    t.prefix(b"v");
    let screen = t.wait_text("Changes: wt (+3 -0, 3 files)");
    for want in [
        "- a.txt",
        "- b.txt",
        "evil[31m.txt (new)",
        "+agent a",
        "+x]0;pwned[2Jy",
        "q close",
    ] {
        assert!(screen.contains(want), "{want}:\n{screen}");
    }
    // Folding: z folds every file, the lines go; z again brings them.
    t.send(b"z");
    t.wait_for("every file folded", |s| {
        s.contains("+ a.txt") && !s.contains("+agent a")
    });
    t.send(b"z");
    t.wait_text("+agent a");
    // On b.txt's line, Space folds its hunk.
    t.send(b"}");
    t.send(b"j");
    t.send(b" ");
    t.wait_for("b.txt's hunk folded", |s| {
        s.contains("+ @@ -1 +1,2 @@") && !s.contains("+agent b") && s.contains("+agent a")
    });
    t.send(b"q");
    t.wait_for("the view closed", |s| !s.contains("Changes: wt"));
}
