//! Remote hosts through a real sshd on 127.0.0.1 (issue 29): a second
//! local user is the remote account, with its own termic server started
//! on demand by `termic server bridge`, the same termic build as its
//! binary. Root only (it runs sshd and writes files for the other user):
//! `.ci/run` installs openssh-server, creates the user (.ci/fault-setup)
//! and runs these with `--ignored`.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::Fixture;
use crate::process_table::{alive, processes_of};
use crate::served::text;

const SSHD: &str = "/usr/sbin/sshd";
const SSH: &str = "/usr/bin/ssh";

/// A private sshd on 127.0.0.1 for the other user, ended with the test.
struct Sshd {
    child: Child,
    port: u16,
    /// Owned by the other user: its termic's data and config, the key.
    far: PathBuf,
    /// The client's key and the host key (root's).
    near: tempfile::TempDir,
    user: String,
    log: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.far);
    }
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

impl Sshd {
    fn start() -> Sshd {
        let user = std::env::var("TERMIC_OTHER_USER").unwrap_or_else(|_| "termic-other".into());
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} is missing: apt-get install -y openssh-server (.ci/run does)"
        );
        let uid: u32 = run_ok(Command::new("id").args(["-u", &user]))
            .trim()
            .parse()
            .unwrap();
        let gid: u32 = run_ok(Command::new("id").args(["-g", &user]))
            .trim()
            .parse()
            .unwrap();
        std::fs::create_dir_all("/run/sshd").unwrap();
        let near = tempfile::tempdir().unwrap();
        let far = std::env::temp_dir().join(format!("termic-far-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&far);
        std::fs::create_dir_all(far.join("data")).unwrap();
        std::fs::create_dir_all(far.join("config")).unwrap();
        let hostkey = near.path().join("hostkey");
        let key = near.path().join("key");
        for k in [&hostkey, &key] {
            run_ok(
                Command::new("ssh-keygen")
                    .args(["-q", "-t", "ed25519", "-N", ""])
                    .arg("-f")
                    .arg(k),
            );
        }
        std::fs::copy(key.with_extension("pub"), far.join("authorized_keys")).unwrap();
        // The far side's termic: the same build, with its own data and
        // config dirs (so the test finds every process it started).
        let wrapper = far.join("termic");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nTERMIC_DATA_DIR={far}/data TERMIC_CONFIG_DIR={far}/config exec {bin} \"$@\"\n",
                far = far.display(),
                bin = env!("CARGO_BIN_EXE_termic")
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        for entry in ["", "data", "config", "authorized_keys", "termic"] {
            std::os::unix::fs::chown(far.join(entry), Some(uid), Some(gid)).unwrap();
        }
        std::fs::set_permissions(&far, std::fs::Permissions::from_mode(0o755)).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = near.path().join("sshd.log");
        let child = Command::new(SSHD)
            .args(["-D", "-f", "/dev/null", "-p", &port.to_string()])
            .arg("-h")
            .arg(&hostkey)
            .arg("-E")
            .arg(&log)
            .args([
                "-o",
                "ListenAddress=127.0.0.1",
                "-o",
                "PidFile=none",
                "-o",
                "PasswordAuthentication=no",
                "-o",
                "UsePAM=no",
                // The key file is in /tmp (world-writable): no mode check.
                "-o",
                "StrictModes=no",
                "-o",
            ])
            .arg(format!(
                "AuthorizedKeysFile={}/authorized_keys",
                far.display()
            ))
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "sshd never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Sshd {
            child,
            port,
            far,
            near,
            user,
            log,
        }
    }

    /// The ssh options of this test's host (config.toml's `ssh_args`).
    fn ssh_args(&self) -> Vec<String> {
        [
            "-p",
            &self.port.to_string(),
            "-i",
            &self.near.path().join("key").display().to_string(),
            "-F",
            "/dev/null",
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    /// config.toml's `[hosts.far]` for this sshd, running `termic` there.
    fn far_host_toml(&self, termic: &std::path::Path) -> String {
        let quoted: Vec<String> = self.ssh_args().iter().map(|a| format!("{a:?}")).collect();
        format!(
            "[hosts.far]\ndestination = \"{}\"\nssh_args = [{}]\ntermic = \"{}\"\n",
            self.destination(),
            quoted.join(", "),
            termic.display()
        )
    }

    fn destination(&self) -> String {
        format!("{}@127.0.0.1", self.user)
    }

    /// Frames through a bridge of our own (ssh run here), for what the
    /// CLI has no verb for: stopping the far server, an old hello.
    fn raw(&self, frames: &[Value]) -> Vec<Value> {
        let mut child = Command::new(SSH)
            .args(["-T", "-o", "BatchMode=yes"])
            .args(self.ssh_args())
            .arg("--")
            .arg(self.destination())
            .arg(format!("{}/termic server bridge", self.far.display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        for f in frames {
            let body = serde_json::to_vec(f).unwrap();
            input.write_all(&(body.len() as u32).to_be_bytes()).unwrap();
            input.write_all(&body).unwrap();
        }
        drop(input);
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        child.wait().unwrap();
        let mut answers = Vec::new();
        let mut rest = &out[..];
        while rest.len() >= 4 {
            let n = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
            answers.push(serde_json::from_slice(&rest[4..4 + n]).unwrap());
            rest = &rest[4 + n..];
        }
        answers
    }
}

/// This build's hello. A fixed protocol number went stale when PROTOCOL
/// moved on: the far server refused the stop and outlived every test.
fn hello() -> Value {
    serde_json::json!({"hello": {
        "protocol": termic::server::protocol::PROTOCOL,
        "version": env!("CARGO_PKG_VERSION"),
    }})
}

/// Stops the far server when the test ends, however it ends.
struct FarServer<'s>(&'s Sshd);

impl Drop for FarServer<'_> {
    fn drop(&mut self) {
        let answers = self.0.raw(&[hello(), Value::String("stop".into())]);
        // A refused stop leaves the far server running after the test.
        if !std::thread::panicking() {
            assert!(
                answers.iter().all(|a| a.get("refused").is_none()),
                "the far server refused the stop: {answers:?}"
            );
        }
    }
}

fn termic(f: &Fixture, args: &[&str]) -> std::process::Output {
    f.cli_with_env(&f.work, args, &[("TERMIC_SSH", SSH)])
}

fn expect(f: &Fixture, args: &[&str], code: i32) -> String {
    let out = termic(f, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "termic {args:?}\nstdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(30), "{what}: never");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                stat.rfind(')')
                    .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
                    .and_then(|pp| pp.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// The far side's bridges: processes of the other user running `server bridge`.
fn far_bridges(far: &Path) -> Vec<i32> {
    processes_of(&far.join("data"))
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|a| a == b"bridge"))
        })
        .collect()
}

