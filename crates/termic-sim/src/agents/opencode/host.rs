//! Runs opencode plugins in `node` through a small embedded host
//! (`host.mjs`) and delivers hooks and bus events to them, one JSON
//! line each, waiting for the host's acknowledgement so the order of what
//! the plugins write is the order the events happened.
//!
//! The host is NOT detached from the terminal: opencode plugins run
//! in-process, with the agent's controlling terminal and env.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

const HOST_JS: &str = include_str!("host.mjs");
/// How long one delivery may take before the simulator moves on.
const ACK_TIMEOUT: Duration = Duration::from_secs(5);

pub struct OpencodeHost {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: u64,
    _dir: PathBuf,
    /// The ready line: plugin count and load errors.
    pub ready: Value,
}

impl OpencodeHost {
    /// Start node with every plugin in `files`. `None` (with the reason)
    /// when node is missing or the host does not come up.
    pub fn start(files: &[PathBuf], cwd: &Path) -> Result<OpencodeHost, String> {
        let dir = std::env::temp_dir().join(format!("termic-sim-opencode-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let host = dir.join("host.mjs");
        std::fs::write(&host, HOST_JS)
            .map_err(|e| format!("cannot write {}: {e}", host.display()))?;
        let mut child = Command::new("node")
            .arg(&host)
            .args(files)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run node (needed for opencode plugins): {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        let ready = lines
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the node plugin host did not start".to_string())?;
        Ok(OpencodeHost {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
            _dir: dir,
            ready,
        })
    }

    fn send(&mut self, mut msg: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        msg["id"] = json!(id);
        let Some(stdin) = self.stdin.as_mut() else {
            return json!({ "errors": ["host closed"] });
        };
        if writeln!(stdin, "{msg}")
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return json!({ "errors": ["host closed"] });
        }
        while let Ok(v) = self.lines.recv_timeout(ACK_TIMEOUT) {
            if v["ack"] == json!(id) {
                return v;
            }
        }
        json!({ "errors": ["no acknowledgement from the plugin host"] })
    }

    /// A bus event `{type, properties}` to every plugin's `event` hook.
    pub fn event(&mut self, kind: &str, properties: Value) -> Value {
        self.send(json!({ "type": "event", "event": { "type": kind, "properties": properties } }))
    }

    /// A named plugin hook such as `chat.message` or `tool.execute.before`.
    pub fn hook(&mut self, name: &str, input: Value, output: Value) -> Value {
        self.send(json!({ "type": "hook", "name": name, "input": input, "output": output }))
    }
}

impl Drop for OpencodeHost {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self._dir);
    }
}
