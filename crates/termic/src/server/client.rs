//! The client side: connect to this user's server, starting it when asked
//! (detached: its own session, stdin on /dev/null, stdout and stderr to a
//! log file in the data dir), and say hello.

use std::fs::OpenOptions;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::protocol::{self, read_frame, write_frame, Request, Response, PROTOCOL};
use super::socket::{self, ServerPaths};
use crate::paths::TermicPaths;

/// How long a client waits for a server it started to answer.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection that said hello.
pub struct Client {
    input: BufReader<UnixStream>,
    output: BufWriter<UnixStream>,
    /// The server's process id, from the socket's peer credentials.
    pub server_pid: i32,
}

/// Whether to start a server when none answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// Start one (it takes no options: a task's event log and recording
    /// come with the request that starts it).
    IfNeeded,
    Never,
}

/// A connection, or the refusal of a server of another version.
pub enum Connected {
    Ready(Client),
    /// A server of another version (its pid, and what to tell the user).
    Mismatch {
        server_pid: i32,
        message: String,
    },
}

/// Connect to the server (`None`: none runs and `start` is `Never`).
pub fn connect(paths: &TermicPaths, start: Start) -> Result<Option<Connected>> {
    connect_with(paths, start, false)
}

/// The server's socket, this user's server checked by its credentials,
/// with nothing said on it yet: for `termic server bridge`, which passes
/// another client's bytes through. A server is started when none runs (a
/// quiet hello, so its start-up notice is kept for the client at the
/// other end of the bridge).
pub fn connect_raw(paths: &TermicPaths) -> Result<UnixStream> {
    let sp = ServerPaths::from_env(paths);
    if try_connect(&sp).is_none() {
        // Started (or found) and greeted once; a server of another version
        // is running all the same, and refuses the real hello itself.
        connect_with(paths, Start::IfNeeded, true)?;
    }
    let stream = try_connect(&sp).context("the termic server did not start")?;
    let peer = socket::peer_cred(&stream).context("cannot read the server's credentials")?;
    socket::authorize(peer.uid, socket::own_uid()).map_err(anyhow::Error::msg)?;
    Ok(stream)
}