#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_host_over_real_ssh_runs_lists_types_into_and_waits_for_a_task() {
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let f = Fixture::new();
    let dest = sshd.destination();
    // A destination that ssh would read as an option is refused.
    let out = termic(
        &f,
        &["hosts", "add", "evil", "--", "-oProxyCommand=touch /tmp/x"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("starts with `-`"),
        "{}",
        text(&out.stderr)
    );
    expect(&f, &["hosts", "add", "far", &dest], 0);
    // The ssh options and the far termic, as a user would write them.
    let config = f.config_dir.join("config.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap();
    let quoted: Vec<String> = sshd.ssh_args().iter().map(|a| format!("{a:?}")).collect();
    toml.push_str(&format!(
        "ssh_args = [{}]\ntermic = \"{}/termic\"\n",
        quoted.join(", "),
        sshd.far.display()
    ));
    // And a host where nothing listens: one line in `ls`, not a failure.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    toml.push_str(&format!(
        "\n[hosts.gone]\ndestination = \"nobody@127.0.0.1\"\nssh_args = [\"-p\", \"{closed}\", \"-F\", \"/dev/null\"]\n"
    ));
    // And a host without termic: the message says how to fix it.
    toml.push_str(&format!(
        "\n[hosts.bare]\ndestination = \"{dest}\"\nssh_args = [{}]\ntermic = \"/nonexistent/termic\"\n",
        quoted.join(", ")
    ));
    std::fs::write(&config, toml).unwrap();

    let asked = Instant::now();
    let hosts: Value = serde_json::from_str(&expect(&f, &["hosts", "ls", "--json"], 0)).unwrap();
    assert_eq!(hosts[0]["name"], "far", "{hosts}");
    assert_eq!(
        hosts[0]["reachable"],
        true,
        "{hosts} (sshd log: {:?})",
        std::fs::read_to_string(&sshd.log)
    );
    assert_eq!(hosts[0]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(hosts[0]["tasks"], 0);
    assert_eq!(hosts[1]["name"], "gone", "{hosts}");
    assert_eq!(hosts[1]["reachable"], false, "{hosts}");
    assert!(
        hosts[1]["error"].as_str().unwrap().contains("host gone"),
        "{hosts}"
    );
    assert_eq!(hosts[2]["reachable"], false, "{hosts}");
    let bare = hosts[2]["error"].as_str().unwrap();
    assert!(
        bare.starts_with("host bare: ") && bare.contains("install termic on the host"),
        "{bare}"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    let table = expect(&f, &["hosts", "ls"], 0);
    assert!(
        table.contains("gone") && table.contains("unreachable"),
        "{table}"
    );
    assert!(
        table.contains("far") && table.contains("reachable"),
        "{table}"
    );

    // A task on the far side, as the other user, with a hostile name.
    let out_dir = sshd.far.join("out");
    let hostile = "evil\x1b]0;pwned\x07\x1b[2J\x1b[31mred";
    let script = format!(
        "id -un > {d}/who; env > {d}/env; read line; echo \"$line\" > {d}/line",
        d = out_dir.display()
    );
    run_ok(
        Command::new("install")
            .args(["-d", "-m", "0777"])
            .arg(&out_dir),
    );
    // A secret in this machine's environment must not reach the host.
    let run = f.cli_with_env(
        &f.work,
        &[
            "run", "--host", "far", "--name", hostile, "--", "sh", "-c", &script,
        ],
        &[("TERMIC_SSH", SSH), ("TERMIC_TEST_SECRET", "local-only")],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let started = text(&run.stdout);
    assert!(started.contains("on far, number 1: far:1."), "{started}");
    assert!(
        !started.contains('\x1b'),
        "the far name is printed cleaned: {started:?}"
    );

    let listed = expect(&f, &["ls"], 0);
    assert!(
        !listed.contains('\x1b') && !listed.contains('\x07'),
        "{listed:?}"
    );
    let line = listed
        .lines()
        .find(|l| l.starts_with("far "))
        .unwrap_or_else(|| panic!("no far row: {listed}"));
    assert!(
        line.contains("evil") && line.contains("red") && line.contains("sh"),
        "{listed}"
    );
    assert!(
        listed
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("local ")),
        "local comes first: {listed}"
    );
    assert!(
        listed.lines().any(|l| l.starts_with("gone: unreachable: ")),
        "{listed}"
    );
    let json: Value =
        serde_json::from_str(&expect(&f, &["ls", "--json", "--host", "far"], 0)).unwrap();
    assert_eq!(json[0]["host"], "far", "{json}");
    assert_eq!(json[0]["id"], 1);

    expect(&f, &["send", "far:1", "hello over ssh", "--enter"], 0);
    let waited = termic(&f, &["wait", "far:1", "--for", "exited", "--timeout", "30"]);
    let said = text(&waited.stdout);
    assert!(
        said.trim() == "exited" || said.trim() == "done",
        "{said} {}",
        text(&waited.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("who")).unwrap().trim(),
        sshd.user
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("line"))
            .unwrap()
            .trim(),
        "hello over ssh"
    );
    let env = std::fs::read_to_string(out_dir.join("env")).unwrap();
    assert!(
        !env.contains("local-only"),
        "the local environment reached the host: {env}"
    );
    assert!(!env.contains(&f.config_dir.display().to_string()), "{env}");
    expect(&f, &["kill", "far:1"], 0);

    // An old client's hello gets the refusal every version reads.
    let answers = sshd.raw(&[serde_json::json!({"hello": {"protocol": 3, "version": "0.0.1"}})]);
    assert!(answers[0]["refused"]["message"].is_string(), "{answers:?}");
}

