//! Runs the real `termic` binary in a PTY (termic_pty) with a fixture HOME,
//! config and data dir, and agents that are small sh scripts.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use portable_pty::CommandBuilder;

#[path = "../termic_pty/mod.rs"]
mod termic_pty;
pub use termic_pty::*;

/// A throwaway HOME, termic config and data dirs, a work dir, and a bin dir
/// that is the only thing on PATH besides a few basic tools.
pub struct Fixture {
    _tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub config_dir: PathBuf,
    pub data_dir: PathBuf,
    pub work: PathBuf,
    pub bin: PathBuf,
    pub tools: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let dir = |name: &str| {
            let p = root.join(name);
            std::fs::create_dir_all(&p).unwrap();
            p
        };
        let fixture = Fixture {
            home: dir("home"),
            config_dir: dir("config"),
            data_dir: dir("data"),
            work: dir("work"),
            bin: dir("bin"),
            tools: dir("tools"),
            _tmp: tmp,
        };
        // Only these tools are on PATH, so agent detection sees exactly the
        // fake agents a test puts in `bin`.
        for tool in [
            "sh", "printf", "sleep", "cat", "echo", "env", "git", "true", "stty", "head", "od",
        ] {
            for dir in ["/usr/bin", "/bin"] {
                let src = Path::new(dir).join(tool);
                if src.exists() {
                    let _ = std::os::unix::fs::symlink(&src, fixture.tools.join(tool));
                    break;
                }
            }
        }
        fixture
    }

    pub fn path_var(&self) -> String {
        format!("{}:{}", self.bin.display(), self.tools.display())
    }

    /// Puts an executable named `name` on PATH (a stand-in for an agent CLI).
    /// It answers `--version` like Claude Code 2.1.332 and otherwise waits.
    pub fn fake_agent(&self, name: &str) {
        let path = self.bin.join(name);
        let script = "#!/bin/sh\n[ \"$1\" = --version ] && { echo '2.1.332 (Claude Code)'; exit 0; }\nexec sleep 600\n";
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Writes termic's config.toml.
    pub fn config(&self, toml: &str) {
        std::fs::write(self.config_dir.join("config.toml"), toml).unwrap();
    }

    /// Defines agent `fake` (claude-based) running `script` with sh.
    pub fn fake_sh_agent(&self, script: &str) {
        self.config(&fake_agent_config(script));
    }

    /// The termic CLI (not the workspace) run in `cwd` with the fixture's env.
    pub fn cli(&self, cwd: &Path, args: &[&str]) -> std::process::Output {
        self.cli_with_env(cwd, args, &[])
    }

    /// [`Fixture::cli`] with `env` added.
    pub fn cli_with_env(
        &self,
        cwd: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("HOME", &self.home)
            .env("TERMIC_CONFIG_DIR", &self.config_dir)
            .env("TERMIC_DATA_DIR", &self.data_dir)
            .env("PATH", self.path_var())
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    pub fn event_log(&self) -> PathBuf {
        self.data_dir.join("events.jsonl")
    }
}

// `Termic` itself (PTY, screen, waits) is shared with the e2e specs; this
// file adds the constructors for this fixture.
impl Termic {
    pub fn start(fixture: &Fixture, args: &[&str]) -> Termic {
        Termic::start_with_env(fixture, args, &[])
    }

    /// termic with only the fixture's env (HOME, dirs, PATH) plus `env`.
    pub fn start_with_env(fixture: &Fixture, args: &[&str], env: &[(&str, &str)]) -> Termic {
        Termic::start_in(fixture, &fixture.work, args, env)
    }

    /// [`Termic::start_with_env`] started in `cwd` instead of the work dir.
    pub fn start_in(fixture: &Fixture, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Termic {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_termic"));
        cmd.args(args);
        cmd.cwd(cwd);
        cmd.env_clear();
        cmd.env("HOME", &fixture.home);
        cmd.env("TERMIC_CONFIG_DIR", &fixture.config_dir);
        cmd.env("TERMIC_DATA_DIR", &fixture.data_dir);
        cmd.env("PATH", fixture.path_var());
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        Termic::spawn(cmd)
    }
}

/// The sidebar part of a screen line.
pub fn sidebar(line: &str) -> String {
    line.chars().take(29).collect::<String>().trim().to_string()
}

/// The sidebar line under the task named `name`: its badge and time.
pub fn badge_line(screen: &str, name: &str) -> Option<String> {
    let mut lines = screen.lines();
    while let Some(line) = lines.next() {
        if sidebar(line).contains(name) {
            return lines.next().map(sidebar);
        }
    }
    None
}

/// Waits until the sidebar line under `task` starts with `badge`.
pub fn wait_badge(t: &Termic, task: &str, badge: &str) -> String {
    t.wait_for(&format!("{task} badge {badge}"), |s| {
        badge_line(s, task).is_some_and(|l| l.starts_with(badge))
    })
}

/// A fake agent's turn: working, then needs you (permission) until a line
/// is typed, then done.
pub fn turn_script() -> String {
    [
        "sleep 1".to_string(),
        hook("working", ""),
        "sleep 1".into(),
        hook("attention", ";kind=permission"),
        "read answer".into(),
        "echo got:$answer".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ")
}

/// config.toml text defining agent `fake` (claude-based) running `script`
/// with sh, escaped for a TOML basic string.
pub fn fake_agent_config(script: &str) -> String {
    let escaped = script.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[agents.fake]\nbase = \"claude\"\ncommand = [\"sh\", \"-c\", \"{escaped}\"]\n")
}

/// A shell command that prints a termic hook message for this task.
pub fn hook(event: &str, fields: &str) -> String {
    format!("printf '\\033]777;termic;v1;{event};%s{fields}\\007' \"$TERMIC_TASK_ID\"")
}

/// What a task's PTY got from the diff view's `S` (issue 32): one
/// bracketed paste of the review prompt holding each of `parts` (a
/// comment's file, line or hunk, quoted line and text), then Enter.
pub fn assert_comments_prompt(got: &str, parts: &[&str]) {
    assert!(
        got.starts_with("\x1b[200~Review comments on your changes:"),
        "{got:?}"
    );
    for part in parts {
        assert!(got.contains(part), "{part:?} in {got:?}");
    }
    assert!(
        got.contains("\x1b[201~\n"),
        "one paste, then Enter: {got:?}"
    );
}