fn connect_with(paths: &TermicPaths, start: Start, quiet: bool) -> Result<Option<Connected>> {
    let sp = ServerPaths::from_env(paths);
    if let Some(stream) = try_connect(&sp) {
        return hello(stream, quiet).map(Some);
    }
    if start == Start::Never {
        // No server: one that was lost left the records of its tasks, and
        // this command tells which, once. A server this command starts
        // tells it itself (the welcome's notice).
        tell_lost(paths);
        return Ok(None);
    };
    sp.prepare_dir()?;
    // One starter at a time: the second finds the first one's server.
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&sp.lock)
        .map_err(|e| open_error(&sp.lock, &e, "open"))?;
    // SAFETY: flock on an fd we own; released when `lock` closes.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        bail!("cannot lock {}", sp.lock.display());
    }
    if let Some(stream) = try_connect(&sp) {
        return hello(stream, quiet).map(Some);
    }
    let mut child = spawn_server(&sp)?;
    let start = Instant::now();
    loop {
        if let Some(stream) = try_connect(&sp) {
            return hello(stream, quiet).map(Some);
        }
        // A server that could not start exits at once: say why now, not
        // after the timeout.
        if let Ok(Some(status)) = child.child.try_wait() {
            // It may have bound the socket just before going.
            if let Some(stream) = try_connect(&sp) {
                return hello(stream, quiet).map(Some);
            }
            bail!("{}", child.early_exit(status));
        }
        if start.elapsed() > START_TIMEOUT {
            bail!("{}", child.timed_out());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Connect with a quiet hello, starting a server when none runs: for
/// `termic web`, whose connections carry a browser's streams (the server
/// keeps its start-up notice for a terminal client).
pub fn connect_quiet(paths: &TermicPaths) -> Result<Connected> {
    connect_with(paths, Start::IfNeeded, true)?.context("the termic server did not start")
}

/// Connect, or fail: for verbs that need a running server.
pub fn connect_running(paths: &TermicPaths) -> Result<Client> {
    match connect(paths, Start::Never)? {
        Some(Connected::Ready(client)) => Ok(client),
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        None => bail!("no termic server is running: start a task with `termic run --detach`"),
    }
}

/// Claim and print (on stderr) the tasks a lost server left; files that
/// are no task record are left for the server's log.
fn tell_lost(paths: &TermicPaths) {
    use termic_runtime::clock::Clock;
    let now = termic_runtime::clock::SystemClock::new().wall_ms();
    let claimed = termic_runtime::journal::claim_lost(&paths.data_dir, now);
    if let Some(notice) = termic_runtime::journal::lost_notice(&claimed.lost) {
        crate::printed::errln!("termic: {notice}");
    }
}

fn try_connect(sp: &ServerPaths) -> Option<UnixStream> {
    UnixStream::connect(&sp.socket).ok()
}

/// Below this much free space where the server keeps its log, it is not
/// started: it could not log, and the event log and recordings there would
/// stop at once. A full disk is said as such, in seconds, instead of a
/// server that never answers.
pub const MIN_FREE_BYTES: u64 = 64 * 1024;

/// Whether the disk holding `dir` has less than [`MIN_FREE_BYTES`] free
/// (unknown counts as not full).
fn nearly_full(dir: &Path) -> bool {
    free_bytes(dir).is_some_and(|free| free < MIN_FREE_BYTES)
}

/// Bytes free for us on the file system holding `dir` (`None`: unknown, or
/// a file system that does not count, as /proc).
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statvfs is a valid out-parameter; path is a C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 || st.f_blocks == 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

fn disk_full(dir: &Path) -> String {
    format!(
        "cannot start the termic server: the disk holding {} is full; free some space and try again",
        dir.display()
    )
}

/// A server just started, and what it has written to its log since.
struct Starting {
    child: std::process::Child,
    log: PathBuf,
    /// The log's length before the server started.
    log_from: u64,
}

impl Starting {
    /// What the server wrote to its log since it started, last line first
    /// (the reason it gave up), if anything.
    fn last_words(&self) -> Option<String> {
        let mut file = std::fs::File::open(&self.log).ok()?;
        file.seek(SeekFrom::Start(self.log_from)).ok()?;
        let mut text = String::new();
        file.take(64 * 1024).read_to_string(&mut text).ok()?;
        last_words_of(&text)
    }

    fn dir(&self) -> &Path {
        self.log.parent().unwrap_or(Path::new("/"))
    }

    fn early_exit(&self, status: std::process::ExitStatus) -> String {
        let how = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "no exit code".to_owned(),
        };
        match self.last_words() {
            Some(words) => format!(
                "the termic server stopped as it started ({how}): {words} (see {})",
                self.log.display()
            ),
            None if nearly_full(self.dir()) => disk_full(self.dir()),
            None => format!(
                "the termic server stopped as it started ({how}) and wrote nothing to its log"
            ),
        }
    }

    fn timed_out(&self) -> String {
        let secs = START_TIMEOUT.as_secs();
        match self.last_words() {
            Some(words) => format!(
                "the termic server did not answer within {secs}s; it last said: {words} (see {})",
                self.log.display()
            ),
            None if nearly_full(self.dir()) => disk_full(self.dir()),
            None => format!(
                "the termic server did not answer within {secs}s and wrote nothing to its log"
            ),
        }
    }
}

fn spawn_server(sp: &ServerPaths) -> Result<Starting> {
    let exe =
        std::env::current_exe().context("cannot find the termic binary to start the server")?;
    let dir = sp.log.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(|e| open_error(dir, &e, "create"))?;
    if nearly_full(dir) {
        bail!("{}", disk_full(dir));
    }
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&sp.log)
        .map_err(|e| open_error(&sp.log, &e, "open the server log"))?;
    let log_from = log.metadata().map(|m| m.len()).unwrap_or(0);
    let log2 = log.try_clone()?;
    let mut cmd = Command::new(exe);
    cmd.args(["server", "run"])
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2));
    // The server leaves our session and terminal, so closing the terminal
    // does not reach it.
    let child = termic_runtime::session::spawn_in_new_session(&mut cmd)
        .context("cannot start the termic server")
        .map_err(|e| anyhow::anyhow!(super::limits::with_hint(&e)))?;
    Ok(Starting {
        child,
        log: sp.log.clone(),
        log_from,
    })
}

/// A failed create or open in the data dir; a full disk said as such.
fn open_error(path: &Path, e: &std::io::Error, what: &str) -> anyhow::Error {
    if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) {
        let dir = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(path)
        };
        return anyhow::anyhow!("{}", disk_full(dir));
    }
    anyhow::anyhow!(
        "cannot {what} {}: {}",
        path.display(),
        termic_runtime::record_file::why_write_failed(e)
    )
}