#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn killing_ssh_ends_the_bridge_and_leaves_the_task_running() {
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        sshd.far_host_toml(&sshd.far.join("termic")),
    )
    .unwrap();
    expect(
        &f,
        &[
            "run", "--host", "far", "--name", "long", "--", "sleep", "600",
        ],
        0,
    );
    // A wait that holds an ssh connection (and so a far bridge) open.
    let mut waiting = Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["wait", "far:long", "--for", "exited"])
        .current_dir(&f.work)
        .env_clear()
        .env("HOME", &f.home)
        .env("TERMIC_CONFIG_DIR", &f.config_dir)
        .env("TERMIC_DATA_DIR", &f.data_dir)
        .env("PATH", f.path_var())
        .env("TERMIC_SSH", SSH)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ssh = Vec::new();
    wait_until("the wait's ssh and the far bridge", || {
        ssh = children_of(waiting.id());
        !ssh.is_empty() && !far_bridges(&sshd.far).is_empty()
    });
    let bridges = far_bridges(&sshd.far);
    // SAFETY: a signal to our own child's child, alive a moment ago.
    unsafe {
        libc::kill(ssh[0] as i32, libc::SIGKILL);
    }
    let status = waiting.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(1),
        "the wait fails: its connection was lost"
    );
    let mut err = String::new();
    waiting
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("host far"), "{err}");
    wait_until("the far bridge ends", || bridges.iter().all(|&p| !alive(p)));
    assert!(children_of(waiting.id()).is_empty());
    // The task lives on.
    let json: Value =
        serde_json::from_str(&expect(&f, &["ls", "--json", "--host", "far"], 0)).unwrap();
    assert_eq!(json[0]["name"], "long", "{json}");
    assert_eq!(
        json[0]["state"].as_str().map(|s| s != "exited"),
        Some(true),
        "{json}"
    );
    expect(&f, &["kill", "far:long"], 0);
    // No ssh of ours is left on this side.
    assert!(
        processes_of(&f.data_dir).is_empty(),
        "{:?}",
        processes_of(&f.data_dir)
    );
}

/// This fixture's ssh processes (the server's host links among them).
fn ssh_of(f: &Fixture) -> Vec<i32> {
    processes_of(&f.data_dir)
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "ssh")
        })
        .collect()
}

/// Issue 29, the sidebar: an attached workspace shows the far host's
/// tasks under its name, a badge change on the far side arrives live with
/// a notification naming the host, a killed ssh shows "disconnected since"
/// and the link comes back by itself; one ssh per host at most, and none
/// is left once the client detached and the server stopped.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn an_attached_sidebar_shows_the_hosts_tasks_live_and_reconnects() {
    use crate::harness::{badge_line, fake_agent_config, hook, Termic};
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    // The far side's agent: a turn that asks for a permission.
    let script = [
        "echo READY".to_string(),
        "read l".into(),
        hook("working", ""),
        "read l".into(),
        hook("attention", ";kind=permission"),
        "read l".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    let far_config = sshd.far.join("config/config.toml");
    std::fs::write(&far_config, fake_agent_config(&script)).unwrap();
    let uid: u32 = run_ok(Command::new("id").args(["-u", &sshd.user]))
        .trim()
        .parse()
        .unwrap();
    std::os::unix::fs::chown(&far_config, Some(uid), None).unwrap();

    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        format!(
            "{}
{}",
            fake_agent_config("echo LOCAL; sleep 600"),
            sshd.far_host_toml(&sshd.far.join("termic"))
        ),
    )
    .unwrap();
    expect(&f, &["run", "--host", "far", "--name", "build", "fake"], 0);
    expect(&f, &["run", "fake", "--name", "here", "--detach"], 0);

    let mut a = Termic::start_with_env(&f, &["attach", "here"], &[("TERMIC_SSH", SSH)]);
    a.wait_text("LOCAL");
    let screen = a.wait_for("the far host's group", |s| {
        s.contains("@far") && badge_line(s, "1 build").is_some()
    });
    let heading = screen.lines().position(|l| l.contains("@far")).unwrap();
    let task = screen.lines().position(|l| l.contains("1 build")).unwrap();
    let local = screen.lines().position(|l| l.contains("1 here")).unwrap();
    assert!(local < heading && heading < task, "{screen}");
    assert!(
        screen.lines().nth(task).unwrap().contains("fake"),
        "{screen}"
    );

    // A change on the far side shows here, and the notification names
    // the host.
    let sent = Instant::now();
    expect(&f, &["send", "far:build", "go", "--enter"], 0);
    a.wait_for("working on far", |s| {
        badge_line(s, "1 build").is_some_and(|l| l.contains("working"))
    });
    // `send` (its own ssh) plus the push back over the link.
    eprintln!(
        "send far:build to working in the local sidebar: {:?}",
        sent.elapsed()
    );
    // A wait across every source: the local server and the far host.
    let waiting = Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["wait", "--any", "--for", "needs-you", "--timeout", "60"])
        .current_dir(&f.work)
        .env_clear()
        .env("HOME", &f.home)
        .env("TERMIC_CONFIG_DIR", &f.config_dir)
        .env("TERMIC_DATA_DIR", &f.data_dir)
        .env("PATH", f.path_var())
        .env("TERMIC_SSH", SSH)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let no_answer = termic(&f, &["wait", "--any", "--for", "done", "--timeout", "1"]);
    assert_eq!(
        no_answer.status.code(),
        Some(124),
        "{}",
        text(&no_answer.stderr)
    );
    expect(&f, &["send", "far:build", "go", "--enter"], 0);
    let waited = waiting.wait_with_output().unwrap();
    assert_eq!(waited.status.code(), Some(0), "{}", text(&waited.stderr));
    assert_eq!(text(&waited.stdout).trim(), "far:1 needs_you");
    a.wait_for("needs you on far", |s| {
        badge_line(s, "1 build").is_some_and(|l| l.contains("needs you"))
    });
    a.wait_raw(b"\x1b]777;notify;termic;build on far (fake) needs you");

    // One link per host: one ssh. Killed, the host shows it is down,
    // then comes back with a new ssh and the task as it is now.
    let mut ssh = Vec::new();
    wait_until("the link's ssh", || {
        ssh = ssh_of(&f);
        !ssh.is_empty()
    });
    assert_eq!(ssh.len(), 1, "one ssh per host: {ssh:?}");
    // SAFETY: a signal to an ssh this test's server started.
    unsafe {
        libc::kill(ssh[0], libc::SIGKILL);
    }
    let killed = Instant::now();
    a.wait_for("disconnected", |s| s.contains("disconnected since"));
    eprintln!(
        "ssh killed to \"disconnected since\" shown: {:?}",
        killed.elapsed()
    );
    expect(&f, &["send", "far:build", "go", "--enter"], 0);
    a.wait_within(
        "reconnected, with the change made meanwhile",
        Duration::from_secs(10),
        |s| {
            !s.contains("disconnected")
                && badge_line(s, "1 build").is_some_and(|l| l.contains("done"))
        },
    );
    eprintln!(
        "ssh killed to reconnected and shown: {:?}",
        killed.elapsed()
    );
    let again = ssh_of(&f);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_ne!(again, ssh);

    // Detached: the link goes with the last client.
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    wait_until("no ssh after the detach", || ssh_of(&f).is_empty());
    expect(&f, &["kill", "far:build"], 0);
    expect(&f, &["server", "stop"], 0);
    wait_until("nothing of ours left", || {
        processes_of(&f.data_dir).is_empty()
    });
}

