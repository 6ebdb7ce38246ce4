//! The calls termic makes to the Docker engine itself (through the docker
//! client on PATH): the check before a Docker task starts, and stopping a
//! task's container. Both are bounded in time and print nothing.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use termic_signal::text::clean_line;

use super::problem::{classify, DockerProblem};

/// Longest the pre-flight check may take (a loaded engine answers in
/// well under a second; a hung one must not freeze the UI for long).
pub const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(10);

/// Is the engine reachable, and is `image` on this machine? Run before a
/// Docker task starts, so a stopped engine or a missing image is one clear
/// sentence instead of docker's output scrolling by in a dead task (and no
/// silent pull of an image the user did not ask for).
///
/// `env` overlays termic's own environment for the `docker` call: a task
/// started from an attached client asks the engine that client's
/// `DOCKER_HOST` names, as its task will.
pub fn preflight(
    agent: &str,
    image: &str,
    env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> Result<(), DockerProblem> {
    if image.starts_with('-') || image.trim().is_empty() {
        return Err(DockerProblem::BadImage {
            agent: agent.to_owned(),
            image: clean_line(image).into_owned(),
        });
    }
    let mut inspect = Command::new("docker");
    inspect
        .args(["image", "inspect", "--format", "{{.Id}}", image])
        .envs(env.iter().map(|(k, v)| (k, v)));
    let output = match run_within(&mut inspect, PREFLIGHT_TIMEOUT) {
        Ok(Some(output)) => output,
        Ok(None) => return Err(DockerProblem::EngineSilent(PREFLIGHT_TIMEOUT.as_secs())),
        Err(e) => {
            return Err(DockerProblem::Other {
                image: clean_line(image).into_owned(),
                detail: format!("cannot run docker: {e}"),
            })
        }
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    match classify(agent, image, output.status.success(), &stderr) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// Runs `cmd` (stdin null, stdout and stderr captured) and waits for it at
/// most `timeout`: `Ok(None)` when it took longer (it is killed then).
/// Only for commands that print little: the pipes are read after the exit.
fn run_within(cmd: &mut Command, timeout: Duration) -> std::io::Result<Option<Output>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return child.wait_with_output().map(Some),
            Ok(None) if start.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
        }
    }
}

/// [`run_within`], any failure to run or finish as `None`.
pub fn output_within(cmd: &mut Command, timeout: Duration) -> Option<Output> {
    run_within(cmd, timeout).ok().flatten()
}

/// The watchdog's script: wait for EOF on stdin (the write end is termic's
/// and closes with termic, however it ends, SIGKILL included), then kill
/// every container labelled with termic's pid. Only sh builtins and docker.
const WATCHDOG_SCRIPT: &str = "while read -r _; do :; done\n\
docker ps -q --filter \"label=$1=$2\" | while read -r id; do docker kill \"$id\"; done\n";

/// The write end of the watchdog's pipe, held for termic's lifetime.
static WATCHDOG: std::sync::OnceLock<Option<std::process::ChildStdin>> = std::sync::OnceLock::new();

/// Start (once per termic) the process that stops this termic's containers
/// after it is gone. A container normally ends with its task (closed, or
/// hung up when termic exits), but an agent that ignores the hang-up would
/// outlive a killed termic: nothing of termic runs any more to `docker
/// kill` it. The watchdog is in its own session, so a signal to termic's
/// process group does not reach it, and it holds nothing of termic but the
/// pipe's read end.
pub fn start_watchdog() {
    WATCHDOG.get_or_init(|| spawn_watchdog(std::process::id()));
}

fn spawn_watchdog(owner_pid: u32) -> Option<std::process::ChildStdin> {
    let mut cmd = Command::new("/bin/sh");
    cmd.args([
        "-c",
        WATCHDOG_SCRIPT,
        "termic-docker-watchdog",
        super::OWNER_LABEL,
        &owner_pid.to_string(),
    ])
    // termic's end of this pipe is close-on-exec: no task inherits it.
    .stdin(Stdio::piped())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    // Never waited for: it must outlive termic (init reaps it then).
    let mut child = termic_runtime::session::spawn_in_new_session(&mut cmd).ok()?;
    child.stdin.take()
}
