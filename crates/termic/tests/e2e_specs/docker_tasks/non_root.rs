//! termic run by a user who is not root but is in the docker group (the
//! usual desktop set-up): the user is created here (`useradd`, `usermod -aG
//! docker`) and termic runs as that user (`setpriv --reuid --regid
//! --init-groups`). A Docker grok agent starts, its hooks reach termic
//! through the mounted PTY slave, the badge goes working, needs you, done;
//! the dirs termic creates and mounts are the user's, not root's; closing
//! the task removes the container even though the user cannot signal its
//! processes (root's, in another pid namespace).

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::lifecycle::{stubborn, write_config};
use crate::docker_support::{containers_of, docker_agent_toml, image, run_ok, wait_containers};
use crate::support::{log_lines, to_and_rule, Fixture, SEC};
use crate::termic_pty::Termic;

const USER: &str = "termic-docker-user";

/// The user's uid and gid, creating the user (in the docker group) first.
fn docker_group_user() -> (u32, u32) {
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, USER]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    if id("-u").is_none() {
        run_ok(Command::new("useradd").args(["--create-home", "--shell", "/bin/sh", USER]));
    }
    run_ok(Command::new("usermod").args(["-aG", "docker", USER]));
    (id("-u").unwrap(), id("-g").unwrap())
}

/// `argv` run as the user, with the groups /etc/group gives it (docker).
fn as_user(argv: &mut Vec<std::ffi::OsString>) {
    let prefix = [
        "setpriv",
        "--reuid",
        USER,
        "--regid",
        USER,
        "--init-groups",
        "--",
    ];
    for (i, word) in prefix.iter().enumerate() {
        argv.insert(i, word.into());
    }
}

fn chown_tree(dir: &Path, uid: u32, gid: u32) {
    run_ok(
        Command::new("chown")
            .args(["-R", &format!("{uid}:{gid}")])
            .arg(dir),
    );
}

/// `termic ARGS` in a PTY as the user, with the fixture's dirs.
fn termic_as_user(fx: &Fixture, args: &[&str]) -> Termic {
    let mut cmd = fx.pty_command(args);
    as_user(cmd.get_argv_mut());
    cmd.env("USER", USER);
    cmd.env_remove("XDG_RUNTIME_DIR");
    Termic::spawn(cmd)
}

fn owner(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .uid()
}

fn wait_rule(log: &Path, to: &str, timeout: Duration) -> String {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if let Some(v) = log_lines(log).into_iter().find(|v| v["to"] == to) {
            return v["rule"].as_str().unwrap_or("").to_owned();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no {to} in {timeout:?}: {:?}", to_and_rule(&log_lines(log)));
}

#[test]
#[ignore = "needs a Docker engine and root (to create the user): run by .ci/run's Docker step"]
fn a_docker_group_user_runs_a_docker_task_with_its_own_dirs_and_pty() {
    let Some(image) = image() else { return };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        panic!("run as root: the test creates the docker-group user it runs termic as");
    }
    let (uid, gid) = docker_group_user();
    let fx = Fixture::new();
    let trace_file = fx.project().join("trace-grok.jsonl");
    let command: Vec<String> = [
        "termic-sim",
        "grok",
        "permission",
        "--auto",
        "--trace",
        trace_file.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    write_config(
        &fx,
        &docker_agent_toml("grok-box", "grok", &image, &command),
    );
    chown_tree(fx.root.path(), uid, gid);

    // `termic hooks install` as the user writes the Docker target as the user.
    let mut install = vec![env!("CARGO_BIN_EXE_termic").into()];
    as_user(&mut install);
    let out = Command::new(&install[0])
        .args(&install[1..])
        .args(["hooks", "install", "grok", "--yes"])
        .env("HOME", fx.home())
        .env("TERMIC_CONFIG_DIR", fx.config_dir())
        .env("TERMIC_DATA_DIR", fx.data_dir())
        .env("USER", USER)
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "hooks install: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let agent_dir = fx.data_dir().join("docker-agents/grok-box");
    assert_eq!(
        owner(&agent_dir),
        uid,
        "the mounted config dir is the user's"
    );
    assert_eq!(owner(&agent_dir.join("termic-hooks")), uid);

    let log = fx.root.path().join("events.jsonl");
    let mut t = termic_as_user(
        &fx,
        &["run", "grok-box", "--event-log", log.to_str().unwrap()],
    );
    // The server this user's workspace started (setpriv execs termic, which
    // starts it as the same user) owns the container.
    let pid = super::lifecycle::server_pid(&fx);
    let running = wait_containers(pid, "the user's task container", 30 * SEC, |c| c.len() == 1);
    assert!(running[0].starts_with("termic-grok-box-"), "{running:?}");
    let termic_uid = std::fs::metadata(format!("/proc/{pid}")).unwrap().uid();
    assert_eq!(termic_uid, uid, "termic's server runs as the user");
    let client_uid = std::fs::metadata(format!("/proc/{}", t.pid()))
        .unwrap()
        .uid();
    assert_eq!(client_uid, uid, "termic runs as the user");

    // The hooks, inside, write to /termic/pty: the user's PTY slave.
    assert_eq!(wait_rule(&log, "needs_you", 30 * SEC), "hook_attention");
    t.wait_within("the needs-you badge", 5 * SEC, |s| s.contains("needs you"));
    t.send(b"3");
    assert_eq!(wait_rule(&log, "done", 20 * SEC), "hook_done");
    let states: Vec<String> = log_lines(&log)
        .iter()
        .map(|v| v["to"].as_str().unwrap_or("").to_owned())
        .collect();
    let steps = to_and_rule(&log_lines(&log));
    let needs = states.iter().position(|s| s == "needs_you").unwrap();
    assert_eq!(states[0], "working", "{steps:?}");
    assert!(!states[..needs].contains(&"done".to_owned()), "{steps:?}");
    assert_eq!(
        states.iter().filter(|s| *s == "done").count(),
        1,
        "{steps:?}"
    );
    let tr = crate::support::trace(&trace_file);
    let pty_writes: Vec<_> = tr.iter().filter(|v| v["ev"] == "hook_exit").collect();
    assert!(
        !pty_writes.is_empty() && pty_writes.iter().all(|v| v["rc"] == 0),
        "every hook ran and exited 0: {tr:?}"
    );
    // After the run the termic-owned dir is still the user's: the
    // container mounted it and did not take it over.
    assert_eq!(owner(&agent_dir), uid);

    assert_eq!(containers_of(pid).len(), 1, "the agent still runs");
    assert!(t.quit());
    wait_containers(pid, "after quit", 20 * SEC, <[String]>::is_empty);

    // An agent that ignores the hang-up, closed: the user cannot signal
    // root's processes in the container; termic's `docker kill` by name
    // ends it.
    write_config(
        &fx,
        &docker_agent_toml("box", "claude", &image, &stubborn()),
    );
    let mut t = termic_as_user(&fx, &["run", "box"]);
    let pid = super::lifecycle::server_pid_other_than(&fx, Some(pid));
    wait_containers(pid, "the stubborn container", 30 * SEC, |c| c.len() == 1);
    t.wait_within("the agent's output", 20 * SEC, |s| {
        s.contains("stubborn-up")
    });
    t.prefix(b"x");
    t.wait_text("Close box?");
    t.send(b"y");
    wait_containers(
        pid,
        "after closing the task",
        20 * SEC,
        <[String]>::is_empty,
    );
    assert_eq!(owner(&fx.data_dir().join("docker-agents/box")), uid);
    assert!(t.quit());
}
