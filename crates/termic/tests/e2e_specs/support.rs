//! The end-to-end fixture: a throwaway HOME, termic's data and config dirs,
//! termic's real hooks installed by termic-hooks, simulated agents
//! (`termic-sim`, built next to the termic binary) running as termic tasks in
//! real PTYs through the task runtime and the signal engine, and the event
//! log they produce.

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use termic_hooks::plan::AgentVersions;

use serde_json::Value;

use crate::wait::{eventually, eventually_some};
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::InstallFacts;
use termic_hooks::target::{InstallTarget, Paths};
use termic_runtime::clock::{Clock, SystemClock};
use termic_runtime::eventlog::EventLog;
use termic_runtime::{Runtime, RuntimeConfig, RuntimeEvent, TaskId, TaskSpec, TermSize};

pub const SEC: Duration = Duration::from_secs(1);

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

/// The simulator binary, built by cargo next to `termic` (it is a bin of
/// the workspace crate `termic-sim`). `cargo test -p termic` does not
/// rebuild it, so one older than the simulator's sources is refused: it
/// would run old behaviour and fail specs for no visible reason.
pub fn sim_binary() -> PathBuf {
    let termic = Path::new(env!("CARGO_BIN_EXE_termic"));
    let sim = termic.with_file_name("termic-sim");
    assert!(
        sim.exists(),
        "the agent simulator is missing at {}: build it with `cargo build -p termic-sim` \
         (or run the whole suite with `cargo test --workspace`, which builds it)",
        sim.display()
    );
    let built = modified(&sim);
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let crate_dir = crates.join("termic-sim");
    let mut sources = Vec::new();
    for dir in ["src", "scenarios"] {
        files_with_mtimes(&crate_dir.join(dir), &mut sources);
    }
    if let Some(newer) = newer_source(built, &sources) {
        panic!(
            "the agent simulator at {} is stale: {} changed after it was built. \
             Rebuild it with `cargo build -p termic-sim` (or run the whole suite with \
             `cargo test --workspace`, which builds it)",
            sim.display(),
            newer.display()
        );
    }
    sim
}

