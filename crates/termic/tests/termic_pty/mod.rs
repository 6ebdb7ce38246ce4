//! The real `termic` binary in a PTY, its output read into a vt100 screen.
//! Shared by the TUI tests (tui/harness.rs) and the e2e specs
//! (e2e_specs/binary.rs); each builds the command for its own fixture.
//! Every wait polls the screen with a timeout; nothing asserts on a fixed
//! sleep.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

/// How long a wait may take by default before the test fails (CI machines
/// are slow).
pub const TIMEOUT: Duration = Duration::from_secs(30);

pub const ROWS: u16 = 40;
pub const COLS: u16 = 140;

const POLL: Duration = Duration::from_millis(50);

/// A running `termic` and its screen.
pub struct Termic {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    master: Box<dyn MasterPty + Send>,
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    /// Set when the reader saw the PTY's end: every byte termic wrote is
    /// in `raw` and the screen.
    drained: Arc<std::sync::atomic::AtomicBool>,
    /// `termic server stop` with this termic's env and directory: run when
    /// the test ends, so the server a workspace started (its tasks with it)
    /// never outlives the test, however the test ends.
    stop_server: Option<std::process::Command>,
}

impl Termic {
    /// Runs `cmd` (a `termic` command line) in a ROWS x COLS PTY.
    pub fn spawn(cmd: CommandBuilder) -> Termic {
        let stop_server = cmd.get_env("TERMIC_DATA_DIR").map(|_| {
            let mut stop = std::process::Command::new(env!("CARGO_BIN_EXE_termic"));
            stop.args(["server", "stop"]).env_clear();
            for (k, v) in cmd.iter_full_env_as_str() {
                stop.env(k, v);
            }
            if let Some(cwd) = cmd.get_cwd() {
                stop.current_dir(cwd);
            }
            stop.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            stop
        });
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let nz = |n| NonZeroU16::new(n).unwrap();
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(ROWS), nz(COLS), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pty.master.try_clone_reader().unwrap();
        let (p, r) = (Arc::clone(&parser), Arc::clone(&raw));
        let drained = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let d = Arc::clone(&drained);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                p.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            d.store(true, std::sync::atomic::Ordering::Release);
        });
        let writer = pty.master.take_writer().unwrap();
        Termic {
            child,
            writer,
            master: pty.master,
            parser,
            raw,
            drained,
            stop_server,
        }
    }

    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// The background colour of the cell at (`row`, `col`), 0-based.
    pub fn cell_bg(&self, row: u16, col: u16) -> Option<vt100::Color> {
        let parser = self.parser.lock().unwrap();
        parser.screen().cell(row, col).map(|c| c.bgcolor())
    }

    /// Every byte termic wrote to its terminal so far.
    pub fn raw(&self) -> Vec<u8> {
        self.raw.lock().unwrap().clone()
    }

    /// Polls the screen until `pred` holds, for up to TIMEOUT.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        self.wait_within(what, TIMEOUT, pred)
    }

    /// Polls the screen until `pred` holds; fails with the screen shown.
    ///
    /// A frame can reach the test in pieces (a loaded machine splits termic's
    /// write across reads), so the screen returned is one that held still for
    /// a poll, or held `pred` for a second while still changing (live output).
    pub fn wait_within(
        &self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> String {
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
            if start.elapsed() > timeout {
                panic!(
                    "timed out after {timeout:?} waiting for {what}; screen:\n{}",
                    self.screen()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    pub fn wait_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?}"), |s| s.contains(needle))
    }

    /// Polls the raw output until it contains `needle`.
    pub fn wait_raw(&self, needle: &[u8]) {
        if !crate::wait::eventually(TIMEOUT, || contains(&self.raw(), needle)) {
            panic!(
                "timed out waiting for bytes {:?}; screen:\n{}",
                String::from_utf8_lossy(needle),
                self.screen()
            );
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

    /// termic's exit code once it exits within `timeout`, else None.
    pub fn exit_within(&mut self, timeout: Duration) -> Option<u32> {
        let code = crate::wait::eventually_some(timeout, || {
            self.child.try_wait().unwrap().map(|s| s.exit_code())
        })?;
        // What termic wrote just before it exited may still be on its way
        // to the reader: wait for the PTY's end (bounded: a process that
        // kept the terminal open would hold it).
        let drained = &self.drained;
        crate::wait::eventually(Duration::from_secs(5), || {
            drained.load(std::sync::atomic::Ordering::Acquire)
        });
        Some(code)
    }

    /// Waits for termic to exit and returns its exit code.
    pub fn wait_exit(&mut self) -> u32 {
        match self.exit_within(TIMEOUT) {
            Some(code) => code,
            None => panic!("termic did not exit; screen:\n{}", self.screen()),
        }
    }

    /// Quits through the prefix key (ctrl-] then q, and y to confirm ending
    /// running tasks); true once termic exited within 5 s.
    pub fn quit(&mut self) -> bool {
        self.prefix(b"q");
        // With tasks running termic asks first; with none it exits at once.
        let mut exited = false;
        crate::wait::eventually(Duration::from_secs(5), || {
            exited = matches!(self.child.try_wait(), Ok(Some(_)));
            exited || self.screen().contains("Quit termic?")
        });
        if !exited {
            self.send(b"y");
        }
        self.exit_within(Duration::from_secs(5)).is_some()
    }

    /// Resizes the terminal: the PTY, and the screen the output is read
    /// into (first, so what is drawn for the new size lands in it whole).
    pub fn resize(&self, rows: u16, cols: u16) {
        let nz = |n| NonZeroU16::new(n).unwrap();
        self.parser.lock().unwrap().set_size(nz(rows), nz(cols));
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
        if let Some(stop) = &mut self.stop_server {
            let _ = stop.status();
        }
    }
}

pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

impl Termic {
    /// Whether the terminal termic ran in is back in cooked mode (line
    /// editing and echo on), as the user's shell expects it.
    pub fn terminal_is_cooked(&self) -> bool {
        let fd = self.master.as_raw_fd().expect("a unix PTY master");
        // SAFETY: a zeroed termios filled by tcgetattr on an open fd.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(fd, &mut t) }, 0, "tcgetattr");
        t.c_lflag & libc::ICANON != 0 && t.c_lflag & libc::ECHO != 0
    }
}
