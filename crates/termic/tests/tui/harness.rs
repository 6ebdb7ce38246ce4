//! Runs the real `termic` binary in a PTY with a fixture HOME, config and
//! data dir, and reads its screen with a vt100 parser. Every wait polls the
//! screen with a generous timeout; nothing asserts on a fixed sleep.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

/// How long any wait may take before the test fails (CI machines are slow).
pub const TIMEOUT: Duration = Duration::from_secs(30);

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

    pub fn event_log(&self) -> PathBuf {
        self.data_dir.join("events.jsonl")
    }
}

/// A running `termic` and its screen.
pub struct Termic {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    master: Box<dyn MasterPty + Send>,
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
}

pub const ROWS: u16 = 40;
pub const COLS: u16 = 140;

impl Termic {
    pub fn start(fixture: &Fixture, args: &[&str]) -> Termic {
        Termic::start_with_env(fixture, args, &[])
    }

    pub fn start_with_env(fixture: &Fixture, args: &[&str], env: &[(&str, &str)]) -> Termic {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_termic"));
        cmd.args(args);
        cmd.cwd(&fixture.work);
        cmd.env_clear();
        cmd.env("HOME", &fixture.home);
        cmd.env("TERMIC_CONFIG_DIR", &fixture.config_dir);
        cmd.env("TERMIC_DATA_DIR", &fixture.data_dir);
        cmd.env("PATH", fixture.path_var());
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let nz = |n| NonZeroU16::new(n).unwrap();
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(ROWS), nz(COLS), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pty.master.try_clone_reader().unwrap();
        let (p, r) = (Arc::clone(&parser), Arc::clone(&raw));
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                p.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let writer = pty.master.take_writer().unwrap();
        Termic {
            child,
            writer,
            master: pty.master,
            parser,
            raw,
        }
    }

    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Every byte termic wrote to its terminal so far.
    pub fn raw(&self) -> Vec<u8> {
        self.raw.lock().unwrap().clone()
    }

    /// Polls the screen until `pred` holds; fails with the screen shown.
    ///
    /// A frame can reach the test in pieces (a loaded machine splits termic's
    /// write across reads), so the screen returned is one that held still for
    /// a poll, or held `pred` for a second while still changing (live output).
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut held: Option<(Instant, String)> = None;
        loop {
            let screen = self.screen();
            if pred(&screen) {
                match &held {
                    Some((since, last))
                        if *last == screen || since.elapsed() > Duration::from_secs(1) =>
                    {
                        return screen;
                    }
                    Some((since, _)) => held = Some((*since, screen)),
                    None => held = Some((Instant::now(), screen)),
                }
            } else {
                held = None;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; screen:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?}"), |s| s.contains(needle))
    }

    /// Polls the raw output until it contains `needle`.
    pub fn wait_raw(&self, needle: &[u8]) {
        let start = Instant::now();
        while !contains(&self.raw(), needle) {
            if start.elapsed() > TIMEOUT {
                panic!(
                    "timed out waiting for bytes {:?}; screen:\n{}",
                    String::from_utf8_lossy(needle),
                    self.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// The prefix key (Ctrl-]) then `key`.
    pub fn prefix(&mut self, key: &[u8]) {
        self.send(b"\x1d");
        self.send(key);
    }

    /// termic's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("termic is running")
    }

    /// Waits for termic to exit and returns its exit code.
    pub fn wait_exit(&mut self) -> u32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            if start.elapsed() > TIMEOUT {
                panic!("termic did not exit; screen:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn resize(&self, rows: u16, cols: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }
}

impl Drop for Termic {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
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