/// The running server's tasks, asked quietly (no server is started, no
/// notice is taken or printed, nothing is claimed): for shell completion,
/// which must print nothing but candidates. Any failure is no task.
pub fn peek_tasks(paths: &TermicPaths) -> Vec<protocol::TaskRow> {
    let sp = ServerPaths::from_env(paths);
    let Some(stream) = try_connect(&sp) else {
        return Vec::new();
    };
    // A server that hangs must not hang the shell.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(2)));
    match hello(stream, true) {
        Ok(Connected::Ready(mut client)) => match client.request(&Request::List) {
            Ok(protocol::Response::Tasks(rows)) => rows,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn hello(stream: UnixStream, quiet: bool) -> Result<Connected> {
    let peer = socket::peer_cred(&stream).context("cannot read the server's credentials")?;
    socket::authorize(peer.uid, socket::own_uid()).map_err(anyhow::Error::msg)?;
    let mut output = BufWriter::new(stream.try_clone()?);
    let mut input = BufReader::new(stream);
    let said = write_frame(
        &mut output,
        &Request::Hello {
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            quiet,
        },
    );
    let answer = read_frame::<Response>(&mut input);
    // A server that cannot take the connection (out of threads or
    // descriptors) says why and closes it, maybe before our hello got in.
    if let Ok(Response::Error { message }) = answer {
        bail!("{message}");
    }
    said.context("cannot talk to the termic server")?;
    match answer {
        Ok(Response::Welcome { notice, .. }) => {
            if let Some(notice) = notice {
                crate::printed::errln!("termic: {notice}");
            }
            Ok(Connected::Ready(Client {
                input,
                output,
                server_pid: peer.pid,
            }))
        }
        Ok(Response::Refused { message }) => Ok(Connected::Mismatch {
            server_pid: peer.pid,
            message,
        }),
        // A server too old or too new to answer the hello in this shape.
        Ok(_) | Err(protocol::FrameError::Invalid(_)) => Ok(Connected::Mismatch {
            server_pid: peer.pid,
            message: protocol::mismatch_message("(another)", env!("CARGO_PKG_VERSION")),
        }),
        Err(e) => Err(e).context("the termic server closed the connection"),
    }
}

impl Client {
    /// The connection's two halves, for a client that streams (attach).
    pub fn into_streams(self) -> (BufReader<UnixStream>, BufWriter<UnixStream>) {
        (self.input, self.output)
    }

    /// Send one request and read its answer; an `Error` answer is an error.
    pub fn request(&mut self, request: &Request) -> Result<Response> {
        write_frame(&mut self.output, request).context("cannot talk to the termic server")?;
        match read_frame::<Response>(&mut self.input) {
            Ok(Response::Error { message }) => bail!("{message}"),
            Ok(response) => Ok(response),
            Err(e) => Err(e).context("the termic server did not answer"),
        }
    }
}

/// The reason in a server's log text (pure): its last line of its own
/// (they start with "termic"), so a panic's backtrace frames after it are
/// not taken for the reason (a start at the process limit showed
/// "30: _start", 2026-12-07); a panic itself is said in words, not its
/// Debug text.
fn last_words_of(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(str::trim)
        .rev()
        .find(|l| l.starts_with("termic"))
        .or_else(|| text.lines().map(str::trim).rev().find(|l| !l.is_empty()))?;
    Some(match line.contains(": panic at ") {
        true => "it crashed".to_owned(),
        // The message the client prints starts with "termic: " itself.
        false => line.strip_prefix("termic: ").unwrap_or(line).to_owned(),
    })
}

#[cfg(test)]
mod last_words_tests {
    use super::last_words_of;

    #[test]
    fn the_last_words_are_the_servers_own_line_not_a_backtrace_frame() {
        let log = "termic server 0.1.0 (pid 7) listening on /run/s.sock\n\
                   termic: cannot start the termic server's own threads: it failed.\n";
        assert_eq!(
            last_words_of(log).as_deref(),
            Some("cannot start the termic server's own threads: it failed.")
        );
        let panicked = "termic server: panic at 2026-12-07 01:17:58 UTC in thread 'main' \
                        at x.rs:1:2: failed to spawn thread: Os { code: 11 }\n   \
                        0: termic::server::panic_hook\n  30: _start\n";
        assert_eq!(last_words_of(panicked).as_deref(), Some("it crashed"));
        assert_eq!(last_words_of("odd line\n\n").as_deref(), Some("odd line"));
        assert_eq!(last_words_of("\n  \n"), None);
    }
}
