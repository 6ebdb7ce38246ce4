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
        Sshd::start_with(false)
    }

    /// With `far_on_path`, sessions get the far dir first on PATH, so the
    /// far termic is `termic` there (a host added by `hosts add NAME DEST`,
    /// with no `termic` key).
    fn start_with(far_on_path: bool) -> Sshd {
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
            .args(match far_on_path {
                true => vec![
                    "-o".to_owned(),
                    format!("SetEnv=PATH={}:/usr/bin:/bin", far.display()),
                ],
                false => Vec::new(),
            })
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

    /// A fixture whose agent `fake` prints LOCAL and whose config.toml has
    /// this sshd as host `far`.
    fn near_fixture(&self) -> Fixture {
        let f = Fixture::new();
        std::fs::write(
            f.config_dir.join("config.toml"),
            format!(
                "{}\n{}",
                crate::harness::fake_agent_config("echo LOCAL; sleep 600"),
                self.far_host_toml(&self.far.join("termic"))
            ),
        )
        .unwrap();
        f
    }

    /// The far termic's config.toml, owned by the other user.
    fn far_config(&self, toml: &str) {
        let path = self.far.join("config/config.toml");
        std::fs::write(&path, toml).unwrap();
        let uid: u32 = run_ok(Command::new("id").args(["-u", &self.user]))
            .trim()
            .parse()
            .unwrap();
        std::os::unix::fs::chown(&path, Some(uid), None).unwrap();
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

/// How many ssh processes are children of `pid` (termic web's own, one
/// per open view of a remote task).
fn ssh_children(pid: u32) -> usize {
    children_of(pid)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "ssh")
        })
        .count()
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
    sshd.far_config(&fake_agent_config(&script));

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

    // Detached: the link stays (the server tells of the host's tasks
    // while nobody is attached); `server stop` ends it.
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    assert_eq!(ssh_of(&f), again, "the link outlives the client");
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
    use crate::harness::Termic;
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let f = sshd.near_fixture();
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
    // The server's link stays after the detach (it tells of far's tasks
    // while nobody is attached).
    wait_until("only the link's ssh after the detach", || {
        ssh_of(&f) == feed_ssh
    });
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
    sshd.far_config(&fake_agent_config(&dialog_agent()));

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
    let web_ssh = || ssh_children(web.pid());
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

/// Issue 29: the workspace's task commands on a remote task act on its
/// host, over the connection `termic kill HOST:TASK` makes. The Inspector
/// shows the far task's timeline and its state changes as they come;
/// details name the host; rename renames it there (the far server's list
/// says so); restart starts the exited far task again; close ends it
/// there and the focus comes back to the local task, with no ssh left
/// but the host's link.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_task_is_inspected_renamed_restarted_and_closed_from_the_workspace() {
    use crate::harness::{badge_line, fake_agent_config, hook};
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    let script = [
        "echo 'far change' >> notes.txt".to_string(),
        "echo FAR-READY".into(),
        "read l".into(),
        hook("working", ""),
        "read l".into(),
        hook("attention", ";kind=permission"),
        "read l".into(),
        "exit 0".into(),
    ]
    .join("; ");
    sshd.far_config(&fake_agent_config(&script));
    // The far task runs in a repository of the other user's.
    let repo = far_repo(&sshd, "master");
    let f = sshd.near_fixture();
    let mut a = build_there_and_here(&f, &repo, "LOCAL");
    let feed_ssh = ssh_of(&f);
    a.prefix(b"\t");
    a.wait_text("FAR-READY");

    // The Inspector: the far task's timeline, live.
    a.prefix(b"i");
    a.wait_text("Inspector: build on far (fake)");
    let sent = Instant::now();
    expect(&f, &["send", "far:build", "go", "--enter"], 0);
    a.wait_for("the far working transition in the Inspector", |s| {
        s.lines()
            .any(|l| l.contains("transition") && l.contains("working"))
    });
    eprintln!(
        "send far:build to its working transition in the Inspector: {:?}",
        sent.elapsed()
    );
    expect(&f, &["send", "far:build", "go", "--enter"], 0);
    a.wait_for("the far needs_you transition in the Inspector", |s| {
        s.lines()
            .any(|l| l.contains("transition") && l.contains("needs_you"))
    });
    a.send(b"\x1b");
    a.wait_for("the Inspector closed", |s| !s.contains("Inspector:"));

    // Details: from the host's row, naming the host.
    a.prefix(b"t");
    let s = a.wait_text("build (fake) on far");
    let row = |label: &str, value: &str| {
        s.lines().any(|l| {
            l.split_once(&format!("{label}  "))
                .is_some_and(|(_, rest)| rest.trim_start().starts_with(value))
        })
    };
    assert!(row("host", "far"), "{s}");
    assert!(row("state", "needs you"), "{s}");
    assert!(row("number", "1"), "{s}");
    a.send(b"\x1b");
    a.wait_for("details closed", |s| !s.contains("build (fake) on far"));

    // The diff view: the changes read on the host; no revert while the
    // far agent needs you (its row says so).
    a.prefix(b"v");
    let s = a.wait_text("Changes: build on far (+1 -0, 1 file)");
    assert!(s.contains("+far change"), "{s}");
    a.send(b"r");
    a.wait_text("The agent needs you and its turn is not over. Revert when it is done.");
    a.send(b"q");
    a.wait_for("the diff view closed", |s| !s.contains("Changes:"));

    // Rename: on the host, so its own list and this sidebar say so.
    a.prefix(b",");
    a.wait_text("Rename build");
    let asked = Instant::now();
    a.send(b"renamed\r");
    a.wait_text("1 renamed");
    eprintln!("rename on far to the sidebar: {:?}", asked.elapsed());
    let listed = expect(&f, &["ls", "--host", "far", "--json"], 0);
    assert!(listed.contains("\"renamed\""), "{listed}");

    // Restart: refused while it runs, then the exited task starts again.
    a.prefix(b"r");
    a.wait_text("renamed is still running");
    expect(&f, &["send", "far:renamed", "go", "--enter"], 0);
    a.wait_for("exited on far", |s| {
        badge_line(s, "1 renamed").is_some_and(|l| l.contains("exited"))
    });
    a.prefix(b"r");
    a.wait_for("started again on far", |s| {
        badge_line(s, "1 renamed").is_some_and(|l| !l.contains("exited")) && s.contains("FAR-READY")
    });

    // Close: the task ends there, the focus comes back here.
    a.prefix(b"x");
    a.wait_text("Close renamed on far? Its agent is stopped.");
    let asked = Instant::now();
    a.send(b"y");
    a.wait_for("closed on far, the local task shown", |s| {
        !s.contains("1 renamed") && s.contains("LOCAL")
    });
    eprintln!(
        "close on far to the local task shown: {:?}",
        asked.elapsed()
    );
    let listed = expect(&f, &["ls", "--host", "far", "--json"], 0);
    assert!(!listed.contains("\"renamed\""), "{listed}");
    wait_until("only the host's link left", || ssh_of(&f) == feed_ssh);
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    wait_until("only the server's link after the detach", || {
        ssh_of(&f) == feed_ssh
    });
    expect(&f, &["kill", "here"], 0);
    expect(&f, &["server", "stop"], 0);
}

