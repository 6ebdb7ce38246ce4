use super::*;
use std::fs;

fn git(dir: &Path, args: &[&str]) -> String {
    git_in(dir, args).unwrap_or_else(|e| panic!("git {args:?}: {e}"))
}

/// A repository on `main` with a.txt and b.txt committed, and a task
/// worktree on `termic/t` cut from it, with its base taken.
struct Fixture {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    wt: PathBuf,
    base: ReviewBase,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.name", "Test"]);
    git(&repo, &["config", "user.email", "test@example.com"]);
    git(&repo, &["config", "commit.gpgsign", "false"]);
    fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    fs::write(repo.join("b.txt"), "bee\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let wt = tmp.path().join("wt");
    let wt_s = wt.to_str().unwrap().to_owned();
    git(&repo, &["worktree", "add", "-q", "-b", "termic/t", &wt_s]);
    let base = crate::take_base(&wt, Some(&wt), "k", &[]).unwrap();
    Fixture {
        _tmp: tmp,
        repo,
        wt,
        base,
    }
}

fn commit(dir: &Path, file: &str, text: &str, msg: &str) {
    fs::write(dir.join(file), text).unwrap();
    git(dir, &["add", file]);
    git(dir, &["commit", "-q", "-m", msg]);
}

/// Every file's bytes and git's view of the checkout.
fn state(dir: &Path) -> (Vec<(String, Vec<u8>)>, String, String) {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    (
        files,
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["status", "--porcelain=v1"]),
    )
}

#[test]
fn the_plan_names_the_branch_the_base_and_its_checkout() {
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nTWO\n", "agent");
    let p = plan(&f.base, None).unwrap();
    assert_eq!(p.branch, "termic/t");
    assert_eq!(p.into, "main");
    assert_eq!(
        p.checkout.map(|c| c.canonicalize().unwrap()),
        Some(f.repo.canonicalize().unwrap())
    );
    assert_eq!(p.commits, 1);
    git(&f.repo, &["branch", "other", "HEAD"]);
    git(&f.repo, &["checkout", "-q", "--orphan", "unrelated"]);
    git(&f.repo, &["commit", "-q", "-m", "x"]);
    assert!(matches!(
        plan(&f.base, Some("unrelated")),
        Err(MergeError::NotTheBase { .. })
    ));
}

