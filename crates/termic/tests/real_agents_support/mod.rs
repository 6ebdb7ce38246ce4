//! Shared by the real-agent suites: a real agent started as a termic task
//! (runtime, event log, hooks from termic-hooks, timers fired on the system
//! clock) against the fake model server, and the event-log reading helpers.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::Value;
use termic::clock::SystemClock;
use termic::eventlog::EventLog;
use termic::runtime::{Runtime, RuntimeConfig, TaskId, TaskSpec, TermSize};
use termic_fakemodel::agents::{base_env, Agent};
use termic_fakemodel::drive::scratch_dir;
use termic_fakemodel::pty::{now_ms, processes_with_home};
use termic_fakemodel::{FakeModel, Scenario, ScenarioName, ServerConfig};
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::InstallFacts;
use termic_hooks::status;
use termic_hooks::target::{ForbiddenRoots, InstallTarget, Paths};

pub static ONE_AGENT_AT_A_TIME: Mutex<()> = Mutex::new(());
pub const SEC: Duration = Duration::from_secs(1);
pub const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_796_000_000,
    claude_version: Some((2, 1, 332)),
};

pub fn cache(test: &str) -> Option<PathBuf> {
    match std::env::var_os("TERMIC_REAL_AGENTS") {
        Some(dir) => Some(PathBuf::from(dir)),
        // These tests are #[ignore]d; running one on purpose without the
        // agents installed is an error, never a silent pass.
        None => {
            panic!("{test}: set TERMIC_REAL_AGENTS=<cache dir filled by .ci/real-agents-install>")
        }
    }
}

pub fn paths(home: &Path) -> Paths {
    Paths {
        home: home.to_path_buf(),
        data_dir: home.join(".local/share/termic"),
    }
}

pub fn install_hooks(home: &Path, schemas: &[AgentSchema]) {
    for schema in schemas {
        let target =
            InstallTarget::host(*schema, &paths(home), &ForbiddenRoots::default()).unwrap();
        apply::install(&target, &FACTS).unwrap();
    }
}

pub fn remove_hooks(home: &Path, schemas: &[AgentSchema]) {
    for schema in schemas {
        let target =
            InstallTarget::host(*schema, &paths(home), &ForbiddenRoots::default()).unwrap();
        apply::remove(&target).unwrap();
    }
}

pub fn hooks_wired(home: &Path, project: &Path, agent_id: &str) -> bool {
    let forbidden = ForbiddenRoots::new([project.to_path_buf()]).unwrap();
    let report = status::status_report(&[], &paths(home), &forbidden, &FACTS);
    status::wired(&report, agent_id)
}

/// One event-log line.
#[derive(Debug, Clone)]
pub struct Line {
    pub ts: u64,
    pub from: String,
    pub to: String,
    pub rule: String,
    pub kind: Option<String>,
}

/// How to start a task.
#[derive(Default)]
pub struct Setup {
    pub probe_reply: bool,
    /// termic_fakemodel's hook recorder, registered before termic's hooks.
    pub recorder: bool,
    pub hooks: Vec<AgentSchema>,
    pub env: Vec<(String, String)>,
    pub slow_for: Option<Duration>,
    /// Runs on the prepared HOME before the agent starts.
    pub before: Option<fn(&Path)>,
}

/// A real agent running as a termic task, plus a thread that fires the
/// engine's timers on the system clock as termic's main loop does.
pub struct TermicTask {
    pub rt: Runtime,
    pub id: TaskId,
    pub agent: Agent,
    pub root: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub log: PathBuf,
    pub server: FakeModel,
    stop: Arc<AtomicBool>,
    /// The engine's Inspector timeline, drained into here as it is read.
    timeline: Mutex<Vec<String>>,
    ticker: Option<JoinHandle<()>>,
}

