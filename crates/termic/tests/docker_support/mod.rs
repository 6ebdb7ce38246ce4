//! The Docker side of the Docker task tests: the engine (checked once), the
//! test image (built offline by `.ci/docker-test-image`, cached by content),
//! config.toml text for a Docker agent running the simulator, and the
//! containers a termic owns (by the owner label termic puts on them).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use termic::docker::OWNER_LABEL;

use super::support::sim_binary;

/// The image every test agent runs in, or `None` (with the reason printed)
/// when the kernel refuses to run a container here.
pub fn image() -> Option<String> {
    static IMAGE: OnceLock<Result<String, String>> = OnceLock::new();
    match IMAGE.get_or_init(build_and_probe) {
        Ok(image) => Some(image.clone()),
        Err(reason) => {
            println!("SKIPPED: the kernel refuses to run a container here: {reason}");
            None
        }
    }
}

/// `Err` only for a kernel refusal; anything else (no docker, no engine, a
/// broken build) fails the test: `.ci/run` installs and starts what it needs.
fn build_and_probe() -> Result<String, String> {
    let info = Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run docker ({e}): .ci/run installs docker.io"));
    assert!(
        info.status.success(),
        "the Docker engine is not running: start it (`dockerd &`), as .ci/run does\n{}",
        String::from_utf8_lossy(&info.stderr)
    );
    let image = match std::env::var("TERMIC_DOCKER_TEST_IMAGE") {
        Ok(image) if !image.is_empty() => image,
        _ => {
            let script = repo_root().join(".ci/docker-test-image");
            let mut cmd = Command::new(&script);
            cmd.arg(sim_binary());
            // Real Claude Code's libraries too, when the real agents are here.
            if let Some(cache) = std::env::var_os("TERMIC_REAL_AGENTS") {
                let claude = Path::new(&cache).join("bin/claude");
                if let Ok(exe) = claude.canonicalize() {
                    cmd.arg(exe);
                }
            }
            let out = cmd
                .output()
                .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
            assert!(
                out.status.success(),
                "{} failed:\n{}",
                script.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap().trim().to_owned()
        }
    };
    let probe = Command::new("docker")
        .args([
            "run",
            "--rm",
            "--network",
            "none",
            &image,
            "/bin/sh",
            "-c",
            "exit 0",
        ])
        .output()
        .unwrap();
    if probe.status.success() {
        return Ok(image);
    }
    let stderr = String::from_utf8_lossy(&probe.stderr).into_owned();
    let kernel = [
        "operation not permitted",
        "cgroup",
        "namespace",
        "seccomp",
        "oci runtime",
    ];
    if kernel
        .iter()
        .any(|k| stderr.to_ascii_lowercase().contains(k))
    {
        Err(stderr.trim().to_owned())
    } else {
        panic!("a container from {image} did not run:\n{stderr}");
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// The `docker run` options every test agent gets: the simulator and node
/// (opencode's plugins run in it) mounted read-only, and no network.
pub fn mounts() -> Vec<String> {
    let mut args = vec![
        "--network".to_owned(),
        "none".to_owned(),
        "--mount".to_owned(),
        format!(
            "type=bind,src={},dst=/usr/local/bin/termic-sim,readonly",
            sim_binary().display()
        ),
    ];
    if let Some(node) = which("node") {
        args.push("--mount".into());
        args.push(format!(
            "type=bind,src={},dst=/usr/bin/node,readonly",
            node.display()
        ));
    }
    args
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .map(|p| p.canonicalize().unwrap_or(p))
}

/// A TOML string (basic, escaped).
pub fn toml_str(s: &str) -> String {
    format!("{s:?}")
}

fn toml_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| toml_str(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// `[agents.<id>]`: a Docker agent on `base` whose command in the container
/// is `command` (the simulator when it starts with `termic-sim`).
pub fn docker_agent_toml(id: &str, base: &str, image: &str, command: &[String]) -> String {
    format!(
        "[agents.{id}]\nbase = \"{base}\"\ndocker = true\nimage = {}\ncommand = {}\ndocker_args = {}\n\n",
        toml_str(image),
        toml_list(command),
        toml_list(&mounts()),
    )
}

/// The settings every test config starts with: no wizard, no desktop
/// notifications, and no native-status probe reply (so claude reports by
/// its hooks alone, which is what is under test).
pub const CONFIG_HEAD: &str = "[ui]\nwizard_shown = true\n\n[notifications]\ndesktop = false\n\n[terminal]\nnative_probe_reply = false\n\n";

/// Runs `cmd` to completion; fails the test with its stderr unless it
/// succeeded.
pub fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{:?}: {e}", cmd.get_program()));
    assert!(
        out.status.success(),
        "{:?}: {}",
        cmd.get_program(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Names of every container (running or not) owned by termic `pid`.
pub fn containers_of(pid: u32) -> Vec<String> {
    let out = run_ok(Command::new("docker").args([
        "ps",
        "-a",
        "--filter",
        &format!("label={OWNER_LABEL}={pid}"),
        "--format",
        "{{.Names}}",
    ]));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits until `pred` holds for termic `pid`'s containers; returns them.
pub fn wait_containers(
    pid: u32,
    what: &str,
    timeout: Duration,
    pred: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let end = Instant::now() + timeout;
    loop {
        let now = containers_of(pid);
        if pred(&now) {
            return now;
        }
        if Instant::now() > end {
            panic!("{what}: after {timeout:?} termic {pid}'s containers are {now:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
