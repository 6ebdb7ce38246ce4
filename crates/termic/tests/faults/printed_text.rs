//! Issue 27: printed text is data. A directory a repository was cloned
//! into, a task's name, a program's name, a config path or key and a
//! recording's contents can all hold terminal control (here the issue's
//! clipboard write `ESC ] 52 ; c ; ... BEL` and screen clear `ESC [ 2 J`,
//! an 8-bit CSI and a right-to-left override). No CLI verb may write any
//! of it to the user's terminal, on stdout or stderr, and what it names
//! must still be recognisable, cleaned as the TUI cleans it.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::harness::{contains, Fixture, Termic};
use crate::served::{text, Served};

/// The hostile text: OSC 52 (a clipboard write), CSI 2 J (clear the
/// screen), a C1 CSI (U+009B) and RIGHT-TO-LEFT OVERRIDE.
const HOSTILE: &str = "\x1b]52;c;aGk=\x07\x1b[2J\u{9b}31m\u{202e}";
/// [`HOSTILE`] as termic shows it: what a terminal would act on is gone.
const SHOWN: &str = "]52;c;aGk=[2J31m";

/// Fails when `bytes` (one stream of one command) holds anything a
/// terminal would act on: ESC, BEL or another C0 control but the newline,
/// DEL, a C1 control or a bidirectional control, or bytes that are not
/// UTF-8 (a raw 8-bit C1).
fn assert_inert(what: &str, bytes: &[u8]) {
    let Ok(s) = std::str::from_utf8(bytes) else {
        panic!("{what}: not UTF-8: {bytes:?}");
    };
    let bad: Vec<char> = s
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
                || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}')
        })
        .collect();
    assert!(bad.is_empty(), "{what} wrote {bad:?} to the terminal:\n{s}");
}

/// Both streams of `out` are inert; returns them.
fn inert(what: &str, out: &Output) -> (String, String) {
    assert_inert(&format!("{what} (stdout)"), &out.stdout);
    assert_inert(&format!("{what} (stderr)"), &out.stderr);
    (text(&out.stdout), text(&out.stderr))
}