#[test]
fn ff_puts_the_tasks_commit_on_the_base_and_leaves_uncommitted_work() {
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nTWO\n", "agent edit");
    fs::write(f.wt.join("b.txt"), "not committed\n").unwrap();
    let p = plan(&f.base, None).unwrap();
    let tip = git(&f.wt, &["rev-parse", "HEAD"]);
    let done = merge(&p, How::Ff, "unused").unwrap();
    assert_eq!(
        done,
        Merged::Merged {
            branch: "termic/t".into(),
            into: "main".into(),
            commits: 1,
            head: tip.clone(),
        }
    );
    assert_eq!(git(&f.repo, &["rev-parse", "main"]), tip);
    assert_eq!(
        fs::read_to_string(f.repo.join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
    assert_eq!(fs::read_to_string(f.repo.join("b.txt")).unwrap(), "bee\n");
    assert_eq!(
        fs::read_to_string(f.wt.join("b.txt")).unwrap(),
        "not committed\n"
    );
    assert!(matches!(
        merge(&plan(&f.base, None).unwrap(), How::Ff, "m"),
        Err(MergeError::NothingToMerge)
    ));
}

#[test]
fn ff_refuses_a_base_that_moved_on_and_rebase_and_squash_take_it() {
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nTWO\n", "agent one");
    commit(&f.wt, "c.txt", "sea\n", "agent two");
    commit(&f.repo, "b.txt", "BEE\n", "user");
    let before = state(&f.repo);
    let p = plan(&f.base, None).unwrap();
    assert_eq!(p.commits, 2);
    assert!(matches!(
        merge(&p, How::Ff, "m"),
        Err(MergeError::NotFastForward { .. })
    ));
    assert_eq!(state(&f.repo), before);
    let user_tip = git(&f.repo, &["rev-parse", "HEAD"]);
    merge(&p, How::Rebase, "m").unwrap();
    let log = git(&f.repo, &["log", "--format=%s", "main"]);
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        ["agent two", "agent one", "user", "start"]
    );
    assert_eq!(git(&f.repo, &["rev-parse", "HEAD~2"]), user_tip);
    assert_eq!(fs::read_to_string(f.repo.join("c.txt")).unwrap(), "sea\n");
    // The task's branch is left as it was.
    assert_eq!(git(&f.wt, &["log", "--format=%s", "-1"]), "agent two");

    let g = fixture();
    commit(&g.wt, "a.txt", "one\nTWO\n", "agent one");
    commit(&g.wt, "c.txt", "sea\n", "agent two");
    commit(&g.repo, "b.txt", "BEE\n", "user");
    let p = plan(&g.base, None).unwrap();
    let done = merge(&p, How::Squash, "termic: task t").unwrap();
    assert!(matches!(done, Merged::Merged { commits: 1, .. }));
    let log = git(&g.repo, &["log", "--format=%s", "main"]);
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        ["termic: task t", "user", "start"]
    );
    assert_eq!(
        fs::read_to_string(g.repo.join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
    assert_eq!(git(&g.repo, &["status", "--porcelain"]), "");
}

#[test]
fn a_conflict_changes_no_file_and_names_the_files() {
    for how in [How::Rebase, How::Squash] {
        let f = fixture();
        commit(&f.wt, "a.txt", "one\nagent\n", "agent");
        commit(&f.repo, "a.txt", "one\nuser\n", "user");
        // An untracked file of the user's and an ignored one stay too.
        fs::write(f.repo.join("notes.txt"), "mine\n").unwrap();
        let before = state(&f.repo);
        let p = plan(&f.base, None).unwrap();
        let err = merge(&p, how, "m").unwrap_err();
        match &err {
            MergeError::Conflict { files, .. } => assert_eq!(files, "a.txt", "{how:?}"),
            other => panic!("{how:?}: {other}"),
        }
        assert!(err.to_string().contains("nothing was changed"), "{err}");
        assert_eq!(state(&f.repo), before, "{how:?}");
        for leftover in ["CHERRY_PICK_HEAD", "MERGE_HEAD", "MERGE_MSG", "SQUASH_MSG"] {
            assert!(
                !f.repo.join(".git").join(leftover).exists(),
                "{how:?}: {leftover}"
            );
        }
    }
}

#[test]
fn a_dirty_base_refuses_before_anything_is_written() {
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nTWO\n", "agent");
    fs::write(f.repo.join("b.txt"), "user's edit\n").unwrap();
    let before = state(&f.repo);
    let p = plan(&f.base, None).unwrap();
    for how in [How::Ff, How::Rebase, How::Squash] {
        let err = merge(&p, how, "m").unwrap_err();
        assert!(
            matches!(err, MergeError::DirtyBase { .. }),
            "{how:?}: {err}"
        );
        assert!(err.to_string().contains("commit or stash"), "{err}");
        assert_eq!(state(&f.repo), before);
    }
}

#[test]
fn a_base_not_checked_out_anywhere_says_so() {
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nTWO\n", "agent");
    git(&f.repo, &["checkout", "-q", "-b", "elsewhere"]);
    let p = plan(&f.base, Some("main")).unwrap();
    assert_eq!(p.checkout, None);
    let err = merge(&p, How::Ff, "m").unwrap_err();
    assert!(err.to_string().contains("git switch main"), "{err}");
}

#[test]
fn a_pull_request_runs_gh_with_the_branch_and_its_base() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nTWO\n", "agent");
    let bin = f._tmp.path().join("gh");
    let log = f._tmp.path().join("gh.args");
    // Written here as gh.src and copied to gh by `cp`, so the file that
    // runs was only ever open for writing in that child: a descriptor of
    // this process, held by another test thread's fork until it execs,
    // would make running it fail with "Text file busy" (ETXTBSY).
    let src = f._tmp.path().join("gh.src");
    fs::write(
        &src,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\necho https://example.com/pr/1\n",
            log.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&src, fs::Permissions::from_mode(0o755)).unwrap();
    let copied = std::process::Command::new("cp")
        .arg(&src)
        .arg(&bin)
        .status();
    assert!(copied.unwrap().success());
    let before = state(&f.repo);
    let p = plan(&f.base, None).unwrap();
    let done = merge_with_gh(&p, How::Pr, "m", bin.as_os_str()).unwrap();
    assert_eq!(
        done,
        Merged::PullRequest {
            branch: "termic/t".into(),
            into: "main".into(),
            url: "https://example.com/pr/1".into(),
        }
    );
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "pr\ncreate\n--base\nmain\n--head\ntermic/t\n--fill\n"
    );
    assert_eq!(state(&f.repo), before, "a pull request merges nothing");
    let missing = f._tmp.path().join("no-gh");
    assert!(matches!(
        merge_with_gh(&p, How::Pr, "m", missing.as_os_str()),
        Err(MergeError::NoGh)
    ));
}

#[test]
fn a_failed_squash_puts_back_a_squash_message_the_user_had() {
    let f = fixture();
    commit(&f.wt, "a.txt", "one\nagent\n", "agent");
    commit(&f.repo, "a.txt", "one\nuser\n", "user");
    let msg = f.repo.join(".git/SQUASH_MSG");
    fs::write(&msg, "the user's own message\n").unwrap();
    let p = plan(&f.base, None).unwrap();
    let err = merge(&p, How::Squash, "m").unwrap_err();
    assert!(matches!(err, MergeError::Conflict { .. }), "{err}");
    assert_eq!(
        fs::read_to_string(&msg).unwrap(),
        "the user's own message\n"
    );
    assert!(!f.repo.join(".git/MERGE_MSG").exists());
}