/// Issue 29: `termic attach HOST:TASK` shows the remote task's screen
/// through its view stream, what is typed reaches it, and the prefix then
/// `d` leaves it running with no ssh left.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn attach_host_task_shows_the_remote_screen_and_types_into_it() {
    use crate::harness::Termic;
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        sshd.far_host_toml(&sshd.far.join("termic")),
    )
    .unwrap();
    let script = "echo FAR-READY; while read l; do echo \"got:$l\"; done";
    expect(
        &f,
        &[
            "run", "--host", "far", "--name", "echo", "--", "sh", "-c", script,
        ],
        0,
    );
    let mut a = Termic::start_with_env(&f, &["attach", "far:echo"], &[("TERMIC_SSH", SSH)]);
    a.wait_text("FAR-READY");
    a.send(b"over the wire\r");
    a.wait_text("got:over the wire");
    assert_eq!(ssh_of(&f).len(), 1, "one ssh for the view");
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    a.wait_text("keeps running on far");
    assert!(ssh_of(&f).is_empty(), "{:?}", ssh_of(&f));
    let json: Value =
        serde_json::from_str(&expect(&f, &["ls", "--json", "--host", "far"], 0)).unwrap();
    assert_eq!(json[0]["name"], "echo", "{json}");
    assert_eq!(
        json[0]["state"].as_str().map(|s| s != "exited"),
        Some(true),
        "{json}"
    );
    expect(&f, &["kill", "far:echo"], 0);
    assert!(
        processes_of(&f.data_dir).is_empty(),
        "{:?}",
        processes_of(&f.data_dir)
    );
}

