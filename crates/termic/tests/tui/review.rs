//! The review slice of issue 32 in the workspace: a worktree task that
//! changed files shows its stat in the sidebar when it goes done, and
//! prefix `v` shows its changes (files, hunks, lines), moves and folds,
//! with a hostile file name and content drawn cleaned.

use crate::git_support::git;
use crate::harness::{hook, Fixture, Termic};

/// A repository in the fixture's work dir on branch main, with `files`
/// committed as "first".
fn repo_with(f: &Fixture, files: &[(&str, &str)]) {
    git(&f.work, &["init", "-q", "-b", "main"]);
    for (name, text) in files {
        std::fs::write(f.work.join(name), text).unwrap();
    }
    git(&f.work, &["add", "."]);
    git(&f.work, &["commit", "-qm", "first"]);
}

/// The fake agent runs `script` (joined with `; `) in a task started with
/// `run fake ARGS`; answers once it printed READY.
fn start_agent(f: &Fixture, script: &[String], args: &[&str]) -> Termic {
    f.fake_sh_agent(&script.join("; "));
    let mut run = vec!["run", "fake"];
    run.extend_from_slice(args);
    let t = Termic::start(f, &run);
    t.wait_text("READY");
    t
}

#[test]
fn a_done_worktree_task_shows_its_stat_and_its_changes_in_the_diff_view() {
    let f = Fixture::new();
    repo_with(&f, &[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let script = [
        hook("working", ""),
        "printf 'agent a\\n' >> a.txt".into(),
        "printf 'agent b\\n' >> b.txt".into(),
        "printf 'x\\033]0;pwned\\007\\033[2Jy\\n' > \"$(printf 'evil\\033[31m.txt')\"".into(),
        hook("done", ""),
        "echo READY".into(),
        // What is typed into the task after it is done: the comments.
        "cat > \"$HOME/got.txt\"".into(),
    ];
    let mut t = start_agent(&f, &script, &["--worktree", "--name", "wt"]);
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
    crate::harness::assert_comments_prompt(
        &last,
        &[
            "a.txt line 2: `agent a`\n> rename this\n",
            "b.txt hunk @@ -1 +1,2 @@:\n> add a test\n",
        ],
    );
    t.wait_for("the view closed", |s| !s.contains("Changes: wt"));
}

/// Comments are not sent while the agent works; the view says why.
#[test]
fn comments_wait_while_the_agent_works() {
    let f = Fixture::new();
    repo_with(&f, &[("a.txt", "a\n")]);
    let script = [
        "printf 'agent a\\n' >> a.txt".to_string(),
        hook("working", ""),
        "echo READY".into(),
        "sleep 600".into(),
    ];
    let mut t = start_agent(&f, &script, &["--name", "busy"]);
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
    // Nor does it merge, in the view or with the CLI.
    t.send(b"m");
    t.wait_text("The agent is working and may still commit.");
    let out = f.cli(&f.work, &["merge", "busy"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        said.contains("task busy was not merged: it is working"),
        "{said}"
    );
}

/// A file's bytes, the checked-out commit and git's status: what a merge
/// that did not happen must leave as it was.
fn repo_state(dir: &std::path::Path) -> (Vec<u8>, Vec<u8>, String, String) {
    (
        std::fs::read(dir.join("a.txt")).unwrap(),
        std::fs::read(dir.join("b.txt")).unwrap(),
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["status", "--porcelain"]),
    )
}

fn task_state(f: &Fixture, task: &str) -> String {
    let out = f.cli(&f.work, &["ls", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    rows.as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == task)
        .and_then(|r| r["state"].as_str())
        .unwrap_or("")
        .to_owned()
}

/// `termic run fake --worktree --name NAME --detach`, then waits (30 s at
/// most) for the task to be done.
fn run_detached_until_done(f: &Fixture, name: &str) {
    let run = f.cli(
        &f.work,
        &["run", "fake", "--worktree", "--name", name, "--detach"],
    );
    assert!(run.status.success(), "{run:?}");
    let done = crate::wait::eventually(std::time::Duration::from_secs(30), || {
        task_state(f, name) == "done"
    });
    assert!(done, "{name} never went done");
}

/// Issue 32's chain, end to end: an agent in a worktree edits two files
/// and commits one; `termic diff --json` lists both with their hunks; the
/// diff view shows them; a comment on a line reaches the task as one
/// prompt naming the file and line; `m` merges the agent's commit into
/// main; a second task cut from the same commit, whose merge conflicts,
/// changes no file and says so.
#[test]
fn review_chain_diff_view_comment_merge_and_a_conflict_that_changes_nothing() {
    let f = Fixture::new();
    repo_with(&f, &[("a.txt", "a\n"), ("b.txt", "b\n")]);
    git(&f.work, &["config", "user.name", "Test"]);
    git(&f.work, &["config", "user.email", "test@example.com"]);
    // Each task writes its worktree's name into a.txt (so two tasks
    // conflict), commits a.txt, leaves b.txt uncommitted; then writes
    // what is typed into it to got-<name>.txt, and says done again after
    // a paste.
    let script = [
        hook("working", ""),
        // Shell builtins only: the fixture's PATH has no basename.
        "d=$(pwd); n=${d##*/}".into(),
        "printf 'agent a from %s\\n' \"$n\" >> a.txt".into(),
        "printf 'agent b\\n' >> b.txt".into(),
        "git add a.txt && git -c user.name=t -c user.email=t@t commit -qm \"agent in $n\"".into(),
        hook("done", ""),
        "echo READY".into(),
        format!(
            "while IFS= read -r l; do printf '%s\\n' \"$l\" >> \"$HOME/got-$n.txt\"; case \"$l\" in *201~*) {};; esac; done",
            hook("done", "")
        ),
    ];
    let mut t = start_agent(&f, &script, &["--worktree", "--name", "wt"]);
    // The second task, cut from the same commit.
    run_detached_until_done(&f, "wt2");

    // termic diff --json: both files, with their hunks.
    let out = f.cli(&f.work, &["diff", "wt", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt", "b.txt"], "{v}");
    for (file, want) in files.iter().zip(["agent a from wt", "agent b"]) {
        let lines = file["hunks"][0]["lines"].as_array().unwrap();
        assert!(
            lines
                .iter()
                .any(|l| l["kind"] == "added" && l["text"] == want),
            "{file}"
        );
    }

    // The diff view shows them.
    t.prefix(b"v");
    let screen = t.wait_text("Changes: wt (+2 -0, 2 files)");
    for want in [
        "- a.txt",
        "- b.txt",
        "+agent a from wt",
        "+agent b",
        "m merge",
    ] {
        assert!(screen.contains(want), "{want}:\n{screen}");
    }
    // A comment on a.txt's added line, sent as one prompt.
    t.send(b"g");
    for _ in 0..3 {
        t.send(b"j");
    }
    t.send(b"c");
    t.send(b"name it after the task");
    t.send(b"\r");
    t.wait_text("1 comment");
    t.send(b"S");
    t.wait_text("Sent 1 comment to wt.");
    let got = f.home.join("got-wt.txt");
    let mut last = String::new();
    let arrived = crate::wait::eventually(std::time::Duration::from_secs(30), || {
        last = std::fs::read_to_string(&got).unwrap_or_default();
        last.contains("\x1b[201~")
    });
    assert!(arrived, "the task never got the comment: {last:?}");
    assert_eq!(last.matches("\x1b[200~").count(), 1, "one paste: {last:?}");
    assert!(
        last.contains("a.txt line 2: `agent a from wt`\n> name it after the task\n"),
        "{last:?}"
    );
    let done = crate::wait::eventually(std::time::Duration::from_secs(30), || {
        task_state(&f, "wt") == "done"
    });
    assert!(done, "wt never went done after the comment");

    // m asks, y merges: the agent's commit is main's, its uncommitted
    // edit is not.
    let agent_commit = git(&f.work, &["rev-parse", "termic/wt"]);
    t.prefix(b"v");
    t.wait_text("Changes: wt (+2 -0, 2 files)");
    t.send(b"m");
    t.wait_text("Merge wt's branch into the branch it was cut from (ff)?");
    t.send(b"n");
    t.wait_text("Not merged.");
    assert_eq!(git(&f.work, &["rev-list", "--count", "main"]).trim(), "1");
    t.send(b"m");
    t.wait_text("Merge wt's branch into the branch it was cut from (ff)?");
    t.send(b"y");
    t.wait_text("Merged termic/wt into main (ff, 1 commit).");
    assert_eq!(git(&f.work, &["rev-parse", "main"]), agent_commit);
    assert_eq!(
        std::fs::read_to_string(f.work.join("a.txt")).unwrap(),
        "a\nagent a from wt\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.work.join("b.txt")).unwrap(),
        "b\n"
    );
    assert_eq!(git(&f.work, &["status", "--porcelain"]), "");
    // Its worktree stays while the task runs in it.
    let out = f.cli(&f.work, &["merge", "wt", "--remove"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        said.starts_with("Nothing to merge: termic/wt is already on main.\nKept the worktree: task wt still runs in it."),
        "{said}"
    );
    assert_eq!(git(&f.work, &["rev-parse", "termic/wt"]), agent_commit);

    // The second task: main moved on, so ff is refused; rebase conflicts
    // in a.txt. Neither changes a file, and each says what to do.
    let before = repo_state(&f.work);
    let out = f.cli(&f.work, &["merge", "wt2"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        said.contains("moved on") && said.contains("rebase or squash"),
        "{said}"
    );
    assert_eq!(repo_state(&f.work), before);
    let out = f.cli(&f.work, &["merge", "wt2", "--how", "rebase"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        said.contains("conflicts in a.txt") && said.contains("nothing was changed"),
        "{said}"
    );
    assert_eq!(repo_state(&f.work), before);
    assert!(!f.work.join(".git/CHERRY_PICK_HEAD").exists());
}

/// `r` reverts the hunk under the cursor after `y` (`n` keeps it), the
/// view reads the changes again, and the file is the agent's but for
/// that hunk, byte for byte. The task's next turn end reads them again
/// by itself.
#[test]
fn a_hunk_is_reverted_after_asking_and_the_view_reads_the_changes_again() {
    let f = Fixture::new();
    let body: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    repo_with(&f, &[("a.txt", &body), ("b.txt", "b\n")]);
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
    ];
    let mut t = start_agent(&f, &script, &["--name", "rv"]);
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

/// The worktree of `task`, as `termic ls --json` lists it.
fn worktree_of(f: &Fixture, task: &str) -> std::path::PathBuf {
    let out = f.cli(&f.work, &["ls", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == task)
        .unwrap_or_else(|| panic!("{task} not listed: {rows}"));
    std::path::PathBuf::from(row["worktree"].as_str().unwrap())
}

fn has_branch(f: &Fixture, branch: &str) -> bool {
    !git(&f.work, &["branch", "--list", branch])
        .trim()
        .is_empty()
}

/// Prefix `v` on the focused task `name` (one file, one added line),
/// `m`, `y`: waits for the merge and the question that follows it.
fn merge_in_view(t: &mut Termic, name: &str) {
    t.prefix(b"v");
    t.wait_text(&format!("Changes: {name} (+1 -0, 1 file)"));
    t.send(b"m");
    t.wait_text(&format!(
        "Merge {name}'s branch into the branch it was cut from (ff)?"
    ));
    t.send(b"y");
    t.wait_text(&format!(
        "Merged termic/{name} into main (ff, 1 commit). Remove its worktree and branch (closes the task)? y removes, n keeps."
    ));
}

/// Issue 32: after a merge in the diff view (`m`, `y`), a task whose agent
/// is done is offered the removal of its worktree and branch: `n` keeps
/// both (and the task); `y`, for a second task cut after the first merge
/// (jumped to with prefix 2), removes both and closes the task.
#[test]
fn after_a_merge_the_view_removes_the_worktree_and_branch_on_y_and_keeps_them_on_n() {
    let f = Fixture::new();
    repo_with(&f, &[("a.txt", "a\n")]);
    // Each task commits a file named after its worktree, then is done.
    let script = [
        hook("working", ""),
        "d=$(pwd); n=${d##*/}".into(),
        "printf 'by %s\\n' \"$n\" > \"$n.txt\"".into(),
        "git add \"$n.txt\" && git -c user.name=t -c user.email=t@t commit -qm \"agent in $n\""
            .into(),
        hook("done", ""),
        "echo READY".into(),
        "sleep 600".into(),
    ];
    let mut t = start_agent(&f, &script, &["--worktree", "--name", "kept"]);
    t.wait_text("done");
    let kept = worktree_of(&f, "kept");
    merge_in_view(&mut t, "kept");
    t.send(b"n");
    t.wait_text("Kept the worktree and branch.");
    assert!(kept.join("kept.txt").is_file(), "{}", kept.display());
    assert!(has_branch(&f, "termic/kept"));
    assert_eq!(task_state(&f, "kept"), "done");
    assert_eq!(
        std::fs::read_to_string(f.work.join("kept.txt")).unwrap(),
        "by kept\n"
    );
    t.send(b"q");

    // The second task, cut from main after the first merge.
    run_detached_until_done(&f, "gone");
    let gone = worktree_of(&f, "gone");
    t.prefix(b"2");
    merge_in_view(&mut t, "gone");
    t.send(b"y");
    t.wait_text("Closed gone and removed its worktree");
    assert!(!gone.exists(), "{}", gone.display());
    assert!(!has_branch(&f, "termic/gone"));
    assert_eq!(
        git(&f.work, &["log", "--format=%s", "-1", "main"]).trim(),
        "agent in gone"
    );
    assert_eq!(task_state(&f, "gone"), "", "the task is closed");
    // The first task's are still there.
    assert!(kept.is_dir());
    assert!(has_branch(&f, "termic/kept"));
    assert_eq!(git(&f.work, &["status", "--porcelain"]), "");
}
