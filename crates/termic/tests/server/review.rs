//! `termic diff` end to end (issue 32): a worktree task's branch and
//! uncommitted work, a plain-directory task's changes since it started
//! (the user's earlier edits not counted), hostile names and content
//! printed cleaned, and each error.

use std::time::Duration;

use crate::git_support::git;
use crate::harness::hook;
use crate::process_table::alive;
use crate::served::{text, Served};
use crate::wait::eventually;

use serde_json::Value;

/// The simulated agent: appends to a.txt and b.txt, in a worktree commits
/// a.txt, in a plain directory also writes a file whose name and content
/// hold escape sequences; then says done.
fn agent_script() -> String {
    [
        hook("working", ""),
        "printf 'agent a\\n' >> a.txt".into(),
        "printf 'agent b\\n' >> b.txt".into(),
        "case \"$(pwd)\" in */worktrees/*) git add a.txt && git -c user.name=t -c user.email=t@t commit -qm agent ;; \
         *) printf 'x\\033]0;pwned\\007\\033[2Jy\\n' > \"$(printf 'evil\\033[31m.txt')\" ;; esac"
            .into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ")
}

fn repo(s: &Served) {
    git(&s.f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(s.f.work.join("a.txt"), "a\n").unwrap();
    std::fs::write(s.f.work.join("b.txt"), "b\n").unwrap();
    std::fs::write(s.f.work.join("c.txt"), "c\n").unwrap();
    git(&s.f.work, &["add", "."]);
    git(&s.f.work, &["commit", "-qm", "first"]);
}

fn diff_json(s: &Served, task: &str) -> Value {
    serde_json::from_str(&s.expect(&["diff", task, "--json"], 0)).unwrap()
}

fn paths(v: &Value) -> Vec<String> {
    let mut p: Vec<String> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    p.sort();
    p
}

#[test]
fn a_worktree_task_shows_its_commit_and_its_uncommitted_edit() {
    let s = Served::new(&agent_script());
    repo(&s);
    s.expect(
        &["run", "fake", "--worktree", "--name", "wt", "--detach"],
        0,
    );
    s.expect(&["wait", "wt", "--for", "done", "--timeout", "30"], 0);
    let v = diff_json(&s, "wt");
    assert_eq!(v["kind"], "worktree", "{v}");
    // a.txt committed by the agent, b.txt not: both, and termic's own
    // links into the worktree are not the agent's work.
    assert_eq!(paths(&v), ["a.txt", "b.txt"], "{v}");
    let a = &v["files"][0];
    assert_eq!(a["added"], 1, "{a}");
    let lines = a["hunks"][0]["lines"].as_array().unwrap();
    let added: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "added").collect();
    assert_eq!(added.len(), 1, "{a}");
    assert_eq!(added[0]["text"], "agent a");
    assert_eq!(added[0]["new"], 2);
    assert_eq!(v["stat"]["files"], 2);

    let stat = s.expect(&["diff", "wt", "--stat"], 0);
    assert!(stat.contains("a.txt | +1 -0"), "{stat}");
    assert!(stat.ends_with("+2 -0, 2 files\n"), "{stat}");
    let patch = s.expect(&["diff", "wt"], 0);
    assert!(
        patch.contains("+++ b/b.txt\n@@ -1 +1,2 @@\n b\n+agent b\n"),
        "{patch}"
    );
    // The user's repository is as it was: branch main, one commit, no
    // snapshot ref for a worktree task.
    assert_eq!(git(&s.f.work, &["rev-list", "--count", "main"]).trim(), "1");
    assert_eq!(git(&s.f.work, &["status", "--porcelain"]), "");
}

#[test]
fn a_plain_directory_task_leaves_out_the_users_earlier_edits_and_prints_hostile_text_cleaned() {
    let s = Served::new(&agent_script());
    // Before the repository exists: no base, and diff says why.
    s.expect(&["run", "fake", "--name", "norepo", "--detach"], 0);
    let out = s.termic(&["diff", "norepo"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not in a git repository"),
        "{}",
        text(&out.stderr)
    );
    s.expect(&["kill", "norepo"], 0);
    let _ = std::fs::remove_file(s.f.work.join("a.txt"));
    let _ = std::fs::remove_file(s.f.work.join("b.txt"));
    let _ = std::fs::remove_file(s.f.work.join("evil\x1b[31m.txt"));

    repo(&s);
    // The user's own edits before the task: a change to c.txt, one to
    // a.txt, a new untracked file, something staged.
    std::fs::write(s.f.work.join("c.txt"), "c changed by the user\n").unwrap();
    std::fs::write(s.f.work.join("a.txt"), "a\nuser a\n").unwrap();
    std::fs::write(s.f.work.join("notes.txt"), "mine\n").unwrap();
    git(&s.f.work, &["add", "c.txt"]);
    let index_before = std::fs::read(s.f.work.join(".git/index")).unwrap();

    s.expect(&["run", "fake", "--name", "plain", "--detach"], 0);
    s.expect(&["wait", "plain", "--for", "done", "--timeout", "30"], 0);
    let v = diff_json(&s, "plain");
    assert_eq!(v["kind"], "snapshot", "{v}");
    assert_eq!(
        paths(&v),
        ["a.txt", "b.txt", "evil\x1b[31m.txt"],
        "the JSON keeps names exactly, and the user's edits are not there: {v}"
    );
    let a = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "a.txt")
        .unwrap();
    assert_eq!(
        (a["added"].as_u64(), a["removed"].as_u64()),
        (Some(1), Some(0))
    );
    let lines = a["hunks"][0]["lines"].as_array().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l["kind"] == "context" && l["text"] == "user a"),
        "the user's line is context, not the agent's: {a}"
    );

    let patch = s.expect(&["diff", "plain"], 0);
    assert!(
        !patch.contains('\x1b') && !patch.contains('\x07'),
        "{patch:?}"
    );
    assert!(patch.contains("+++ b/evil[31m.txt"), "{patch}");
    assert!(patch.contains("+x]0;pwned[2Jy"), "{patch}");
    assert!(
        !patch.contains("notes.txt") && !patch.contains("c.txt"),
        "{patch}"
    );

    // Nothing of the user's was written: the index is byte for byte the
    // same, HEAD and the branch are where they were, the snapshot is
    // kept by one ref under refs/termic/.
    assert_eq!(
        std::fs::read(s.f.work.join(".git/index")).unwrap(),
        index_before
    );
    assert_eq!(git(&s.f.work, &["rev-list", "--count", "HEAD"]).trim(), "1");
    let temp_left: Vec<_> = std::fs::read_dir(s.f.work.join(".git"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("termic-index"))
        .collect();
    assert!(
        temp_left.is_empty(),
        "no temporary index left: {temp_left:?}"
    );
    let refs = git(
        &s.f.work,
        &["for-each-ref", "--format=%(refname)", "refs/termic/"],
    );
    assert_eq!(refs.lines().count(), 1, "{refs}");
    assert_eq!(
        git(&s.f.work, &["diff", "--cached", "--name-only"]).trim(),
        "c.txt"
    );

    // The snapshot gone (its ref deleted, the objects pruned): diff says so.
    git(&s.f.work, &["update-ref", "-d", refs.trim()]);
    git(&s.f.work, &["reflog", "expire", "--expire=now", "--all"]);
    git(&s.f.work, &["gc", "-q", "--prune=now"]);
    let out = s.termic(&["diff", "plain"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("snapshot of the task's start is gone"),
        "{}",
        text(&out.stderr)
    );

    // An unknown task.
    let out = s.termic(&["diff", "nosuch"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("nosuch"),
        "{}",
        text(&out.stderr)
    );
}

/// A dotfiles repository at HOME: no snapshot of it (it would hash every
/// untracked file under HOME), and diff says why.
#[test]
fn a_task_in_a_repository_at_home_takes_no_snapshot() {
    let s = Served::new(&agent_script());
    git(&s.f.home, &["init", "-q", "-b", "main"]);
    let out =
        s.f.cli(&s.f.home, &["run", "fake", "--name", "home", "--detach"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = s.termic(&["diff", "home"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is your home directory; termic takes no snapshot"),
        "{}",
        text(&out.stderr)
    );
    let refs = git(&s.f.home, &["for-each-ref", "refs/termic/"]);
    assert_eq!(refs, "", "no ref written");
}

/// `termic kill` forgets the task, so its snapshot ref goes with it;
/// the user's refs beside it (under refs/termic/ too) stay.
#[test]
fn killing_a_plain_directory_task_deletes_only_its_snapshot_ref() {
    let s = Served::new(&agent_script());
    repo(&s);
    let head = git(&s.f.work, &["rev-parse", "HEAD"]);
    for user_ref in ["refs/termic/mine", "refs/termic/snapshots-kept"] {
        git(&s.f.work, &["update-ref", user_ref, head.trim()]);
    }
    let snapshots = || {
        git(
            &s.f.work,
            &[
                "for-each-ref",
                "--format=%(refname)",
                "refs/termic/snapshots/",
            ],
        )
    };
    s.expect(&["run", "fake", "--name", "gone", "--detach"], 0);
    s.expect(&["run", "fake", "--name", "stays", "--detach"], 0);
    assert_eq!(snapshots().lines().count(), 2, "{}", snapshots());
    s.expect(&["kill", "gone"], 0);
    let left = snapshots();
    assert_eq!(left.lines().count(), 1, "{left}");
    assert!(left.trim().ends_with("-stays"), "{left}");
    let all = git(
        &s.f.work,
        &["for-each-ref", "--format=%(refname)", "refs/termic/"],
    );
    assert!(all.contains("refs/termic/mine\n"), "{all}");
    assert!(all.contains("refs/termic/snapshots-kept\n"), "{all}");
    s.expect(&["kill", "stays"], 0);
    assert_eq!(snapshots().trim(), "");
}

/// `termic merge --how pr` runs the gh on PATH with the task's branch and
/// its base, merging nothing; then `termic merge --remove` of the exited
/// task fast-forwards main and removes its worktree and branch.
#[test]
fn termic_merge_opens_a_pull_request_with_gh_then_merges_and_removes_an_exited_task() {
    use std::os::unix::fs::PermissionsExt;
    let s = Served::new(
        &[
            hook("working", ""),
            "printf 'agent a\\n' >> a.txt".into(),
            "git add a.txt && git -c user.name=t -c user.email=t@t commit -qm agent".into(),
            hook("done", ""),
        ]
        .join("; "),
    );
    repo(&s);
    s.expect(
        &["run", "fake", "--worktree", "--name", "wt", "--detach"],
        0,
    );
    s.expect(&["wait", "wt", "--for", "exited", "--timeout", "30"], 0);
    let worktree = s.ls()[0]["worktree"].as_str().unwrap().to_owned();
    let main_before = git(&s.f.work, &["rev-parse", "main"]);

    // A fake gh that records its arguments.
    let gh_dir = s.f.home.join("gh-bin");
    std::fs::create_dir_all(&gh_dir).unwrap();
    let args_file = s.f.home.join("gh.args");
    std::fs::write(
        gh_dir.join("gh"),
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\necho https://example.com/pr/7\n",
            args_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(gh_dir.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", gh_dir.display(), s.f.path_var());
    let out = s.f.cli_with_env(
        &s.f.work,
        &["merge", "wt", "--how", "pr"],
        &[("PATH", &path)],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        "Opened a pull request of termic/wt into main: https://example.com/pr/7\n"
    );
    assert_eq!(
        std::fs::read_to_string(&args_file).unwrap(),
        "pr\ncreate\n--base\nmain\n--head\ntermic/wt\n--fill\n"
    );
    assert_eq!(git(&s.f.work, &["rev-parse", "main"]), main_before);
    // Without gh: says how to get it.
    let out = s.termic(&["merge", "wt", "--how", "pr"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("gh is not installed"), "{out:?}");

    let said = s.expect(&["merge", "wt", "--remove"], 0);
    assert!(
        said.starts_with("Merged termic/wt into main (ff, 1 commit)"),
        "{said}"
    );
    assert!(said.contains("Removed the worktree"), "{said}");
    assert_eq!(
        git(&s.f.work, &["log", "--format=%s", "-1", "main"]).trim(),
        "agent"
    );
    assert_eq!(
        std::fs::read_to_string(s.f.work.join("a.txt")).unwrap(),
        "a\nagent a\n"
    );
    assert!(!std::path::Path::new(&worktree).exists(), "{worktree}");
    assert_eq!(
        git(&s.f.work, &["branch", "--list", "termic/wt"]).trim(),
        ""
    );
    assert_eq!(git(&s.f.work, &["status", "--porcelain"]), "");
}

/// Issue 32 item 5: a server killed with SIGKILL, then `termic restore`:
/// each restored task's diff still counts from its first start (the
/// worktree's fork commit, the plain directory's start snapshot and its
/// ref), not from the restore. The agent edits only on its first run (a
/// marker in HOME), so a base taken at the restore would show nothing
/// (plain) or only the uncommitted edit (worktree).
#[test]
fn a_restored_task_keeps_its_review_base() {
    let edits = [
        "case \"$PWD\" in */worktrees/*) m=wt ;; *) m=plain ;; esac".to_owned(),
        "if [ ! -e \"$HOME/ran-$m\" ]; then printf 'agent a\\n' >> a.txt; printf 'agent b\\n' >> b.txt; \
         if [ $m = wt ]; then git add a.txt && git -c user.name=t -c user.email=t@t commit -qm agent; fi; \
         : > \"$HOME/ran-$m\"; fi"
            .into(),
    ];
    let script = [hook("working", ""), edits[0].clone(), edits[1].clone()]
        .into_iter()
        .chain([hook("done", ""), "sleep 600".into()])
        .collect::<Vec<_>>()
        .join("; ");
    let s = Served::new(&script);
    repo(&s);
    s.expect(&["run", "fake", "--name", "plain", "--detach"], 0);
    s.expect(&["wait", "plain", "--for", "done", "--timeout", "30"], 0);
    s.expect(
        &["run", "fake", "--worktree", "--name", "wt", "--detach"],
        0,
    );
    s.expect(&["wait", "wt", "--for", "done", "--timeout", "30"], 0);
    let snapshot_refs = || {
        git(
            &s.f.work,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/termic/",
            ],
        )
    };
    let (plain, wt, refs) = (diff_json(&s, "plain"), diff_json(&s, "wt"), snapshot_refs());
    assert_eq!(paths(&plain), ["a.txt", "b.txt"], "{plain}");
    assert_eq!(paths(&wt), ["a.txt", "b.txt"], "{wt}");
    assert_eq!(refs.lines().count(), 1, "{refs}");

    let server = s.server_pid();
    // SAFETY: a signal to the test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    assert!(eventually(Duration::from_secs(10), || !alive(server)));
    let out = s.termic(&["restore", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let restored: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(restored.len(), 2, "{restored:?}");
    assert!(
        restored.iter().all(|r| r["error"].is_null()),
        "{restored:?}"
    );
    s.expect(&["wait", "plain", "--for", "done", "--timeout", "30"], 0);
    s.expect(&["wait", "wt", "--for", "done", "--timeout", "30"], 0);

    let (plain_again, wt_again) = (diff_json(&s, "plain"), diff_json(&s, "wt"));
    assert_eq!(plain_again["files"], plain["files"], "{plain_again}");
    assert_eq!(plain_again["kind"], "snapshot");
    assert_eq!(wt_again["files"], wt["files"], "{wt_again}");
    assert_eq!(wt_again["kind"], "worktree");
    assert_eq!(snapshot_refs(), refs, "the same snapshot ref, no new one");
}