/// The states task `id` of the far server goes through, heard on a
/// `subscribe` stream through a bridge of the test's own.
struct FarStates {
    watch: Child,
    reader: Option<std::thread::JoinHandle<()>>,
    states: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl FarStates {
    fn new(sshd: &Sshd, far_termic: &Path, id: u64) -> FarStates {
        let mut watch = Command::new(SSH)
            .args(["-T", "-o", "BatchMode=yes"])
            .args(sshd.ssh_args())
            .arg("--")
            .arg(sshd.destination())
            .arg(format!("{} server bridge", far_termic.display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let watch_in = watch.stdin.as_mut().unwrap();
        for frame in [hello(), Value::String("subscribe".into())] {
            let body = serde_json::to_vec(&frame).unwrap();
            watch_in
                .write_all(&(body.len() as u32).to_be_bytes())
                .unwrap();
            watch_in.write_all(&body).unwrap();
        }
        watch_in.flush().unwrap();
        let states = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let mut watch_out = watch.stdout.take().unwrap();
        let seen = std::sync::Arc::clone(&states);
        let reader = std::thread::spawn(move || {
            let mut len = [0u8; 4];
            while watch_out.read_exact(&mut len).is_ok() {
                let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
                if watch_out.read_exact(&mut body).is_err() {
                    break;
                }
                let frame: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let rows = match (&frame["subscribed"]["tasks"], &frame["task"]) {
                    (Value::Array(rows), _) => rows.clone(),
                    (_, row @ Value::Object(_)) => vec![row.clone()],
                    _ => continue,
                };
                for row in rows.iter().filter(|r| r["id"] == id) {
                    let state = row["state"].as_str().unwrap_or("").to_string();
                    let mut seen = seen.lock().unwrap();
                    if seen.last() != Some(&state) {
                        seen.push(state);
                    }
                }
            }
        });
        FarStates {
            watch,
            reader: Some(reader),
            states,
        }
    }
}

impl Drop for FarStates {
    fn drop(&mut self) {
        drop(self.watch.stdin.take());
        let _ = self.watch.kill();
        let _ = self.watch.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// A simulated Claude on the far host (termic-sim, `permission --auto`,
/// with termic's hooks installed in a far HOME of its own, by the far
/// termic as the other user), and the far termic that runs with that HOME.
struct FarClaude {
    termic: PathBuf,
    trace: PathBuf,
}

impl FarClaude {
    fn new(sshd: &Sshd) -> FarClaude {
        let sim = Path::new(env!("CARGO_BIN_EXE_termic")).with_file_name("termic-sim");
        assert!(
            sim.exists(),
            "the agent simulator is missing at {}: cargo build -p termic-sim",
            sim.display()
        );
        let uid: u32 = run_ok(Command::new("id").args(["-u", &sshd.user]))
            .trim()
            .parse()
            .unwrap();
        // The far HOME (where the hooks go) and the simulator's trace: ours,
        // not the other user's real home.
        let home = sshd.far.join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::os::unix::fs::chown(&home, Some(uid), None).unwrap();
        let out_dir = sshd.far.join("out");
        run_ok(
            Command::new("install")
                .args(["-d", "-m", "0777"])
                .arg(&out_dir),
        );
        let trace_path = out_dir.join("sim-trace.jsonl");
        let far_termic = sshd.far.join("termic-home");
        std::fs::write(
            &far_termic,
            format!(
                "#!/bin/sh\nHOME={home} exec {far}/termic \"$@\"\n",
                home = home.display(),
                far = sshd.far.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&far_termic, std::fs::Permissions::from_mode(0o755)).unwrap();
        let argv = [
            sim.display().to_string(),
            "claude".into(),
            "permission".into(),
            "--auto".into(),
            "--trace".into(),
            trace_path.display().to_string(),
        ];
        let quoted_argv: Vec<String> = argv.iter().map(|a| format!("{a:?}")).collect();
        let far_config = sshd.far.join("config/config.toml");
        std::fs::write(
            &far_config,
            format!(
                "[ui]\nwizard_shown = true\n\n[notifications]\ndesktop = false\n\n\
                 [terminal]\nnative_probe_reply = false\n\n[agents.claude]\ncommand = [{}]\n",
                quoted_argv.join(", ")
            ),
        )
        .unwrap();
        std::os::unix::fs::chown(&far_config, Some(uid), None).unwrap();
        // termic's hooks for Claude in the far HOME, installed by the far
        // termic as the other user.
        run_ok(
            Command::new(SSH)
                .args(["-T", "-o", "BatchMode=yes"])
                .args(sshd.ssh_args())
                .arg("--")
                .arg(sshd.destination())
                .arg(format!(
                    "{} hooks install claude --yes",
                    far_termic.display()
                ))
                .stdin(Stdio::null()),
        );
        assert!(
            home.join(".claude/settings.json").exists(),
            "the hooks were not installed in the far HOME"
        );
        FarClaude {
            termic: far_termic,
            trace: trace_path,
        }
    }

    /// The keys the simulator read, as its trace says.
    fn keys(&self) -> Vec<String> {
        std::fs::read_to_string(&self.trace)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|l| l["ev"] == "key")
            .map(|l| l["key"].to_string())
            .collect()
    }
}

/// Issue 29, the first test it asks for, answered from here: a simulated
/// Claude (termic-sim, with termic's hooks installed in the far HOME) runs
/// on the host as the other user and asks for a permission; `termic ls
/// --json` shows it with its host, needs you and the dialog's choices;
/// `termic answer far:N` lists them, `termic answer far:N approve_once`
/// types exactly the choice's key on the far side, and the task goes
/// working, then done.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_simulated_claude_permission_is_answered_from_here() {
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let claude = FarClaude::new(&sshd);
    let far_termic = claude.termic.clone();

    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        sshd.far_host_toml(&far_termic),
    )
    .unwrap();
    let started = expect(&f, &["run", "--host", "far", "--name", "sim", "claude"], 0);
    assert!(started.contains("far:1"), "{started}");
    let waited = expect(
        &f,
        &["wait", "far:1", "--for", "needs-you", "--timeout", "30"],
        0,
    );
    assert_eq!(waited.trim(), "needs_you", "{waited}");

    let mut row = Value::Null;
    wait_until("the far row offers the dialog's choices", || {
        let rows: Value = serde_json::from_str(&expect(&f, &["ls", "--json"], 0)).unwrap();
        match rows
            .as_array()
            .and_then(|r| r.iter().find(|r| r["host"] == "far"))
        {
            Some(r) if r.get("choices").is_some() => {
                row = r.clone();
                true
            }
            _ => false,
        }
    });
    assert_eq!(row["id"], 1, "{row}");
    assert_eq!(row["name"], "sim", "{row}");
    assert_eq!(row["state"], "needs_you", "{row}");
    assert_eq!(row["attention"]["kind"], "permission", "{row}");
    assert_eq!(row["attention"]["from_output"], false, "{row}");
    let ids: Vec<&str> = row["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["approve_once", "approve_always", "deny"], "{row}");

    let listed = expect(&f, &["answer", "far:1"], 0);
    assert!(listed.starts_with("sim needs you: permission"), "{listed}");
    assert!(
        listed.contains("  approve_once    Yes\n")
            && listed
                .contains("  deny            No, and tell Claude what to do differently (esc)\n"),
        "{listed}"
    );

    let keys = || claude.keys();
    // The far server's own pushes, through a bridge of our own: every
    // state task 1 goes through from here on.
    let watch = FarStates::new(&sshd, &far_termic, 1);
    let states = std::sync::Arc::clone(&watch.states);
    wait_until("the subscription's first row", || {
        !states.lock().unwrap().is_empty()
    });
    assert_eq!(states.lock().unwrap()[..], ["needs_you"]);

    let before = keys().len();
    let sent = expect(&f, &["answer", "far:1", "approve_once"], 0);
    assert_eq!(sent.trim(), "sent approve_once");
    let done = expect(
        &f,
        &["wait", "far:1", "--for", "done", "--timeout", "30"],
        0,
    );
    assert_eq!(done.trim(), "done");
    wait_until("done pushed by the far server", || {
        states.lock().unwrap().last().map(String::as_str) == Some("done")
    });
    assert_eq!(
        states.lock().unwrap()[..],
        ["needs_you", "working", "done"],
        "the far task after the answer"
    );
    drop(watch);
    // Exactly one key reached the far agent: the choice's `1`.
    let read = keys();
    assert_eq!(read.len(), before + 1, "{read:?}");
    assert!(read[before].contains("'1'"), "{read:?}");
    // Answered: it no longer needs you, and nothing more is sent.
    let again = termic(&f, &["answer", "far:1", "approve_once"]);
    assert_eq!(again.status.code(), Some(3), "{}", text(&again.stderr));
    assert!(
        text(&again.stdout).contains("no longer needs you"),
        "{}",
        text(&again.stdout)
    );
    assert_eq!(keys().len(), before + 1);
    expect(&f, &["kill", "far:1"], 0);
}

/// Issue 29, the workspace pane: the far simulated Claude asks for a
/// permission; a click on its row in the local sidebar focuses it, the
/// pane shows the far dialog through the view stream,
/// the `1` typed in the pane answers it on the far side (exactly that key
/// reaches the far agent, none reaches the local task), and the task goes
/// working, then done.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_permission_is_answered_by_keys_in_the_workspace_pane() {
    use crate::harness::{badge_line, fake_agent_config, Termic};
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let claude = FarClaude::new(&sshd);
    let f = Fixture::new();
    let local_read = f.work.join("local-read");
    std::fs::write(
        f.config_dir.join("config.toml"),
        format!(
            "{}\n{}",
            fake_agent_config(&format!(
                "echo LOCAL; stty -icanon min 1 -echo; exec cat >> {}",
                local_read.display()
            )),
            sshd.far_host_toml(&claude.termic)
        ),
    )
    .unwrap();
    expect(&f, &["run", "--host", "far", "--name", "sim", "claude"], 0);
    let waited = expect(
        &f,
        &["wait", "far:1", "--for", "needs-you", "--timeout", "30"],
        0,
    );
    assert_eq!(waited.trim(), "needs_you", "{waited}");
    expect(&f, &["run", "fake", "--name", "here", "--detach"], 0);
    let watch = FarStates::new(&sshd, &claude.termic, 1);
    wait_until("the subscription's first row", || {
        !watch.states.lock().unwrap().is_empty()
    });

    let mut a = Termic::start_with_env(&f, &["attach", "here"], &[("TERMIC_SSH", SSH)]);
    a.wait_text("LOCAL");
    a.wait_for("the far task needing you", |s| {
        badge_line(s, "1 sim").is_some_and(|l| l.contains("needs you"))
    });
    let before = claude.keys().len();
    let ssh_before = ssh_of(&f);
    // A click on the far task's row in the sidebar shows it in the pane.
    let screen = a.screen();
    let row = screen
        .lines()
        .position(|l| l.contains("1 sim"))
        .expect("the far row");
    let click = format!("\x1b[<0;3;{y}M\x1b[<0;3;{y}m", y = row + 1);
    a.send(click.as_bytes());
    a.wait_for("the far dialog in the pane", |s| {
        s.contains("tell Claude what to do differently") && !s.contains("LOCAL")
    });
    assert_eq!(
        ssh_of(&f).len(),
        ssh_before.len() + 1,
        "one more ssh: the pane's view"
    );
    a.send(b"1");
    let done = expect(
        &f,
        &["wait", "far:1", "--for", "done", "--timeout", "30"],
        0,
    );
    assert_eq!(done.trim(), "done");
    wait_until("done pushed by the far server", || {
        watch.states.lock().unwrap().last().map(String::as_str) == Some("done")
    });
    assert_eq!(
        watch.states.lock().unwrap()[..],
        ["needs_you", "working", "done"],
        "the far task after the key typed in the pane"
    );
    let read = claude.keys();
    assert_eq!(read.len(), before + 1, "{read:?}");
    assert!(read[before].contains("'1'"), "{read:?}");
    a.wait_for("done in the sidebar", |s| {
        badge_line(s, "1 sim").is_some_and(|l| l.contains("done"))
    });
    let leaked = std::fs::read_to_string(&local_read).unwrap_or_default();
    assert!(leaked.is_empty(), "keys reached the local task: {leaked:?}");
    // Back to the local task: the pane's ssh goes.
    a.prefix(b"\t");
    a.wait_text("LOCAL");
    wait_until("the pane's ssh gone", || {
        ssh_of(&f).len() == ssh_before.len()
    });
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    drop(watch);
    expect(&f, &["kill", "far:1"], 0);
    expect(&f, &["kill", "here"], 0);
    expect(&f, &["server", "stop"], 0);
}

/// Issue 29, a drop under a remote pane: the pane's ssh is killed while
/// the far task prints; the pane says it is disconnected (not a silently
/// frozen screen), comes back within 10 s showing the task as it is now,
/// and copy mode on it holds the line printed during the drop, which has
/// scrolled off the far screen (so it comes from the far history, not
/// from anything this side saw).
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_dropped_remote_pane_reconnects_and_copy_mode_has_what_was_printed_meanwhile() {
    use crate::harness::{fake_agent_config, Termic};
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        format!(
            "{}\n{}",
            fake_agent_config("echo LOCAL; sleep 600"),
            sshd.far_host_toml(&sshd.far.join("termic"))
        ),
    )
    .unwrap();
    // Each line read: `got:LINE`, then 50 numbered lines after it (more
    // than the pane's rows, fewer than two pages).
    let script =
        "echo FAR-READY; while read l; do echo \"got:$l\"; seq 1 50 | sed \"s/^/$l-/\"; done";
    expect(
        &f,
        &[
            "run", "--host", "far", "--name", "echo", "--", "sh", "-c", script,
        ],
        0,
    );
    expect(&f, &["run", "fake", "--name", "here", "--detach"], 0);
    let mut a = Termic::start_with_env(&f, &["attach", "here"], &[("TERMIC_SSH", SSH)]);
    a.wait_text("LOCAL");
    a.wait_text("1 echo");
    let feed_ssh = ssh_of(&f);
    assert_eq!(feed_ssh.len(), 1, "{feed_ssh:?}");
    a.prefix(b"\t");
    a.wait_text("FAR-READY");
    let mut pane_ssh = Vec::new();
    wait_until("the pane's ssh", || {
        pane_ssh = ssh_of(&f)
            .into_iter()
            .filter(|p| !feed_ssh.contains(p))
            .collect();
        !pane_ssh.is_empty()
    });
    a.send(b"before\r");
    a.wait_text("before-50");
    // SAFETY: a signal to an ssh this test's server started.
    unsafe {
        libc::kill(pane_ssh[0], libc::SIGKILL);
    }
    let killed = Instant::now();
    a.wait_for("the pane disconnected", |s| {
        s.contains("far: disconnected since")
    });
    // Printed during the drop, through `send`'s own ssh.
    expect(&f, &["send", "far:echo", "DROPPED", "--enter"], 0);
    a.wait_within(
        "reconnected, showing the task as it is now",
        Duration::from_secs(10),
        |s| s.contains("DROPPED-50") && !s.contains("disconnected"),
    );
    eprintln!("pane ssh killed to reconnected: {:?}", killed.elapsed());
    let screen = a.screen();
    assert!(!screen.contains("got:DROPPED"), "scrolled off: {screen}");
    // Copy mode a page up: the far history, with the line of the drop.
    a.prefix(b"\x1b[5~");
    a.wait_for("copy mode on the far history", |s| {
        s.contains("copy mode") && s.contains("got:DROPPED")
    });
    a.send(b"q");
    a.wait_for("copy mode left", |s| !s.contains("copy mode"));
    a.send(b"after\r");
    a.wait_text("after-50");

    // Split view: two local tasks side by side, then the focus walks into
    // the far task, which takes the half that had it.
    expect(
        &f,
        &[
            "run",
            "--name",
            "there",
            "--detach",
            "--",
            "sh",
            "-c",
            "echo THERE; sleep 600",
        ],
        0,
    );
    a.wait_text("2 there");
    a.prefix(b"\t");
    a.wait_for("back to the local task", |s| {
        s.contains("LOCAL") && !s.contains("after-50")
    });
    wait_until("the pane's ssh gone", || ssh_of(&f) == feed_ssh);
    a.prefix(b"|");
    a.wait_for("both local tasks", |s| {
        s.contains("LOCAL") && s.contains("THERE")
    });
    a.prefix(b"\t");
    a.prefix(b"\t");
    a.wait_for("the far task beside the local one", |s| {
        s.contains("LOCAL") && s.contains("after-50") && !s.contains("THERE")
    });
    a.send(b"split\r");
    a.wait_for("typed into the far half", |s| {
        s.contains("LOCAL") && s.contains("split-50")
    });
    // The focus back on the local half (what is typed there echoes in
    // it): the far task stays shown.
    a.prefix(b"\t");
    a.send(b"zz");
    a.wait_for("typed into the local half, the far one still shown", |s| {
        s.contains("zz") && s.contains("split-50")
    });
    let screen = a.screen();
    assert!(screen.contains("split-50"), "{screen}");
    assert_eq!(ssh_of(&f).len(), feed_ssh.len() + 1, "the far half's view");
    // One pane again: the far task's link ends.
    a.prefix(b"|");
    wait_until("the pane's ssh gone after the split", || {
        ssh_of(&f) == feed_ssh
    });
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    wait_until("no ssh after the detach", || ssh_of(&f).is_empty());
    expect(&f, &["kill", "far:echo"], 0);
    expect(&f, &["kill", "here"], 0);
    expect(&f, &["kill", "there"], 0);
    expect(&f, &["server", "stop"], 0);
}

/// Issue 29, hooks on a host: `termic hooks status|install|remove --host
/// far` run the far termic over ssh, so the files named and written are
/// the far HOME's (the other user's), never this machine's: status names
/// the far settings file; remove's preview writes nothing, remove without
/// `--yes` on a pipe exits 2 and writes nothing, with `--yes` it takes
/// termic's entries out of the far file; install `--yes` puts them back.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn hooks_on_a_host_name_and_write_the_hosts_files() {
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let claude = FarClaude::new(&sshd);
    let far_settings = claude
        .termic
        .parent()
        .unwrap()
        .join("home/.claude/settings.json");
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        sshd.far_host_toml(&claude.termic),
    )
    .unwrap();
    let installed = std::fs::read_to_string(&far_settings).unwrap();
    assert!(installed.contains("termic"), "{installed}");

