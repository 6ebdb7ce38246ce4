//! The real `termic` binary: `termic run` in a PTY (its screen rendered with
//! vt100), `termic hooks install|remove|status`, with the fixture's HOME,
//! TERMIC_CONFIG_DIR and TERMIC_DATA_DIR, and simulated agents configured as
//! the built-in agents' commands in config.toml.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};
use serde_json::Value;

use super::support::{sim_binary, Fixture};

pub const ROWS: u16 = 40;
pub const COLS: u16 = 140;

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

/// `termic ARGS` running in a PTY, its output fed to a vt100 screen.
pub struct TermicPty {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl TermicPty {
    /// `termic ARGS` with the fixture's HOME and termic dirs.
    pub fn command(fx: &Fixture, args: &[&str]) -> CommandBuilder {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_termic"));
        cmd.args(args);
        cmd.cwd(fx.project());
        cmd.env("HOME", fx.home());
        cmd.env("TERMIC_CONFIG_DIR", fx.config_dir());
        cmd.env("TERMIC_DATA_DIR", fx.data_dir());
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("TERMIC_EVENT_LOG");
        cmd.env_remove("TMUX");
        cmd
    }

    pub fn start(fx: &Fixture, args: &[&str]) -> TermicPty {
        TermicPty::spawn(TermicPty::command(fx, args))
    }

    pub fn spawn(cmd: CommandBuilder) -> TermicPty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(ROWS).unwrap(),
            std::num::NonZeroU16::new(COLS).unwrap(),
            0,
        )));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let s = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 16384];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                s.lock().unwrap().process(&buf[..n]);
            }
        });
        TermicPty {
            child,
            writer: pair.master.take_writer().unwrap(),
            screen,
            _master: pair.master,
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    pub fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    pub fn wait_screen(
        &self,
        what: &str,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> String {
        let end = Instant::now() + timeout;
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if Instant::now() > end {
                panic!("screen never showed {what} in {timeout:?}:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Quit through the prefix key (ctrl-] then q, and y to confirm ending
    /// running tasks) and wait for the exit.
    pub fn quit(&mut self) -> bool {
        self.send(b"\x1dq");
        std::thread::sleep(Duration::from_millis(300));
        self.send(b"y");
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for TermicPty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
