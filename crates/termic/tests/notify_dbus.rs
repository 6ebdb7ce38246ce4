//! Desktop notifications for real: notify-rust in the termic binary talks
//! to a private `dbus-daemon --session` and a small
//! org.freedesktop.Notifications server (tests/dbus/notify_server.py,
//! Python standard library only) that records what it receives and clicks
//! when told. Needs `dbus-daemon` and `python3` (.ci/run installs dbus;
//! elsewhere a missing dbus-daemon is reported and the test checks nothing).

#[path = "tui/harness.rs"]
mod harness;
mod requires;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use harness::{badge_line, hook, Fixture, Termic};

/// Generous: the machine running the tests may be loaded.
const WAIT: Duration = Duration::from_secs(30);

/// A private session bus: the daemon, killed on drop.
struct SessionBus {
    daemon: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl SessionBus {
    /// None (and the test returns, having checked nothing) only outside
    /// CI on a machine without dbus-daemon (`requires::program`).
    fn start() -> Option<SessionBus> {
        if !requires::program("dbus-daemon", "dbus") {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("bus");
        let config = dir.path().join("bus.conf");
        std::fs::write(
            &config,
            format!(
                "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n \
                 \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n\
                 <busconfig><type>session</type><listen>unix:path={}</listen><auth>EXTERNAL</auth>\
                 <policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>\
                 <allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n",
                socket.display()
            ),
        )
        .unwrap();
        let mut daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon not found: install Debian's `dbus` (.ci/run does)");
        let mut line = String::new();
        BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line.trim().to_string();
        assert!(address.starts_with("unix:path="), "{address:?}");
        Some(SessionBus {
            daemon,
            address,
            _dir: dir,
        })
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// The test's notification server: what it received, and a way to click.
struct NotifyServer {
    child: Child,
    stdin: ChildStdin,
    received: Receiver<serde_json::Value>,
}

impl NotifyServer {
    fn start(bus: &SessionBus) -> NotifyServer {
        Self::start_clicking(bus, None)
    }

    /// `autoclick`: the action the server invokes on every notification
    /// the instant it has answered the Notify call.
    fn start_clicking(bus: &SessionBus, autoclick: Option<&str>) -> NotifyServer {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dbus/notify_server.py");
        let mut command = Command::new("python3");
        if let Some(action) = autoclick {
            command.env("NOTIFY_AUTOCLICK", action);
        }
        let mut child = command
            .arg(script)
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if line == "ready" {
                    let _ = ready_tx.send(());
                } else if let Ok(v) = serde_json::from_str(&line) {
                    let _ = tx.send(v);
                }
            }
        });
        ready_rx
            .recv_timeout(WAIT)
            .expect("the notification server did not take its bus name");
        NotifyServer {
            child,
            stdin,
            received: rx,
        }
    }

    /// The next notification whose body contains `needle`.
    fn next_with(&self, needle: &str) -> serde_json::Value {
        let end = Instant::now() + WAIT;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.received.recv_timeout(left) {
                Ok(v) if v["body"].as_str().is_some_and(|b| b.contains(needle)) => return v,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    panic!("no notification with {needle:?} within {WAIT:?}")
                }
            }
        }
    }

    fn click(&mut self, id: u64, action: &str) {
        writeln!(self.stdin, "click {id} {action}").unwrap();
        self.stdin.flush().unwrap();
    }
}

