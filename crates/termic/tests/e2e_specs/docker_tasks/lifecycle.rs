//! A Docker task's container lives exactly as long as the task: closing the
//! task stops it, quitting termic stops it, and so does killing termic, even
//! when the agent inside ignores the hang-up. A missing image or a stopped
//! engine is one sentence naming the fix, on the CLI and in the UI. Inside,
//! the env contract is the host's.

use std::time::{Duration, Instant};

use crate::docker_support::{
    containers_of, docker_agent_toml, image, run_ok, wait_containers, CONFIG_HEAD,
};
use crate::support::{Fixture, SEC};
use crate::termic_pty::Termic;

/// An agent that ignores SIGHUP and SIGTERM (inherited by its `sleep`):
/// only a kill through the engine ends it.
pub(crate) fn stubborn() -> Vec<String> {
    [
        "/bin/sh",
        "-c",
        "trap '' HUP TERM; echo stubborn-up; sleep 600",
    ]
    .map(String::from)
    .to_vec()
}

pub(crate) fn write_config(fx: &Fixture, agents: &str) {
    std::fs::write(
        fx.config_dir().join("config.toml"),
        format!("{CONFIG_HEAD}{agents}"),
    )
    .unwrap();
}

/// The pid of the termic server the fixture's workspace started last (the
/// owner of its tasks and containers), from the server's log.
pub fn server_pid(fx: &Fixture) -> u32 {
    server_pid_other_than(fx, None)
}

/// The running server's pid, never `previous` (a server the test just quit
/// may still be ending while the new one's line is not yet written).
pub fn server_pid_other_than(fx: &Fixture, previous: Option<u32>) -> u32 {
    let log = fx.data_dir().join("server.log");
    let end = Instant::now() + 30 * SEC;
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        // The last server started (a quit one's line comes before it).
        if let Some(pid) = text
            .rsplit("(pid ")
            .next()
            .filter(|_| text.contains("(pid "))
            .and_then(|rest| rest.split(')').next())
            .and_then(|pid| pid.parse::<u32>().ok())
            // Not a server that already exited: the new one's line may
            // not be written yet.
            .filter(|pid| Some(*pid) != previous && alive(*pid))
        {
            return pid;
        }
        assert!(Instant::now() < end, "no server pid in {}", log.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A process that exists and is not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The state follows the command's closing parenthesis.
            let after = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            Some(after != 'Z' && after != 'X')
        })
        .unwrap_or(false)
}

/// termic running `box` (the stubborn agent) with its container up, and
/// the pid of the server that owns it.
fn running_box(fx: &Fixture, image: &str) -> (Termic, u32) {
    write_config(fx, &docker_agent_toml("box", "claude", image, &stubborn()));
    let t = fx.start_termic(&["run", "box"]);
    let pid = server_pid(fx);
    wait_containers(pid, "the task's container", 30 * SEC, |c| c.len() == 1);
    t.wait_within("the agent's output", 20 * SEC, |s| {
        s.contains("stubborn-up")
    });
    (t, pid)
}

/// A workspace client and the server that owns its task.
struct Owned {
    termic: Termic,
    server_pid: u32,
}

#[test]
#[ignore = "needs a Docker engine: run by .ci/run's Docker step"]
fn closing_the_task_or_quitting_or_killing_termic_leaves_no_container() {
    let Some(image) = image() else { return };
    let runs: [fn(&mut Owned); 3] = [
        |t| {
            t.termic.prefix(b"x");
            t.termic.wait_text("Close box?");
            t.termic.send(b"y");
        },
        |t| assert!(t.termic.quit(), "termic quits on prefix q"),
        |t| {
            // SIGKILL of the server that owns the task: it runs no code at
            // all on the way out (the watchdog stops the container). The
            // client sees its server gone and exits.
            let pid = t.server_pid as i32;
            // SAFETY: a plain kill(2) on the server this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            assert!(t.termic.exit_within(Duration::from_secs(5)).is_some());
        },
    ];
    std::thread::scope(|s| {
        for (n, end) in runs.into_iter().enumerate() {
            let image = &image;
            s.spawn(move || {
                let fx = Fixture::new();
                let (termic, pid) = running_box(&fx, image);
                let mut t = Owned {
                    termic,
                    server_pid: pid,
                };
                end(&mut t);
                wait_containers(
                    pid,
                    &format!("way {n} to end the task"),
                    20 * SEC,
                    <[String]>::is_empty,
                );
            });
        }
    });
}

