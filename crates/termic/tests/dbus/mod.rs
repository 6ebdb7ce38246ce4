//! A private D-Bus session bus and a test notification server
//! (tests/dbus/notify_server.py, Python standard library only) that records
//! every Notify it receives and clicks when told. Shared by the tui binary's
//! notify_dbus and the fault suite's notify_markup. Needs `dbus-daemon` and
//! `python3` (.ci/run installs dbus).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Generous: the machine running the tests may be loaded.
pub const WAIT: Duration = Duration::from_secs(30);

/// A private session bus: the daemon, killed on drop.
pub struct SessionBus {
    daemon: Child,
    pub address: String,
    _dir: tempfile::TempDir,
}

impl SessionBus {
    /// None (and the test returns, having checked nothing) only outside
    /// CI on a machine without dbus-daemon (`requires::program`).
    pub fn start() -> Option<SessionBus> {
        if !crate::requires::program("dbus-daemon", "dbus") {
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
pub struct NotifyServer {
    child: Child,
    stdin: ChildStdin,
    pub received: Receiver<serde_json::Value>,
}

impl NotifyServer {
    pub fn start(bus: &SessionBus) -> NotifyServer {
        Self::start_clicking(bus, None)
    }

    /// `autoclick`: the action the server invokes on every notification
    /// the instant it has answered the Notify call.
    pub fn start_clicking(bus: &SessionBus, autoclick: Option<&str>) -> NotifyServer {
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
    pub fn next_with(&self, needle: &str) -> serde_json::Value {
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

    pub fn click(&mut self, id: u64, action: &str) {
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
