//! Running one hook the way the real agents do: a child process in a new
//! session (so it has NO controlling terminal and `/dev/tty` fails, as
//! measured on Claude Code, grok, agy and Qwen Code) or, for the agents
//! measured to keep it (Gemini CLI, Copilot CLI), only in a new process
//! group, the payload JSON on its stdin, the agent's env inherited plus the
//! agent's stamps, and killed with its process group after the timeout.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::clock::unix_ms;
use crate::config::Handler;

/// What came back from one hook run.
#[derive(Debug, Clone)]
pub struct HookResult {
    pub stdout: Vec<u8>,
    /// Exit code; `None` when killed or not started.
    pub rc: Option<i32>,
    pub timed_out: bool,
    /// Unix ms when the process was started and when it ended.
    pub spawn_ts: f64,
    pub exit_ts: f64,
    /// Why it could not start, if it did not.
    pub error: Option<String>,
}

/// The agent's timeout for `h`, given the agent's default.
pub fn timeout_for(h: &Handler, default: Duration) -> Duration {
    match h.timeout_s {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        _ => default,
    }
}

fn command_for(h: &Handler) -> Command {
    match &h.args {
        Some(args) => {
            let mut c = Command::new(&h.command);
            c.args(args);
            c
        }
        None => {
            let mut c = Command::new("/bin/sh");
            c.arg("-c").arg(&h.command);
            c
        }
    }
}

/// Whether a hook keeps the agent's controlling terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookTty {
    /// A new session: `/dev/tty` fails (Claude Code, grok, agy, Qwen Code).
    Detached,
    /// A new process group in the agent's session: `/dev/tty` is the
    /// agent's terminal (Gemini CLI 0.61.0, Copilot CLI 1.0.102).
    Attached,
}

/// Run `h` to completion or timeout, detached from the terminal. Never
/// fails: a hook that cannot start is reported in `error`, and the agent
/// carries on.
pub fn run(
    h: &Handler,
    payload: &[u8],
    env: &[(String, String)],
    cwd: &Path,
    timeout: Duration,
) -> HookResult {
    run_with(h, payload, env, cwd, timeout, HookTty::Detached)
}

/// [`run`] with the terminal as `tty` says.
pub fn run_with(
    h: &Handler,
    payload: &[u8],
    env: &[(String, String)],
    cwd: &Path,
    timeout: Duration,
    tty: HookTty,
) -> HookResult {
    let mut cmd = command_for(h);
    cmd.current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: setsid and setpgid are async-signal-safe. setsid detaches
    // the child from our controlling terminal; setpgid only gives it its own
    // group (so the timeout kills it and nothing of ours).
    unsafe {
        cmd.pre_exec(move || {
            match tty {
                HookTty::Detached => libc::setsid(),
                HookTty::Attached => libc::setpgid(0, 0),
            };
            Ok(())
        });
    }
    let spawn_ts = unix_ms();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return HookResult {
                stdout: Vec::new(),
                rc: None,
                timed_out: false,
                spawn_ts,
                exit_ts: unix_ms(),
                error: Some(format!("cannot run {}: {e}", h.command)),
            }
        }
    };
    let pid = child.id() as libc::pid_t;
    if let Some(mut stdin) = child.stdin.take() {
        let payload = payload.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&payload);
        });
    }
    let (out_tx, out_rx) = mpsc::channel();
    if let Some(mut stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout.read_to_end(&mut buf);
            let _ = out_tx.send(buf);
        });
    }
    let (exit_tx, exit_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = exit_tx.send(child.wait().ok().and_then(|s| s.code()));
    });
    let (rc, timed_out) = match exit_rx.recv_timeout(timeout) {
        Ok(rc) => (rc, false),
        Err(_) => {
            // SAFETY: plain kill(2) on the hook's own process group.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            let _ = exit_rx.recv_timeout(Duration::from_secs(1));
            (None, true)
        }
    };
    let exit_ts = unix_ms();
    // A grandchild may hold stdout open; do not wait for it forever.
    let stdout = out_rx
        .recv_timeout(Duration::from_millis(200))
        .unwrap_or_default();
    HookResult {
        stdout,
        rc,
        timed_out,
        spawn_ts,
        exit_ts,
        error: None,
    }
}

/// The `terminalSequence` of a hook's stdout JSON, if any.
pub fn terminal_sequence(stdout: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(stdout).ok()?.trim();
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("terminalSequence")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn handler(cmd: &str, timeout_s: Option<f64>) -> Handler {
        Handler {
            command: cmd.into(),
            args: None,
            timeout_s,
            is_async: false,
            matcher: None,
            name: String::new(),
            source: PathBuf::new(),
            runs: true,
        }
    }

    #[test]
    fn payload_in_stdout_out_env_through() {
        let h = handler("read line; printf '%s|%s' \"$line\" \"$STAMP\"", None);
        let r = run(
            &h,
            b"{\"a\":1}\n",
            &[("STAMP".into(), "x".into())],
            Path::new("/"),
            Duration::from_secs(5),
        );
        assert_eq!(String::from_utf8_lossy(&r.stdout), "{\"a\":1}|x");
        assert_eq!(r.rc, Some(0));
        assert!(r.exit_ts >= r.spawn_ts);
    }

    #[test]
    fn no_controlling_terminal() {
        let h = handler(
            "if (exec 3>/dev/tty) 2>/dev/null; then echo tty; else echo notty; fi",
            None,
        );
        let r = run(&h, b"", &[], Path::new("/"), Duration::from_secs(5));
        assert_eq!(String::from_utf8_lossy(&r.stdout).trim(), "notty");
    }

    #[test]
    fn an_attached_hook_keeps_the_controlling_terminal_when_there_is_one() {
        let h = handler(
            "if (exec 3>/dev/tty) 2>/dev/null; then echo tty; else echo notty; fi",
            None,
        );
        let timeout = Duration::from_secs(5);
        let attached = run_with(&h, b"", &[], Path::new("/"), timeout, HookTty::Attached);
        // The test process itself may have no terminal (CI): then neither
        // form has one, and an attached hook must not invent one.
        let ours = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/tty")
            .is_ok();
        let want = if ours { "tty" } else { "notty" };
        assert_eq!(String::from_utf8_lossy(&attached.stdout).trim(), want);
        assert_eq!(attached.rc, Some(0));
    }

    #[test]
    fn timeout_kills_the_process_group() {
        let h = handler("sleep 30 & sleep 30", Some(0.3));
        let started = std::time::Instant::now();
        let r = run(
            &h,
            b"",
            &[],
            Path::new("/"),
            timeout_for(&h, Duration::from_secs(60)),
        );
        assert!(r.timed_out);
        assert_eq!(r.rc, None);
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn no_shell_form_with_args() {
        let mut h = handler("/bin/echo", None);
        h.args = Some(vec!["a b".into(), "c".into()]);
        let r = run(&h, b"", &[], Path::new("/"), Duration::from_secs(5));
        assert_eq!(String::from_utf8_lossy(&r.stdout), "a b c\n");
    }

    #[test]
    fn a_missing_program_is_reported_not_fatal() {
        let mut h = handler("/no/such/hook", None);
        h.args = Some(vec![]);
        let r = run(&h, b"", &[], Path::new("/"), Duration::from_secs(5));
        assert!(r.error.is_some());
    }
}
