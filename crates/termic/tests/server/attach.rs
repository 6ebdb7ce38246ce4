//! End-to-end through the real binary: `termic attach` shows the server's
//! workspace in a PTY; closing the client's terminal (SIGHUP) or prefix `d`
//! detaches and the task keeps running; a second attach shows its screen
//! and scrollback; two clients see the same transitions; the tasks take
//! the size of the client that typed last. `streams`: the protocol's
//! task list and task view, spoken by a client of the protocol alone.

use crate::git_support;
use crate::harness;
use crate::process_table;
use crate::served;
#[path = "attach/streams.rs"]
pub(crate) mod streams;

use std::path::Path;
use std::time::{Duration, Instant};

use git_support::git;
use harness::{badge_line, hook, Termic};
use process_table::{alive, processes_of};
use served::Served;
use termic::server::protocol::{Request, Response, TaskRow};

/// `termic attach ARGS` in a PTY with the fixture's env.
fn attach(s: &Served, args: &[&str]) -> Termic {
    let mut all = vec!["attach"];
    all.extend_from_slice(args);
    Termic::start(&s.f, &all)
}

fn wait_until(what: &str, pred: impl Fn() -> bool) {
    let start = Instant::now();
    while !pred() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read_pid(path: &Path) -> i32 {
    wait_until(&format!("{}", path.display()), || {
        std::fs::read_to_string(path).is_ok_and(|s| s.ends_with('\n'))
    });
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// 300 numbered lines (most of them only in the scrollback), then a line
/// per line typed.
const ECHO_SCRIPT: &str =
    "echo $$ > pid; i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo line-$i; done; \
echo READY; while read l; do echo \"got:$l\"; done";

#[test]
fn sighup_to_the_client_detaches_and_attach_shows_the_live_screen_and_scrollback() {
    let s = Served::new(ECHO_SCRIPT);
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let pid = read_pid(&s.f.work.join("pid"));

    let mut a = attach(&s, &["t1"]);
    a.wait_text("READY");
    a.send(b"first\r");
    a.wait_text("got:first");

    // The terminal closes: the client gets SIGHUP.
    // SAFETY: a signal to the client we started.
    unsafe { libc::kill(a.pid() as i32, libc::SIGHUP) };
    assert!(
        a.exit_within(Duration::from_secs(10)).is_some(),
        "the client ended"
    );
    assert!(alive(pid), "the task keeps running");
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "t1");
    assert_ne!(rows[0]["state"], "exited", "{rows:?}");

    // Typed while nobody is attached.
    s.expect(&["send", "t1", "second", "--enter"], 0);

    // Attach again: the live screen, with what happened while away.
    let mut b = attach(&s, &[]);
    let screen = b.wait_text("got:second");
    assert!(screen.contains("got:first"), "{screen}");
    b.send(b"third\r");
    b.wait_text("got:third");
    // Scrollback: copy mode pages back to the first lines.
    b.prefix(b"[");
    for _ in 0..20 {
        b.send(b"\x1b[5~");
    }
    b.wait_text("line-1 ");
    b.send(b"q");

    // Prefix d detaches: the client says so and exits 0.
    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    assert!(b.screen().contains("Detached"), "{}", b.screen());
    assert!(alive(pid), "the task keeps running after a detach");
    assert_eq!(s.ls().len(), 1);
}

/// The `rows cols` lines the task printed (`stty size`), in order.
fn sizes(screen: &str) -> Vec<(u16, u16)> {
    screen
        .lines()
        .filter_map(|l| {
            let pane = l.rsplit('│').next()?.trim();
            let (r, c) = pane.split_once(' ')?;
            Some((r.parse().ok()?, c.parse().ok()?))
        })
        .collect()
}

#[test]
fn two_clients_see_the_same_transitions_and_the_tasks_take_the_size_of_the_latest_active() {
    let script = [
        "echo READY".to_string(),
        format!(
            "while read l; do case \"$l\" in go) {}; sleep 0.3; {};; fin) {}; {};; *) stty size;; esac; done",
            hook("working", ""),
            hook("attention", ";kind=permission"),
            hook("working", ""),
            hook("done", ""),
        ),
    ]
    .join("; ");
    let s = Served::new(&script);
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let mut a = attach(&s, &["t1"]);
    a.wait_text("READY");
    let mut b = attach(&s, &["t1"]);
    b.wait_text("READY");
    b.resize(30, 100);

    a.send(b"go\r");
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_for(&format!("{who} shows needs you"), |screen| {
            badge_line(screen, "t1").is_some_and(|l| l.contains("needs you"))
        });
    }
    b.send(b"fin\r");
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_for(&format!("{who} shows done"), |screen| {
            badge_line(screen, "t1").is_some_and(|l| l.contains("done"))
        });
    }

    // B typed last: the task has B's (smaller) pane size.
    b.send(b"size\r");
    let seen = b.wait_for("a size line", |screen| !sizes(screen).is_empty());
    let small = *sizes(&seen).last().unwrap();
    // Now A types: the task takes A's size.
    a.send(b"size\r");
    let seen = a.wait_for("a second size line", |screen| sizes(screen).len() >= 2);
    let big = *sizes(&seen).last().unwrap();
    assert!(
        big.0 > small.0 && big.1 > small.1,
        "A (140x40) typed last: {big:?}, B (100x30) before: {small:?}"
    );
    // Both see the same task output.
    b.wait_for("b sees A's line", |screen| sizes(screen).contains(&big));

    // Detaching one client leaves the other attached and working.
    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    a.send(b"after\r");
    a.wait_for("a still live", |screen| sizes(screen).len() >= 3);
}