impl TermicTask {
    pub fn start(cache: &Path, agent: Agent, scenario: ScenarioName, setup: Setup) -> TermicTask {
        let root = scratch_dir(&format!("termic-{}", agent.name()));
        let (home, project, log) = (
            root.join("home"),
            root.join("proj"),
            root.join("events.jsonl"),
        );
        std::fs::create_dir_all(&project).unwrap();
        let mut script = Scenario::new(scenario, project.join("out.txt"));
        if let Some(slow_for) = setup.slow_for {
            script.slow_for = slow_for;
        }
        let mut config = ServerConfig::new(script);
        config.log_path = Some(root.join("requests.jsonl"));
        let server = FakeModel::start(config).unwrap();
        let agent_env = agent
            .prepare(cache, &home, &project, &server.base_url())
            .unwrap();
        if setup.recorder {
            termic_fakemodel::recorder::install(agent, &home).unwrap();
        }
        install_hooks(&home, &setup.hooks);
        if let Some(before) = setup.before {
            before(&home);
        }
        let mut env: Vec<(OsString, OsString)> = Vec::new();
        let xdg = [
            (".config", "XDG_CONFIG_HOME"),
            (".local/share", "XDG_DATA_HOME"),
            (".cache", "XDG_CACHE_HOME"),
            (".local/state", "XDG_STATE_HOME"),
        ];
        for (dir, var) in xdg {
            env.push((var.into(), home.join(dir).into()));
        }
        for (k, v) in base_env(cache, &home)
            .into_iter()
            .chain(agent_env)
            .chain(setup.env)
        {
            env.push((k.into(), v.into()));
        }
        let mut rt_config = RuntimeConfig::default();
        rt_config.replies.native_probe = setup.probe_reply;
        let (rt, events) = Runtime::new(rt_config, Arc::new(SystemClock::new()));
        rt.set_event_log(Some(EventLog::open(&log).unwrap()));
        let wired = hooks_wired(&home, &project, agent.name());
        assert_eq!(
            wired,
            !setup.hooks.is_empty() && setup.hooks.contains(&schema(agent)),
            "termic-hooks status for {}",
            agent.name()
        );
        rt.set_hooks_wired(agent.name(), wired);
        let spec = TaskSpec {
            name: format!("real-{}", agent.name()),
            agent: agent.name().to_string(),
            argv: vec![agent.binary(cache).into()],
            cwd: project.clone(),
            env,
            profile: agent.name().to_string(),
            size: TermSize {
                rows: 40,
                cols: 120,
            },
        };
        let id = rt.spawn(spec).unwrap();
        rt.set_watched(Some(id));
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = {
            let (rt, stop) = (rt.clone(), Arc::clone(&stop));
            thread::spawn(move || {
                let clock = SystemClock::new();
                // As termic's main loop: drain events (reading the screen
                // re-arms Dirty) and fire timers when they fall due.
                while !stop.load(Ordering::SeqCst) {
                    use termic::clock::Clock;
                    if let Ok(termic::runtime::RuntimeEvent::Dirty(id)) =
                        events.recv_timeout(Duration::from_millis(10))
                    {
                        rt.with_screen(id, |s| s.cursor_position());
                    }
                    let now = clock.now_ms();
                    if rt.next_deadline().is_some_and(|d| d <= now) {
                        rt.tick(now);
                    }
                }
            })
        };
        let task = TermicTask {
            rt,
            id,
            agent,
            root,
            home,
            project,
            log,
            server,
            stop,
            timeline: Mutex::new(Vec::new()),
            ticker: Some(ticker),
        };
        task.wait_ready();
        task
    }

    /// The engine's timeline so far (drains the runtime's copy).
    pub fn timeline(&self) -> Vec<String> {
        let mut timeline = self.timeline.lock().unwrap_or_else(|e| e.into_inner());
        timeline.extend(
            self.rt
                .drain_log(self.id)
                .into_iter()
                .map(|e| e.to_string()),
        );
        timeline.clone()
    }

