//! A PTY harness for real agent CLIs: starts a command as a session leader
//! on a fresh PTY, records every byte it writes with a wall-clock timestamp
//! (unix ms, comparable with hook recorders and the request log), can answer
//! the terminal queries a real terminal answers, and ends the whole process
//! group (and anything else started under the same scratch HOME) on drop.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How the harness behaves as a terminal.
#[derive(Debug, Clone, Copy)]
pub struct PtyOptions {
    pub cols: u16,
    pub rows: u16,
    /// Reply `ESC ] 7501 ; ? ESC \` to Claude Code's native status probe.
    pub answer_status_probe: bool,
    /// Wait this long before that reply (to measure how late Claude still
    /// accepts it).
    pub status_probe_delay: Duration,
    /// Reply to cursor position (`CSI 6n`), DA1 (`CSI c`) and OSC 10/11
    /// colour queries as a plain xterm would.
    pub answer_queries: bool,
}

impl Default for PtyOptions {
    fn default() -> Self {
        PtyOptions {
            cols: 120,
            rows: 40,
            answer_status_probe: false,
            status_probe_delay: Duration::ZERO,
            answer_queries: true,
        }
    }
}

/// Bytes read from the PTY at `ts_ms` (unix ms, fractional).
#[derive(Debug, Clone)]
pub struct Chunk {
    pub ts_ms: f64,
    pub bytes: Vec<u8>,
}

#[derive(Default)]
struct Recording {
    chunks: Vec<Chunk>,
    all: Vec<u8>,
    closed: bool,
}

struct Shared {
    rec: Mutex<Recording>,
    changed: Condvar,
}

/// A running command on a PTY. Dropping it ends the process group.
pub struct PtySession {
    master: File,
    child: Child,
    tty: PathBuf,
    shared: Arc<Shared>,
    home_marker: Option<PathBuf>,
}

pub fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

const STATUS_PROBE: &[u8] = b"\x1b]7501;?";
const STATUS_REPLY: &[u8] = b"\x1b]7501;?\x1b\\";

