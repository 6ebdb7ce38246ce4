//! Runs `termic-sim` in a real PTY with a fixture HOME, records what it
//! writes (with arrival times), optionally answers Claude's OSC 7501 probe
//! the way termic does, and reads the simulator's trace.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};
use serde_json::Value;

pub const TASK_ID: &str = "task-0123-abcd";

/// A fixture HOME with a hook recorder script.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        // rec.sh NAME: appends one tab-separated line per run:
        // name, GROK_HOOK_EVENT, GROK_HOOK_NAME, TERMIC_TASK_ID, tty?, payload.
        let log = home.path().join("hooks.log");
        home.write_exec(
            "bin/rec.sh",
            &format!(
                "#!/bin/sh\npayload=$(cat)\ntty=ok\n(exec 3>/dev/tty) 2>/dev/null || tty=fail\n\
                 printf '%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' \"$1\" \"${{GROK_HOOK_EVENT:-}}\" \"${{GROK_HOOK_NAME:-}}\" \
                 \"${{TERMIC_TASK_ID:-}}\" \"$tty\" \"$payload\" >> '{}'\n\
                 [ -f \"$0.$1.out\" ] && cat \"$0.$1.out\"\nexit 0\n",
                log.display()
            ),
        );
        home
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    pub fn write_exec(&self, rel: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.write(rel, text);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// The recorder command for hook `name`.
    pub fn rec(&self, name: &str) -> String {
        format!("{} {name}", self.path().join("bin/rec.sh").display())
    }

    /// Make `rec.sh NAME` print `stdout` after recording.
    pub fn rec_prints(&self, name: &str, stdout: &str) {
        self.write(&format!("bin/rec.sh.{name}.out"), stdout);
    }

    /// Recorded hook runs: (name, grok event, grok name, task id, tty, payload).
    pub fn runs(&self) -> Vec<Run> {
        let text = std::fs::read_to_string(self.path().join("hooks.log")).unwrap_or_default();
        text.lines()
            .map(|l| {
                let f: Vec<&str> = l.splitn(6, '\t').collect();
                Run {
                    name: f[0].into(),
                    grok_event: f[1].into(),
                    grok_name: f[2].into(),
                    task_id: f[3].into(),
                    tty: f[4].into(),
                    payload: serde_json::from_str(f.get(5).unwrap_or(&"null"))
                        .unwrap_or(Value::Null),
                }
            })
            .collect()
    }

    pub fn run_names(&self) -> Vec<String> {
        self.runs().into_iter().map(|r| r.name).collect()
    }

    /// Write `.claude/settings.json` with one recorder hook per `(event, name)`.
    pub fn claude_settings(&self, entries: &[(&str, &str)]) {
        self.write(".claude/settings.json", &claude_hooks(entries, self, ""));
    }
}

#[derive(Debug, Clone)]
pub struct Run {
    pub name: String,
    pub grok_event: String,
    pub grok_name: String,
    pub task_id: String,
    pub tty: String,
    pub payload: Value,
}

/// Claude-shaped settings with one recorder hook per `(event, name)`.
pub fn claude_hooks(entries: &[(&str, &str)], home: &Home, extra_handler: &str) -> String {
    let events: Vec<String> = entries
        .iter()
        .map(|(event, name)| {
            format!(
                r#""{event}":[{{"hooks":[{{"type":"command","command":"{}"{extra_handler}}}]}}]"#,
                home.rec(name)
            )
        })
        .collect();
    format!("{{\"hooks\":{{{}}}}}", events.join(","))
}

pub struct Sim {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    output: Arc<Mutex<Vec<u8>>>,
    pub trace_path: PathBuf,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

pub struct SimOpts<'a> {
    pub args: &'a [&'a str],
    pub env: &'a [(&'a str, &'a str)],
    /// Answer the OSC 7501 probe like termic.
    pub answer_probe: bool,
    pub task_id: bool,
}

impl Default for SimOpts<'_> {
    fn default() -> Self {
        SimOpts {
            args: &[],
            env: &[],
            answer_probe: false,
            task_id: true,
        }
    }
}