    /// Waits until the agent set its first window title (its UI is up; keys
    /// typed before that are lost, measured on Codex) and then its screen
    /// held still for 2 s.
    pub fn wait_ready(&self) {
        let deadline = Instant::now() + 90 * SEC;
        while !self.timeline().iter().any(|e| e.contains(" signal title ")) {
            assert!(
                Instant::now() < deadline,
                "{} set no title within 90 s",
                self.agent.name()
            );
            thread::sleep(Duration::from_millis(50));
        }
        let (mut last, mut since) = (String::new(), Instant::now());
        while Instant::now() < deadline {
            let text = self
                .rt
                .with_screen(self.id, |s| s.contents())
                .unwrap_or_default();
            if text != last {
                (last, since) = (text, Instant::now());
            } else if !last.trim().is_empty() && since.elapsed() > 2 * SEC {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "{} never showed a steady screen; it shows:\n{last}",
            self.agent.name()
        );
    }

    pub fn keys(&self, bytes: &[u8]) -> u64 {
        let t = now_ms() as u64;
        self.rt.write_input(self.id, bytes).unwrap();
        t
    }

    pub fn prompt(&self, text: &str) -> u64 {
        self.keys(text.as_bytes());
        thread::sleep(Duration::from_millis(400));
        self.keys(b"\r")
    }

    pub fn lines(&self) -> Vec<Line> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| Line {
                ts: v["ts"].as_u64().unwrap_or(0),
                from: v["from"].as_str().unwrap_or("").to_string(),
                to: v["to"].as_str().unwrap_or("").to_string(),
                rule: v["rule"].as_str().unwrap_or("").to_string(),
                kind: v["attention"]["kind"].as_str().map(str::to_string),
            })
            .collect()
    }

    /// States entered at or after `since`, in order.
    pub fn states(&self, since: u64) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|l| l.ts >= since)
            .map(|l| l.to)
            .collect()
    }

    pub fn wait_state(&self, to: &str, since: u64, timeout: Duration) -> Option<Line> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(line) = self
                .lines()
                .into_iter()
                .find(|l| l.ts >= since && l.to == to)
            {
                return Some(line);
            }
            thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn output_contains(&self, needle: &str) -> bool {
        self.rt
            .with_screen(self.id, |s| s.contents().contains(needle))
            .unwrap_or(false)
    }

    /// Everything a person needs to see why a scenario failed: the engine's
    /// Inspector timeline, the model requests and the screen.
    pub fn dump(&self) {
        for entry in self.timeline() {
            eprintln!("  engine {entry}");
        }
        for req in self.server.requests() {
            eprintln!(
                "  model {} {} side={} step={} -> {}",
                req.ts_ms, req.path, req.side, req.step, req.reply
            );
        }
        let screen = self
            .rt
            .with_screen(self.id, |s| s.contents())
            .unwrap_or_default();
        eprintln!("  screen:\n{screen}");
    }

    pub fn report(&self, label: &str) {
        eprintln!(
            "{label}: {:?}",
            self.lines()
                .iter()
                .map(|l| format!("{}->{} ({})", l.from, l.to, l.rule))
                .collect::<Vec<_>>()
        );
    }
}

impl Drop for TermicTask {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        let _ = self.rt.kill(self.id);
        let deadline = Instant::now() + 10 * SEC;
        while !processes_with_home(&self.home).is_empty() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(50));
        }
        // Whatever termic left behind (Codex's app-server daemons, see
        // gotchas) is ended here so a test run leaks nothing; the tests that
        // care assert before this.
        // Codex's daemons can start one another, so repeat until none is left.
        for _ in 0..100 {
            let left = processes_with_home(&self.home);
            if left.is_empty() {
                break;
            }
            for pid in left {
                // SAFETY: a process started under this task's scratch HOME.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            thread::sleep(Duration::from_millis(50));
        }
        if std::env::var_os("TERMIC_REAL_AGENTS_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

pub fn schema(agent: Agent) -> AgentSchema {
    match agent {
        Agent::Claude => AgentSchema::Claude,
        Agent::Grok => AgentSchema::Grok,
        Agent::Opencode => AgentSchema::Opencode,
        Agent::Codex => AgentSchema::Agy, // codex has no hooks; never installed
    }
}

/// The permission-prompt turn every agent gets: prompt, wait for needs-you,
/// approve, wait for done. Returns (prompt time, states after the prompt).
pub fn permission_turn(task: &TermicTask, approve: &[u8]) -> (u64, Vec<String>) {
    let t0 = task.prompt("create the file out.txt please");
    let needs = task.wait_state("needs_you", t0, 90 * SEC);
    task.report(task.agent.name());
    if needs.is_none() {
        task.dump();
        panic!("{}: no needs_you", task.agent.name());
    }
    thread::sleep(SEC);
    let t_key = task.keys(approve);
    if task.wait_state("done", t_key, 90 * SEC).is_none() {
        task.dump();
        panic!("{}: no done after approval", task.agent.name());
    }
    thread::sleep(3 * SEC); // anything late (a second done) shows up here
    (t0, task.states(t0))
}

/// Working, needs you (no done before it), then done exactly once.
pub fn assert_honest_turn(states: &[String]) {
    let needs = states
        .iter()
        .position(|s| s == "needs_you")
        .expect("needs_you");
    assert_eq!(
        states.first().map(String::as_str),
        Some("working"),
        "{states:?}"
    );
    assert!(
        !states[..needs].iter().any(|s| s == "done"),
        "a done before needs you: {states:?}"
    );
    assert_eq!(
        states.iter().filter(|s| *s == "done").count(),
        1,
        "{states:?}"
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("done"),
        "{states:?}"
    );
}

/// Every file under `dir` with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap_or_default(),
                );
            }
        }
    }
    out
}

pub fn assert_no_termic_file(project: &Path) {
    let names: Vec<String> = snapshot(project)
        .keys()
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        !names.iter().any(|n| n.to_lowercase().contains("termic")),
        "termic files in the project: {names:?}"
    );
    for dir in [".claude", ".grok", ".opencode", ".agents", ".codex"] {
        assert!(
            !project.join(dir).join("termic-hooks").exists(),
            "{dir} in the project"
        );
    }
}
