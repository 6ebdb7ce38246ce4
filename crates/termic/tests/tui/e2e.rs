//! End-to-end: the real `termic` binary in a PTY, a fixture HOME, agents
//! that are small sh scripts printing termic hook sequences, and assertions
//! on the rendered screen, the event log and the bytes on the outer terminal.

use crate::harness;

use harness::{badge_line, fake_agent_config, hook, turn_script, wait_badge, Fixture, Termic};

#[test]
fn hook_messages_drive_the_badges_and_the_event_log() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let log = f.event_log();
    let mut t = Termic::start(
        &f,
        &[
            "--event-log",
            log.to_str().unwrap(),
            "run",
            "fake",
            "--name",
            "t1",
        ],
    );
    wait_badge(&t, "t1", "working");
    wait_badge(&t, "t1", "needs you [permission]");
    t.send(b"yes\r");
    let screen = wait_badge(&t, "t1", "done");
    assert!(
        screen.contains("got:yes"),
        "keys reached the agent:\n{screen}"
    );

    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let moves: Vec<(String, String)> = lines
        .iter()
        .map(|v| {
            (
                v["from"].as_str().unwrap().to_string(),
                v["to"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Enter answers the prompt, so the engine goes back to working before
    // the hook's done.
    let want = [
        ("idle", "working"),
        ("working", "needs_you"),
        ("needs_you", "working"),
        ("working", "done"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(moves, want);
    for v in &lines {
        assert_eq!(v["task"], "t1");
        assert_eq!(v["agent"], "fake");
        assert!(v["ts"].as_u64().unwrap() > 1_600_000_000_000);
        assert!(!v["reason"].as_str().unwrap().is_empty());
    }
}

#[test]
fn inspector_shows_the_reason_for_a_transition() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    wait_badge(&t, "t1", "needs you [permission]");
    t.prefix(b"i");
    let screen = t.wait_text("Inspector: t1 (fake)");
    let transition = screen
        .lines()
        .find(|l| l.contains("transition") && l.contains("needs_you"))
        .unwrap_or_else(|| panic!("no needs_you transition shown:\n{screen}"));
    assert!(
        transition.to_lowercase().contains("hook"),
        "reason names the hook: {transition}"
    );
    t.send(b"\x1b");
    t.wait_for("inspector closed", |s| !s.contains("Inspector: t1"));
}

#[test]
fn unwatched_task_needing_you_rings_and_notifies_through_the_terminal() {
    let f = Fixture::new();
    let script = [
        "sleep 2".to_string(),
        hook("working", ""),
        hook("attention", ";kind=permission"),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "bg"]);
    t.wait_text("bg");
    // The outer terminal loses focus: nobody watches the task any more.
    t.send(b"\x1b[O");
    wait_badge(&t, "bg", "needs you [permission]");
    // No session bus in the test env, so the OSC 777 fallback is used.
    t.wait_raw(b"\x1b]777;notify;termic;bg (fake) needs you: permission\x07");
    // The bell rings right before the notification.
    t.wait_raw(b"\x07\x1b]777;notify;termic;bg (fake) needs you: permission\x07");
}

#[test]
fn watched_task_gets_no_notification() {
    let f = Fixture::new();
    let script = [
        "sleep 1".to_string(),
        hook("working", ""),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "fg"]);
    t.send(b"\x1b[I");
    wait_badge(&t, "fg", "done");
    assert!(
        !harness::contains(&t.raw(), b"]777;notify;termic"),
        "watched tasks are not notified"
    );
}

#[test]
fn quit_asks_when_tasks_run_and_restores_the_terminal() {
    let f = Fixture::new();
    f.fake_sh_agent("sleep 600");
    let mut t = Termic::start(&f, &["run", "fake", "--name", "q"]);
    t.wait_text("q");
    t.prefix(b"q");
    t.wait_text("1 task is still running.");
    t.send(b"y");
    assert_eq!(t.wait_exit(), 0);
    let raw = t.raw();
    assert!(
        harness::contains(&raw, b"\x1b[?1049l"),
        "left the alternate screen"
    );
}

#[test]
fn help_lists_the_keys() {
    let f = Fixture::new();
    f.fake_sh_agent("sleep 600");
    let mut t = Termic::start(&f, &["run", "fake", "--name", "h"]);
    t.wait_text("h");
    t.prefix(b"?");
    let s = t.wait_text("Press Ctrl-] then:");
    assert!(s.contains("Inspector") && s.contains("close task"), "{s}");
}

#[test]
fn sidebar_and_pane_show_tasks_and_their_output() {
    let f = Fixture::new();
    let script = [
        "printf '\\033[1;32mhello from the agent\\033[0m\\n'".to_string(),
        hook("working", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "first"]);
    t.wait_text("hello from the agent");
    // A second task from the new-task dialog: Enter takes the first agent.
    t.prefix(b"n");
    t.wait_text("New task");
    t.send(b"\t");
    t.send(b"second");
    t.send(b"\r");
    let screen = t.wait_for("two tasks", |s| badge_line(s, "second").is_some());
    println!("{screen}");
    assert!(
        badge_line(&screen, "first").is_some_and(|l| l.starts_with("working")),
        "{screen}"
    );
    // The pane sits right of the sidebar.
    let line = screen
        .lines()
        .find(|l| l.contains("hello from the agent"))
        .unwrap();
    assert!(line.find("hello").unwrap() >= 30, "{line}");
    // The new task has focus; prefix then 1 goes back to the first one.
    t.prefix(b"i");
    t.wait_text("Inspector: second (fake)");
    t.send(b"\x1b");
    t.wait_for("inspector closed", |s| !s.contains("Inspector:"));
    t.prefix(b"1");
    t.prefix(b"i");
    t.wait_text("Inspector: first (fake)");
    // ] and p step through the tasks, wrapping around ([ is copy mode).
    let inspect = |t: &mut Termic, key: &[u8], name: &str| {
        t.send(b"\x1b");
        t.wait_for("inspector closed", |s| !s.contains("Inspector:"));
        t.prefix(key);
        t.prefix(b"i");
        t.wait_text(&format!("Inspector: {name} (fake)"));
    };
    inspect(&mut t, b"]", "second");
    inspect(&mut t, b"]", "first");
    inspect(&mut t, b"p", "second");
    // Closing a task takes it off the sidebar and focuses what is left.
    t.send(b"\x1b");
    t.wait_for("inspector closed", |s| !s.contains("Inspector:"));
    t.prefix(b"x");
    t.wait_text("Close second? Its agent is stopped.");
    t.send(b"y");
    let s = t.wait_for("second closed", |s| badge_line(s, "second").is_none());
    assert!(badge_line(&s, "first").is_some(), "{s}");
    t.prefix(b"i");
    t.wait_text("Inspector: first (fake)");
}

#[test]
fn an_unknown_agent_is_reported_before_the_screen_is_taken() {
    let f = Fixture::new();
    let mut t = Termic::start(&f, &["run", "nosuch"]);
    assert_eq!(t.wait_exit(), 1);
    let s = t.wait_text("unknown agent nosuch");
    assert!(s.contains("claude, codex, grok, agy, opencode"), "{s}");
    assert!(
        !harness::contains(&t.raw(), b"\x1b[?1049h"),
        "the alternate screen was never entered"
    );
}

#[test]
fn a_wrong_value_in_config_toml_does_not_lock_the_user_out_of_running_tasks() {
    // Issue 33 item 5: on 0f06027 `termic attach` exited 1 until the file
    // was fixed, with the task still running out of reach.
    let f = Fixture::new();
    let out = f.cli(
        &f.work,
        &[
            "run",
            "--detach",
            "--name",
            "keep",
            "--",
            "sh",
            "-c",
            "echo KEEP-PANE; sleep 60",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    std::fs::create_dir_all(&f.config_dir).unwrap();
    std::fs::write(
        f.config_dir.join("config.toml"),
        "[terminal]\nscrollback = \"lots\"\n",
    )
    .unwrap();
    let mut t = Termic::start(&f, &["attach", "keep"]);
    let s = t.wait_text("KEEP-PANE");
    assert!(badge_line(&s, "keep").is_some(), "{s}");
    t.wait_text("the default is used");
    // `config check` still calls the file wrong.
    let check = f.cli(&f.work, &["config", "check"]);
    assert_eq!(check.status.code(), Some(1), "{check:?}");
    assert!(t.quit(), "termic did not quit");
}

#[test]
fn repeated_false_dones_earn_one_offer_of_hooks() {
    let f = Fixture::new();
    // Three turns that say done and then need the user a moment later: the
    // signature of Claude's idle title while a permission prompt waits.
    let turn = [
        hook("working", ""),
        hook("done", ""),
        "sleep 0.2".into(),
        hook("attention", ";kind=permission"),
        // The engine holds a hook attention for a second before showing it.
        "sleep 1.5".into(),
    ]
    .join("; ");
    let script = format!("sleep 1; {turn}; {turn}; {turn}; sleep 600");
    f.fake_sh_agent(&script);
    let t = Termic::start(&f, &["run", "fake", "--name", "fd"]);
    let s = t.wait_text("claude said done 3 times when it was waiting for you.");
    assert!(s.contains("Its hooks fix that: Ctrl-] then s."), "{s}");
}

#[test]
fn an_interrupt_earns_no_bell_and_no_notification() {
    let f = Fixture::new();
    let script = [
        "sleep 1".to_string(),
        hook("working", ""),
        "sleep 0.5".into(),
        hook("interrupted", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "int"]);
    t.wait_text("int");
    t.send(b"\x1b[O");
    wait_badge(&t, "int", "interrupted");
    let raw = t.raw();
    assert!(!raw.contains(&0x07), "no bell");
    assert!(!harness::contains(&raw, b"]777;notify"), "no notification");
}

#[test]
fn a_recording_replays_to_the_same_transitions() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let log = f.event_log();
    let dir = f.data_dir.join("rec");
    let mut t = Termic::start(
        &f,
        &[
            "--event-log",
            log.to_str().unwrap(),
            "--record",
            dir.to_str().unwrap(),
            "run",
            "fake",
            "--name",
            "rec",
        ],
    );
    wait_badge(&t, "rec", "needs you [permission]");
    t.send(b"yes\r");
    wait_badge(&t, "rec", "done");
    t.prefix(b"q");
    t.wait_text("still running");
    t.send(b"y");
    assert_eq!(t.wait_exit(), 0);

    let moves = |text: &str| -> Vec<(String, String, String)> {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .map(|v| {
                (
                    v["from"].as_str().unwrap().into(),
                    v["to"].as_str().unwrap().into(),
                    v["rule"].as_str().unwrap().into(),
                )
            })
            .filter(|(_, to, _): &(String, String, String)| to != "exited")
            .collect()
    };
    let live = moves(&std::fs::read_to_string(&log).unwrap());
    let (out, _) = replay_json(&only_recording(&dir), &[]);
    let replayed = moves(&out);
    assert_eq!(live.len(), 4, "{live:?}");
    assert_eq!(replayed, live);
}

/// The one recording `--record DIR` wrote.
fn only_recording(dir: &std::path::Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// `termic replay --json [extra] FILE`: (stdout, stderr).
fn replay_json(file: &std::path::Path, extra: &[&str]) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["replay", "--json"])
        .args(extra)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_recording_of_a_killed_termic_replays_no_state_it_never_reached() {
    // Claude's busy title, then silence: live, byte-quiet would ask "needs
    // you" 12 s later, but termic is killed (SIGKILL: no end marker) first.
    let f = Fixture::new();
    f.fake_sh_agent("printf '\\033]0;◐ Claude Code\\007working'; sleep 600");
    let dir = f.data_dir.join("rec");
    let mut t = Termic::start(
        &f,
        &[
            "--record",
            dir.to_str().unwrap(),
            "run",
            "fake",
            "--name",
            "cut",
        ],
    );
    wait_badge(&t, "cut", "working");
    let cast = only_recording(&dir);
    // The recording reaches the disk at the runtime's next tick (the hooks
    // re-check, every 5 s while a task works); kill right after, well
    // before the 12 s byte-quiet.
    assert!(
        crate::wait::eventually(std::time::Duration::from_secs(10), || {
            std::fs::read_to_string(&cast)
                .unwrap_or_default()
                .contains("Claude Code")
        }),
        "the recording never reached the disk"
    );
    // SAFETY: a signal to the termic child this test started.
    assert_eq!(unsafe { libc::kill(t.pid() as i32, libc::SIGKILL) }, 0);
    t.wait_exit();
    let text = std::fs::read_to_string(&cast).unwrap();
    assert!(!text.contains("termic:end"), "killed: no end marker");
    let (out, err) = replay_json(&cast, &[]);
    let states: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["to"].to_string())
        .collect();
    assert_eq!(states, ["\"working\""], "{out}");
    assert!(err.contains("has no end marker"), "{err}");
    // The same recording with timers run on: the needs-you that live never
    // reached (the old fixed 60 s tail showed it as if it had happened).
    let (out, _) = replay_json(&cast, &["--tail-ms", "60000"]);
    assert!(out.contains("\"to\":\"needs_you\""), "{out}");
}

#[test]
fn an_agent_that_exits_shows_its_exit_code() {
    let f = Fixture::new();
    f.fake_sh_agent("echo bye; exit 3");
    let t = Termic::start(&f, &["run", "fake", "--name", "gone"]);
    wait_badge(&t, "gone", "exited 3");
}

#[test]
fn the_prefix_key_comes_from_config() {
    let f = Fixture::new();
    f.config(&format!(
        "[ui]\nprefix_key = \"ctrl-b\"\n\n{}",
        fake_agent_config("sleep 600")
    ));
    let mut t = Termic::start(&f, &["run", "fake", "--name", "p"]);
    t.wait_text("Ctrl-b ? for help");
    t.send(b"\x02?");
    t.wait_text("Press Ctrl-b then:");
}

#[test]
fn run_with_a_command_after_the_dashes_runs_it_as_a_task() {
    let f = Fixture::new();
    run_a_command_from(&f, &f.work.clone());
}

#[test]
fn run_with_a_command_from_home_and_from_the_root_directory() {
    // Where a new user starts termic: HOME and `/` (not repositories).
    for from_root in [false, true] {
        let f = Fixture::new();
        let cwd = if from_root {
            std::path::PathBuf::from("/")
        } else {
            f.home.clone()
        };
        run_a_command_from(&f, &cwd);
    }
}

/// `termic run -- sh -c ...` started in `cwd`: the task shows the command's
/// output, reads working while it prints, and exits with no guess.
fn run_a_command_from(f: &Fixture, cwd: &std::path::Path) {
    let log = f.event_log();
    let t = Termic::start_in(
        f,
        cwd,
        &[
            "--event-log",
            log.to_str().unwrap(),
            "run",
            "--",
            "sh",
            "-c",
            "echo hi; sleep 1",
        ],
        &[],
    );
    let screen = wait_badge(&t, "sh", "exited");
    assert!(screen.contains("hi"), "{screen}");
    let steps: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| {
            format!(
                "{}:{}",
                v["to"].as_str().unwrap(),
                v["rule"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        steps,
        ["working:output_flowing", "exited:exit"],
        "from {}",
        cwd.display()
    );
}

#[test]
fn run_with_a_program_that_is_not_an_agent_says_how_to_run_it_as_a_command() {
    let f = Fixture::new();
    let mut t = Termic::start(&f, &["run", "bash"]);
    assert_eq!(t.wait_exit(), 1);
    t.wait_text("run it as a command: termic run -- bash");
}

#[test]
fn termic_inside_one_of_its_own_tasks_refuses_to_nest_and_says_how_to_anyway() {
    // Issue 33 item 10: on 0f06027 it attached a nested client silently.
    let f = Fixture::new();
    let mut t = Termic::start_with_env(&f, &[], &[("TERMIC_TASK_ID", "0123456789abcdef")]);
    assert_eq!(t.wait_exit(), 1);
    t.wait_text("env -u TERMIC_TASK_ID termic");
    assert!(
        !f.data_dir.join("server.log").exists(),
        "no server was started"
    );
}

#[test]
fn the_new_task_dialog_runs_a_typed_command() {
    let f = Fixture::new();
    let mut t = Termic::start(&f, &["run", "--", "sh", "-c", "sleep 30"]);
    wait_badge(&t, "sh", "idle");
    t.prefix(b"n");
    t.wait_text("New task");
    // Left from the first agent wraps to the last choice: "command".
    t.send(b"\x1b[D");
    t.wait_text("Command  (type a command");
    t.send(b"\t");
    t.send(b"sh -c 'echo from-the-dialog; sleep 30'");
    t.send(b"\t");
    t.send(b"typed");
    t.send(b"\r");
    let screen = t.wait_for("the typed command runs", |s| {
        badge_line(s, "typed").is_some() && s.contains("from-the-dialog")
    });
    assert!(screen.contains("from-the-dialog"), "{screen}");
}

#[test]
fn the_new_task_dialog_keeps_a_missing_command_and_runs_shell_syntax_in_the_shell() {
    // Issue 33 items 2 and 3: on 0f06027 a missing program closed the
    // dialog with portable-pty's text and the whole PATH, and `;` reached
    // `sleep` as an argument ("invalid time interval '5;'").
    let f = Fixture::new();
    let mut t = Termic::start(&f, &["run", "--", "sh", "-c", "sleep 30"]);
    wait_badge(&t, "sh", "idle");
    t.prefix(b"n");
    t.wait_text("New task");
    t.send(b"\x1b[D");
    t.wait_text("Command  (type a command");
    t.send(b"\t");
    t.send(b"nosuchcmd --flag");
    t.send(b"\r");
    let screen = t.wait_text("nosuchcmd: command not found");
    assert!(
        screen.contains("Command  nosuchcmd --flag"),
        "the dialog and its input stay: {screen}"
    );
    assert!(!screen.contains("PATH"), "{screen}");
    // Fix it in place: the typed text is still there to edit.
    for _ in 0.."nosuchcmd --flag".len() {
        t.send(b"\x7f");
    }
    t.send(b"sleep 0.1; echo semi-$((6*7)); sleep 30");
    t.send(b"\r");
    let screen = t.wait_for("the line ran in the shell", |s| s.contains("semi-42"));
    assert!(
        badge_line(&screen, "sleep").is_some(),
        "named after what was typed: {screen}"
    );
}

#[test]
fn claude_typed_at_a_shell_task_prompt_shows_in_the_sidebar_as_bash_then_claude() {
    // Issue 12 item 3, where the user sees it: the sidebar names the agent
    // in the foreground of a shell task, and the shell again once it exits.
    let f = Fixture::new();
    let claude = f.bin.join("claude");
    std::fs::write(&claude, "#!/bin/bash\nread -r line\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut t = Termic::start_in(
        &f,
        &f.home.clone(),
        &["run", "--", "/bin/bash", "--norc"],
        &[],
    );
    t.wait_for("bash in the sidebar", |s| s.contains("bash"));
    t.wait_for("bash's prompt", |s| s.contains("bash-"));
    t.send(b"claude\r");
    t.wait_text("bash > claude");
    t.send(b"bye\r");
    t.wait_for("claude left the foreground", |s| {
        !s.contains("bash > claude")
    });
}