impl Drop for NotifyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Agent `fake`: prints BG-PANE, then needs you once `go1` exists, then
/// is done once `go2` exists.
fn gated_agent(f: &Fixture) -> (PathBuf, PathBuf) {
    let (go1, go2) = (f.work.join("go1"), f.work.join("go2"));
    let wait = |p: &Path| format!("while [ ! -e '{}' ]; do sleep 0.05; done", p.display());
    let script = [
        "echo BG-PANE".to_string(),
        wait(&go1),
        hook("working", ""),
        hook("attention", ";kind=permission"),
        wait(&go2),
        hook("working", ""),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    (go1, go2)
}

/// Opens a second task (a command) so `bg` is in the background.
fn open_other_task(t: &mut Termic) {
    t.prefix(b"n");
    t.wait_text("New task");
    t.send(b"\x1b[D");
    t.wait_text("Command  (type a command");
    t.send(b"\t");
    t.send(b"sh -c 'echo OTHER-PANE; sleep 600'");
    t.send(b"\t");
    t.send(b"other");
    t.send(b"\r");
    t.wait_for("the other task is focused", |s| {
        badge_line(s, "other").is_some() && s.contains("OTHER-PANE")
    });
}

/// termic running `bg` (the gated agent) in the background of `other`,
/// with `bus` as its session bus (`None`: no bus at all). Returns the gates.
fn bg_in_the_background(f: &Fixture, bus: Option<&SessionBus>) -> (Termic, PathBuf, PathBuf) {
    let (go1, go2) = gated_agent(f);
    let env: Vec<(&str, &str)> = bus
        .map(|b| ("DBUS_SESSION_BUS_ADDRESS", b.address.as_str()))
        .into_iter()
        .collect();
    let mut t = Termic::start_with_env(f, &["run", "fake", "--name", "bg"], &env);
    t.wait_text("BG-PANE");
    open_other_task(&mut t);
    (t, go1, go2)
}

#[test]
fn needs_you_and_done_reach_a_real_notification_server_and_a_click_focuses_the_task() {
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let mut server = NotifyServer::start(&bus);
    let f = Fixture::new();
    let (mut t, go1, go2) = bg_in_the_background(&f, Some(&bus));

    std::fs::write(&go1, "").unwrap();
    let needs = server.next_with("needs you");
    assert_eq!(needs["summary"], "termic");
    assert_eq!(needs["body"], "bg (fake) needs you: permission");
    assert_eq!(
        needs["actions"],
        serde_json::json!(["default", "Show the task"])
    );

    std::fs::write(&go2, "").unwrap();
    let done = server.next_with("is done");
    assert_eq!(done["summary"], "termic");
    assert_eq!(done["body"], "bg (fake) is done");
    // The desktop took them: no OSC 777 fallback on the outer terminal.
    assert!(
        !harness::contains(&t.raw(), b"]777;notify"),
        "fallback used"
    );

    // Clicking the notification brings its task to the front: one click.
    assert!(!t.screen().contains("BG-PANE"), "bg is not focused yet");
    server.click(done["id"].as_u64().unwrap(), "default");
    t.wait_for("a click focuses bg", focused);
    assert!(t.quit(), "termic did not quit");
}

/// bg's pane is in front and the other task's is not.
fn focused(s: &str) -> bool {
    s.contains("BG-PANE") && !s.contains("OTHER-PANE")
}

#[test]
fn a_click_the_instant_the_notification_shows_still_focuses_the_task() {
    // The server clicks as it answers the Notify call, before termic's
    // call has returned. termic listens before it shows, so the click is
    // not lost (notify-rust's own wait, which subscribes after the show,
    // lost such clicks, and CI once lost every click of a run).
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let server = NotifyServer::start_clicking(&bus, Some("default"));
    let f = Fixture::new();
    let (mut t, go1, _) = bg_in_the_background(&f, Some(&bus));
    std::fs::write(&go1, "").unwrap();
    server.next_with("needs you");
    t.wait_for("the instant click focuses bg", focused);
    assert!(t.quit(), "termic did not quit");
}

#[test]
fn a_bus_without_a_notification_server_falls_back_to_osc_777() {
    // A session bus is there, nobody owns org.freedesktop.Notifications:
    // notify-rust fails and the text goes to the outer terminal.
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let f = Fixture::new();
    let (mut t, go1, _) = bg_in_the_background(&f, Some(&bus));
    std::fs::write(&go1, "").unwrap();
    t.wait_raw(b"\x1b]777;notify;termic;bg (fake) needs you: permission\x07");
    assert!(t.quit(), "termic did not quit");
}

#[test]
fn no_bus_at_all_goes_straight_to_osc_777() {
    // No DBUS_SESSION_BUS_ADDRESS (the SSH case): the server, running on
    // its own bus, must receive nothing.
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let server = NotifyServer::start(&bus);
    let f = Fixture::new();
    let (mut t, go1, _) = bg_in_the_background(&f, None);
    std::fs::write(&go1, "").unwrap();
    t.wait_raw(b"\x1b]777;notify;termic;bg (fake) needs you: permission\x07");
    assert!(server.received.try_recv().is_err(), "the bus was used");
    assert!(t.quit(), "termic did not quit");
}