/// Issue 31 item 1's "host" (2026-12-06): a task started on a host is the
/// host's server's, and its journal record is there. After that server
/// stopped (as a reboot would end it), `termic restore --host far --list`
/// here lists the task, `termic restore` here does not, and `termic
/// restore --host far --json` starts it again on the host with its name,
/// number and directory.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_hosts_task_is_restored_there_by_restore_host() {
    let sshd = Sshd::start();
    let far_server = FarServer(&sshd);
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        sshd.far_host_toml(&sshd.far.join("termic")),
    )
    .unwrap();
    let run = termic(
        &f,
        &[
            "run",
            "--host",
            "far",
            "--name",
            "keep",
            "--cwd",
            "/tmp",
            "--",
            "sh",
            "-c",
            "echo KEEP; sleep 600",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    // The far server stops: its task ends with it, its record stays.
    drop(far_server);
    let far_server = FarServer(&sshd);
    let listed = expect(&f, &["restore", "--host", "far", "--list"], 0);
    assert!(listed.contains("1 keep: sh -c"), "{listed}");
    assert!(listed.contains("(in /tmp)"), "{listed}");
    let here = expect(&f, &["restore", "--list"], 0);
    assert_eq!(here.trim(), "No task to restore.", "{here}");
    let restored: Value =
        serde_json::from_str(&expect(&f, &["restore", "--host", "far", "--json"], 0)).unwrap();
    assert_eq!(restored[0]["name"], "keep", "{restored}");
    assert_eq!(restored[0]["error"], Value::Null, "{restored}");
    assert_eq!(restored[0]["row"]["id"], 1, "{restored}");
    assert_eq!(restored[0]["row"]["cwd"], "/tmp", "{restored}");
    let json: Value =
        serde_json::from_str(&expect(&f, &["ls", "--json", "--host", "far"], 0)).unwrap();
    assert_eq!(json[0]["name"], "keep", "{json}");
    assert_ne!(json[0]["state"], "exited", "{json}");
    expect(&f, &["kill", "far:1"], 0);
    drop(far_server);
}

/// The local server's own view of the hosts, through its `hosts` stream
/// (which attaches no client): returns once `done` holds for the list.
fn server_hosts_until(f: &Fixture, what: &str, done: impl Fn(&Value) -> bool) {
    let mut c = local_socket(f, &[Value::String("hosts".into())]);
    loop {
        let v = read_value(&mut c).unwrap_or_else(|e| panic!("{what}: never ({e})"));
        if v.get("hosts").is_some_and(&done) {
            return;
        }
    }
}

/// A connection to the local server with hello and `frames` sent.
fn local_socket(f: &Fixture, frames: &[Value]) -> std::os::unix::net::UnixStream {
    let mut c =
        std::os::unix::net::UnixStream::connect(f.data_dir.join("run/server.sock")).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    for frame in std::iter::once(hello()).chain(frames.iter().cloned()) {
        let body = serde_json::to_vec(&frame).unwrap();
        c.write_all(&(body.len() as u32).to_be_bytes()).unwrap();
        c.write_all(&body).unwrap();
    }
    c
}

/// The next frame from the server.
fn read_value(c: &mut std::os::unix::net::UnixStream) -> std::io::Result<Value> {
    let mut len = [0u8; 4];
    c.read_exact(&mut len)?;
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    c.read_exact(&mut body)?;
    Ok(serde_json::from_slice(&body).unwrap())
}

/// Notification bodies as they come, up to and with the first that
/// contains `needle`, and that one's id.
fn bodies_until(notes: &crate::dbus::NotifyServer, needle: &str) -> (Vec<String>, u64) {
    let mut bodies = Vec::new();
    let end = Instant::now() + crate::dbus::WAIT;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let v = notes
            .received
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no notification with {needle:?}; had {bodies:?}"));
        let body = v["body"].as_str().unwrap_or_default().to_owned();
        let last = body.contains(needle);
        bodies.push(body);
        if last {
            return (bodies, v["id"].as_u64().unwrap());
        }
    }
}