#[test]
#[ignore = "needs a Docker engine: run by .ci/run's Docker step"]
fn a_missing_image_or_a_stopped_engine_is_one_sentence_with_the_fix() {
    let Some(image) = image() else { return };
    let fx = Fixture::new();
    let missing = "termic-test-absent:nope";
    write_config(
        &fx,
        &format!(
            "{}{}",
            docker_agent_toml("box", "claude", missing, &stubborn()),
            docker_agent_toml("ok", "claude", &image, &stubborn())
        ),
    );
    let want_image = format!(
        "the Docker image {missing} is not on this machine: pull or build it (`docker pull {missing}`)"
    );
    let want_engine = "the Docker engine is not running";
    // The CLI: `termic run` says it and exits before taking the screen.
    for (env, want) in [
        (None, want_image.as_str()),
        (Some("unix:///nonexistent/docker.sock"), want_engine),
    ] {
        let mut cmd = fx.pty_command(&["run", if env.is_some() { "ok" } else { "box" }]);
        if let Some(host) = env {
            cmd.env("DOCKER_HOST", host);
        }
        let mut t = Termic::spawn(cmd);
        assert_ne!(t.wait_exit(), 0);
        // The reader may still be behind the exit: wait for the words.
        t.wait_raw(want.as_bytes());
        let raw = String::from_utf8_lossy(&t.raw()).into_owned();
        for dump in [
            "Error response",
            "Unable to find image",
            "unix://",
            "Cannot connect",
        ] {
            assert!(!raw.contains(dump), "no raw docker text ({dump}): {raw:?}");
        }
        assert!(containers_of(server_pid(&fx)).is_empty());
    }
    // The UI: `box` from the new-task dialog shows the same sentence and
    // leaves the running task alone.
    let mut t = fx.start_termic(&["run", "--", "sh", "-c", "echo host-task-up; sleep 60"]);
    t.wait_text("host-task-up");
    choose_in_new_task_dialog(&mut t, "box");
    let screen = t.wait_text("is not on this machine");
    assert!(
        screen.contains(&format!("the Docker image {missing}")),
        "{screen}"
    );
    assert!(containers_of(server_pid(&fx)).is_empty());
    close_the_dialog_kept_for_a_retry(&mut t);
    assert!(t.quit());

    // The UI with the engine stopped: `ok` (its image is here) from the
    // new-task dialog says so, in termic's words.
    let mut cmd = fx.pty_command(&["run", "--", "sh", "-c", "echo host-task-up; sleep 60"]);
    cmd.env("DOCKER_HOST", "unix:///nonexistent/docker.sock");
    let mut t = Termic::spawn(cmd);
    t.wait_text("host-task-up");
    choose_in_new_task_dialog(&mut t, "ok");
    let screen = t.wait_text(want_engine);
    assert!(!screen.contains("unix://"), "no raw docker text: {screen}");
    assert!(containers_of(server_pid(&fx)).is_empty());
    close_the_dialog_kept_for_a_retry(&mut t);
    assert!(t.quit());
}

/// A launch that fails keeps the new-task dialog open with the choice made
/// (issue 33: nothing typed is lost); Esc closes it.
fn close_the_dialog_kept_for_a_retry(t: &mut Termic) {
    assert!(t.screen().contains("New task"), "{}", t.screen());
    t.send(b"\x1b");
    t.wait_for("the dialog closed", |s| !s.contains("New task"));
}

/// Opens the new-task dialog and starts `agent` from it.
fn choose_in_new_task_dialog(t: &mut Termic, agent: &str) {
    let want = format!("Agent  < {agent}");
    t.prefix(b"n");
    t.wait_text("New task");
    for _ in 0..12 {
        if t.screen().contains(&want) {
            break;
        }
        t.send(b"\x1b[C");
        std::thread::sleep(Duration::from_millis(150));
    }
    t.wait_text(&want);
    t.send(b"\r");
}

