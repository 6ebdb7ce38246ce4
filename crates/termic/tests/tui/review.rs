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
        // What is typed into the task after it is done: the comments.
        "cat > \"$HOME/got.txt\"".into(),
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
    // Nothing to send yet: the view says so.
    t.send(b"S");
    t.wait_text("No comments yet");
    // A comment on the folded hunk, one on a.txt's added line.
    t.send(b"c");
    t.wait_text("Comment: _");
    t.send(b"add a test");
    t.send(b"\r");
    t.wait_text("Changes: wt (+3 -0, 3 files), 1 comment");
    t.send(b"g");
    for _ in 0..3 {
        t.send(b"j");
    }
    t.send(b"c");
    t.send(b"rename this");
    t.send(b"\r");
    t.wait_text("2 comments");
    t.send(b"S");
    t.wait_text("Sent 2 comments to wt.");
    let got = f.home.join("got.txt");
    let mut last = String::new();
    let arrived = crate::wait::eventually(std::time::Duration::from_secs(30), || {
        last = std::fs::read_to_string(&got).unwrap_or_default();
        last.contains("> rename this")
    });
    assert!(arrived, "the task never got the comments: {last:?}");
    assert!(
        last.starts_with("\x1b[200~Review comments on your changes:"),
        "{last:?}"
    );
    assert!(
        last.contains("a.txt line 2: `agent a`\n> rename this\n"),
        "{last:?}"
    );
    assert!(
        last.contains("b.txt hunk @@ -1 +1,2 @@:\n> add a test\n"),
        "{last:?}"
    );
    assert!(
        last.contains("\x1b[201~\n"),
        "one paste, then Enter: {last:?}"
    );
    t.wait_for("the view closed", |s| !s.contains("Changes: wt"));
}

/// Comments are not sent while the agent works; the view says why.
#[test]
fn comments_wait_while_the_agent_works() {
    let f = Fixture::new();
    git(&f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(f.work.join("a.txt"), "a\n").unwrap();
    git(&f.work, &["add", "."]);
    git(&f.work, &["commit", "-qm", "first"]);
    let script = [
        "printf 'agent a\\n' >> a.txt".to_string(),
        hook("working", ""),
        "echo READY".into(),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "busy"]);
    t.wait_text("READY");
    t.wait_text("working");
    t.prefix(b"v");
    t.wait_text("Changes: busy (+1 -0, 1 file)");
    t.send(b"n");
    t.send(b"c");
    t.send(b"not yet");
    t.send(b"\r");
    t.wait_text("1 comment");
    t.send(b"S");
    t.wait_text("The agent is working. Send when it is done.");
    // The view stays, with the comment.
    t.wait_text("Changes: busy (+1 -0, 1 file), 1 comment");
}