/// Issue 29, notifications from a host: with no client attached, the
/// local server's own link to the host tells the desktop (a real
/// notification server on a private bus) that a remote task needs you
/// and is done, naming the host; with a workspace attached, each change
/// is told once, never by both; and a click on the notification of a
/// remote task opens that task in the attached workspace's pane.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_task_notifies_with_no_client_attached_once_per_change_and_a_click_opens_it() {
    use crate::harness::{badge_line, fake_agent_config, hook, Termic};
    let Some(bus) = crate::dbus::SessionBus::start() else {
        return;
    };
    let mut notes = crate::dbus::NotifyServer::start(&bus);
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    // Three turns, each working, then needing a permission, then done.
    let mut script = vec!["echo READY FAR".to_string()];
    for _ in 0..3 {
        for step in [
            hook("working", ""),
            hook("attention", ";kind=permission"),
            hook("done", ""),
        ] {
            script.push("read l".into());
            script.push(step);
        }
    }
    script.push("sleep 600".into());
    sshd.far_config(&fake_agent_config(&script.join("; ")));

    let f = sshd.near_fixture();
    let env = [
        ("TERMIC_SSH", SSH),
        ("DBUS_SESSION_BUS_ADDRESS", bus.address.as_str()),
    ];
    let run = |args: &[&str]| {
        let out = f.cli_with_env(&f.work, args, &env);
        assert!(
            out.status.success(),
            "termic {args:?}: {}",
            text(&out.stderr)
        );
    };
    // The local server starts here, with the bus; its link to far starts
    // with it.
    run(&["run", "fake", "--name", "here", "--detach"]);
    run(&["run", "--host", "far", "--name", "build", "fake"]);
    server_hosts_until(&f, "the server's link lists far's task", |h| {
        h[0]["link"] == "connected" && h[0]["tasks"].as_array().is_some_and(|t| t.len() == 1)
    });
    let step = || run(&["send", "far:build", "go", "--enter"]);

    // Nobody attached: the server tells, naming the host.
    step();
    let asked = Instant::now();
    step();
    let (bodies, _) = bodies_until(&notes, "needs you");
    eprintln!(
        "far needs you to the desktop notification, no client attached: {:?}",
        asked.elapsed()
    );
    assert_eq!(bodies, ["build on far (fake) needs you"]);
    step();
    assert_eq!(
        bodies_until(&notes, "is done").0,
        ["build on far (fake) is done"]
    );

    // A workspace attached: it tells, the server does not; one each.
    let mut a = Termic::start_with_env(&f, &["attach", "here"], &env);
    a.wait_text("LOCAL");
    a.wait_for("far's task done in the sidebar", |s| {
        badge_line(s, "1 build").is_some_and(|l| l.contains("done"))
    });
    step();
    step();
    assert_eq!(
        bodies_until(&notes, "needs you").0,
        ["build on far (fake) needs you"]
    );
    step();
    assert_eq!(
        bodies_until(&notes, "is done").0,
        ["build on far (fake) is done"],
        "one notification per change, with a client attached"
    );

    // A click on a remote task's notification opens it in the pane.
    step();
    step();
    let (asked, shown) = bodies_until(&notes, "needs you");
    assert_eq!(asked, ["build on far (fake) needs you"]);
    let ssh_before = ssh_of(&f);
    a.wait_for("the far task needing you", |s| {
        badge_line(s, "1 build").is_some_and(|l| l.contains("needs you"))
    });
    notes.click(shown, "default");
    a.wait_for("the far task in the pane", |s| {
        s.contains("READY FAR") && !s.contains("LOCAL")
    });
    assert_eq!(ssh_of(&f).len(), ssh_before.len() + 1, "the pane's ssh");

    // Detached, the server's link stays for the next change.
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    wait_until("one ssh: the server's link", || ssh_of(&f).len() == 1);
    expect(&f, &["kill", "far:build"], 0);
    expect(&f, &["kill", "here"], 0);
    expect(&f, &["server", "stop"], 0);
    wait_until("nothing of ours left", || {
        processes_of(&f.data_dir).is_empty()
    });
}