#[test]
#[ignore = "needs a Docker engine: run by .ci/run's Docker step"]
fn inside_the_container_the_env_contract_is_the_hosts() {
    let Some(image) = image() else { return };
    let fx = Fixture::new();
    let out = fx.project().join("env.txt");
    let script = format!(
        "{{ env; [ -c \"$TERMIC_PTY\" ] && echo pty-is-a-char-device; }} > {}; echo env-written; sleep 600",
        out.display()
    );
    let command = ["/bin/sh".to_owned(), "-c".to_owned(), script];
    write_config(&fx, &docker_agent_toml("box", "claude", &image, &command));
    let mut cmd = fx.pty_command(&["run", "box"]);
    // A termic started inside tmux, screen and zellij.
    for (k, v) in [
        ("TMUX", "/tmp/tmux-0/default,1,0"),
        ("TMUX_PANE", "%1"),
        ("STY", "1.pts-0.host"),
        ("ZELLIJ", "0"),
        ("ZELLIJ_SESSION_NAME", "s"),
        ("COLORTERM", "no"),
    ] {
        cmd.env(k, v);
    }
    let mut t = Termic::spawn(cmd);
    t.wait_within("the agent wrote its env", 30 * SEC, |s| {
        s.contains("env-written")
    });
    let text = std::fs::read_to_string(&out).unwrap();
    let var = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .map(str::to_owned)
    };
    let id = var("TERMIC_TASK_ID").unwrap_or_default();
    assert!(
        id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{text}"
    );
    assert_eq!(var("TERMIC_PTY").as_deref(), Some("/termic/pty"), "{text}");
    assert_eq!(var("TERM").as_deref(), Some("xterm-256color"), "{text}");
    assert_eq!(var("COLORTERM").as_deref(), Some("truecolor"), "{text}");
    assert!(var("TERM_PROGRAM").is_some(), "{text}");
    assert!(text.contains("pty-is-a-char-device"), "{text}");
    for gone in ["TMUX", "TMUX_PANE", "STY", "ZELLIJ", "ZELLIJ_SESSION_NAME"] {
        assert_eq!(
            var(gone),
            None,
            "{gone} must not enter the container: {text}"
        );
    }
    assert!(t.quit());
}

/// `docker run -d` a container labelled as termic labels its own, running
/// an agent that ignores hang-ups; returns its name.
fn labelled_container(image: &str, tag: &str, owner_pid: u32, pidns: Option<&str>) -> String {
    let name = format!("termic-sweep-{tag}-{}", std::process::id());
    let mut args: Vec<String> = [
        "run",
        "-d",
        "--rm",
        "--init",
        "--network",
        "none",
        "--name",
        &name,
        "--label",
    ]
    .map(String::from)
    .to_vec();
    args.push(format!("{}={owner_pid}", termic::docker::OWNER_LABEL));
    if let Some(ns) = pidns {
        args.push("--label".into());
        args.push(format!("{}={ns}", termic::docker::OWNER_PIDNS_LABEL));
    }
    args.push(image.into());
    args.extend(["/bin/sh", "-c", "trap '' HUP TERM; sleep 600"].map(String::from));
    run_ok(std::process::Command::new("docker").args(&args));
    name
}

fn exists(name: &str) -> bool {
    let out = std::process::Command::new("docker")
        .args(["ps", "-a", "-q", "--filter", &format!("name=^{name}$")])
        .output()
        .unwrap();
    !String::from_utf8_lossy(&out.stdout).trim().is_empty()
}

#[test]
#[ignore = "needs a Docker engine: run by .ci/run's Docker step"]
fn containers_of_a_gone_termic_are_removed_when_termic_starts() {
    let Some(image) = image() else { return };
    // A pid that is certainly gone: a child that exited and was reaped.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let ns = termic::docker::sweep::own_pid_namespace();
    // Left by a termic older than the namespace label, and by one killed
    // before its watchdog acted: both removed.
    let older = labelled_container(&image, "older", dead, None);
    let killed = labelled_container(&image, "killed", dead, Some(&ns));
    // Kept: an owner in another pid namespace (its pid means nothing
    // here), and an owner that is alive (this test).
    let foreign = labelled_container(&image, "foreign", dead, Some("pid:[1]"));
    let alive = labelled_container(&image, "alive", std::process::id(), Some(&ns));

    let fx = Fixture::new();
    // A termic with a Docker agent in its config, running a host command.
    write_config(
        &fx,
        &docker_agent_toml("box", "claude", &image, &stubborn()),
    );
    let mut t = fx.start_termic(&["run", "--", "sh", "-c", "echo host-up; sleep 60"]);
    t.wait_text("host-up");
    let deadline = std::time::Instant::now() + 30 * SEC;
    while (exists(&older) || exists(&killed)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let left = [exists(&older), exists(&killed)];
    // The sweep is one pass; anything it wrongly took would be gone by now.
    std::thread::sleep(Duration::from_secs(2));
    let kept = [exists(&foreign), exists(&alive)];
    let _ = std::process::Command::new("docker")
        .args(["rm", "-f", &older, &killed, &foreign, &alive])
        .output();
    assert!(t.quit());
    assert_eq!(left, [false, false], "{older} and {killed} removed");
    assert_eq!(kept, [true, true], "{foreign} and {alive} kept");
}