/// termic with the fixture's env, `env` on top, run in `cwd`.
fn termic(f: &Fixture, cwd: &Path, env: &[(&str, &OsStr)], args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_termic"));
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .env("HOME", &f.home)
        .env("TERMIC_CONFIG_DIR", &f.config_dir)
        .env("TERMIC_DATA_DIR", &f.data_dir)
        .env("PATH", f.path_var());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// A directory named with [`HOSTILE`] under `parent`.
fn hostile_dir(parent: &Path, prefix: &str) -> PathBuf {
    let dir = parent.join(format!("{prefix}{HOSTILE}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_hostile_directory_task_name_and_program_reach_no_terminal_through_the_task_verbs() {
    let s = Served::new("sleep 600");
    let f = &s.f;
    let dir = hostile_dir(&f.work, "clone");
    // A program on PATH named with the hostile text.
    let program = format!("prog{HOSTILE}");
    let path = f.bin.join(&program);
    std::fs::write(&path, "#!/bin/sh\nexec sleep 600\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let name = format!("name{HOSTILE}");
    let run = |args: &[&str]| termic(f, &dir, &[], args);

    let out = run(&["run", "--detach", "fake", "--name", &name]);
    let (started, _) = inert("run --detach --name", &out);
    assert!(out.status.success(), "{started}");
    assert!(
        started.contains(&format!("Started task name{SHOWN}")),
        "{started}"
    );
    let out = run(&["run", "--detach", "--name", "p", "--", &program]);
    let (started, _) = inert("run --detach -- PROGRAM", &out);
    assert!(out.status.success(), "{started}");
    assert!(started.contains(&format!("(prog{SHOWN})")), "{started}");

    // Errors that name the agent, or the directory.
    let out = run(&["run", "--detach", &format!("agent{HOSTILE}")]);
    let (_, err) = inert("run --detach UNKNOWN-AGENT", &out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("agent{SHOWN}")), "{err}");
    let out = run(&["run", "--detach", "--worktree", "fake"]);
    let (_, err) = inert("run --detach --worktree outside git", &out);
    assert_eq!(out.status.code(), Some(1), "{err}");

    // The listing: the table shows the names cleaned, the JSON keeps them
    // exactly (escaped, not dropped).
    let out = run(&["ls"]);
    let (table, _) = inert("ls", &out);
    assert!(table.contains(&format!("name{SHOWN}")), "{table}");
    assert!(table.contains(&format!("clone{SHOWN}")), "{table}");
    assert!(table.contains(&format!("prog{SHOWN}")), "{table}");
    let out = run(&["ls", "--json"]);
    let (json, _) = inert("ls --json", &out);
    let rows: Vec<Value> = serde_json::from_str(&json).unwrap();
    let row = rows.iter().find(|r| r["id"] == 1).unwrap();
    assert_eq!(row["name"], name.as_str());
    assert_eq!(row["cwd"], dir.to_str().unwrap());
    assert!(
        rows.iter().any(|r| r["agent"] == program.as_str()),
        "{json}"
    );

    // The verbs that take a task, by its hostile name and by one no task has.
    let out = run(&["send", &name, "hi"]);
    inert("send", &out);
    assert!(out.status.success());
    let out = run(&["wait", &name, "--for", "done", "--timeout", "0.2"]);
    let (said, _) = inert("wait", &out);
    assert_eq!(said.trim(), "timeout");
    let unknown = format!("gone{HOSTILE}");
    let unknown = unknown.as_str();
    for verb in [
        vec!["send", unknown, "hi"],
        vec!["wait", unknown, "--for", "done"],
        vec!["kill", unknown],
    ] {
        let out = run(&verb);
        let (_, err) = inert(&format!("{} UNKNOWN-TASK", verb[0]), &out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("gone{SHOWN}")), "{err}");
    }
    // A usage error repeats the argument it did not expect.
    let out = run(&["kill", &name, unknown]);
    let (_, err) = inert("kill with one argument too many", &out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let out = run(&["kill", &name]);
    inert("kill", &out);
    assert!(out.status.success());
    assert!(s.ls().iter().all(|r| r["name"] != name.as_str()));
}

#[test]
fn a_hostile_config_dir_and_key_reach_no_terminal_through_config_and_hooks() {
    let f = Fixture::new();
    let config_dir = hostile_dir(&f.home, "cfg");
    // TOML's \u escapes put the hostile text in a key termic does not know.
    std::fs::write(
        config_dir.join("config.toml"),
        "\"key\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b31m\\u202e\" = 1\n",
    )
    .unwrap();
    let env = [("TERMIC_CONFIG_DIR", config_dir.as_os_str())];
    let run = |args: &[&str]| termic(&f, &f.work, &env, args);

    let out = run(&["config", "path"]);
    let (path, _) = inert("config path", &out);
    assert!(path.contains(&format!("cfg{SHOWN}/config.toml")), "{path}");
    let out = run(&["config", "check"]);
    let (said, warned) = inert("config check", &out);
    assert_eq!(out.status.code(), Some(3), "{said}{warned}");
    assert!(warned.contains(&format!("key{SHOWN}")), "{warned}");
    let out = run(&["hooks", "status"]);
    let (_, warned) = inert("hooks status", &out);
    assert!(out.status.success(), "{warned}");
    inert("hooks status --json", &run(&["hooks", "status", "--json"]));
    let out = run(&["hooks", "install", &format!("agent{HOSTILE}"), "--dry-run"]);
    let (_, err) = inert("hooks install UNKNOWN-AGENT", &out);
    assert_eq!(out.status.code(), Some(2), "{err}");
}

#[test]
fn a_hostile_recording_and_its_name_reach_no_terminal_through_replay() {
    let f = Fixture::new();
    let dir = hostile_dir(&f.work, "casts");
    let missing = dir.join("missing.cast");
    let out = termic(&f, &f.work, &[], &["replay", missing.to_str().unwrap()]);
    let (_, err) = inert("replay MISSING", &out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("casts{SHOWN}")), "{err}");

    // A Codex recording whose status reports carry the hostile text where
    // the replay prints them (the kind; the message is cleaned already),
    // and no end marker, so the note names the file.
    let cast = dir.join("codex.cast");
    let header = serde_json::json!({
        "version": 2, "width": 80, "height": 24, "timestamp": 0,
        "termic": { "agent": "codex" },
    });
    let kind = "perm\u{9b}31m\u{202e}x";
    let events = [
        (0.1, "\x1b]7501;state=working:app=codex\x07".to_string()),
        (
            1.0,
            format!("\x1b]7501;state=blocked:app=codex:kind={kind}:msg=PGE+\x07"),
        ),
    ];
    let mut recording = header.to_string() + "\n";
    for (at, data) in events {
        recording += &(serde_json::json!([at, "o", data]).to_string() + "\n");
    }
    std::fs::write(&cast, recording).unwrap();
    let cast = cast.to_str().unwrap();
    for args in [
        vec!["replay", cast],
        vec!["replay", cast, "--log"],
        vec!["replay", cast, "--json"],
    ] {
        let out = termic(&f, &f.work, &[], &args);
        let (said, err) = inert(&args.join(" "), &out);
        assert!(out.status.success(), "{said}{err}");
        if args.contains(&"--json") {
            // JSON keeps the text exactly, written as \u escapes.
            let last: Value = serde_json::from_str(said.lines().last().unwrap()).unwrap();
            assert_eq!(last["attention"]["kind"], kind, "{said}");
        } else {
            assert!(
                said.contains("perm31mx"),
                "the kind is shown, cleaned: {said}"
            );
        }
        assert!(err.contains(&format!("casts{SHOWN}")), "{err}");
    }
}

#[test]
fn attach_prints_a_hostile_config_key_and_task_name_cleaned() {
    let f = Fixture::new();
    f.config("\"key\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b31m\\u202e\" = 1\n");
    let dir = hostile_dir(&f.work, "clone");
    let task = format!("gone{HOSTILE}");
    // A terminal: attach checks for one before anything else. Its own
    // escape sequences (raw mode, the alternate screen) are termic's; the
    // hostile ones must not be among them.
    let mut t = Termic::start_in(&f, &dir, &["attach", &task], &[]);
    assert_eq!(t.wait_exit(), 1, "{}", t.screen());
    let raw = t.raw();
    for signature in [&b"\x1b]52;"[..], b"aGk=\x07", b"\xc2\x9b", b"\xe2\x80\xae"] {
        assert!(
            !contains(&raw, signature),
            "attach wrote {:?}: {}",
            String::from_utf8_lossy(signature),
            String::from_utf8_lossy(&raw)
        );
    }
    for shown in [format!("key{SHOWN}"), format!("gone{SHOWN}")] {
        assert!(
            contains(&raw, shown.as_bytes()),
            "{shown:?} not shown: {}",
            String::from_utf8_lossy(&raw)
        );
    }
}