/// Issue 29 items 1 and 2 (2026-12-06): a remote task in a split beside a
/// local one: both drawn, keys reach only the focused half, each half has
/// its own size (the far task's PTY takes its half); the remote task's
/// details name its command, branch, status channel and pid, as the host
/// read them (`details`, protocol 9); another task of the host focused
/// takes the remote half; and a split from the one local task puts the
/// host's task beside it. Two remote tasks in one split (2026-12-07):
/// each half its own link and size, keys reach the focused far task only
/// (as the far side's files show), and the link of a remote task that
/// leaves the split ends.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_task_splits_beside_a_local_one_and_its_details_name_command_branch_channel_and_pid() {
    use crate::harness::fake_agent_config;
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    // Each far task also writes what it read, and its size then, to a
    // file named after its directory, on the far side.
    sshd.far_config(&fake_agent_config(&format!(
        "echo FAR-READY; while read l; do echo \"far got $l $(stty size)\"; \
         echo \"$l $(stty size)\" >> {}/got-${{PWD##*/}}; done",
        sshd.far.display()
    )));
    let repo = far_repo(&sshd, "far-branch");
    let other_dir = sshd.far.join("other");
    std::fs::create_dir(&other_dir).unwrap();
    run_ok(Command::new("chown").arg(&sshd.user).arg(&other_dir));
    let got = |dir: &str| std::fs::read_to_string(sshd.far.join(format!("got-{dir}")));
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        format!(
            "{}\n{}",
            fake_agent_config(
                "echo LOCAL-READY; while read l; do echo \"local got $l $(stty size)\"; done"
            ),
            sshd.far_host_toml(&sshd.far.join("termic"))
        ),
    )
    .unwrap();
    let mut a = build_there_and_here(&f, &repo, "LOCAL-READY");
    a.prefix(b"\t");
    shown(
        &a,
        "the far task alone in the pane",
        &["FAR-READY"],
        &["LOCAL-READY"],
    );

    // Split from the remote task: both halves drawn.
    a.prefix(b"|");
    shown(
        &a,
        "the far and the local task side by side",
        &["FAR-READY", "LOCAL-READY"],
        &[],
    );
    a.send(b"to-far\r");
    let s = a.wait_text("far got to-far");
    assert!(!s.contains("local got"), "{s}");
    // The focus to the local half: the far task stays drawn.
    a.prefix(b"\t");
    a.send(b"to-here\r");
    let s = a.wait_text("local got to-here");
    assert!(s.contains("far got to-far"), "the far half left: {s}");
    assert!(!s.contains("far got to-here"), "{s}");
    let size = |s: &str, who: &str| -> (u16, u16) {
        let line = s.lines().find(|l| l.contains(who)).unwrap();
        let rest = &line[line.find(who).unwrap() + who.len()..];
        let mut n = rest.split_whitespace().map(|w| w.parse::<u16>().unwrap());
        (n.next().unwrap(), n.next().unwrap())
    };
    let (far_rows, far_cols) = size(&s, "far got to-far");
    let (here_rows, here_cols) = size(&s, "local got to-here");
    eprintln!("split sizes: far {far_rows}x{far_cols}, here {here_rows}x{here_cols}");
    assert_eq!(far_rows, here_rows, "{s}");
    assert!(
        far_cols.abs_diff(here_cols) <= 1,
        "each half its own width: {s}"
    );

    // Back to the far half: its details, as its host read them.
    a.prefix(b"\t");
    a.prefix(b"t");
    let s = shown(
        &a,
        "the far task's details with its pid",
        &["build (fake) on far", "pid  "],
        &[],
    );
    let value = |label: &str| -> String {
        s.lines()
            .find_map(|l| {
                l.split_once(&format!("{label}  "))
                    .map(|(_, rest)| rest.trim_start().to_owned())
            })
            .unwrap_or_else(|| panic!("no {label} row: {s}"))
    };
    assert!(value("command").starts_with("sh -c"), "{s}");
    assert!(value("branch").starts_with("far-branch"), "{s}");
    assert!(value("status from").starts_with("heuristics"), "{s}");
    let pid: u32 = value("pid")
        .split_whitespace()
        .next()
        .and_then(|p| p.trim_end_matches('│').parse().ok())
        .unwrap_or_else(|| panic!("no pid number: {s}"));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let uid = run_ok(Command::new("id").args(["-u", &sshd.user]));
    assert!(
        status
            .lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some(uid.trim())),
        "pid {pid} is not the far user's: {status}"
    );
    a.send(b"\x1b");
    a.wait_for("details closed", |s| !s.contains("build (fake) on far"));

    // Another task of the host focused: it takes the remote half (one
    // remote task is shown at a time), the local half stays.
    let other_cwd = other_dir.display().to_string();
    expect(
        &f,
        &[
            "run", "--host", "far", "--cwd", &other_cwd, "--name", "other", "fake",
        ],
        0,
    );
    a.wait_text("2 other");
    a.prefix(b"\t");
    shown(
        &a,
        "far's second task in the remote half",
        &["local got to-here", "FAR-READY"],
        &["far got to-far"],
    );
    a.send(b"to-other\r");
    let s = a.wait_text("far got to-other");
    assert!(!s.contains("local got to-other"), "{s}");
    a.prefix(b"p");
    shown(
        &a,
        "far's first task back in the remote half",
        &["local got to-here", "far got to-far"],
        &["far got to-other"],
    );

    // Two far tasks side by side: the local half focused, then far's
    // second task (the previous place, wrapping) takes that half.
    let ssh_before = ssh_of(&f);
    let ssh_one = ssh_before.len();
    a.prefix(b"p");
    a.prefix(b"p");
    shown(
        &a,
        "far's two tasks side by side",
        &["far got to-far", "far got to-other"],
        &["local got to-here"],
    );
    wait_until("a second view link", || ssh_of(&f).len() == ssh_one + 1);
    typed_in(&mut a, "two-b", || got("other"));
    // Copy mode in this half (the second pane's link brings the history).
    a.prefix(b"\x1b[5~");
    a.wait_for("copy mode on far's second task", |s| {
        s.contains("copy mode") && s.contains("far got two-b") && s.contains("far got to-far")
    });
    a.send(b"q");
    a.wait_for("copy mode left", |s| !s.contains("copy mode"));
    // The other half focused: keys go to far's first task only.
    a.prefix(b"p");
    typed_in(&mut a, "two-a", || got("repo"));
    let (first, second) = (got("repo").unwrap(), got("other").unwrap());
    assert!(!first.contains("two-b"), "{first}");
    assert!(!second.contains("two-a"), "{second}");
    // The half without the focus loses its link: it says so on its last
    // row (the focused half's status line says nothing), and comes back
    // by itself (the first retry is a second away, 2026-12-07).
    let second_link: Vec<i32> = ssh_of(&f)
        .into_iter()
        .filter(|p| !ssh_before.contains(p))
        .collect();
    assert_eq!(second_link.len(), 1, "{second_link:?}");
    // SAFETY: a signal to an ssh this test's server started.
    unsafe {
        libc::kill(second_link[0], libc::SIGKILL);
    }
    a.wait_for("the unfocused half says its link is down", |s| {
        s.contains("far: disconnected since") && s.contains("far got two-a")
    });
    a.wait_within(
        "the unfocused half reconnected",
        Duration::from_secs(10),
        |s| {
            s.contains("far got two-b")
                && !s.contains("far: disconnected")
                && !s.contains("far: connecting")
        },
    );
    // Each far PTY has its half's size: the remote half's before, and
    // the local half's before.
    let far_size = |g: &str, line: &str| -> (u16, u16) {
        let rest = g.lines().rev().find_map(|l| l.strip_prefix(line)).unwrap();
        let mut n = rest.split_whitespace().map(|w| w.parse::<u16>().unwrap());
        (n.next().unwrap(), n.next().unwrap())
    };
    assert_eq!(far_size(&first, "two-a "), (far_rows, far_cols), "{first}");
    assert_eq!(
        far_size(&second, "two-b "),
        (here_rows, here_cols),
        "{second}"
    );
    // Stacked: the two far PTYs share the width and split the height.
    a.prefix(b"-");
    a.send(b"st-a\r");
    a.wait_text("far got st-a");
    a.prefix(b"\t");
    typed_in(&mut a, "st-b", || got("other"));
    let (first, second) = (got("repo").unwrap(), got("other").unwrap());
    let (a_rows, a_cols) = far_size(&first, "st-a ");
    let (b_rows, b_cols) = far_size(&second, "st-b ");
    eprintln!("stacked far sizes: {a_rows}x{a_cols} and {b_rows}x{b_cols}");
    assert_eq!(a_cols, b_cols, "{first} {second}");
    assert!(
        a_rows.abs_diff(b_rows) <= 1 && a_rows < far_rows,
        "{first} {second}"
    );
    assert!(!first.contains("st-b") && !second.contains("st-a"));
    // Side by side again; the local task focused takes far's second
    // task's half: that task's link ends, the first one's stays.
    a.prefix(b"|");
    a.prefix(b"\t");
    shown(
        &a,
        "far's first task beside the local one again",
        &["far got two-a", "local got to-here"],
        &["far got two-b"],
    );
    wait_until("the second view link ended", || ssh_of(&f).len() == ssh_one);
    a.prefix(b"\t");
    expect(&f, &["kill", "far:other"], 0);
    a.wait_for("far's second task gone", |s| !s.contains("2 other"));

    // One pane again, then back to the local task alone.
    a.prefix(b"|");
    shown(
        &a,
        "the far task alone",
        &["far got to-far"],
        &["LOCAL-READY"],
    );
    a.prefix(b"\t");
    shown(
        &a,
        "the local task alone",
        &["local got to-here"],
        &["FAR-READY"],
    );
    // Split from the one local task: the host's task beside it, the
    // focus kept here.
    a.prefix(b"|");
    shown(
        &a,
        "the local and the far task side by side",
        &["local got to-here", "far got to-far"],
        &[],
    );
    a.send(b"again\r");
    let s = a.wait_text("local got again");
    assert!(!s.contains("far got again"), "{s}");

    // No local task: a split from a far task puts the next far task
    // beside it, and keys go to the focused one.
    expect(
        &f,
        &[
            "run", "--host", "far", "--cwd", &other_cwd, "--name", "third", "fake",
        ],
        0,
    );
    a.wait_text("third");
    a.prefix(b"|");
    expect(&f, &["kill", "here"], 0);
    a.wait_for("the local task gone", |s| !s.contains("local got"));
    a.prefix(b"\t");
    a.wait_text("far got two-a");
    a.prefix(b"|");
    a.wait_for("far's first and third tasks side by side", |s| {
        s.contains("far got two-a") && s.matches("FAR-READY").count() == 2
    });
    a.send(b"solo\r");
    a.wait_text("far got solo");
    a.prefix(b"\t");
    typed_in(&mut a, "to-third", || got("other"));
    let (first, third) = (got("repo").unwrap(), got("other").unwrap());
    assert!(
        first.contains("solo") && !first.contains("to-third"),
        "{first}"
    );
    assert!(!third.contains("solo"), "{third}");
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    expect(&f, &["kill", "far:build"], 0);
    expect(&f, &["kill", "far:third"], 0);
    expect(&f, &["server", "stop"], 0);
}