/// The newest of `sources` when it is newer than a binary built at `built`:
/// that binary does not hold the latest source.
pub fn newer_source(built: SystemTime, sources: &[(PathBuf, SystemTime)]) -> Option<&Path> {
    sources
        .iter()
        .filter(|(_, changed)| *changed > built)
        .max_by_key(|(_, changed)| *changed)
        .map(|(path, _)| path.as_path())
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir`, with its modification time.
fn files_with_mtimes(dir: &Path, out: &mut Vec<(PathBuf, SystemTime)>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_with_mtimes(&path, out);
        } else {
            let changed = modified(&path);
            out.push((path, changed));
        }
    }
}

#[test]
fn a_simulator_older_than_its_newest_source_is_stale() {
    let at = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
    let sources = vec![
        (PathBuf::from("src/main.rs"), at(100)),
        (PathBuf::from("scenarios/simple.scn"), at(300)),
        (PathBuf::from("src/agents/claude.rs"), at(200)),
    ];
    // Built after every change: current.
    assert_eq!(newer_source(at(300), &sources), None);
    assert_eq!(newer_source(at(400), &sources), None);
    // Built before some changes: the newest of them is named.
    assert_eq!(
        newer_source(at(150), &sources),
        Some(Path::new("scenarios/simple.scn"))
    );
    assert_eq!(
        newer_source(at(250), &sources),
        Some(Path::new("scenarios/simple.scn"))
    );
    // No sources found: nothing to be stale against.
    assert_eq!(newer_source(at(0), &[]), None);
}

/// A throwaway HOME, project dir and termic dirs.
pub struct Fixture {
    pub root: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let f = Fixture {
            root: tempfile::tempdir().unwrap(),
        };
        for d in ["home", "project", "data", "config"] {
            std::fs::create_dir_all(f.root.path().join(d)).unwrap();
        }
        f
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn paths(&self) -> Paths {
        Paths {
            home: self.home(),
            data_dir: self.root.path().join("data"),
        }
    }

    /// Install termic's hooks for `schemas` (host targets), as the Settings
    /// toggle does.
    pub fn install(&self, schemas: &[AgentSchema]) {
        for s in schemas {
            let t = InstallTarget::host(*s, &self.paths(), &Default::default()).unwrap();
            apply::install(&t, &FACTS).unwrap();
        }
    }

    pub fn log_path(&self) -> PathBuf {
        self.root.path().join("events.jsonl")
    }

    pub fn trace_path(&self, name: &str) -> PathBuf {
        self.root.path().join(format!("trace-{name}.jsonl"))
    }
}

/// A transition as the UI loop got it.
#[derive(Debug, Clone)]
pub struct Received {
    pub id: TaskId,
    pub to: String,
    pub rule: String,
    pub wall_ms: f64,
}

pub fn unix_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// A runtime driven like the UI drives it (ticks at engine deadlines), with
/// the event log on.
pub struct Session {
    pub rt: Runtime,
    stop: Arc<AtomicBool>,
    pub log: PathBuf,
    driver: Option<std::thread::JoinHandle<()>>,
    /// Every transition as the UI loop received it: task, state, rule and
    /// the wall time of receipt (Unix ms, sub-millisecond).
    pub transitions: Arc<Mutex<Vec<Received>>>,
}

impl Session {
    pub fn start(fx: &Fixture, config: RuntimeConfig) -> Session {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock::new());
        let (rt, events) = Runtime::new(config, Arc::clone(&clock));
        rt.set_event_log(Some(EventLog::open(&fx.log_path()).unwrap()));
        let stop = Arc::new(AtomicBool::new(false));
        let transitions = Arc::new(Mutex::new(Vec::new()));
        let (rt2, stop2, tr) = (rt.clone(), stop.clone(), transitions.clone());
        let driver = std::thread::spawn(move || {
            while !stop2.load(Ordering::Relaxed) {
                let now = clock.now_ms();
                let wait = rt2
                    .next_deadline()
                    .map(|d| Duration::from_millis(d.saturating_sub(now)))
                    .unwrap_or(Duration::from_millis(50))
                    .min(Duration::from_millis(50));
                match events.recv_timeout(wait) {
                    Ok(RuntimeEvent::Dirty(id)) => {
                        rt2.with_screen(id, |s| s.cursor_position());
                    }
                    Ok(RuntimeEvent::Transition(id, t)) => {
                        tr.lock().unwrap().push(Received {
                            id,
                            to: t.to.as_str().to_string(),
                            rule: t.reason.rule.as_str().to_string(),
                            wall_ms: unix_ms(),
                        });
                    }
                    Ok(_) => {}
                    Err(_) => rt2.tick(clock.now_ms()),
                }
            }
        });
        Session {
            rt,
            stop,
            log: fx.log_path(),
            driver: Some(driver),
            transitions,
        }
    }

    /// Start `termic-sim AGENT SCENARIO ARGS` as task `name`, with HOME set
    /// to the fixture's and a trace file.
    pub fn spawn(
        &self,
        fx: &Fixture,
        name: &str,
        agent: &str,
        scenario: &str,
        args: &[&str],
    ) -> TaskId {
        let mut argv: Vec<OsString> = vec![sim_binary().into(), agent.into(), scenario.into()];
        argv.extend(args.iter().map(OsString::from));
        argv.push("--trace".into());
        argv.push(fx.trace_path(name).into());
        self.rt
            .spawn(TaskSpec {
                name: name.to_owned(),
                agent: agent.to_owned(),
                argv,
                cwd: fx.project(),
                env: vec![("HOME".into(), fx.home().into())],
                profile: agent.to_owned(),
                size: TermSize {
                    rows: 40,
                    cols: 120,
                },
                container: None,
            })
            .unwrap()
    }

    pub fn send(&self, id: TaskId, bytes: &[u8]) {
        self.rt.write_input(id, bytes).unwrap();
    }

    /// Event log lines for task `name`.
    pub fn events(&self, name: &str) -> Vec<Value> {
        log_lines(&self.log)
            .into_iter()
            .filter(|v| v["task"] == name)
            .collect()
    }

    /// `to:rule` for each of task `name`'s transitions, in order.
    pub fn steps(&self, name: &str) -> Vec<String> {
        to_and_rule(&self.events(name))
    }

    /// States only (`working`, `needs_you`, ...).
    pub fn states(&self, name: &str) -> Vec<String> {
        self.events(name)
            .iter()
            .map(|v| v["to"].as_str().unwrap_or("").to_owned())
            .collect()
    }

    /// Wait until task `name` has a transition to `state`; returns its line.
    pub fn wait_state(&self, name: &str, state: &str, timeout: Duration) -> Value {
        if let Some(v) = eventually_some(timeout, || {
            self.events(name).into_iter().find(|v| v["to"] == state)
        }) {
            return v;
        }
        panic!(
            "{name} never reached {state} in {timeout:?}; transitions: {:?}",
            self.steps(name)
        );
    }

    /// Wait for the `n`-th (1-based) transition of task `name` to `state`.
    pub fn wait_nth(&self, name: &str, state: &str, n: usize, timeout: Duration) -> Value {
        if let Some(v) = eventually_some(timeout, || {
            self.events(name)
                .into_iter()
                .filter(|v| v["to"] == state)
                .nth(n - 1)
        }) {
            return v;
        }
        panic!(
            "{name}: no transition #{n} to {state} in {timeout:?}; transitions: {:?}",
            self.steps(name)
        );
    }

    /// Task `name`'s states are exactly `expect` (its steps in the message).
    pub fn assert_states(&self, name: &str, expect: &[&str]) {
        assert_eq!(self.states(name), expect, "{:?}", self.steps(name));
    }

    /// No transition of task `name` came from a hook.
    pub fn assert_no_hook_transition(&self, name: &str) {
        assert!(
            self.events(name)
                .iter()
                .all(|v| !v["rule"].as_str().unwrap().starts_with("hook_")),
            "{:?}",
            self.steps(name)
        );
    }

    /// The screen of task `id`, as text.
    pub fn screen(&self, id: TaskId) -> String {
        self.rt
            .with_screen(id, |s| s.contents())
            .unwrap_or_default()
    }

    pub fn wait_screen(&self, id: TaskId, needle: &str, timeout: Duration) {
        if !eventually(timeout, || self.screen(id).contains(needle)) {
            panic!("{needle:?} never on screen; it shows:\n{}", self.screen(id));
        }
    }

    /// Wait until task `id` shows something (a shell's first prompt: its rc
    /// files ran and it reads what is typed next).
    pub fn wait_prompt(&self, id: TaskId, timeout: Duration) {
        if !eventually(timeout, || !self.screen(id).trim().is_empty()) {
            panic!("task {id:?} printed nothing in {timeout:?}");
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.rt.tasks() {
            let _ = self.rt.kill(t.meta.id);
        }
        if let Some(d) = self.driver.take() {
            let _ = d.join();
        }
    }
}

/// termic's runtime settings with the OSC 7501 probe reply turned off, so
/// a simulated Claude falls back to hooks alone.
pub fn no_native() -> RuntimeConfig {
    let mut c = RuntimeConfig::default();
    c.replies.native_probe = false;
    c
}

/// termic's hooks for `schema` installed and wired, and `agent` started as
/// task `t` on `scenario`: the common start of a hooks spec.
pub fn wired(
    fx: &Fixture,
    config: RuntimeConfig,
    schema: AgentSchema,
    agent: &str,
    scenario: &str,
    args: &[&str],
) -> (Session, TaskId) {
    fx.install(&[schema]);
    let s = Session::start(fx, config);
    s.rt.set_hooks_wired(agent, true);
    let id = s.spawn(fx, "t", agent, scenario, args);
    (s, id)
}

/// Records of kind `ev` in a simulator trace file.
pub fn trace(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Every line of the event log at `path` (none while it does not exist).
pub fn log_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// `to:rule` for each event log line, in order.
pub fn to_and_rule(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|v| {
            format!(
                "{}:{}",
                v["to"].as_str().unwrap_or(""),
                v["rule"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// Count of `state` in `states`.
pub fn count(states: &[String], state: &str) -> usize {
    states.iter().filter(|s| *s == state).count()
}
