//! The client side: connect to this user's server, starting it when asked
//! (detached: its own session, stdin on /dev/null, stdout and stderr to a
//! log file in the data dir), and say hello.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{BufReader, BufWriter};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
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
    /// With these options (`--event-log FILE`, `--record DIR`, absolute).
    IfNeeded(Vec<OsString>),
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
    let sp = ServerPaths::from_env(paths);
    if let Some(stream) = try_connect(&sp) {
        return hello(stream).map(Some);
    }
    let Start::IfNeeded(server_args) = start else {
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
        .with_context(|| format!("cannot open {}", sp.lock.display()))?;
    // SAFETY: flock on an fd we own; released when `lock` closes.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        bail!("cannot lock {}", sp.lock.display());
    }
    if let Some(stream) = try_connect(&sp) {
        return hello(stream).map(Some);
    }
    spawn_server(&sp, &server_args)?;
    let start = Instant::now();
    loop {
        if let Some(stream) = try_connect(&sp) {
            return hello(stream).map(Some);
        }
        if start.elapsed() > START_TIMEOUT {
            bail!(
                "the termic server did not start within {}s; see {}",
                START_TIMEOUT.as_secs(),
                sp.log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Connect, or fail: for verbs that need a running server.
pub fn connect_running(paths: &TermicPaths) -> Result<Client> {
    match connect(paths, Start::Never)? {
        Some(Connected::Ready(client)) => Ok(client),
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        None => bail!("no termic server is running: start a task with `termic run --detach`"),
    }
}

fn try_connect(sp: &ServerPaths) -> Option<UnixStream> {
    UnixStream::connect(&sp.socket).ok()
}

fn spawn_server(sp: &ServerPaths, server_args: &[OsString]) -> Result<()> {
    let exe =
        std::env::current_exe().context("cannot find the termic binary to start the server")?;
    if let Some(parent) = sp.log.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&sp.log)
        .with_context(|| format!("cannot open the server log {}", sp.log.display()))?;
    let log2 = log.try_clone()?;
    let mut cmd = Command::new(exe);
    cmd.args(server_args)
        .args(["server", "run"])
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2));
    // The server leaves our session and terminal, so closing the terminal
    // does not reach it.
    crate::runtime::session::spawn_in_new_session(&mut cmd)
        .context("cannot start the termic server")?;
    Ok(())
}

fn hello(stream: UnixStream) -> Result<Connected> {
    let peer = socket::peer_cred(&stream).context("cannot read the server's credentials")?;
    socket::authorize(peer.uid, socket::own_uid()).map_err(anyhow::Error::msg)?;
    let mut output = BufWriter::new(stream.try_clone()?);
    let mut input = BufReader::new(stream);
    let said = write_frame(
        &mut output,
        &Request::Hello {
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
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
                eprintln!("termic: {notice}");
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

/// Whether process `pid` is gone (absent, or a zombie nobody reaped yet).
pub fn process_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => crate::runtime::session::parse_stat_ids(&stat).is_none_or(|ids| ids.zombie),
        // SAFETY: signal 0 only checks for existence (no /proc: not Linux).
        Err(_) => (unsafe { libc::kill(pid, 0) }) != 0,
    }
}