/// Issue 29 item 3 (2026-12-06): `hosts add` with the server running and
/// nobody attached links the host at once (`reload_hosts`), so a remote
/// task's needs you reaches the desktop with no attach; a config.toml
/// that does not load keeps the link (server.log says why); `hosts rm`
/// ends the link (its ssh gone) the same way.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn hosts_add_links_the_running_server_at_once_and_hosts_rm_unlinks_it() {
    use crate::harness::{fake_agent_config, hook};
    let Some(bus) = crate::dbus::SessionBus::start() else {
        return;
    };
    let notes = crate::dbus::NotifyServer::start(&bus);
    let sshd = Sshd::start_with(true);
    let _far_server = FarServer(&sshd);
    let script = [
        "echo READY FAR".to_string(),
        "read l".into(),
        hook("working", ""),
        "read l".into(),
        hook("attention", ";kind=permission"),
        "sleep 600".into(),
    ];
    sshd.far_config(&fake_agent_config(&script.join("; ")));
    let f = Fixture::new();
    std::fs::write(
        f.config_dir.join("config.toml"),
        fake_agent_config("echo LOCAL; sleep 600"),
    )
    .unwrap();
    // `hosts add` takes a destination only: the port and key come from
    // ssh itself, as a user's ~/.ssh/config would give them.
    let wrapper = f.work.join("ssh-with-key");
    let args: Vec<String> = sshd.ssh_args().iter().map(|a| format!("'{a}'")).collect();
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec {SSH} {} \"$@\"\n", args.join(" ")),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let wrapper = wrapper.display().to_string();
    let env = [
        ("TERMIC_SSH", wrapper.as_str()),
        ("DBUS_SESSION_BUS_ADDRESS", bus.address.as_str()),
    ];
    let run = |args: &[&str]| -> String {
        let out = f.cli_with_env(&f.work, args, &env);
        assert!(
            out.status.success(),
            "termic {args:?}: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    };
    run(&["run", "fake", "--name", "here", "--detach"]);
    assert!(ssh_of(&f).is_empty(), "no host yet, no link");

    let said = run(&["hosts", "add", "far", &sshd.destination()]);
    assert!(
        said.contains("The running termic server follows it now."),
        "{said}"
    );
    wait_until("the server's link to far", || {
        ssh_of(&f).len() == 1 && !far_bridges(&sshd.far).is_empty()
    });
    run(&["run", "--host", "far", "--name", "build", "fake"]);
    let step = || run(&["send", "far:build", "go", "--enter"]);
    step();
    let asked = Instant::now();
    step();
    let (bodies, _) = bodies_until(&notes, "needs you");
    eprintln!(
        "far needs you to the desktop after hosts add, nobody attached: {:?}",
        asked.elapsed()
    );
    assert_eq!(bodies, ["build on far (fake) needs you"]);

    // A config.toml that does not load (half saved): the link is kept and
    // server.log says why.
    let config = f.config_dir.join("config.toml");
    let saved = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, "[hosts.far\n").unwrap();
    let mut c = local_socket(&f, &[Value::String("reload_hosts".into())]);
    let welcome = read_value(&mut c).unwrap();
    assert!(welcome.get("welcome").is_some(), "{welcome}");
    let answer = read_value(&mut c).unwrap();
    assert!(
        answer.to_string().contains("the links are kept"),
        "{answer}"
    );
    assert_eq!(ssh_of(&f).len(), 1, "the link kept");
    let log = std::fs::read_to_string(f.data_dir.join("server.log")).unwrap();
    assert!(
        log.contains("hosts not read again, the links are kept"),
        "{log}"
    );
    std::fs::write(&config, saved).unwrap();

    run(&["kill", "far:build"]);
    let said = run(&["hosts", "rm", "far"]);
    assert!(
        said.contains("The running termic server follows it now."),
        "{said}"
    );
    wait_until("the link's ssh gone after hosts rm", || {
        ssh_of(&f).is_empty()
    });
    expect(&f, &["kill", "here"], 0);
    expect(&f, &["server", "stop"], 0);
}

/// Waits until the screen shows every one of `yes` and none of `no`.
fn shown(a: &crate::harness::Termic, what: &str, yes: &[&str], no: &[&str]) -> String {
    a.wait_for(what, |s| {
        yes.iter().all(|y| s.contains(y)) && !no.iter().any(|n| s.contains(n))
    })
}

/// A repository of the far user's with one commit, on `branch`: its path.
fn far_repo(sshd: &Sshd, branch: &str) -> String {
    let repo = sshd.far.join("repo");
    std::fs::create_dir(&repo).unwrap();
    crate::git_support::git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("notes.txt"), "base\n").unwrap();
    crate::git_support::git(&repo, &["add", "."]);
    crate::git_support::git(&repo, &["commit", "-qm", "base"]);
    crate::git_support::git(&repo, &["checkout", "-qB", branch]);
    run_ok(Command::new("chown").args(["-R", &sshd.user]).arg(&repo));
    repo.display().to_string()
}

/// Types WORD and Enter into the focused half of `a`; the pane shows the
/// far task's echo, and that far task's file (`got`) records it.
fn typed_in(a: &mut crate::harness::Termic, word: &str, got: impl Fn() -> std::io::Result<String>) {
    a.send(format!("{word}\r").as_bytes());
    a.wait_text(&format!("far got {word}"));
    wait_until(&format!("{word} on its far task"), || {
        got().is_ok_and(|g| g.contains(word))
    });
}

/// In the far task's diff view: `m`, `y`; the agent's last commit is
/// far's main; then `y` to the removal offer.
fn merged_then_yes_to_removal(
    a: &mut crate::harness::Termic,
    far_git: &impl Fn(&Path, &[&str]) -> String,
    (repo, worktree): (&Path, &Path),
) {
    let agent_commit = far_git(worktree, &["rev-parse", "HEAD"]);
    a.send(b"m");
    a.wait_text("y merges, any other key does not.");
    a.send(b"y");
    a.wait_text("Merged termic/wt into main (ff, 1 commit).");
    a.wait_text("y removes, n keeps.");
    assert_eq!(far_git(repo, &["rev-parse", "main"]), agent_commit);
    a.send(b"y");
}