#[test]
fn quit_from_an_attached_client_ends_every_task_and_the_server() {
    let s = Served::new(ECHO_SCRIPT);
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let pid = read_pid(&s.f.work.join("pid"));
    let mut a = attach(&s, &[]);
    a.wait_text("READY");
    assert!(a.quit(), "the client exits after quit");
    assert_eq!(a.wait_exit(), 0);
    wait_until("the task and the server are gone", || {
        processes_of(&s.f.data_dir).is_empty()
    });
    assert!(!alive(pid));
    assert!(s.ls().is_empty(), "no server, no task");
}

#[test]
fn a_task_started_from_a_client_gets_that_clients_environment_without_tmux() {
    let s = Served::new(ECHO_SCRIPT);
    // The server starts with this client's environment (no MYVAR).
    s.expect(&["run", "fake", "--name", "first", "--detach"], 0);
    let t = Termic::start_with_env(
        &s.f,
        &[
            "run",
            "--name",
            "second",
            "--",
            "sh",
            "-c",
            "echo var=$MYVAR tmux=${TMUX:-none}; sleep 600",
        ],
        &[
            ("MYVAR", "from-client"),
            ("TMUX", "/tmp/tmux-1/default,1,0"),
        ],
    );
    t.wait_text("var=from-client tmux=none");
    assert_eq!(s.ls().len(), 2, "both tasks run in one server");
}

#[test]
fn while_nobody_is_attached_the_server_notifies_and_the_next_attach_shows_what_changed() {
    let script = format!(
        "echo READY; read l; {}; sleep 0.3; {}; sleep 600",
        hook("working", ""),
        hook("attention", ";kind=permission"),
    );
    let s = Served::new(&script);
    s.expect(
        &["run", "--detach", "--name", "t0", "--", "sleep", "600"],
        0,
    );
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let mut a = attach(&s, &[]);
    a.wait_text("t1");
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);

    // Away: the agent asks for permission.
    s.expect(&["send", "t1", "go", "--enter"], 0);
    let reached = s.expect(&["wait", "t1", "--for", "needs-you", "--timeout", "30"], 0);
    assert_eq!(reached.trim(), "needs_you");

    // No desktop service here: the OSC 777 fallback was queued and comes
    // with the next attach; t1 is marked unseen (t0 has the focus).
    let b = attach(&s, &[]);
    b.wait_raw(b"\x1b]777;notify;termic;t1 (fake) needs you");
    let screen = b.wait_for("t1 marked unseen", |screen| {
        screen.lines().any(|l| l.starts_with("2*t1"))
    });
    assert!(
        badge_line(&screen, "t1").is_some_and(|l| l.contains("needs you")),
        "{screen}"
    );
    // The queue is emptied by the attach that showed it.
    drop(b);
}

