//! Issue 28 item 5: a server killed with SIGKILL (or the OOM killer, a
//! crash) must not look like one that stopped. Its attached clients say it
//! was lost and exit 1; the next command names the tasks it lost (name,
//! command, directory) once; the next start ends what the tasks left. A
//! server that stops on purpose leaves no lost record, and the next start
//! says nothing.

use std::path::Path;
use std::time::Duration;

use crate::harness::Termic;
use crate::process_table::{alive, processes_of};
use crate::served::{text, Served};
use crate::wait::eventually;

/// The task records in the data dir's `dir` (`tasks` or `lost`).
fn records(data_dir: &Path, dir: &str) -> Vec<String> {
    std::fs::read_dir(data_dir.join(dir))
        .map(|d| {
            d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default()
}

/// `termic attach` in a PTY, showing `name` in its sidebar.
fn attached(s: &Served, name: &str) -> Termic {
    let t = Termic::start(&s.f, &["attach"]);
    t.wait_text(name);
    t
}

/// Everything that runs for the fixture but its server.
fn task_processes(s: &Served, server: i32) -> Vec<i32> {
    processes_of(&s.f.data_dir)
        .into_iter()
        .filter(|&p| p != server)
        .collect()
}

#[test]
fn a_killed_server_is_lost_for_its_clients_and_the_next_command_names_its_tasks_once() {
    let s = Served::new("sleep 600");
    let sub = s.f.work.join("sub dir");
    std::fs::create_dir_all(&sub).unwrap();
    s.expect(
        &["run", "--detach", "--name", "plain", "--", "sleep", "600"],
        0,
    );
    // One in another directory that ignores the hang-up (the orphan sweep
    // of the next start must end it).
    let stubborn = s.f.cli(
        &sub,
        &[
            "run",
            "--detach",
            "--name",
            "stubborn",
            "--",
            "sh",
            "-c",
            "trap '' HUP TERM; sleep 600",
        ],
    );
    assert_eq!(
        stubborn.status.code(),
        Some(0),
        "{}",
        text(&stubborn.stderr)
    );
    let server = s.server_pid();
    assert_eq!(
        records(&s.f.data_dir, "tasks").len(),
        2,
        "one record a task"
    );

    // Two clients of different sizes.
    let mut a = attached(&s, "stubborn");
    let mut b = attached(&s, "stubborn");
    b.resize(30, 100);
    b.wait_text("plain");
    let before = task_processes(&s, server);
    assert!(before.len() >= 3, "every task runs: {before:?}");

    // SAFETY: a signal to the test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    for (who, client) in [("a", &mut a), ("b", &mut b)] {
        let screen = client.wait_text("server was lost");
        let code = client.wait_exit();
        assert_eq!(
            code, 1,
            "client {who} exits 1 when the server is lost:\n{screen}"
        );
        assert!(
            screen.contains("server was lost") && !screen.contains("server stopped"),
            "client {who}:\n{screen}"
        );
    }

    // The next command names the lost tasks: name, command, directory.
    let out = s.termic(&["ls"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let told = text(&out.stderr);
    assert!(
        told.contains("ended without a word") && told.contains("its 2 tasks were lost"),
        "{told}"
    );
    assert!(
        told.contains(&format!("plain: sleep 600 (in {})", s.f.work.display())),
        "{told}"
    );
    assert!(
        told.contains(&format!(
            "stubborn: sh -c 'trap '\\'''\\'' HUP TERM; sleep 600' (in {})",
            sub.display()
        )),
        "{told}"
    );
    // Once: kept in lost/ for a restore, not told again.
    assert!(records(&s.f.data_dir, "tasks").is_empty());
    assert_eq!(records(&s.f.data_dir, "lost").len(), 2);
    let again = s.termic(&["ls"]);
    assert!(
        !text(&again.stderr).contains("lost"),
        "{}",
        text(&again.stderr)
    );

    // The next start ends what the tasks left, and logs that the server
    // before it ended without a word; it names no lost task again.
    let out = s.termic(&["run", "--detach", "--name", "after", "--", "sleep", "600"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("lost"), "{}", text(&out.stderr));
    let after = s.server_pid();
    let mut left: Vec<i32> = Vec::new();
    let ended = eventually(Duration::from_secs(15), || {
        left = before.iter().copied().filter(|&p| alive(p)).collect();
        left.is_empty()
    });
    assert!(
        ended,
        "task processes of the lost server survived: {left:?}"
    );
    assert!(alive(after));
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(
        log.contains(&format!("the previous server (pid {server}"))
            && log.contains("ended without a word"),
        "{log}"
    );
}

/// Since 2026-12-06 (issue 31) a stop keeps its tasks for a restore: the
/// records stay, marked stopped, and the next command says the server was
/// stopped with them (not lost), once; a task that ended while the server
/// lived is forgotten.
#[test]
fn a_clean_stop_keeps_its_tasks_for_a_restore_and_says_stopped_not_lost() {
    let s = Served::new("sleep 600");
    for name in ["one", "two"] {
        s.expect(
            &["run", "--detach", "--name", name, "--", "sleep", "600"],
            0,
        );
    }
    assert_eq!(
        records(&s.f.data_dir, "tasks").len(),
        2,
        "one record a task"
    );
    // A task that ends while the server lives is not kept.
    s.expect(&["run", "--detach", "--name", "brief", "--", "true"], 0);
    let mut a = attached(&s, "two");
    assert!(
        eventually(Duration::from_secs(10), || records(&s.f.data_dir, "tasks")
            .len()
            == 2),
        "the record of the task that ended went"
    );

    s.expect(&["server", "stop"], 0);
    assert_eq!(a.wait_exit(), 0, "{}", a.screen());
    assert!(
        a.screen().contains("The termic server stopped."),
        "{}",
        a.screen()
    );
    assert_eq!(records(&s.f.data_dir, "tasks").len(), 2, "kept");
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(
        log.contains("termic server: stopped by termic server stop"),
        "{log}"
    );

    let out = s.termic(&["ls"]);
    let told = text(&out.stderr);
    assert!(
        told.contains("The termic server was stopped with its 2 tasks: one, two.")
            && told.contains("`termic restore` starts them again.")
            && !told.contains("lost"),
        "{told}"
    );
    let out = s.termic(&["run", "--detach", "--name", "next", "--", "sleep", "600"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    assert_eq!(records(&s.f.data_dir, "lost").len(), 2);
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(!log.contains("without a word"), "{log}");
}

#[test]
fn prefix_q_in_one_client_tells_the_other_the_server_stopped() {
    let s = Served::new("sleep 600");
    s.expect(
        &["run", "--detach", "--name", "one", "--", "sleep", "600"],
        0,
    );
    let mut a = attached(&s, "one");
    let mut b = attached(&s, "one");
    assert!(a.quit(), "the quitting client exits");
    assert_eq!(a.wait_exit(), 0);
    assert_eq!(b.wait_exit(), 0, "{}", b.screen());
    assert!(
        b.screen().contains("The termic server stopped."),
        "{}",
        b.screen()
    );
    // Quitting was confirmed ("Quitting stops them"): nothing is kept for
    // a restore, unlike `server stop` (issue 31).
    assert!(records(&s.f.data_dir, "tasks").is_empty());
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(log.contains("stopped by prefix q"), "{log}");
}

/// The task record `name` in the data dir's `tasks/`, parsed.
fn record_named(data_dir: &Path, name: &str) -> Option<serde_json::Value> {
    records(data_dir, "tasks").into_iter().find_map(|file| {
        let bytes = std::fs::read(data_dir.join("tasks").join(file)).ok()?;
        let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        (v["name"] == name).then_some(v)
    })
}

/// Issue 31: a server killed with SIGKILL with three tasks (an agent whose
/// hook reported its conversation id, a command, a shell), each in its own
/// directory; `termic restore --json` starts each again where it was, with
/// its name and number, the agent with its resume option and that id.
#[test]
fn restore_after_a_kill_starts_each_task_again_where_it_was_with_its_name_and_number() {
    // The agent (base claude) writes the arguments it got, then its hook
    // reports a turn with its conversation id.
    let script = format!(
        "printf '%s|' \"$0\" \"$@\" > \"$PWD/agent-args\"; {}; sleep 600",
        crate::harness::hook("working", ";hook=UserPromptSubmit;session=conv-41")
    );
    let s = Served::new(&script);
    let dir = |name: &str| {
        let d = s.f.work.join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let (agent_dir, cmd_dir, shell_dir) = (dir("agent dir"), dir("cmd"), dir("shell"));
    // bash by its full path: the fixture's PATH has only its own tools.
    let bash = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("bash"))
        .find(|p| p.is_file())
        .expect("bash on PATH");
    let bash = bash.to_str().unwrap();
    let run = |cwd: &Path, args: &[&str]| {
        let out = s.f.cli(cwd, args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    // Number 1 is closed before the kill, so the kept numbers are 2, 3, 4.
    run(
        &s.f.work,
        &["run", "--detach", "--name", "gone", "--", "sleep", "600"],
    );
    run(&agent_dir, &["run", "--detach", "--name", "review", "fake"]);
    run(
        &cmd_dir,
        &["run", "--detach", "--name", "waiter", "--", "sleep", "600"],
    );
    run(&shell_dir, &["run", "--detach", "--name", "sh", "--", bash]);
    s.expect(&["kill", "gone"], 0);
    assert!(
        eventually(Duration::from_secs(15), || record_named(
            &s.f.data_dir,
            "review"
        )
        .is_some_and(|r| r["session"] == "conv-41")),
        "the hook's conversation id reached the record: {:?}",
        record_named(&s.f.data_dir, "review")
    );
    std::fs::remove_file(agent_dir.join("agent-args")).unwrap();
    let server = s.server_pid();
    // SAFETY: a signal to the test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    assert!(eventually(Duration::from_secs(10), || !alive(server)));

    let out = s.termic(&["restore", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let restored: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let by_name = |name: &str| {
        restored
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} not restored: {restored:?}"))
            .clone()
    };
    assert_eq!(restored.len(), 3, "{restored:?}");
    for (name, number, cwd) in [
        ("review", 2, &agent_dir),
        ("waiter", 3, &cmd_dir),
        ("sh", 4, &shell_dir),
    ] {
        let r = by_name(name);
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(r["row"]["id"], number, "{r}");
        assert_eq!(r["row"]["name"], name, "{r}");
        assert_eq!(r["row"]["cwd"], cwd.to_string_lossy().as_ref(), "{r}");
    }
    let review = by_name("review");
    assert_eq!(review["resumed"], true, "{review}");
    assert_eq!(review["session"], "conv-41", "{review}");
    assert_eq!(by_name("waiter")["command"], "sleep 600");
    assert_eq!(by_name("sh")["command"], bash);
    // The agent really got its resume option and the id, first.
    let mut args = String::new();
    assert!(
        eventually(Duration::from_secs(15), || {
            args = std::fs::read_to_string(agent_dir.join("agent-args")).unwrap_or_default();
            !args.is_empty()
        }),
        "the restored agent did not start"
    );
    assert_eq!(args, "--resume|conv-41|");
    // Listed by the new server as restored; nothing is left to restore.
    let rows = s.ls();
    let mut listed: Vec<(u64, String)> = rows
        .iter()
        .map(|r| {
            (
                r["id"].as_u64().unwrap(),
                r["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [(2, "review".into()), (3, "waiter".into()), (4, "sh".into())]
    );
    assert_eq!(s.expect(&["restore"], 0).trim(), "No task to restore.");
}

/// Issue 31: `termic attach` after a server was killed offers its tasks
/// in a dialog (name, directory, whether the agent continues its
/// conversation); `y` starts them all again, and the sidebar lists them.
/// Another loss, then `n`: forgotten, nothing is offered or restorable.
#[test]
fn attach_offers_the_tasks_that_ended_with_the_server_and_restores_all_on_y() {
    let s = Served::new("sleep 600");
    s.expect(
        &["run", "--detach", "--name", "builder", "--", "sleep", "600"],
        0,
    );
    s.expect(&["run", "--detach", "--name", "helper", "fake"], 0);
    let server = s.server_pid();
    // SAFETY: a signal to the test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    assert!(eventually(Duration::from_secs(10), || !alive(server)));

    let mut t = Termic::start(&s.f, &["attach"]);
    let screen = t.wait_text("y restore all");
    assert!(
        screen.contains("These 2 tasks ended with the termic server:"),
        "{screen}"
    );
    assert!(
        screen.contains(&format!(
            "1 builder in {}: runs sleep 600 again",
            s.f.work.display()
        )),
        "{screen}"
    );
    // The fake agent (base claude) reported no conversation id: Claude's
    // `--continue` takes the directory's last one.
    assert!(screen.contains("2 helper in "), "{screen}");
    assert!(screen.contains("continues its conversation"), "{screen}");
    t.send(b"y");
    let screen = t.wait_text("Restored 2 tasks.");
    assert!(!screen.contains("y restore all"), "{screen}");
    let names: Vec<String> = s
        .ls()
        .iter()
        .map(|r| format!("{} {}", r["id"], r["name"].as_str().unwrap()))
        .collect();
    assert_eq!(names, ["1 builder", "2 helper"]);
    t.prefix(b"d");
    assert_eq!(t.wait_exit(), 0);

    // Lost again; this time `n` forgets them.
    let server = s.server_pid();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    assert!(eventually(Duration::from_secs(10), || !alive(server)));
    let mut t = Termic::start(&s.f, &["attach"]);
    t.wait_text("y restore all");
    t.send(b"n");
    t.wait_text("Forgot the 2 tasks that ended with the server.");
    t.prefix(b"d");
    assert_eq!(t.wait_exit(), 0);
    assert_eq!(
        s.expect(&["restore", "--list"], 0).trim(),
        "No task to restore."
    );
    assert!(records(&s.f.data_dir, "lost").is_empty());
}

/// The restore dialog picks (issue 31, 2026-12-06): three tasks listed,
/// all picked; Down and Space unpick the second; Enter restores the first
/// and the third with their numbers and says the other is left for later,
/// where `termic restore --list` still finds it.
#[test]
fn attach_restores_only_the_tasks_picked_with_space_on_enter() {
    let s = Served::new("sleep 600");
    for name in ["first", "second", "third"] {
        s.expect(
            &["run", "--detach", "--name", name, "--", "sleep", "600"],
            0,
        );
    }
    let server = s.server_pid();
    // SAFETY: a signal to the test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    assert!(eventually(Duration::from_secs(10), || !alive(server)));

    let mut t = Termic::start(&s.f, &["attach"]);
    let screen = t.wait_text("Space pick");
    assert!(screen.contains("3 of 3 picked."), "{screen}");
    assert!(screen.contains(">[x] 1 first in "), "{screen}");
    t.send(b"\x1b[B");
    t.send(b" ");
    let screen = t.wait_text("2 of 3 picked.");
    assert!(screen.contains(">[ ] 2 second in "), "{screen}");
    assert!(screen.contains(" [x] 3 third in "), "{screen}");
    t.send(b"\r");
    let screen =
        t.wait_text("Restored 2 tasks. 1 task is left for later: termic restore starts it.");
    assert!(!screen.contains("Space pick"), "{screen}");
    let names: Vec<String> = s
        .ls()
        .iter()
        .map(|r| format!("{} {}", r["id"], r["name"].as_str().unwrap()))
        .collect();
    assert_eq!(names, ["1 first", "3 third"]);
    t.prefix(b"d");
    assert_eq!(t.wait_exit(), 0);
    let left = s.expect(&["restore", "--list"], 0);
    assert!(left.contains("second"), "{left}");
    assert!(!left.contains("first") && !left.contains("third"), "{left}");
    assert_eq!(records(&s.f.data_dir, "lost").len(), 1);
}

/// A journal write cut off between its temp file and the rename (a kill
/// at that instant) leaves `.NAME.json.PID.tmp`: the next server start
/// removes the ones a minute old or more, in `tasks/`, `lost/` and the
/// data dir, and logs each; a younger one, and a file of another name,
/// stay.
#[test]
fn the_next_start_removes_stale_journal_temp_files_and_only_those() {
    let s = Served::new("sleep 600");
    s.expect(
        &["run", "--detach", "--name", "kept", "--", "sleep", "600"],
        0,
    );
    let server = s.server_pid();
    // SAFETY: a signal to the test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    assert!(eventually(Duration::from_secs(10), || !alive(server)));
    let data = &s.f.data_dir;
    std::fs::create_dir_all(data.join("lost")).unwrap();
    let two_minutes_ago = std::time::SystemTime::now() - Duration::from_secs(120);
    let stale = [
        data.join("tasks/.4026531836.1.2.ab-7.json.4242.tmp"),
        data.join("lost/.000000000001000-4026531836.1.2.ab-8.json.4243.tmp"),
        data.join(".server.json.4244.tmp"),
    ];
    let young = data.join("tasks/.4026531836.1.2.ab-9.json.4245.tmp");
    let other = data.join("tasks/.notes.txt.4246.tmp");
    for path in stale.iter().chain([&young, &other]) {
        std::fs::write(path, "{\"version\":1,\"na").unwrap();
    }
    for path in stale.iter().chain([&other]) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(two_minutes_ago)
            .unwrap();
    }
    // The next command starts a server.
    let listed = s.expect(&["restore", "--list"], 0);
    assert!(listed.contains("kept"), "{listed}");
    for path in &stale {
        assert!(!path.exists(), "{} stayed", path.display());
    }
    assert!(young.exists() && other.exists());
    let log = std::fs::read_to_string(data.join("server.log")).unwrap();
    for path in &stale {
        assert!(
            log.contains(&format!(
                "termic server: removed {}, left by a write that was cut off",
                path.display()
            )),
            "{log}"
        );
    }
}
