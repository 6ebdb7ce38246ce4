//! The user's `git` binary, run with an argv (never a shell), bounded in
//! time and in the bytes read back.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a bounded git run gave.
#[derive(Debug)]
pub struct GitOutput {
    pub stdout: Vec<u8>,
    /// stdout was longer than the bound: the rest was read and dropped.
    pub cut: bool,
}

/// Why a git run failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git: {0} (install git or put it on PATH)")]
    NoGit(#[source] std::io::Error),
    #[error("`git {args}` took more than {secs} s and was stopped")]
    TimedOut { args: String, secs: u64 },
    #[error("`git {args}` failed: {stderr}")]
    Failed { args: String, stderr: String },
    #[error("cannot start a thread to read git's output")]
    NoThread(#[source] std::io::Error),
}

/// Runs `git -C dir ARGS` with `env` added, waits at most `limit`, keeps
/// at most `max_out` bytes of stdout and 4 KiB of stderr.
pub fn run(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
    limit: Duration,
    max_out: usize,
) -> Result<GitOutput, GitError> {
    let joined = || args.join(" ");
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // No pager, no prompt for credentials, no optional locks on the
        // user's index (a `git status` refresh would write it).
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(GitError::NoGit)?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // Spawned with the Builder, not thread::spawn, which panics at the
    // process limit (ulimit -u): a server started there lost a thread to
    // that panic (2026-12-07). Without its reader git is stopped.
    let reader = |name: &str| std::thread::Builder::new().name(name.into());
    let threads = reader("termic-git-out")
        .spawn(move || read_bounded(&mut stdout, max_out))
        .and_then(|out| {
            reader("termic-git-err")
                .spawn(move || read_bounded(&mut stderr, 4096))
                .map(|err| (out, err))
        });
    let (out_thread, err_thread) = match threads {
        Ok(threads) => threads,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(GitError::NoThread(e));
        }
    };
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let (out, cut) = out_thread.join().unwrap_or_default();
    let (err, _) = err_thread.join().unwrap_or_default();
    match status {
        None => Err(GitError::TimedOut {
            args: joined(),
            secs: limit.as_secs().max(1),
        }),
        Some(s) if s.success() => Ok(GitOutput { stdout: out, cut }),
        Some(_) => Err(GitError::Failed {
            args: joined(),
            stderr: first_line(&String::from_utf8_lossy(&err)),
        }),
    }
}

/// Reads all of `r`, keeping the first `max` bytes (reading on keeps the
/// writer from blocking on a full pipe).
fn read_bounded(r: &mut impl Read, max: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut cut = false;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = max.saturating_sub(kept.len());
                if n > room {
                    cut = true;
                }
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    (kept, cut)
}

/// git's message without `fatal: ` / `error: `, on one line.
pub fn first_line(stderr: &str) -> String {
    stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("git gave no reason")
        .trim_start_matches("fatal: ")
        .trim_start_matches("error: ")
        .to_owned()
}