/// Query and reply pairs a plain xterm would answer.
const QUERIES: &[(&[u8], &[u8])] = &[
    (b"\x1b[6n", b"\x1b[1;1R"),
    (b"\x1b[c", b"\x1b[?62;22c"),
    (b"\x1b]10;?", b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"),
    (b"\x1b]11;?", b"\x1b]11;rgb:0000/0000/0000\x1b\\"),
];

/// A fresh PTY: both ends and the slave's device path (`/dev/pts/N`).
pub struct PtyPair {
    pub master: OwnedFd,
    pub slave: OwnedFd,
    pub tty: PathBuf,
}

/// Opens a PTY of `cols` x `rows` with libc `openpty`. Shared with the
/// termic-hooks and termic tests that need a bare terminal (no child).
pub fn open_pty(cols: u16, rows: u16) -> io::Result<PtyPair> {
    let (mut master, mut slave) = (-1, -1);
    let mut name = [0 as libc::c_char; 128];
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two fds and a NUL-terminated name into buffers we own.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            name.as_mut_ptr(),
            std::ptr::null(),
            &size,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openpty succeeded, so both fds are open and owned by us now.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // SAFETY: openpty NUL-terminates the name.
    let tty = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    Ok(PtyPair {
        master,
        slave,
        tty: PathBuf::from(tty),
    })
}

impl PtySession {
    /// Starts `command` on a new PTY as the leader of a new session.
    /// `home` (the scratch HOME) lets drop also end detached helpers that
    /// left the process group but still carry that HOME in their env.
    pub fn spawn(
        mut command: Command,
        options: PtyOptions,
        home: Option<&Path>,
    ) -> io::Result<PtySession> {
        let PtyPair { master, slave, tty } = open_pty(options.cols, options.rows)?;
        let slave_fd = slave.as_raw_fd();
        command
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::setsid() < 0 || libc::ioctl(slave_fd, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn()?;
        drop(command); // closes our copies of the slave so EOF arrives at exit
        let master = File::from(master);
        let shared = Arc::new(Shared {
            rec: Mutex::new(Recording::default()),
            changed: Condvar::new(),
        });
        let reader = master.try_clone()?;
        let writer = master.try_clone()?;
        let reader_shared = Arc::clone(&shared);
        thread::spawn(move || read_loop(reader, writer, reader_shared, options));
        Ok(PtySession {
            master,
            child,
            tty,
            shared,
            home_marker: home.map(Path::to_path_buf),
        })
    }

    /// The slave device path (what termic passes as TERMIC_PTY).
    pub fn tty(&self) -> &Path {
        &self.tty
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Types bytes into the PTY.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.master.write_all(bytes)?;
        self.master.flush()
    }

    /// Every byte so far.
    pub fn output(&self) -> Vec<u8> {
        self.lock().all.clone()
    }

    pub fn len(&self) -> usize {
        self.lock().all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn chunks(&self) -> Vec<Chunk> {
        self.lock().chunks.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Recording> {
        self.shared.rec.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `needle` appears at or after byte `from`; returns the
    /// offset just past it.
    pub fn wait_for(&self, needle: &[u8], from: usize, timeout: Duration) -> Option<usize> {
        let deadline = Instant::now() + timeout;
        let mut rec = self.lock();
        loop {
            if let Some(at) = find(&rec.all, needle, from) {
                return Some(at + needle.len());
            }
            if rec.closed {
                return None;
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            rec = self
                .shared
                .changed
                .wait_timeout(rec, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Waits until the output has been quiet for `quiet` (or `timeout`).
    pub fn wait_quiet(&self, quiet: Duration, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            let last = self.lock().chunks.last().map_or(0.0, |c| c.ts_ms);
            if now_ms() - last >= quiet.as_secs_f64() * 1000.0 {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the process has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Ends the session's process group and any process that carries the
    /// scratch HOME (codex's app-server outlives the TUI), then reaps.
    pub fn kill(&mut self) {
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: signalling a process group we created.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        for _ in 0..20 {
            if self.exited() {
                break;
            }
            thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: as above.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.wait();
        if let Some(home) = &self.home_marker {
            for _ in 0..40 {
                let left = processes_with_home(home);
                if left.is_empty() {
                    break;
                }
                for pid in left {
                    // SAFETY: these processes were started under our scratch HOME.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

impl Drop for PtySession {
    fn drop(&mut self) {
        self.kill();
    }
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// Occurrences of `needle` that end after `old_len` (so a query split across
/// two reads is answered once).
fn new_occurrences(all: &[u8], old_len: usize, needle: &[u8]) -> usize {
    let start = old_len.saturating_sub(needle.len() - 1);
    let mut count = 0;
    let mut at = start;
    while let Some(found) = find(all, needle, at) {
        count += 1;
        at = found + 1;
    }
    count
}

fn read_loop(mut reader: File, mut writer: File, shared: Arc<Shared>, options: PtyOptions) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let ts_ms = now_ms();
        let mut replies: Vec<u8> = Vec::new();
        {
            let mut rec = shared.rec.lock().unwrap_or_else(|e| e.into_inner());
            let old_len = rec.all.len();
            rec.all.extend_from_slice(&buf[..n]);
            rec.chunks.push(Chunk {
                ts_ms,
                bytes: buf[..n].to_vec(),
            });
            let mut pairs: Vec<(&[u8], &[u8])> = Vec::new();
            if options.answer_status_probe && options.status_probe_delay.is_zero() {
                pairs.push((STATUS_PROBE, STATUS_REPLY));
            }
            if options.answer_status_probe && !options.status_probe_delay.is_zero() {
                for _ in 0..new_occurrences(&rec.all, old_len, STATUS_PROBE) {
                    let (mut late, delay) = (writer.try_clone(), options.status_probe_delay);
                    thread::spawn(move || {
                        thread::sleep(delay);
                        if let Ok(w) = late.as_mut() {
                            let _ = w.write_all(STATUS_REPLY);
                        }
                    });
                }
            }
            if options.answer_queries {
                pairs.extend_from_slice(QUERIES);
            }
            for (query, reply) in pairs {
                for _ in 0..new_occurrences(&rec.all, old_len, query) {
                    replies.extend_from_slice(reply);
                }
            }
        }
        shared.changed.notify_all();
        if !replies.is_empty() {
            let _ = writer.write_all(&replies);
        }
    }
    shared.rec.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
    shared.changed.notify_all();
}

/// Pids of processes whose environment has `HOME=<home>` exactly.
pub fn processes_with_home(home: &Path) -> Vec<libc::pid_t> {
    let want = format!("HOME={}", home.display()).into_bytes();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == want.as_slice()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_split_across_reads_is_counted_once() {
        let all = b"xx\x1b]7501;?yy";
        assert_eq!(new_occurrences(all, 5, STATUS_PROBE), 1);
        assert_eq!(new_occurrences(all, all.len(), STATUS_PROBE), 0);
    }

    #[test]
    fn records_output_answers_queries_and_takes_input() {
        let mut cmd = Command::new("sh");
        // Reads the reply to the status probe back from the terminal.
        cmd.arg("-c").arg(
            "stty raw -echo; printf 'ready\\033]7501;?\\033\\\\'; printf 'reply:%s.' \"$(head -c 10 | tr '\\033' E)\"; \
             read x; echo got:$x",
        );
        let options = PtyOptions {
            answer_status_probe: true,
            ..PtyOptions::default()
        };
        let mut pty = PtySession::spawn(cmd, options, None).unwrap();
        assert!(pty.tty().starts_with("/dev/pts/"));
        pty.wait_for(b"reply:E]7501;?E\\.", 0, Duration::from_secs(10))
            .expect("the probe reply reached the child's stdin");
        pty.send(b"hi\n").unwrap();
        assert!(pty
            .wait_for(b"got:hi", 0, Duration::from_secs(10))
            .is_some());
        assert!(pty.chunks().iter().all(|c| c.ts_ms > 1.0e12));
    }
}
