//! The calls termic makes to the Docker engine itself (through the docker
//! client on PATH): the check before a Docker task starts, and stopping a
//! task's container. Both are bounded in time and print nothing.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::problem::{classify, DockerProblem};
use super::ContainerTask;

/// Longest the pre-flight check may take (a loaded engine answers in
/// well under a second; a hung one must not freeze the UI for long).
pub const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest `docker kill` is waited for.
pub const KILL_TIMEOUT: Duration = Duration::from_secs(10);

/// Is the engine reachable, and is `image` on this machine? Run before a
/// Docker task starts, so a stopped engine or a missing image is one clear
/// sentence instead of docker's output scrolling by in a dead task (and no
/// silent pull of an image the user did not ask for).
pub fn preflight(agent: &str, image: &str) -> Result<(), DockerProblem> {
    if image.starts_with('-') || image.trim().is_empty() {
        return Err(DockerProblem::BadImage {
            agent: agent.to_owned(),
            image: super::problem::printable(image),
        });
    }
    let child = Command::new("docker")
        .args(["image", "inspect", "--format", "{{.Id}}", image])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return Err(DockerProblem::Other {
                image: super::problem::printable(image),
                detail: format!("cannot run docker: {e}"),
            })
        }
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < PREFLIGHT_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(DockerProblem::EngineSilent(PREFLIGHT_TIMEOUT.as_secs()));
            }
        }
    }
    let output = child.wait_with_output().map_err(|e| DockerProblem::Other {
        image: super::problem::printable(image),
        detail: e.to_string(),
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    match classify(agent, image, output.status.success(), &stderr) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// `docker kill` the task's container and wait for it (bounded). An already
/// gone container is not an error: the goal is absence.
pub fn kill(container: &ContainerTask) {
    let Some(mut child) = spawn_kill(container) else {
        return;
    };
    let start = Instant::now();
    while start.elapsed() < KILL_TIMEOUT {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `docker kill` without waiting: for termic's own exit, where the client
/// outlives termic by the few milliseconds it needs.
pub fn kill_detached(container: &ContainerTask) {
    drop(spawn_kill(container));
}

fn spawn_kill(container: &ContainerTask) -> Option<std::process::Child> {
    Command::new("docker")
        .args(["kill", &container.name])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}
