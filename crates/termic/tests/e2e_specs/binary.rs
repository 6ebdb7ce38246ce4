//! The real `termic` binary: `termic run` in a PTY (its screen rendered with
//! vt100), `termic hooks install|remove|status`, with the fixture's HOME,
//! TERMIC_CONFIG_DIR and TERMIC_DATA_DIR, and simulated agents configured as
//! the built-in agents' commands in config.toml.

use std::path::Path;
use std::process::{Command, Output};

use portable_pty::CommandBuilder;
use serde_json::Value;

use super::support::{sim_binary, Fixture};
use crate::termic_pty::Termic;

impl Fixture {
    pub fn config_dir(&self) -> std::path::PathBuf {
        self.root.path().join("config")
    }

    pub fn data_dir(&self) -> std::path::PathBuf {
        self.root.path().join("data")
    }

    /// config.toml: the wizard already seen, no desktop notifications, and
    /// each `(agent, scenario, extra args)` run by the simulator.
    pub fn config(&self, agents: &[(&str, &str, &[&str])], extra: &str) {
        let sim = sim_binary();
        let mut text =
            String::from("[ui]\nwizard_shown = true\n\n[notifications]\ndesktop = false\n\n");
        for (agent, scenario, args) in agents {
            let mut argv = vec![
                sim.display().to_string(),
                agent.to_string(),
                scenario.to_string(),
            ];
            argv.extend(args.iter().map(|a| a.to_string()));
            let quoted: Vec<String> = argv.iter().map(|a| format!("{a:?}")).collect();
            text.push_str(&format!(
                "[agents.{agent}]\ncommand = [{}]\n\n",
                quoted.join(", ")
            ));
        }
        text.push_str(extra);
        std::fs::write(self.config_dir().join("config.toml"), text).unwrap();
    }

    fn apply_env(&self, cmd: &mut Command) {
        cmd.env("HOME", self.home())
            .env("TERMIC_CONFIG_DIR", self.config_dir())
            .env("TERMIC_DATA_DIR", self.data_dir())
            .env_remove("TERMIC_EVENT_LOG")
            .current_dir(self.project());
    }

    /// `termic ARGS` to completion (not in a PTY: no prompts).
    pub fn termic(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_termic"));
        cmd.args(args).stdin(std::process::Stdio::null());
        self.apply_env(&mut cmd);
        cmd.output().unwrap()
    }

    /// `termic ARGS` that must succeed: its stdout (the failure shows both
    /// streams).
    pub fn termic_ok(&self, args: &[&str]) -> String {
        let out = self.termic(args);
        assert!(
            out.status.success(),
            "termic {args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `termic ARGS` for a PTY, with the fixture's HOME and termic dirs.
    pub fn pty_command(&self, args: &[&str]) -> CommandBuilder {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_termic"));
        cmd.args(args);
        cmd.cwd(self.project());
        cmd.env("HOME", self.home());
        cmd.env("TERMIC_CONFIG_DIR", self.config_dir());
        cmd.env("TERMIC_DATA_DIR", self.data_dir());
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("TERMIC_EVENT_LOG");
        cmd.env_remove("TMUX");
        cmd
    }

    /// `termic ARGS` running in a PTY.
    pub fn start_termic(&self, args: &[&str]) -> Termic {
        Termic::spawn(self.pty_command(args))
    }

    /// `termic hooks status --json`, as `{agent: {target: state key}}` pairs.
    pub fn hooks_status(&self) -> Vec<(String, String, String)> {
        let out = self.termic(&["hooks", "status", "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut rows = Vec::new();
        for a in v["agents"].as_array().unwrap() {
            for t in a["targets"].as_array().unwrap() {
                rows.push((
                    a["agent"].as_str().unwrap_or("").to_owned(),
                    t["target"].as_str().unwrap_or("").to_owned(),
                    t["state"]["key"].as_str().unwrap_or("").to_owned(),
                ));
            }
        }
        rows
    }
}

/// Every file under `dir` with its bytes (a tree snapshot).
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// config.toml's setting that keeps termic from answering the simulator's
/// OSC 7501 probe (the simulated Claude then reports through its hooks).
pub const NO_PROBE: &str = "[terminal]\nnative_probe_reply = false\n";

/// Stops the fixture's server however the test ends.
pub struct StopOnDrop<'a>(pub &'a Fixture);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.termic(&["server", "stop"]);
    }
}