/// Issue 31's "while you were away" (2026-12-06): what each task did
/// while no client was attached (its states, what its turn changed in its
/// repository, and its agent's last message, as its end-of-turn hook's
/// `message=` carried it, cleaned) is told once by the next attach, on its
/// status line; an attach after that (nothing happened) tells nothing.
#[test]
fn the_next_attach_tells_once_what_each_task_did_while_nobody_was_attached() {
    // The last message as a hook sends it, with an escaped `;` and a
    // title-setting sequence the wire carries escaped (printf's `%%`).
    let script = format!(
        "echo READY; read l; {}; printf 'more\\n' >> a.txt; {}; sleep 600",
        hook("working", ""),
        hook("done", ";message=All tests pass%%3B ok%%1B]0%%3Bpwned%%07"),
    );
    let s = Served::new(&script);
    git(&s.f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(s.f.work.join("a.txt"), "a\n").unwrap();
    git(&s.f.work, &["add", "."]);
    git(
        &s.f.work,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "first",
        ],
    );
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let mut a = attach(&s, &[]);
    a.wait_text("READY");
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);

    s.expect(&["send", "t1", "go", "--enter"], 0);
    let reached = s.expect(&["wait", "t1", "--for", "done", "--timeout", "30"], 0);
    assert_eq!(reached.trim(), "done");

    // `ls --json` (protocol 7) says the same on the task's row, with Unix
    // times, and reading it takes nothing from the next attach.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let rows = s.ls();
    let away = &rows[0]["away"];
    let states: Vec<&str> = away["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("{rows:?}"))
        .iter()
        .map(|c| c["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["working", "done"], "{away}");
    for change in away["changes"].as_array().unwrap() {
        let at = change["at"].as_u64().unwrap();
        assert!(at <= now + 1_000 && at + 60_000 > now, "{change} vs {now}");
    }
    assert_eq!(away["more"], 0, "{away}");
    // As on the status line: the stat when git answered in time.
    assert!(
        away["stat"].is_null() || away["stat"] == "+1 -0, 1 file",
        "{away}"
    );
    // The agent's last message, decoded and cleaned: the ESC and the BEL
    // are gone, what is left prints as text.
    assert_eq!(away["message"], "All tests pass; ok]0;pwned", "{away}");

    let mut b = attach(&s, &[]);
    let screen = b.wait_text("While you were away: 1 t1: working, done ");
    assert_eq!(screen.matches("While you were away").count(), 1, "{screen}");
    // The diff stat is there when git answered within the done's 1.5 s
    // hold (away.rs); on a loaded machine it may not have, and the line
    // then goes without it. Either way the line is whole.
    let said = r#"(just now), said "All tests pass; ok]0;pwned"."#;
    assert!(
        screen.contains(&format!("working, done [+1 -0, 1 file] {said}"))
            || screen.contains(&format!("working, done {said}")),
        "{screen}"
    );
    // Another message takes the status line; prefix `a` tells it again.
    b.prefix(b"!");
    b.wait_text("Tasks that need you are listed first.");
    b.prefix(b"a");
    b.wait_text("While you were away: 1 t1: working, done ");
    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    // Told: the row says nothing more.
    assert!(s.ls()[0].get("away").is_none(), "{:?}", s.ls());
    let mut c = attach(&s, &[]);
    let screen = c.wait_text("READY");
    assert!(!screen.contains("While you were away"), "{screen}");
    c.prefix(b"a");
    c.wait_text("Nothing happened while you were away.");
    c.prefix(b"d");
    assert_eq!(c.wait_exit(), 0);
}

#[test]
fn the_server_exits_after_the_configured_idle_time_with_no_task_and_no_client() {
    let s = Served::new("sleep 600");
    let toml = std::fs::read_to_string(s.f.config_dir.join("config.toml")).unwrap();
    std::fs::write(
        s.f.config_dir.join("config.toml"),
        format!("{toml}\n[server]\nidle_exit = 1\n"),
    )
    .unwrap();
    s.expect(&["run", "--detach", "--name", "quick", "--", "true"], 0);
    let socket = s.f.data_dir.join("run/server.sock");
    assert!(socket.exists(), "the server started");
    // The default is a minute; one second here, checked every second.
    wait_until("the idle server to exit", || {
        !socket.exists() && processes_of(&s.f.data_dir).is_empty()
    });
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(log.contains("[server] idle_exit"), "{log}");
}

/// Users start termic from HOME and from `/`, not from a scratch project:
/// tasks started there (detached) keep that directory as their cwd, `ls`
/// says so, and a client started in any other directory attaches to them,
/// sees their screens and types into them. The server itself sits in `/`,
/// so it pins no directory a user might want to remove.
#[test]
fn tasks_started_from_home_and_from_root_are_listed_and_attached_from_anywhere() {
    let s =
        Served::new("echo \"at:$(pwd):end\"; echo READY; while read l; do echo \"got:$l\"; done");
    let home = s.f.home.clone();
    let root = Path::new("/");
    let run = |cwd: &Path, name: &str| {
        let out = s.f.cli(cwd, &["run", "fake", "--name", name, "--detach"]);
        assert!(out.status.success(), "{}", served::text(&out.stderr));
    };
    run(&home, "from-home");
    run(root, "from-root");
    let rows = s.ls();
    let cwd_of = |name: &str| {
        let row = rows.iter().find(|r| r["name"] == name).unwrap();
        assert!(row["worktree"].is_null(), "{row}");
        row["cwd"].as_str().unwrap().to_string()
    };
    assert_eq!(Path::new(&cwd_of("from-home")), home.as_path());
    assert_eq!(cwd_of("from-root"), "/");

    // From `/`, to the task started in HOME.
    let mut a = Termic::start_in(&s.f, root, &["attach", "from-home"], &[]);
    a.wait_text(&format!("at:{}:end", home.display()));
    a.send(b"typed-from-root\r");
    a.wait_text("got:typed-from-root");
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);

    // From HOME, the plain workspace, to the task started in `/`.
    let mut b = Termic::start_in(&s.f, &home, &["attach", "from-root"], &[]);
    b.wait_text("at:/:end");
    b.send(b"typed-from-home\r");
    b.wait_text("got:typed-from-home");
    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);

    let server_cwd = std::fs::read_link(format!("/proc/{}/cwd", s.server_pid())).unwrap();
    assert_eq!(server_cwd, root, "the server pins no directory");
    assert_eq!(s.ls().len(), 2, "both tasks outlive both clients");
}

/// SIGTERM (and SIGHUP, SIGINT, SIGQUIT) to the server end it as `server
/// stop` does: each task's recording flushed, the socket removed (no stale
/// socket for the next start to step over), every task's tree ended, and
/// an attached client exits with the terminal put back.
#[test]
fn sigterm_to_the_server_flushes_recordings_removes_the_socket_and_ends_the_tasks() {
    let s = Served::new("sleep 600");
    let casts = s.f.work.join("casts");
    let dir = casts.to_str().unwrap();
    s.expect(
        &[
            "--record",
            dir,
            "run",
            "--detach",
            "--name",
            "rec",
            "--",
            "sh",
            "-c",
            "echo $$ > pid; echo MARK-BEFORE-SIGTERM; exec sleep 600",
        ],
        0,
    );
    let task = read_pid(&s.f.work.join("pid"));
    let mut a = attach(&s, &["rec"]);
    a.wait_text("MARK-BEFORE-SIGTERM");
    let server = s.server_pid();
    // SAFETY: a signal to the server this test started.
    unsafe { libc::kill(server, libc::SIGTERM) };
    wait_until("the server, its task and the client to end", || {
        !alive(server) && !alive(task)
    });
    // Told it stopped (not lost): it exits 0, the terminal put back.
    a.wait_text("The termic server stopped.");
    assert_eq!(
        a.exit_within(Duration::from_secs(10)),
        Some(0),
        "the client ended"
    );
    assert!(!s.socket().exists(), "no stale socket left");
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(log.contains("termic server: stopped by SIGTERM"), "{log}");
    let recorded: Vec<u8> = std::fs::read_dir(&casts)
        .unwrap()
        .flat_map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        served::text(&recorded).contains("MARK-BEFORE-SIGTERM"),
        "the recording holds what the task printed"
    );
}

