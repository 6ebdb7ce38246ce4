//! The runtime's part of a Docker task: the container's identity, the PTY
//! slave mount added once the PTY is open, and stopping the container with
//! its task. The `docker run` command line and the check before a start
//! are the binary's (`termic::docker`); this crate only runs and ends what
//! it is given.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where the task's PTY slave is mounted inside the container.
pub const CONTAINER_PTY: &str = "/termic/pty";

/// The name prefix of every container termic starts.
pub const NAME_PREFIX: &str = "termic-";

/// Longest `docker kill` is waited for.
pub const KILL_TIMEOUT: Duration = Duration::from_secs(10);

/// A task that runs in a container: what the runtime needs beyond the argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerTask {
    /// `--name`: how termic finds the container to stop it.
    pub name: String,
}

impl ContainerTask {
    /// `termic-<agent id>-<suffix>`; agent ids are letters, digits, `-` and
    /// `_`, all valid in a container name.
    pub fn new(agent_id: &str, suffix: &str) -> ContainerTask {
        ContainerTask {
            name: format!("{NAME_PREFIX}{agent_id}-{suffix}"),
        }
    }

    /// `argv` (`docker run <options> <image> <command>`) with the mount of
    /// the PTY slave `pty` added right after `run`.
    pub fn argv_with_pty(&self, argv: &[OsString], pty: &Path) -> Vec<OsString> {
        let mut mount = OsString::from("type=bind,src=");
        mount.push(pty);
        mount.push(format!(",dst={CONTAINER_PTY}"));
        let at = argv.len().min(2);
        let mut out = argv[..at].to_vec();
        out.push("--mount".into());
        out.push(mount);
        out.extend_from_slice(&argv[at..]);
        out
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
