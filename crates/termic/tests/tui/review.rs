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
    // No revert while it works either: no question, the file as it is.
    t.send(b"r");
    t.wait_text("The agent is working and may change this file.");
    assert_eq!(
        std::fs::read_to_string(f.work.join("a.txt")).unwrap(),
        "a\nagent a\n"
    );
}

/// `r` reverts the hunk under the cursor after `y` (`n` keeps it), the
/// view reads the changes again, and the file is the agent's but for
/// that hunk, byte for byte. The task's next turn end reads them again
/// by itself.
#[test]
fn a_hunk_is_reverted_after_asking_and_the_view_reads_the_changes_again() {
    let f = Fixture::new();
    git(&f.work, &["init", "-q", "-b", "main"]);
    let body: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    std::fs::write(f.work.join("a.txt"), &body).unwrap();
    std::fs::write(f.work.join("b.txt"), "b\n").unwrap();
    git(&f.work, &["add", "."]);
    git(&f.work, &["commit", "-qm", "first"]);
    let agents = body
        .replace("line 2\n", "line two\n")
        .replace("line 28\n", "line 28b\n");
    std::fs::write(f.home.join("agents.txt"), &agents).unwrap();
    let script = [
        hook("working", ""),
        "cat \"$HOME/agents.txt\" > a.txt".into(),
        hook("done", ""),
        "echo READY".into(),
        // A second turn once the test says so: it changes b.txt.
        "while [ ! -e \"$HOME/go\" ]; do sleep 0.1; done".into(),
        hook("working", ""),
        "printf 'agent b\\n' >> b.txt".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "rv"]);
    t.wait_text("READY");
    t.wait_text("done");
    t.prefix(b"v");
    t.wait_text("Changes: rv (+2 -2, 1 file)");
    // On a file row: no hunk.
    t.send(b"r");
    t.wait_text("Revert works on a hunk");
    // The second hunk (line 28): asked, n keeps it.
    t.send(b"n");
    t.send(b"n");
    t.send(b"r");
    t.wait_text("Revert hunk 2 of 2 in a.txt? y reverts, n keeps it");
    t.send(b"n");
    t.wait_text("Kept the hunk.");
    assert!(std::fs::read_to_string(f.work.join("a.txt"))
        .unwrap()
        .contains("line 28b\n"));
    t.send(b"r");
    t.wait_text("Revert hunk 2 of 2");
    t.send(b"y");
    t.wait_text("Reverted the hunk in a.txt.");
    t.wait_text("Changes: rv (+1 -1, 1 file)");
    let want = body.replace("line 2\n", "line two\n");
    assert_eq!(std::fs::read_to_string(f.work.join("a.txt")).unwrap(), want);
    // The next turn end reads the changes again: b.txt shows up.
    std::fs::write(f.home.join("go"), "").unwrap();
    t.wait_text("Changes: rv (+2 -1, 2 files)");
    t.wait_text("+agent b");
}