/// A worktree task started by `run --worktree --detach` shows its worktree
/// in every client: one attached when it started (the task is adopted
/// from the runtime's event) and one attached after. `ls` names it too.
#[test]
fn a_worktree_task_started_while_a_client_is_attached_shows_its_worktree_in_every_client() {
    let s = Served::new("echo \"in:$(pwd)\"; echo READY; sleep 600");
    git(&s.f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(s.f.work.join("a.txt"), "a\n").unwrap();
    git(&s.f.work, &["add", "a.txt"]);
    git(&s.f.work, &["commit", "-qm", "first"]);
    s.expect(&["run", "fake", "--name", "plain", "--detach"], 0);
    let mut a = attach(&s, &["plain"]);
    a.wait_text("READY");

    s.expect(
        &["run", "fake", "--worktree", "--name", "wtd", "--detach"],
        0,
    );
    let rows = s.ls();
    let row = rows.iter().find(|r| r["name"] == "wtd").unwrap();
    let worktree = row["worktree"]
        .as_str()
        .expect("ls names the worktree")
        .to_string();
    assert_eq!(row["cwd"].as_str(), Some(worktree.as_str()), "{row}");

    let details_name_worktree = |t: &mut Termic| {
        t.wait_text("wtd");
        t.prefix(b"2");
        t.wait_text(&format!("in:{}", &worktree[..worktree.len().min(30)]));
        t.prefix(b"t");
        let screen = t.wait_text("wtd (fake)");
        let line = screen
            .lines()
            .find(|l| l.contains("\u{2502}worktree "))
            .unwrap_or_else(|| panic!("no worktree row: {screen}"));
        assert!(line.contains(worktree.as_str()), "{screen}");
        t.send(b"\x1b");
    };
    // The client attached before the task started adopted it.
    details_name_worktree(&mut a);
    // A client attached after.
    let mut b = attach(&s, &[]);
    b.wait_text("READY");
    details_name_worktree(&mut b);
}

/// A task closed elsewhere (`termic kill`, or another client) leaves every
/// attached client's sidebar, instead of staying there as exited.
#[test]
fn a_task_killed_elsewhere_leaves_the_attached_clients_sidebar() {
    let s = Served::new("echo READY; sleep 600");
    s.expect(&["run", "fake", "--name", "keep", "--detach"], 0);
    s.expect(&["run", "fake", "--name", "gone", "--detach"], 0);
    let a = attach(&s, &["keep"]);
    a.wait_for("both tasks listed", |screen| {
        screen.lines().any(|l| l.starts_with("2 gone"))
    });
    s.expect(&["kill", "gone"], 0);
    let screen = a.wait_for("gone to leave the sidebar", |screen| {
        !screen.contains("gone")
    });
    assert!(screen.lines().any(|l| l.starts_with("1 keep")), "{screen}");
    assert!(!screen.contains("exited"), "{screen}");
    assert_eq!(s.ls().len(), 1);
}

/// `termic kill` of a worktree task says what is left of it, and with
/// `--remove-worktree` removes the worktree and keeps its branch (issue 33
/// item 7: on 0f06027 it left both behind without a word).
#[test]
fn kill_says_what_is_left_of_a_worktree_and_can_remove_it() {
    let s = Served::new("echo READY; sleep 600");
    git(&s.f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(s.f.work.join("a.txt"), "a\n").unwrap();
    git(&s.f.work, &["add", "a.txt"]);
    git(&s.f.work, &["commit", "-qm", "first"]);
    let worktree_of = |name: &str| {
        s.expect(
            &["run", "fake", "--worktree", "--name", name, "--detach"],
            0,
        );
        let rows = s.ls();
        let row = rows.iter().find(|r| r["name"] == name).unwrap();
        std::path::PathBuf::from(row["worktree"].as_str().expect("a worktree"))
    };

    let kept = worktree_of("kept");
    let out = s.expect(&["kill", "kept"], 0);
    assert!(kept.is_dir(), "kept by default");
    assert_eq!(
        out.trim(),
        format!(
            "Kept its worktree {}; its branch termic/kept is kept. To remove it: git worktree remove {}",
            kept.display(),
            kept.display()
        )
    );

    let gone = worktree_of("gone");
    let out = s.expect(&["kill", "gone", "--remove-worktree"], 0);
    assert_eq!(
        out.trim(),
        format!(
            "Removed its worktree {}; its branch termic/gone is kept.",
            gone.display()
        )
    );
    assert!(!gone.exists(), "removed");
    let branches = git(&s.f.work, &["branch", "--list", "termic/*"]);
    assert!(branches.contains("termic/gone"), "{branches}");

    // A task with no worktree: nothing to say, as before.
    s.expect(&["run", "fake", "--name", "plain", "--detach"], 0);
    assert_eq!(s.expect(&["kill", "plain", "--remove-worktree"], 0), "");
}

/// Copy mode's keys follow the terminal that attaches ($VISUAL/$EDITOR),
/// not the environment of whoever started the server, and `[ui]
/// copy_keys` overrides both (issue 33 item 9).
#[test]
fn copy_mode_keys_follow_the_attaching_terminals_editor_or_the_setting() {
    let s = Served::new("echo READY; sleep 600");
    s.expect(&["run", "fake", "--name", "t", "--detach"], 0);
    // Each Termic stops the server when dropped: keep them to the end.
    let clients = std::cell::RefCell::new(Vec::new());
    let copy_hint = |env: &[(&str, &str)]| {
        let mut t = Termic::start_with_env(&s.f, &["attach", "t"], env);
        t.wait_text("READY");
        t.prefix(b"[");
        let screen = t.wait_for("copy mode", |s| s.contains("next  q quit"));
        t.send(b"q");
        t.prefix(b"d");
        assert_eq!(t.wait_exit(), 0);
        clients.borrow_mut().push(t);
        screen
    };
    let vi = "v select  y copy";
    let emacs = "C-Space select  M-w copy";
    assert!(copy_hint(&[("EDITOR", "vim")]).contains(vi));
    assert!(copy_hint(&[("EDITOR", "nano")]).contains(emacs));
    assert!(copy_hint(&[("VISUAL", "/usr/bin/nvim"), ("EDITOR", "nano")]).contains(vi));
    std::fs::create_dir_all(&s.f.config_dir).unwrap();
    std::fs::write(
        s.f.config_dir.join("config.toml"),
        "[ui]\ncopy_keys = \"emacs\"\n",
    )
    .unwrap();
    assert!(copy_hint(&[("EDITOR", "vim")]).contains(emacs));
}

/// The sidebar title rows of `screen`, as (number, name) pairs, top down.
fn numbered_rows(screen: &str) -> Vec<(u32, String)> {
    screen
        .lines()
        .filter_map(|l| {
            let side = l.split('│').next()?.trim_start();
            let digits: String = side.chars().take_while(char::is_ascii_digit).collect();
            let number = digits.parse().ok()?;
            let rest = side[digits.len()..].strip_prefix([' ', '*'])?;
            let name = rest.split_whitespace().next()?;
            Some((number, name.to_string()))
        })
        .collect()
}

/// Issue 28: the number a task has is the same everywhere. On 479b296
/// the sidebar numbered rows while `ls`, `send` and `kill` took the
/// runtime's ids, so after a restart and a close `termic send 2` typed
/// into another task than the one the sidebar labelled 2. Two clients of
/// different sizes and the CLI, against one server: after a task exits
/// and is restarted, another is closed and a new one started, both
/// sidebars, `ls` and `send N` agree, and the text lands in that task.
#[test]
fn every_sidebar_ls_and_send_agree_on_each_tasks_number_after_a_restart_and_a_close() {
    let s = Served::new("echo READY; sleep 600");
    let script = |name: &str| {
        format!(
            "echo {name}-up; while read l; do [ \"$l\" = quit ] && exit 0; \
             echo \"{name}:$l\" >> {name}.txt; done"
        )
    };
    let run = |name: &str| {
        let out = s.expect(
            &[
                "run",
                "--detach",
                "--name",
                name,
                "--",
                "sh",
                "-c",
                &script(name),
            ],
            0,
        );
        assert!(out.contains(&format!("Started task {name}")), "{out}");
        out
    };
    run("alpha");
    run("beta");
    let out = run("gamma");
    assert!(out.contains("number 3"), "run says the number: {out}");
    let mut a = attach(&s, &["gamma"]);
    let mut b = attach(&s, &["gamma"]);
    b.resize(30, 100);
    for c in [&a, &b] {
        c.wait_text("gamma-up");
    }
    // A protocol client's task list and view of alpha (number 1).
    let mut list = streams::Conn::open(&s);
    list.send(&Request::Subscribe);
    assert!(matches!(list.read(), Response::Subscribed { .. }));
    let (mut view, _) = streams::Viewer::open(&s, "1", 60, 12);
    view.wait_text("alpha-up");

    // alpha exits and is restarted from client a, in place.
    s.expect(&["send", "alpha", "quit", "--enter"], 0);
    a.wait_for("alpha exited", |screen| {
        badge_line(screen, "alpha").is_some_and(|l| l.contains("exited"))
    });
    list.row_until("alpha to exit", |r| r.id == 1 && r.state == "exited");
    a.prefix(b"1");
    a.wait_text("alpha-up");
    a.prefix(b"r");
    a.wait_for("alpha restarted", |screen| {
        badge_line(screen, "alpha").is_some_and(|l| !l.contains("exited"))
    });
    // The view follows the number to the restarted task: it was not
    // closed, and what it types reaches the new alpha (its file; the
    // file is then emptied for the checks below).
    view.type_line("from-the-view");
    view.wait_text("from-the-view");
    let alpha_file = s.f.work.join("alpha.txt");
    wait_until("the restarted alpha gets the view's line", || {
        std::fs::read_to_string(&alpha_file).is_ok_and(|t| t == "alpha:from-the-view\n")
    });
    std::fs::remove_file(&alpha_file).unwrap();
    // beta is closed; delta takes the number it freed.
    s.expect(&["kill", "beta"], 0);
    let out = run("delta");
    assert!(out.contains("number 2"), "the smallest free number: {out}");
    // The list's last word on number 1 is the restarted alpha, running.
    let mut last_on_alpha = None;
    loop {
        match list.read() {
            Response::TaskRemoved { id: 2 } => break,
            message @ (Response::Task(TaskRow { id: 1, .. }) | Response::TaskRemoved { id: 1 }) => {
                last_on_alpha = Some(message)
            }
            Response::Task(_) => {}
            other => panic!("waiting for beta's removal: {other:?}"),
        }
    }
    let Some(Response::Task(alpha)) = last_on_alpha else {
        panic!("alpha's last message: {last_on_alpha:?}");
    };
    assert_ne!(alpha.state, "exited", "{alpha:?}");
    assert_eq!(
        list.row_until("delta", |r| r.id == 2).name,
        "delta",
        "the freed number is delta's"
    );

    let want: Vec<(u32, String)> = [(1, "alpha"), (2, "delta"), (3, "gamma")]
        .iter()
        .map(|(n, name)| (*n, name.to_string()))
        .collect();
    let rows = s.ls();
    let listed: Vec<(u32, String)> = rows
        .iter()
        .map(|r| {
            let n = r["id"].as_u64().unwrap() as u32;
            (n, r["name"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(listed, want, "ls: {rows:?}");
    let human = s.expect(&["ls"], 0);
    for (n, name) in &want {
        assert!(
            human
                .lines()
                .any(|l| l.starts_with(&format!("{n}  {name}"))),
            "{human}"
        );
    }
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_for(&format!("{who}'s sidebar numbers as ls does"), |screen| {
            numbered_rows(screen) == want
        });
    }

    // `send N` reaches the task labelled N, each in its own file.
    for (n, name) in &want {
        s.expect(&["send", &n.to_string(), &format!("to-{n}"), "--enter"], 0);
        let file = s.f.work.join(format!("{name}.txt"));
        wait_until(&format!("{name} gets to-{n}"), || {
            std::fs::read_to_string(&file).is_ok_and(|t| t == format!("{name}:to-{n}\n"))
        });
    }
    // The restarted alpha got only its own line, and beta's file none.
    assert!(!s.f.work.join("beta.txt").exists());

    // A jump key names the same task in either client: prefix 2 is delta.
    for (who, c) in [("a", &mut a), ("b", &mut b)] {
        c.prefix(b"2");
        c.wait_for(&format!("{who} shows delta"), |screen| {
            screen.contains("delta-up") && screen.contains("to-2")
        });
    }
    // Both clients stay attached until here: dropping one may stop the
    // server.
    drop(b);
    drop(a);
}

/// Unix time now, in ms.
fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The seconds the sidebar shows under the task named `name` (its badge
/// line ends with `12s`), when it shows seconds.
fn sidebar_age(screen: &str, name: &str) -> Option<u64> {
    let line = badge_line(screen, name)?;
    line.split_whitespace()
        .last()?
        .strip_suffix('s')?
        .parse()
        .ok()
}

/// Whether a sidebar title row shows task `number` named `name`.
fn shows(screen: &str, number: u32, name: &str) -> bool {
    let title = format!("{number} {name}");
    screen.lines().any(|l| {
        l.split('│')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with(&title)
    })
}

/// Starts a command task from the new-task dialog of client `t`.
fn start_from_dialog(t: &mut Termic, command: &str, name: &str) {
    t.prefix(b"n");
    t.wait_text("New task");
    // Left from the first agent wraps to the last choice: "command".
    t.send(b"\x1b[D");
    t.wait_text("Command  (type a command");
    t.send(b"\t");
    t.send(command.as_bytes());
    t.send(b"\t");
    t.send(name.as_bytes());
    t.send(b"\r");
}

/// Issue 28: the server owns each task's number, name and age, and every
/// client shows them. On 479b296 a rename was one client's (`ls`, `send`,
/// the other client and the next attach kept the old name), a task that
/// printed nothing appeared in a sidebar only when it exited, `since` in
/// `ls` was the server's start, and an attach restarted exited tasks' ages
/// from 0. Two clients of different sizes and the CLI against one server.
#[test]
fn names_numbers_ages_and_silent_tasks_agree_in_every_client_and_the_cli() {
    let s = Served::new("echo READY; sleep 600");
    let script = |name: &str| {
        format!(
            "echo {name}-up; while read l; do [ \"$l\" = quit ] && exit 0; \
             echo \"{name}:$l\" >> {name}.txt; done"
        )
    };
    for name in ["alpha", "beta"] {
        s.expect(
            &[
                "run",
                "--detach",
                "--name",
                name,
                "--",
                "sh",
                "-c",
                &script(name),
            ],
            0,
        );
    }
    let mut a = attach(&s, &["alpha"]);
    let mut b = attach(&s, &["alpha"]);
    b.resize(30, 100);
    for c in [&a, &b] {
        c.wait_text("alpha-up");
    }
    // The sidebar's rows and ls agree on (number, first word of the name).
    let agree = |a: &Termic, b: &Termic, what: &str| {
        let rows = s.ls();
        let want: Vec<(u32, String)> = rows
            .iter()
            .map(|r| {
                let name = r["name"].as_str().unwrap();
                (
                    r["id"].as_u64().unwrap() as u32,
                    name.split_whitespace().next().unwrap().to_string(),
                )
            })
            .collect();
        for (who, c) in [("a", a), ("b", b)] {
            c.wait_for(&format!("{who}'s sidebar as ls after {what}"), |screen| {
                numbered_rows(screen) == want
            });
        }
        rows
    };

    // A silent task started by the CLI is in both sidebars at once (not
    // when it first prints or exits, 30 s later), aged from its start.
    let before = wall_ms();
    let out = s.expect(
        &[
            "run", "--detach", "--name", "s7", "--", "sh", "-c", "sleep 30",
        ],
        0,
    );
    assert!(out.contains("number 3"), "{out}");
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_within(
            &format!("{who} lists s7 before it prints anything"),
            Duration::from_secs(5),
            |screen| shows(screen, 3, "s7"),
        );
    }
    let rows = agree(&a, &b, "s7 started");
    let s7 = rows.iter().find(|r| r["name"] == "s7").unwrap();
    assert_eq!(s7["state"], "idle", "{s7}");
    let (since, started) = (
        s7["since"].as_u64().unwrap(),
        s7["started"].as_u64().unwrap(),
    );
    assert!(
        started >= before && since >= started,
        "idle since it started, not since the server did: {s7}"
    );

    // A silent task started in client b is in client a at once.
    start_from_dialog(&mut b, "sleep 30", "quiet");
    a.wait_within(
        "a lists the task b started",
        Duration::from_secs(5),
        |screen| shows(screen, 4, "quiet"),
    );

    // Renamed from client a (prefix ,): every sidebar, ls, and send by the
    // new name.
    a.prefix(b"1");
    a.prefix(b",");
    a.wait_text("Rename");
    a.send(b"build server\r");
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_for(&format!("{who} shows a's rename"), |screen| {
            shows(screen, 1, "build server")
        });
    }
    let rows = agree(&a, &b, "a's rename");
    assert_eq!(rows[0]["name"], "build server", "{rows:?}");
    s.expect(&["send", "build server", "by-name", "--enter"], 0);
    wait_until("alpha gets the line sent by its new name", || {
        std::fs::read_to_string(s.f.work.join("alpha.txt")).is_ok_and(|t| t == "alpha:by-name\n")
    });

    // Renamed from client b (the smaller one).
    b.prefix(b"2");
    b.prefix(b",");
    b.wait_text("Rename");
    b.send(b"web\r");
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_for(&format!("{who} shows b's rename"), |screen| {
            shows(screen, 2, "web")
        });
    }
    // Renamed from the CLI.
    let out = s.expect(&["rename", "3", "sleeper"], 0);
    assert_eq!(out.trim(), "Renamed task 3 to sleeper.");
    for (who, c) in [("a", &a), ("b", &b)] {
        c.wait_for(&format!("{who} shows the CLI's rename"), |screen| {
            shows(screen, 3, "sleeper")
        });
    }
    agree(&a, &b, "three renames");
    // What rename refuses, and why.
    for (args, says) in [
        (
            &["rename", "nope", "x"][..],
            "no task is named or numbered \"nope\"",
        ),
        (&["rename", "1", "  "][..], "a task name cannot be empty"),
        (
            &["rename", "1", "a\u{1b}[2Jb"][..],
            "cannot hold control characters",
        ),
    ] {
        let out = s.termic(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = served::text(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert_eq!(s.ls()[0]["name"], "build server", "unchanged by a refusal");

    // `send N` reaches the task every sidebar numbers N.
    s.expect(&["send", "2", "to-2", "--enter"], 0);
    wait_until("beta (now web, number 2) gets its line", || {
        std::fs::read_to_string(s.f.work.join("beta.txt")).is_ok_and(|t| t == "beta:to-2\n")
    });

    // Ages: task 1 exits; once ls says it exited 3 s ago, a client that
    // attaches shows that age, not 0 s, and the names survive the detach.
    s.expect(&["send", "1", "quit", "--enter"], 0);
    let exited_since = || {
        s.ls()
            .iter()
            .find(|r| r["id"] == 1 && r["state"] == "exited")
            .and_then(|r| r["since"].as_u64())
    };
    wait_until("task 1 exited 3 s ago", || {
        exited_since().is_some_and(|since| wall_ms().saturating_sub(since) >= 3_000)
    });
    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    let c = attach(&s, &[]);
    let screen = c.wait_for("the new client shows task 1's age", |screen| {
        shows(screen, 1, "build server") && sidebar_age(screen, "build server").is_some()
    });
    // The age `ls` gives at the moment the screen was read; the sidebar's
    // label may be a second or two behind it (labels are redrawn once a
    // second, a frame waits its turn), and not ahead but for rounding.
    let read_at = wall_ms();
    let shown = sidebar_age(&screen, "build server").unwrap();
    let ls_age = (read_at - exited_since().unwrap()) / 1000;
    assert!(
        shown >= 3 && shown <= ls_age + 1 && shown + 3 >= ls_age,
        "the sidebar says {shown}s, ls {ls_age}s: {screen}"
    );
    assert!(
        shows(&screen, 2, "web") && shows(&screen, 3, "sleeper"),
        "{screen}"
    );
    agree(&a, &c, "a detach and an attach");
    // Both clients stay attached until here: dropping one may stop the
    // server.
    drop(c);
    drop(a);
}

/// Issue 28: an attached client's `--event-log` is where the tasks it
/// starts write, and no other task's; a log it cannot open is refused as
/// it attaches, with the reason.
#[test]
fn an_attached_clients_event_log_gets_the_tasks_it_starts_and_a_bad_one_is_refused() {
    let s = Served::new("echo READY; sleep 600");
    s.expect(
        &[
            "run", "--detach", "--name", "other", "--", "sh", "-c", "exit 0",
        ],
        0,
    );
    let log = s.f.work.join("mine.jsonl");
    let mut a = attach(&s, &["--event-log", log.to_str().unwrap()]);
    a.wait_text("other");
    start_from_dialog(&mut a, "sh -c 'exit 0'", "mine");
    wait_until("mine's exit in the client's log", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.contains("\"to\":\"exited\""))
    });
    let text = std::fs::read_to_string(&log).unwrap();
    for line in text.lines() {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(line["task"], "mine", "{text}");
    }

    let mut bad = attach(&s, &["--event-log", "/nonexistent-dir/x.jsonl"]);
    assert_eq!(bad.wait_exit(), 1);
    let screen = bad.screen();
    assert!(
        screen.contains("cannot append to the event log /nonexistent-dir/x.jsonl"),
        "{screen}"
    );
    drop(a);
}

/// The task's script for the reflow tests: `print` prints 60 lines of 110
/// characters (`L001`, 102 letters, `E001`), anything else its size.
const LINES_SCRIPT: &str = "F=abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijab; \
echo READY; while read l; do case \"$l\" in print) i=0; while [ $i -lt 60 ]; do i=$((i+1)); \
printf 'L%03d%sE%03d\\n' $i $F $i; done;; *) stty size;; esac; done";

/// Line `i` of [`LINES_SCRIPT`]'s output, whole.
fn printed_line(i: u32) -> String {
    format!("L{i:03}{}E{i:03}", "abcdefghij".repeat(10) + "ab")
}

/// The printed lines a screen shows whole (each on one row).
fn whole_lines(screen: &str) -> Vec<u32> {
    (1..=60)
        .filter(|&i| screen.contains(&printed_line(i)))
        .collect()
}

/// The task's size as it says it now (`stty size`, typed in `c`).
fn task_size(c: &mut Termic) -> (u16, u16) {
    let asked = sizes(&c.screen()).len();
    c.send(b"size\r");
    let seen = c.wait_for("the task's size", |screen| sizes(screen).len() > asked);
    *sizes(&seen).last().unwrap()
}

/// Resizes `c`'s terminal to `rows` x `cols` and waits for the task to say
/// a new size (typing makes `c` the client whose size the task takes). The
/// resize and the typed line reach the server on separate paths, so the
/// size is asked again until it changed.
fn resize_and_wait(c: &mut Termic, rows: u16, cols: u16) -> (u16, u16) {
    let before = task_size(c);
    c.resize(rows, cols);
    let start = Instant::now();
    loop {
        let now = task_size(c);
        if now != before {
            return now;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the task kept its size {before:?} after a resize to {rows}x{cols}"
        );
    }
}

/// Every printed line shown whole, live and then paging back in copy
/// mode; copy mode is left.
fn lines_in_copy_mode(c: &mut Termic) -> Vec<u32> {
    let mut seen = c.wait_for("the last line whole", |s| whole_lines(s).contains(&60));
    let mut whole = whole_lines(&seen);
    c.prefix(b"[");
    c.wait_for("copy mode", |s| s != seen);
    for _ in 0..8 {
        if whole.contains(&1) {
            break;
        }
        let first = whole.iter().copied().min().unwrap_or(61);
        c.send(b"\x1b[5~");
        seen = c.wait_for("an earlier page", |s| {
            whole_lines(s).iter().any(|&i| i < first)
        });
        whole.extend(whole_lines(&seen));
    }
    c.send(b"q");
    whole.sort_unstable();
    whole.dedup();
    whole
}

/// Issue 28: a terminal of 160 columns, narrowed to 50 and widened again:
/// every line is back whole, on the screen and in copy mode's history.
#[test]
fn a_terminal_narrowed_to_50_columns_and_widened_to_160_shows_every_line_whole_again() {
    let s = Served::new(LINES_SCRIPT);
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let mut a = attach(&s, &["t1"]);
    a.wait_text("READY");
    let wide = resize_and_wait(&mut a, 40, 160);
    assert!(
        wide.1 >= 110,
        "the pane at 160 columns holds a line: {wide:?}"
    );
    a.send(b"print\r");
    a.wait_text(&printed_line(60));
    let narrow = resize_and_wait(&mut a, 40, 50);
    assert!(narrow.1 < 50, "{narrow:?}");
    assert_eq!(resize_and_wait(&mut a, 40, 160), wide);
    assert_eq!(lines_in_copy_mode(&mut a), (1..=60).collect::<Vec<_>>());
}

/// The same with a second client of 50 columns that attaches, types (the
/// task takes its size) and leaves: the first client's task gets its size
/// back without a key, and every line whole.
#[test]
fn a_small_client_attaching_and_leaving_gives_the_first_its_lines_back() {
    let s = Served::new(LINES_SCRIPT);
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let mut a = attach(&s, &["t1"]);
    a.wait_text("READY");
    let wide = resize_and_wait(&mut a, 40, 160);
    a.send(b"print\r");
    a.wait_text(&printed_line(60));

    let mut b = attach(&s, &["t1"]);
    b.wait_text("E060");
    let small = resize_and_wait(&mut b, 40, 50);
    assert!(
        small.1 < 50,
        "the task took the small client's size: {small:?}"
    );
    a.wait_for("the first client shows the narrow task", |screen| {
        !whole_lines(screen).contains(&60)
    });

    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    // no key in A: the task is back at A's size, every line whole
    assert_eq!(lines_in_copy_mode(&mut a), (1..=60).collect::<Vec<_>>());
    a.send(b"size\r");
    a.wait_for("A's size again", |screen| {
        sizes(screen).last() == Some(&wide)
    });
}

/// Sets `[server] window_size` in the fixture's config.toml (read at each
/// attach).
fn set_window_size(s: &Served, policy: &str) {
    let path = s.f.config_dir.join("config.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!("{toml}\n[server]\nwindow_size = \"{policy}\"\n"),
    )
    .unwrap();
}

/// Asks the task's size in `c` until it is `want` (a resize and a typed
/// line reach the server on separate paths).
fn wait_task_size(c: &mut Termic, want: (u16, u16), what: &str) {
    let start = Instant::now();
    loop {
        let now = task_size(c);
        if now == want {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what}: the task says {now:?}, not {want:?}"
        );
    }
}

/// Issue 28, `[server] window_size = smallest | largest`: a wide short
/// client (A, 30x160) and a narrow tall one (B, 45x90) draw one task; its
/// PTY takes each dimension on its own (smallest: A's rows and B's
/// columns; largest: B's rows and A's columns, a size neither client
/// has), whichever client typed last, and A's own size once B leaves.
fn two_clients_under(policy: &str, choose: fn(u16, u16) -> u16) {
    let s = Served::new(LINES_SCRIPT);
    set_window_size(&s, policy);
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    // Each client's own pane size, measured alone.
    let mut b = attach(&s, &["t1"]);
    b.wait_text("READY");
    let b_alone = resize_and_wait(&mut b, 45, 90);
    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    let mut a = attach(&s, &["t1"]);
    a.wait_text("READY");
    let a_alone = resize_and_wait(&mut a, 30, 160);
    assert!(
        a_alone.0 < b_alone.0 && a_alone.1 > b_alone.1,
        "A is the wide short one: {a_alone:?}, B {b_alone:?}"
    );
    let both = (choose(a_alone.0, b_alone.0), choose(a_alone.1, b_alone.1));

    let mut b = attach(&s, &["t1"]);
    b.wait_text("READY");
    b.resize(45, 90);
    wait_task_size(&mut b, both, &format!("{policy}, B typed last"));
    wait_task_size(&mut a, both, &format!("{policy}, A typed last"));

    b.prefix(b"d");
    assert_eq!(b.wait_exit(), 0);
    wait_task_size(&mut a, a_alone, &format!("{policy}, B left"));
}

#[test]
fn under_smallest_the_task_takes_the_smallest_rows_and_columns_of_two_clients() {
    two_clients_under("smallest", std::cmp::min);
}

#[test]
fn under_largest_the_task_takes_the_largest_rows_and_columns_of_two_clients() {
    two_clients_under("largest", std::cmp::max);
}
