//! Every command's `--help` teaches: long text, examples and exit codes,
//! walked from the real clap tree (a new subcommand is covered as it lands)
//! and printed by the real binary.

use clap::CommandFactory;

use crate::cli_fixture::text;

/// Every command path, e.g. `[]`, `["hooks"]`, `["hooks", "install"]`.
fn paths(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let mut p = prefix.clone();
        p.push(sub.get_name().to_string());
        paths(sub, p, out);
    }
}

#[test]
fn every_command_help_has_long_text_examples_and_exit_codes() {
    let mut all = Vec::new();
    paths(&termic::commands::Cli::command(), Vec::new(), &mut all);
    assert!(all.len() >= 12, "{all:?}");
    let tmp = tempfile::tempdir().unwrap();
    for path in all {
        let run = |flag: &str| -> String {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
                .args(&path)
                .arg(flag)
                .env("HOME", tmp.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{path:?} {flag}");
            text(&out.stdout)
        };
        let long = run("--help");
        let name = format!("termic {} --help", path.join(" "));
        assert!(
            long.contains("Examples:\n  termic"),
            "{name} has no examples:\n{long}"
        );
        assert!(
            long.contains("Exit codes: 0"),
            "{name} has no exit codes:\n{long}"
        );
        // The long text is there: more than the one-line summary and the
        // options (`demo --help` and `run --help` once printed only that).
        let body = long.split("Usage:").next().unwrap_or_default();
        assert!(
            body.lines().filter(|l| !l.trim().is_empty()).count() >= 2
                || long
                    .split("Usage:")
                    .nth(1)
                    .is_some_and(|t| t.contains("Examples:")),
            "{name} has no long text:\n{long}"
        );
        assert!(
            !long.contains("TaskId") && !long.contains("Some("),
            "{name}"
        );
    }
}

#[test]
fn demo_and_run_help_keep_their_long_text() {
    let help = |args: &[&str]| {
        text(
            &std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
                .args(args)
                .output()
                .unwrap()
                .stdout,
        )
    };
    let demo = help(&["demo", "--help"]);
    assert!(demo.contains("Makes a throwaway directory"), "{demo}");
    assert!(demo.contains("termic demo --speed 2 --keep"), "{demo}");
    let run = help(&["run", "--help"]);
    assert!(run.contains("A word before -- is always an agent"), "{run}");
    assert!(run.contains("termic run -- bash"), "{run}");
    let replay = help(&["replay", "--help"]);
    assert!(
        replay.contains("termic replay session.cast --log"),
        "{replay}"
    );
}

#[test]
fn failures_say_what_failed_why_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
            .args(args)
            .env("HOME", tmp.path())
            .env("TERMIC_CONFIG_DIR", tmp.path().join("config"))
            .env("TERMIC_DATA_DIR", tmp.path().join("data"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    // No terminal: the workspace says so and what works without one.
    let out = run(&[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(err.contains("Run termic in a terminal window"), "{err}");
    // Not a recording: which file, why, and where recordings come from.
    let bad = tmp.path().join("notes.txt");
    std::fs::write(&bad, "hello\n").unwrap();
    let out = run(&["replay", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("notes.txt"), "{err}");
    assert!(err.contains("termic --record DIR"), "{err}");
    // An unknown agent: the known ones, where to define one, the command form.
    let out = run(&["run", "nosuch"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[agents.nosuch]") && err.contains("termic run -- nosuch"),
        "{err}"
    );
    for out in [run(&[]), run(&["run", "nosuch"])] {
        let err = text(&out.stderr);
        assert!(!err.contains("Os {") && !err.contains("TaskId"), "{err}");
    }
}

#[test]
fn the_workspace_flags_are_in_the_help_only_where_they_act() {
    let help = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        text(&out.stdout)
    };
    let flags = ["--event-log", "--record <DIR>", "--record-input"];
    for acts in [&[][..], &["run"], &["attach"], &["demo"]] {
        let h = help(acts);
        for f in flags {
            assert!(h.contains(f), "termic {acts:?} --help lacks {f}:\n{h}");
        }
    }
    for idle in [
        &["ls"][..],
        &["send"],
        &["kill"],
        &["wait"],
        &["hooks"],
        &["hooks", "install"],
        &["hooks", "remove"],
        &["hooks", "status"],
        &["config"],
        &["replay"],
        &["completions"],
        &["server"],
        &["server", "stop"],
        // A task's event log and recording are its client's: the server
        // has none of its own (issue 28).
        &["server", "run"],
        &["rename"],
    ] {
        let h = help(idle);
        for f in flags {
            assert!(!h.contains(f), "termic {idle:?} --help shows {f}:\n{h}");
        }
    }
}

#[test]
fn the_workspace_flags_parse_before_and_after_run_and_are_refused_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
            .args(args)
            .env("HOME", tmp.path())
            .env("TERMIC_CONFIG_DIR", tmp.path().join("config"))
            .env("TERMIC_DATA_DIR", tmp.path().join("data"))
            .env_remove("TERMIC_EVENT_LOG")
            .current_dir(tmp.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    // Parsed either way: the run gets as far as the unknown agent.
    for args in [
        &["--event-log", "ev.jsonl", "run", "nosuch"][..],
        &["run", "--event-log", "ev.jsonl", "nosuch"],
        &["run", "nosuch", "--record", "casts", "--record-input"],
    ] {
        let out = run(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("[agents.nosuch]"), "{args:?}: {err}");
    }
    // After a command they do nothing for: clap does not know them.
    let out = run(&["ls", "--event-log", "ev.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--event-log"));
    // Before it: termic says where they act, and does not run the command.
    let out = run(&["--record", "casts", "ls"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("run, attach or demo"), "{err}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}