/// Task `build` of agent `fake` on far in `cwd`, task `here` locally, and
/// a workspace attached to `here` once it printed `ready` and lists far's.
fn build_there_and_here(f: &Fixture, cwd: &str, ready: &str) -> crate::harness::Termic {
    expect(
        f,
        &[
            "run", "--host", "far", "--cwd", cwd, "--name", "build", "fake",
        ],
        0,
    );
    expect(f, &["run", "fake", "--name", "here", "--detach"], 0);
    let a = crate::harness::Termic::start_with_env(f, &["attach", "here"], &[("TERMIC_SSH", SSH)]);
    a.wait_text(ready);
    a.wait_text("1 build");
    a
}

/// Issue 29 with issue 32 (2026-12-06): review of a remote task from the
/// workspace, done by the host. A simulated agent in a worktree on the
/// host edits two files and commits one; `termic diff far:wt --json`
/// lists both; in the diff view a comment on a line reaches the far
/// task's PTY as one bracketed paste naming the file and line, then
/// Enter; a reverted hunk changes the file on the host. 2026-12-07: the
/// far task's next turn, while its view is open, shows in the view
/// without R once its row turns done (the file it wrote is untracked);
/// `termic merge far:wt --how pr` runs the gh on the far user's PATH, as
/// that user, in the far worktree, and says its URL here. The merge puts
/// the agent's commit on the host's base branch; the removal offer after
/// it is refused by git for the untracked file, naming the host and what
/// to do, and removes nothing; the agent commits the file, a second merge
/// takes it and its removal offer removes the far worktree and branch
/// and closes the task.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_tasks_comments_revert_and_merge_are_done_by_its_host() {
    use crate::harness::{badge_line, fake_agent_config, hook, Termic};
    // The far dir first on the far PATH: its fake gh.
    let sshd = Sshd::start_with(true);
    let _far_server = FarServer(&sshd);
    let got = sshd.far.join("got.txt");
    let script = [
        hook("working", ""),
        "printf 'agent a\\n' >> a.txt".into(),
        "printf 'agent b\\n' >> b.txt".into(),
        "git add a.txt && git -c user.name=t -c user.email=t@t commit -qm agent".into(),
        hook("done", ""),
        "echo FAR-READY".into(),
        // What is typed into the task after it is done: the comments,
        // done again at the end of the paste; `more` and `commit` start a
        // turn that ends at the next line typed (the test sees the row
        // working in between), writing c.txt or committing it.
        format!(
            "while IFS= read -r l; do printf '%s\\n' \"$l\" >> {}; case \"$l\" in \
             *'[201~'*) {done};; \
             more) {working}; read -r g; printf 'agent c\\n' > c.txt; {done};; \
             commit) {working}; git add c.txt && git -c user.name=t -c user.email=t@t commit -qm more; read -r g; {done};; \
             esac; done",
            got.display(),
            done = hook("done", ""),
            working = hook("working", ""),
        ),
    ]
    .join("; ");
    sshd.far_config(&fake_agent_config(&script));
    let repo = sshd.far.join("repo");
    std::fs::create_dir(&repo).unwrap();
    crate::git_support::git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    std::fs::write(repo.join("b.txt"), "b\n").unwrap();
    crate::git_support::git(&repo, &["add", "."]);
    crate::git_support::git(&repo, &["commit", "-qm", "base"]);
    run_ok(Command::new("chown").args(["-R", &sshd.user]).arg(&repo));
    // Read as root in the other user's repository.
    let far_git = |dir: &Path, args: &[&str]| {
        let mut all = vec!["-c", "safe.directory=*"];
        all.extend_from_slice(args);
        crate::git_support::git(dir, &all)
    };
    let f = sshd.near_fixture();
    let cwd = repo.display().to_string();
    expect(
        &f,
        &[
            "run",
            "--host",
            "far",
            "--cwd",
            &cwd,
            "--worktree",
            "--name",
            "wt",
            "fake",
        ],
        0,
    );
    let listed: Value =
        serde_json::from_str(&expect(&f, &["ls", "--host", "far", "--json"], 0)).unwrap();
    let worktree = PathBuf::from(
        listed.as_array().unwrap()[0]["worktree"]
            .as_str()
            .unwrap_or_else(|| panic!("no worktree: {listed}")),
    );
    expect(&f, &["run", "fake", "--name", "here", "--detach"], 0);
    let mut a = Termic::start_with_env(&f, &["attach", "here"], &[("TERMIC_SSH", SSH)]);
    a.wait_text("LOCAL");
    a.wait_text("1 wt");
    a.prefix(b"\t");
    a.wait_text("FAR-READY");
    a.wait_text("done");

    // The CLI reads the changes on the host.
    let diff: Value = serde_json::from_str(&expect(&f, &["diff", "far:wt", "--json"], 0)).unwrap();
    let files: Vec<&str> = diff["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["a.txt", "b.txt"], "{diff}");
    assert_eq!(diff["kind"], "worktree", "{diff}");

    // A comment on a.txt's added line, sent into the far task.
    a.prefix(b"v");
    a.wait_text("Changes: wt on far (+2 -0, 2 files)");
    a.send(b"g");
    for _ in 0..3 {
        a.send(b"j");
    }
    a.send(b"c");
    a.wait_text("Comment: _");
    a.send(b"rename this");
    a.send(b"\r");
    a.wait_text("1 comment");
    let asked = Instant::now();
    a.send(b"S");
    a.wait_text("Sent 1 comment to wt on far.");
    let mut last = String::new();
    wait_until("the far task got the comment", || {
        last = std::fs::read_to_string(&got).unwrap_or_default();
        last.contains("> rename this")
    });
    eprintln!("S to the comment in the far task: {:?}", asked.elapsed());
    crate::harness::assert_comments_prompt(&last, &["a.txt line 2: `agent a`\n> rename this\n"]);
    a.wait_for("the view closed, the far task done again", |s| {
        !s.contains("Changes: wt") && badge_line(s, "1 wt").is_some_and(|l| l.contains("done"))
    });

    // Revert b.txt's hunk: asked first, then done on the host.
    a.prefix(b"v");
    a.wait_text("Changes: wt on far (+2 -0, 2 files)");
    a.send(b"}");
    a.send(b"j");
    a.send(b"r");
    a.wait_text("Revert hunk 1 of 1 in b.txt? y reverts, n keeps it");
    a.send(b"y");
    a.wait_text("Reverted the hunk on far.");
    a.wait_text("Changes: wt on far (+1 -0, 1 file)");
    assert_eq!(
        std::fs::read_to_string(worktree.join("b.txt")).unwrap(),
        "b\n"
    );

    // The far task's next turn while its view is open: what it wrote
    // shows once its row turns done here, without R.
    let wt_is = |state: &'static str| {
        move |hosts: &Value| {
            hosts[0]["tasks"]
                .as_array()
                .is_some_and(|t| t.iter().any(|r| r["name"] == "wt" && r["state"] == state))
        }
    };
    let turn = |word: &str, between: &dyn Fn()| {
        expect(&f, &["send", "far:wt", word, "--enter"], 0);
        server_hosts_until(&f, "far's wt working here", wt_is("working"));
        between();
        expect(&f, &["send", "far:wt", "go", "--enter"], 0);
    };
    let ended = Instant::now();
    turn("more", &|| {});
    a.wait_for("the view read the new turn's changes", |s| {
        s.contains("Changes: wt on far (+2 -0, 2 files)") && s.contains("c.txt (new)")
    });
    eprintln!("turn's end to its changes shown: {:?}", ended.elapsed());

    // A pull request with the far user's gh, in the far worktree.
    let gh_said = sshd.far.join("gh.args");
    let gh = sshd.far.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/bin/sh\n{{ id -un; pwd; printf '%s\\n' \"$@\"; }} > {}\necho https://example.com/pr/9\n",
            gh_said.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let main_before = far_git(&repo, &["rev-parse", "main"]);
    assert_eq!(
        expect(&f, &["merge", "far:wt", "--how", "pr"], 0),
        "Opened a pull request of termic/wt into main: https://example.com/pr/9\n"
    );
    assert_eq!(
        std::fs::read_to_string(&gh_said).unwrap(),
        format!(
            "{}\n{}\npr\ncreate\n--base\nmain\n--head\ntermic/wt\n--fill\n",
            sshd.user,
            worktree.display()
        )
    );
    assert_eq!(far_git(&repo, &["rev-parse", "main"]), main_before);

    // Merge: the agent's commit on the host's main; git on far refuses
    // the removal (c.txt is untracked): the view names the host and what
    // to do, and nothing is removed.
    merged_then_yes_to_removal(&mut a, &far_git, (&repo, &worktree));
    let flat = |s: &str| {
        s.lines()
            .map(|l| l.trim().trim_matches('\u{2502}').trim())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let refused = a.wait_for("git refused the removal on far", |s| {
        flat(s).contains("Not removed: host far: the worktree is kept:")
    });
    let refused = flat(&refused);
    for part in [
        "contains modified or untracked files",
        "Have the agent commit its changes and merge again, or delete them with: git worktree remove --force",
        &worktree.display().to_string(),
    ] {
        assert!(refused.contains(part), "{part:?} in {refused}");
    }
    assert!(worktree.join("c.txt").exists(), "the worktree was touched");
    assert_eq!(
        far_git(
            &repo,
            &["branch", "--list", "--format=%(refname:short)", "termic/wt"]
        )
        .trim(),
        "termic/wt"
    );
    let listed = expect(&f, &["ls", "--host", "far", "--json"], 0);
    assert!(listed.contains("\"wt\""), "the task was closed: {listed}");

    // As the note says: the agent commits, and a second merge removes.
    turn("commit", &|| {
        wait_until("the agent committed c.txt", || {
            far_git(&worktree, &["log", "-1", "--format=%s"]).trim() == "more"
        })
    });
    server_hosts_until(&f, "far's wt done here", wt_is("done"));
    merged_then_yes_to_removal(&mut a, &far_git, (&repo, &worktree));
    a.wait_for("closed on far, the local task shown", |s| {
        s.contains("Closed the task on far and removed its worktree") && s.contains("LOCAL")
    });
    assert!(!worktree.exists(), "{worktree:?} is still there");
    assert_eq!(
        far_git(&repo, &["branch", "--list", "termic/wt"]).trim(),
        "",
        "the task's branch is still there"
    );
    let listed = expect(&f, &["ls", "--host", "far", "--json"], 0);
    assert!(!listed.contains("\"wt\""), "{listed}");
    a.prefix(b"d");
    assert_eq!(a.wait_exit(), 0);
    expect(&f, &["kill", "here"], 0);
    expect(&f, &["server", "stop"], 0);
}

/// A host whose termic is older (protocol 8, before `merge`): it ends the
/// connection at the request it cannot read, and `termic merge HOST:TASK`
/// says so plainly, naming the host and the fix, at once.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn an_older_hosts_termic_gives_a_plain_message_for_a_merge() {
    let sshd = Sshd::start();
    // What a server of protocol 8 does: welcome, then a request it does
    // not know ends the connection.
    let old = sshd.far.join("old-termic");
    std::fs::write(
        &old,
        "#!/usr/bin/perl\nbinmode STDIN; binmode STDOUT; $| = 1;\n\
         sub frame { my $n; read(STDIN, $n, 4) == 4 or exit 0; my $b; read(STDIN, $b, unpack('N', $n)); $b }\n\
         frame();\nmy $w = '{\"welcome\":{\"version\":\"0.0.8\",\"pid\":1}}';\n\
         print pack('N', length $w), $w;\nframe();\nexit 0;\n",
    )
    .unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    let f = Fixture::new();
    std::fs::write(f.config_dir.join("config.toml"), sshd.far_host_toml(&old)).unwrap();
    let asked = Instant::now();
    let out = termic(&f, &["merge", "far:wt"]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "host far: its termic is older than this one and cannot do this: update termic on far"
        ),
        "{said}"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
}

/// Issue 30 for a remote host's task (2026-12-06): a simulated Claude on
/// the far side reaches needs you; the local server pushes it (a local
/// push endpoint receives it and decrypts it with the subscription's
/// keys) naming the host, the task and why, with its dialog's actions;
/// the page opens on the notification's link (`#task=far:1`) and shows
/// that task with its question and its screen; a tap answers it there and
/// the far task goes working, then done. Its done is not pushed: the page
/// was looking at it (termic web's `look`, protocol 9); once the page
/// left it, its next need is pushed again. Here, not in web::, because it
/// needs the sshd and the browser both.
#[test]
#[ignore = "needs root, openssh-server and a second local user (TERMIC_OTHER_USER): run by .ci/run's remote hosts step"]
fn a_remote_tasks_push_names_its_host_and_its_link_opens_it_in_the_page_to_answer() {
    use crate::harness::{fake_agent_config, hook};
    use crate::served::Served;
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    use crate::web::{pair_link, start_web_env, TERM_TEXT};
    let sshd = Sshd::start();
    let _far_server = FarServer(&sshd);
    // Claude's permission dialog as termic-sim paints it, asked through
    // the hook once it reads a line; its key read raw; then working, a
    // short turn, done; one more byte and it asks a question.
    let far_script = [
        "echo READY FAR".to_string(),
        "read l".into(),
        "stty raw -echo".into(),
        crate::web::CLAUDE_DIALOG.into(),
        hook("attention", ";kind=permission"),
        "k=$(head -c 1)".into(),
        hook("working", ""),
        "printf 'answered %s\\r\\n' \"$k\"".into(),
        "sleep 2".into(),
        hook("done", ""),
        "k=$(head -c 1)".into(),
        hook("attention", ";kind=question"),
        "k=$(head -c 1)".into(),
        hook("error", ";reason=auth_failed"),
        "sleep 600".into(),
    ]
    .join("; ");
    sshd.far_config(&fake_agent_config(&far_script));

    let s = Served {
        f: sshd.near_fixture(),
    };
    let endpoint = crate::push::Endpoint::start(&[]);
    let keys = crate::push::Browser::new();
    // The subscription of device 1, the page paired below.
    crate::push::subscribe(
        &s.f.data_dir,
        &[keys.entry("1", &endpoint.url("/push/phone"), &[], false)],
    );
    // The local server, with its link to far, before the far task asks
    // (a host's first list is no change to push).
    expect(&s.f, &["run", "fake", "--name", "here", "--detach"], 0);
    expect(
        &s.f,
        &["run", "--host", "far", "--name", "create", "fake"],
        0,
    );
    server_hosts_until(&s.f, "the server's link lists far's task", |h| {
        h[0]["link"] == "connected" && h[0]["tasks"].as_array().is_some_and(|t| t.len() == 1)
    });
    let (web, _) = start_web_env(&s, &[], &[("TERMIC_SSH", SSH)]);
    let mut b = crate::web::Browser::phone();
    let link = pair_link(&s, &[]);
    let base = link[..link.find("/pair").unwrap()].to_string();
    b.navigate(&link);
    b.until(
        "the paired page lists far's task",
        "!!document.querySelector('#list .host[data-host=far] li')",
    );

    let asked = Instant::now();
    expect(&s.f, &["send", "far:create", "go", "--enter"], 0);
    let got = endpoint.wait("/push/phone", 1).remove(0);
    eprintln!("far needs you to the push endpoint: {:?}", asked.elapsed());
    let payload = keys.open(&got);
    assert_eq!(payload["title"], "far: create", "{payload}");
    assert_eq!(payload["host"], "far", "{payload}");
    assert_eq!(payload["remote"], "far", "{payload}");
    assert_eq!(payload["task"], 1, "{payload}");
    assert_eq!(payload["reason"], "permission", "{payload}");
    assert_eq!(payload["body"], "permission", "{payload}");
    assert_eq!(
        payload["actions"],
        serde_json::json!([
            {"action": "approve_once", "title": "Yes"},
            {"action": "deny", "title": "No, and tell Claude what to do differently (esc)"}
        ]),
        "{payload}"
    );
    assert_eq!(got.header("topic"), "termic-far-1");
    assert_eq!(got.header("urgency"), "high");

    // The link the service worker opens for it, on a fresh page.
    b.navigate("about:blank");
    b.navigate(&format!("{base}/#task=far:1"));
    b.until(
        "the page shows far's task with its question and answers",
        "document.getElementById('title').textContent === 'create on far' && \
!document.getElementById('task').hidden && \
!!document.querySelector('#ask .choice[data-choice=approve_once]')",
    );
    assert_eq!(b.eval("location.hash"), serde_json::json!(""));
    assert_eq!(
        b.eval("document.querySelector('#ask .question').textContent"),
        "It asks permission."
    );
    b.until(
        "the far task's screen shows its dialog",
        &format!("({TERM_TEXT}).includes('Do you want to create out.txt?')"),
    );
    // Its row has a Mute of its own (device 1 has a subscription).
    assert_eq!(
        b.eval("!!document.querySelector('#list .host[data-host=far] .mute[data-host=far]')"),
        serde_json::json!(true)
    );
    b.screenshot(&crate::web::artefact("web-phone-host-push.png"));
    b.eval("document.querySelector('#ask .choice[data-choice=approve_once]').click()");
    b.until(
        "the far task read the choice's key",
        &format!("({TERM_TEXT}).includes('answered 1')"),
    );
    b.until(
        "the far task working",
        "!!document.querySelector('#list .host[data-host=far] li .badge.working')",
    );
    b.until(
        "the far task done",
        "!!document.querySelector('#list .host[data-host=far] li .badge.done')",
    );
    // Back to the list: the page no longer looks at it; its next need is
    // pushed, and its done (while the page looked) was not.
    b.eval("document.getElementById('back').click()");
    let web_ssh = || ssh_children(web.pid());
    wait_until("the view's ssh ends with the view", || web_ssh() == 0);
    expect(&s.f, &["send", "far:create", "x"], 0);
    let pushed = endpoint.wait("/push/phone", 2);
    let reasons: Vec<Value> = pushed
        .iter()
        .map(|r| keys.open(r)["reason"].clone())
        .collect();
    assert_eq!(
        reasons,
        [
            serde_json::json!("permission"),
            serde_json::json!("question")
        ],
        "the done while the page looked was not pushed"
    );

    // Protocol 10 (issues 29 and 30): the far agent gives up on an auth
    // error. Its host's row names why, so the push, the page's row and
    // `termic ls` (text and JSON) all say "auth failed".
    let stopped = Instant::now();
    expect(&s.f, &["send", "far:create", "y"], 0);
    let pushed = endpoint.wait("/push/phone", 3);
    eprintln!("far's error to the push endpoint: {:?}", stopped.elapsed());
    let error = keys.open(&pushed[2]);
    assert_eq!(error["title"], "far: create", "{error}");
    assert_eq!(error["reason"], "error", "{error}");
    assert_eq!(error["body"], "error: auth failed", "{error}");
    b.until(
        "the page's row of far's task says why it stopped",
        "(document.querySelector('#list .host[data-host=far] li .badge.error') || {}).textContent \
=== 'error: auth failed'",
    );
    let listed = expect(&s.f, &["ls", "--host", "far"], 0);
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("far ") && l.contains("  error: auth failed  ")),
        "{listed}"
    );
    let json: Value = serde_json::from_str(&expect(&s.f, &["ls", "--json"], 0)).unwrap();
    let far = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["host"] == "far")
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(
        (&far["state"], &far["reason"]),
        (&Value::from("error"), &Value::from("auth_failed")),
        "{json}"
    );
    expect(&s.f, &["kill", "far:create"], 0);
    expect(&s.f, &["kill", "here"], 0);
}