impl Sim {
    pub fn spawn(agent: &str, scenario: &str, home: &Home, opts: SimOpts) -> Sim {
        let pty = native_pty_system();
        let pair = pty
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let trace_path = home
            .path()
            .join(format!("trace-{agent}-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&trace_path);
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_termic-sim"));
        cmd.arg(agent);
        cmd.arg(scenario);
        cmd.arg("--trace");
        cmd.arg(&trace_path);
        for a in opts.args {
            cmd.arg(a);
        }
        cmd.cwd(home.path());
        cmd.env("HOME", home.path());
        cmd.env_remove("XDG_CONFIG_HOME");
        cmd.env_remove("GROK_CLAUDE_HOOKS_ENABLED");
        cmd.env_remove("TERMIC_TASK_ID");
        if opts.task_id {
            cmd.env("TERMIC_TASK_ID", TASK_ID);
        }
        if let Some(name) = pair.master.tty_name() {
            cmd.env("TERMIC_PTY", name);
        }
        for (k, v) in opts.env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let writer: Arc<Mutex<Box<dyn Write + Send>>> =
            Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let output = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let (out, w) = (output.clone(), writer.clone());
        let answer = opts.answer_probe;
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            let mut answered = false;
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut o = out.lock().unwrap();
                o.extend_from_slice(&buf[..n]);
                if answer && !answered && find(&o, b"\x1b]7501;?").is_some() {
                    answered = true;
                    let _ = w.lock().unwrap().write_all(b"\x1b]7501;?\x1b\\");
                }
            }
        });
        Sim {
            child,
            writer,
            output,
            trace_path,
            _master: pair.master,
        }
    }

    /// `--auto` (prompts submit themselves) plus `extra`; Claude's probe
    /// wait is kept short since nobody answers it.
    pub fn auto(agent: &str, scenario: &str, home: &Home, extra: &[&str]) -> Sim {
        let mut args = vec!["--auto"];
        if !extra.contains(&"--probe-wait-ms") {
            args.extend(["--probe-wait-ms", "50"]);
        }
        args.extend_from_slice(extra);
        Sim::spawn(
            agent,
            scenario,
            home,
            SimOpts {
                args: &args,
                ..Default::default()
            },
        )
    }

    pub fn send(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// Escape on its own (the simulator waits 30 ms to tell it from a sequence).
    pub fn escape(&self) {
        self.send(b"\x1b");
    }

    pub fn output(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    pub fn wait_for(&self, needle: &str, timeout: Duration) {
        if eventually(timeout, || self.output().contains(needle)) {
            return;
        }
        panic!(
            "{needle:?} not seen in {timeout:?}; output:\n{:?}",
            self.output()
        );
    }

    pub fn trace(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.trace_path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Wait for a trace record matching `pred` and return it.
    pub fn wait_trace(
        &self,
        what: &str,
        pred: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Value {
        let mut found = None;
        if eventually(timeout, || {
            found = self.trace().into_iter().find(|v| pred(v));
            found.is_some()
        }) {
            return found.unwrap();
        }
        panic!(
            "{what} not in trace after {timeout:?}:\n{:#?}\noutput: {:?}",
            self.trace(),
            self.output()
        );
    }

    pub fn exited_within(&mut self, timeout: Duration) -> bool {
        let child = &mut self.child;
        eventually(timeout, || matches!(child.try_wait(), Ok(Some(_))))
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `done` every 10 ms until it holds or `within` passes; false on
/// timeout. What a test waits with: the event, not a fixed time.
pub fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Trace records of kind `ev`.
pub fn events<'a>(trace: &'a [Value], ev: &str) -> Vec<&'a Value> {
    trace.iter().filter(|v| v["ev"] == ev).collect()
}

pub fn is(ev: &'static str, field: &'static str, value: &'static str) -> impl Fn(&Value) -> bool {
    move |v| v["ev"] == ev && v[field] == value
}

pub const SEC: Duration = Duration::from_secs(1);