    let status = expect(&f, &["hooks", "status", "--host", "far"], 0);
    assert!(status.contains("claude"), "{status}");
    let json: Value = serde_json::from_str(&expect(
        &f,
        &["hooks", "status", "--host", "far", "--json"],
        0,
    ))
    .unwrap();
    assert!(
        json.to_string()
            .contains(&sshd.far.join("home").display().to_string()),
        "the far HOME's files: {json}"
    );

    let preview = expect(
        &f,
        &["hooks", "remove", "claude", "--host", "far", "--dry-run"],
        0,
    );
    assert!(preview.contains(".claude/settings.json"), "{preview}");
    assert_eq!(std::fs::read_to_string(&far_settings).unwrap(), installed);
    let refused = termic(&f, &["hooks", "remove", "claude", "--host", "far"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert_eq!(std::fs::read_to_string(&far_settings).unwrap(), installed);

    expect(
        &f,
        &["hooks", "remove", "claude", "--host", "far", "--yes"],
        0,
    );
    let removed = std::fs::read_to_string(&far_settings).unwrap_or_default();
    assert!(!removed.contains("termic"), "{removed}");
    assert!(
        !f.home.join(".claude/settings.json").exists(),
        "nothing written in this machine's HOME"
    );
    expect(
        &f,
        &["hooks", "install", "claude", "--host", "far", "--yes"],
        0,
    );
    let again = std::fs::read_to_string(&far_settings).unwrap();
    assert!(again.contains("termic"), "{again}");
    assert!(!f.home.join(".claude").exists());
}

/// The web page's remote hosts (issue 30): `termic web`'s `hosts` stream
/// lists the far host's task under its host, live (needs you with its
/// dialog's choices), and an answer from the page goes to the far task
/// the way `termic answer far:N CHOICE` sends it: the far task gets the
/// choice's key and says done, which the stream shows too.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn the_web_page_lists_a_hosts_tasks_under_it_and_answers_one_there() {
    use crate::harness::fake_agent_config;
    use crate::served::Served;
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    use crate::web::{
        dialog_agent, next_text, pair_link, post_pair, start_web_env, ws, ws_protocols,
    };
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let far_config = sshd.far.join("config/config.toml");
    std::fs::write(&far_config, fake_agent_config(&dialog_agent())).unwrap();
    let uid: u32 = run_ok(Command::new("id").args(["-u", &sshd.user]))
        .trim()
        .parse()
        .unwrap();
    std::os::unix::fs::chown(&far_config, Some(uid), None).unwrap();

    let s = Served { f: Fixture::new() };
    std::fs::write(
        s.f.config_dir.join("config.toml"),
        format!(
            "{}\n{}",
            fake_agent_config("echo LOCAL; sleep 600"),
            sshd.far_host_toml(&sshd.far.join("termic"))
        ),
    )
    .unwrap();
    expect(
        &s.f,
        &["run", "--host", "far", "--name", "create", "fake"],
        0,
    );
    // The local server, started with the ssh its links use.
    expect(&s.f, &["run", "fake", "--name", "here", "--detach"], 0);
    let (web, _) = start_web_env(&s, &[], &[("TERMIC_SSH", SSH)]);
    let host = format!("127.0.0.1:{}", web.port);
    let origin = format!("http://{host}");
    let link = pair_link(&s, &[]);
    let cred = post_pair(web.port, link.rsplit('#').next().unwrap(), &origin).unwrap();
    let cookie = format!("termic_device={}", cred.0);
    let protocols = ws_protocols(&cred);
    let page: [(&str, &str); 3] = [
        ("Origin", &origin),
        ("Cookie", &cookie),
        ("Sec-WebSocket-Protocol", &protocols),
    ];
    let mut hosts = ws(web.port, &host, &page).unwrap();
    hosts.send(tungstenite::Message::text("\"hosts\"")).unwrap();
    // Every message is every host; the far task's row, once it needs you.
    // The page shows it under @far, after this computer's, with its
    // badge and its dialog's answers.
    let mut b = crate::web::Browser::phone();
    b.navigate(&pair_link(&s, &[]));
    b.until(
        "the far host's group lists its task needing you with its answers",
        "(() => { const g = document.querySelector('#list .host[data-host=far]'); \
return !!g && g.querySelector('h2').textContent === '@far' && \
Array.from(g.querySelectorAll('li')).some(li => li.textContent.includes('create') \
&& li.querySelector('.badge.needs_you') && li.querySelector('.choice[data-choice=approve_once]')); })()",
    );
    assert_eq!(
        b.eval("Array.from(document.querySelectorAll('#list h2')).map(h => h.textContent)"),
        serde_json::json!(["This computer", "@far"])
    );
    b.screenshot(&crate::web::artefact("web-phone-hosts.png"));
    let far_row = |hosts: &mut crate::web::Ws, state: &str| -> Value {
        let start = Instant::now();
        loop {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the far task never reached {state}"
            );
            let m = next_text(hosts).expect("the hosts stream ended");
            let list = m["hosts"].as_array().expect("hosts").clone();
            assert_eq!(list.len(), 1, "{m}");
            assert_eq!(list[0]["name"], "far", "{m}");
            if let Some(row) = list[0]["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == "create" && r["state"] == state)
            {
                assert_eq!(list[0]["link"], "connected", "{m}");
                return row.clone();
            }
        }
    };
    let row = far_row(&mut hosts, "needs_you");
    let choices: Vec<&str> = row["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(choices.contains(&"approve_once"), "{row}");
    // The local list (subscribe) holds only this computer's task.
    let mut local = ws(web.port, &host, &page).unwrap();
    local
        .send(tungstenite::Message::text("\"subscribe\""))
        .unwrap();
    let listed = next_text(&mut local).unwrap();
    let names: Vec<&str> = listed["subscribed"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["here"]);

    // Its screen in the page, through termic web's own ssh to the host;
    // one tap on the choice above it.
    let term = crate::web::TERM_TEXT;
    b.eval("document.querySelector('#list .host[data-host=far] li button').click()");
    b.until(
        "the far task's screen shows its dialog",
        &format!("({term}).includes('Do you want to create out.txt?')"),
    );
    assert_eq!(
        b.eval("document.getElementById('title').textContent"),
        "create on far"
    );
    // The view's own ssh, a child of termic web (the server's link is the
    // server's).
    let web_ssh = || {
        children_of(web.pid())
            .into_iter()
            .filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "ssh")
            })
            .count()
    };
    assert_eq!(web_ssh(), 1);
    b.screenshot(&crate::web::artefact("web-phone-host-task.png"));
    b.eval("document.querySelector('#ask .choice[data-choice=approve_once]').click()");
    b.until(
        "the far task read the choice's key",
        &format!("({term}).includes('answered 1')"),
    );
    b.eval("document.getElementById('back').click()");
    wait_until("the view's ssh ends with the view", || web_ssh() == 0);
    far_row(&mut hosts, "done");
    b.until(
        "the page shows the far task done",
        "!!document.querySelector('#list .host[data-host=far] li .badge.done') && \
!document.querySelector('#list .host[data-host=far] .ask')",
    );
    // A host that is not in config.toml is not asked.
    let mut tap = ws(web.port, &host, &page).unwrap();
    let answer = serde_json::json!({"answer": {
        "host": "elsewhere", "task": "1", "choice": "approve_once"}});
    tap.send(tungstenite::Message::text(answer.to_string()))
        .unwrap();
    let refused = next_text(&mut tap).unwrap();
    assert!(refused["error"]["message"].is_string(), "{refused}");
}
