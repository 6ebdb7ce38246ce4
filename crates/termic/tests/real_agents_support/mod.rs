//! Shared by the real-agent suites: a real agent started as a termic task
//! (runtime, event log, hooks from termic-hooks, timers fired on the system
//! clock) against the fake model server, and the event-log reading helpers.

#![allow(dead_code)]

mod driven;

pub use driven::*;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};
use termic_hooks::plan::AgentVersions;

use termic_fakemodel::agents::{base_env, Agent};
use termic_fakemodel::drive::{scratch_dir, serve_scenario};
use termic_fakemodel::pty::{now_ms, processes_with_home};
pub use termic_fakemodel::suite::{begin, SEC};
use termic_fakemodel::{FakeModel, ScenarioName};
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::InstallFacts;
use termic_hooks::status;
use termic_hooks::target::{ForbiddenRoots, InstallTarget, Paths};
use termic_runtime::clock::SystemClock;
use termic_runtime::eventlog::EventLog;
use termic_runtime::{Runtime, RuntimeConfig, TaskId, TaskSpec, TermSize};

/// Qwen Code's input box placeholder: on screen once it takes keys.
pub const QWEN_INPUT_BOX: &str = "Type your message";

pub const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_796_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

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

/// How to start a task.
#[derive(Default)]
pub struct Setup {
    pub probe_reply: bool,
    /// termic_fakemodel's hook recorder, registered before termic's hooks.
    pub recorder: bool,
    /// The same recorder registered in this agent's files as well, before
    /// termic's hooks (grok also runs the hooks in claude's settings.json).
    pub recorder_in: Option<Agent>,
    pub hooks: Vec<AgentSchema>,
    pub env: Vec<(String, String)>,
    pub slow_for: Option<Duration>,
    /// Runs on the prepared HOME before the agent starts.
    pub before: Option<fn(&Path)>,
    /// The task is bash with termic's shell integration (a shell task), in
    /// the agent's env; the test types the agent's name at its prompt.
    pub in_shell: bool,
    /// Arguments after the agent's binary (e.g. `--resume`).
    pub args: Vec<String>,
    /// A run of the agent's binary to its end with these arguments, with
    /// the task's env in its project, before the task starts (e.g. `-p
    /// ...` for a conversation a resume can offer).
    pub warm_up: Vec<String>,
    /// Runs on the prepared HOME after the warm-up run.
    pub after_warm_up: Option<fn(&Path)>,
    /// The task starts at a screen with no window title (a picker): ready
    /// once its screen held still, not at its first title.
    pub no_title_at_start: bool,
    /// Keep the task's record in a journal (`journal_session` reads it).
    pub journal: bool,
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
    /// The runtime's clock, and every key sent on it (for [`TermicTask::trace`]).
    clock: Arc<SystemClock>,
    keys_sent: Mutex<Vec<(u64, Vec<u8>)>>,
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
        let server = serve_scenario(&root, &project, scenario, setup.slow_for).unwrap();
        let agent_env = agent
            .prepare(cache, &home, &project, &server.base_url())
            .unwrap();
        if setup.recorder {
            termic_fakemodel::recorder::install(agent, &home).unwrap();
        }
        if let Some(other) = setup.recorder_in {
            termic_fakemodel::recorder::install(other, &home).unwrap();
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
        if !setup.warm_up.is_empty() {
            let status = std::process::Command::new(agent.binary(cache))
                .args(&setup.warm_up)
                .current_dir(&project)
                .env_clear()
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "the warm-up run failed: {status}");
        }
        if let Some(after) = setup.after_warm_up {
            after(&home);
        }
        let mut rt_config = RuntimeConfig::default();
        rt_config.replies.native_probe = setup.probe_reply;
        let clock = Arc::new(SystemClock::new());
        let (rt, events) = Runtime::new(rt_config, Arc::clone(&clock) as Arc<_>);
        rt.set_event_log(Some(EventLog::open(&log).unwrap()));
        if setup.journal {
            let journal = termic_runtime::journal::Journal::new(&root.join("data"), "matrix");
            rt.set_journal(Some(journal));
        }
        let wired = hooks_wired(&home, &project, agent.name());
        assert_eq!(
            wired,
            !setup.hooks.is_empty() && setup.hooks.contains(&schema(agent)),
            "termic-hooks status for {}",
            agent.name()
        );
        rt.set_hooks_wired(agent.name(), wired);
        let size = TermSize {
            rows: 40,
            cols: 120,
        };
        let spec = if setup.in_shell {
            let data_dir = root.join("data");
            let integration = data_dir.join("shell-integration");
            termic_runtime::shell::files::install(&integration).unwrap();
            let req = termic::agents::launch::LaunchRequest {
                name: "real-shell",
                cwd: project.clone(),
                size,
                data_dir: &data_dir,
                extra_args: &[],
            };
            let mut spec = termic::agents::command::command_spec(
                &["bash".to_string()],
                &req,
                Some(&integration),
                |_| None,
            );
            spec.env.extend(env);
            spec
        } else {
            TaskSpec {
                name: format!("real-{}", agent.name()),
                agent: agent.name().to_string(),
                argv: std::iter::once(agent.binary(cache).into())
                    .chain(setup.args.iter().map(OsString::from))
                    .collect(),
                cwd: project.clone(),
                env,
                profile: agent.name().to_string(),
                size,
                container: None,
            }
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
                    use termic_runtime::clock::Clock;
                    if let Ok(termic_runtime::RuntimeEvent::Dirty(id)) =
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
            clock,
            keys_sent: Mutex::new(Vec::new()),
            ticker: Some(ticker),
        };
        if setup.in_shell || setup.no_title_at_start {
            task.wait_steady(Instant::now() + 90 * SEC);
        } else {
            task.wait_ready();
        }
        task
    }

    /// The agent's session id in the task's journal record (`Setup::journal`).
    pub fn journal_session(&self) -> Option<String> {
        termic_runtime::journal::all_records(&self.root.join("data"))
            .into_iter()
            .find_map(|r| r.session)
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
        self.wait_steady(deadline);
    }

    /// Waits until the screen shows something and held still for 2 s.
    pub fn wait_steady(&self, deadline: Instant) {
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

    /// What the engine saw of this run as a `.trace` for termic-signal's
    /// corpus (tests/common/script.rs format): the window titles from the
    /// Inspector timeline and the keys sent, on the runtime's clock, with
    /// `header` (comment and header lines) first and no `expect` lines.
    /// Written to `$TERMIC_TRACE_OUT/<file>` when that is set, so a run
    /// refreshes the corpus's recording.
    pub fn trace(&self, header: &str, file: &str) -> String {
        let mut events: Vec<(u64, String)> = Vec::new();
        for entry in self.timeline() {
            let mut words = entry.splitn(3, ' ');
            let (Some(at), Some(kind), Some(rest)) = (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Ok(at) = at.parse::<u64>() else { continue };
            if kind != "signal" || !rest.starts_with("title \"") {
                continue;
            }
            // `title "<Debug-quoted>" (state, rule)`: the title is JSON-compatible.
            let quoted = &rest["title ".len()..rest.rfind(" (").unwrap_or(rest.len())];
            if let Ok(title) = serde_json::from_str::<String>(&debug_escapes_to_json(quoted)) {
                events.push((at, format!("title {title}")));
            }
        }
        let sent = self.keys_sent.lock().unwrap_or_else(|e| e.into_inner());
        for (at, bytes) in sent.iter() {
            for key in termic_signal::engine::Key::from_input_bytes(bytes) {
                let name = match key {
                    termic_signal::engine::Key::Submit => "enter",
                    termic_signal::engine::Key::Escape => "escape",
                    termic_signal::engine::Key::CtrlC => "ctrlc",
                    termic_signal::engine::Key::Other => "other",
                };
                events.push((*at, format!("key {name}")));
            }
        }
        events.sort_by_key(|(at, _)| *at);
        events.dedup();
        let mut text = header.trim_end().to_string();
        text.push('\n');
        for (at, line) in events {
            text.push_str(&format!("{at} {line}\n"));
        }
        if let Some(dir) = std::env::var_os("TERMIC_TRACE_OUT") {
            std::fs::write(Path::new(&dir).join(file), &text).unwrap();
        }
        text
    }

    /// Qwen Code paints its title and a steady screen ("Initializing...")
    /// seconds before it takes input; keys typed before are lost. Qwen
    /// 0.24.4 mounts its input box, placeholder `Type your message`, only
    /// once its config is initialized (`isInputActive`), so the
    /// placeholder on termic's screen is the moment it takes keys. (Until
    /// 2026-12-06 this waited for "Read context files", which 0.24.4 prints
    /// only after the first prompt: every Qwen test waited 60 s here.)
    /// Other agents take input once ready.
    pub fn takes_input(&self) {
        if self.agent != Agent::Qwen {
            return;
        }
        let deadline = Instant::now() + 90 * SEC;
        while !self.output_contains(QWEN_INPUT_BOX) {
            if Instant::now() >= deadline {
                self.dump_all();
                panic!("qwen showed no input box ({QWEN_INPUT_BOX}) within 90 s");
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn output_contains(&self, needle: &str) -> bool {
        self.rt
            .with_screen(self.id, |s| s.contents().contains(needle))
            .unwrap_or(false)
    }

    /// Everything a person needs to see why a scenario failed: the engine's
    /// Inspector timeline, the model requests and the screen.
    pub fn dump_all(&self) {
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

impl Driven for TermicTask {
    fn name(&self) -> &str {
        self.agent.name()
    }

    fn event_log(&self) -> &Path {
        &self.log
    }

    fn keys(&self, bytes: &[u8]) -> u64 {
        let t = now_ms() as u64;
        {
            use termic_runtime::clock::Clock;
            let mut sent = self.keys_sent.lock().unwrap_or_else(|e| e.into_inner());
            sent.push((self.clock.now_ms(), bytes.to_vec()));
        }
        self.rt.write_input(self.id, bytes).unwrap();
        t
    }

    fn dump(&self) {
        self.dump_all();
    }
}

/// A Debug-quoted string as JSON: Rust writes `\u{fe0e}` where JSON has
/// `\ufe0e` (Qwen Code's titles carry U+FE0E). Other escapes agree.
fn debug_escapes_to_json(quoted: &str) -> String {
    let mut out = String::with_capacity(quoted.len());
    let mut rest = quoted;
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        match u32::from_str_radix(&after[..end], 16)
            .ok()
            .and_then(char::from_u32)
        {
            Some(c) => out.push(c),
            None => out.push_str(&rest[at..at + 3 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

pub fn schema(agent: Agent) -> AgentSchema {
    match agent {
        Agent::Claude => AgentSchema::CLAUDE,
        Agent::Grok => AgentSchema::GROK,
        Agent::Opencode => AgentSchema::OPENCODE,
        Agent::Gemini => AgentSchema::GEMINI,
        Agent::Qwen => AgentSchema::QWEN,
        Agent::Copilot => AgentSchema::COPILOT,
        // No hooks of its own; never installed.
        Agent::Codex => AgentSchema::AGY,
    }
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

/// Claude starts in plan mode (its own setting), so ExitPlanMode asks; the
/// setting is merged into the settings.json a hooks install wrote, if any.
pub fn plan_mode(home: &std::path::Path) {
    let path = home.join(".claude/settings.json");
    let mut settings: serde_json::Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    settings["permissions"]["defaultMode"] = serde_json::json!("plan");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, settings.to_string()).unwrap();
}
