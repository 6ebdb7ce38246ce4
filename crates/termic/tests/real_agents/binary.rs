//! Real agents through the real `termic` binary: `termic hooks install` into
//! a fixture HOME, then `termic run AGENT --event-log FILE` in a PTY with the
//! agent's command and env set in config.toml, keys typed into termic's
//! focused task. Asserted on the event log, and on what termic writes to its
//! own (outer) terminal for attention. Opt-in like `real_agents/tasks.rs`
//! (TERMIC_REAL_AGENTS=<cache>); one agent at a time.

use crate::real_agents_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use real_agents_support::{
    assert_grok_released, assert_honest_turn, assert_no_termic_file, assert_released_to_working,
    begin, escape_turn, permission_turn, snapshot, Driven, Setup, SEC,
};
use termic_fakemodel::agents::{base_env, Agent};
use termic_fakemodel::drive::{scratch_dir, serve_scenario};
use termic_fakemodel::pty::{now_ms, processes_with_home, PtyOptions, PtySession};
use termic_fakemodel::trace;
use termic_fakemodel::{FakeModel, ScenarioName};
use termic_hooks::agents::AgentSchema;

/// A fixture: scratch HOME, project, termic config and data dirs, a fake
/// model, and the agent's env written into config.toml. The HOME is
/// snapshotted before `termic hooks install` and after it, so removal can be
/// checked against both.
struct Fixture {
    agent: Agent,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
    log: PathBuf,
    env: Vec<(String, String)>,
    /// Installed with `termic hooks install`, in this order.
    hooks: Vec<AgentSchema>,
    home_before: BTreeMap<PathBuf, Vec<u8>>,
    home_installed: BTreeMap<PathBuf, Vec<u8>>,
    _server: FakeModel,
}

impl Fixture {
    /// Prepares the agent's HOME, snapshots it, then installs `setup.hooks`
    /// through the binary. `setup.env` joins the agent's env in config.toml.
    fn new(cache: &Path, agent: Agent, scenario: ScenarioName, setup: Setup) -> Fixture {
        let root = scratch_dir(&format!("binary-{}", agent.name()));
        let home = root.join("home");
        let project = root.join("proj");
        let config_dir = root.join("config");
        let data_dir = root.join("data");
        for dir in [&project, &config_dir, &data_dir] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let server = serve_scenario(&root, &project, scenario, setup.slow_for).unwrap();
        let agent_env = agent
            .prepare(cache, &home, &project, &server.base_url())
            .unwrap();
        assert!(
            !setup.recorder && setup.before.is_none(),
            "the binary fixture has no recorder or HOME edit yet"
        );
        let env_table: Vec<String> = agent_env
            .iter()
            .chain(&setup.env)
            .map(|(k, v)| format!("{k} = {v:?}"))
            .collect();
        // Notifications keep their defaults (bell, desktop, OSC fallback):
        // with no session bus in the env, a desktop notification reaches the
        // outer terminal as OSC 777, where a test can see it.
        let toml = format!(
            "[terminal]\nnative_probe_reply = {probe_reply}\n\n[ui]\nwizard_shown = true\n\n\
             [agents.{name}]\ncommand = [{bin:?}]\nenv = {{ {env} }}\n",
            probe_reply = setup.probe_reply,
            name = agent.name(),
            bin = agent.binary(cache).display().to_string(),
            env = env_table.join(", "),
        );
        std::fs::write(config_dir.join("config.toml"), toml).unwrap();
        let mut env = base_env(cache, &home);
        for (dir, var) in [
            (".config", "XDG_CONFIG_HOME"),
            (".local/share", "XDG_DATA_HOME"),
            (".cache", "XDG_CACHE_HOME"),
        ] {
            env.push((var.to_string(), home.join(dir).display().to_string()));
        }
        env.push((
            "TERMIC_CONFIG_DIR".to_string(),
            config_dir.display().to_string(),
        ));
        env.push((
            "TERMIC_DATA_DIR".to_string(),
            data_dir.display().to_string(),
        ));
        let home_before = snapshot(&home);
        let mut fx = Fixture {
            agent,
            log: root.join("events.jsonl"),
            root,
            home,
            project,
            env,
            hooks: setup.hooks,
            home_installed: home_before.clone(),
            home_before,
            _server: server,
        };
        for schema in &fx.hooks {
            fx.hooks_cli("install", schema.id());
        }
        fx.home_installed = snapshot(&fx.home);
        fx
    }

    fn termic_command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_termic"));
        cmd.args(args).env_clear().current_dir(&self.project);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// `termic hooks VERB AGENT` to completion.
    fn hooks_cli(&self, verb: &str, agent: &str) {
        let args = vec!["hooks", verb, agent, "--yes"];
        let out = self
            .termic_command(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "termic hooks {verb}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `termic hooks remove` for every install, then: each file an install
    /// touched is back byte for byte (or gone again), every other file that
    /// was in HOME before is unchanged unless it is one the agent rewrites
    /// itself ([`own_state_files`]), no new file in HOME is termic's, and
    /// the project never got one. A config termic edited that the agent
    /// then rewrote itself (Qwen Code adds `$version` to its settings.json
    /// on start) cannot come back byte for byte without losing the agent's
    /// edit: there termic removes its entries and keeps its backup
    /// (docs/decisions.md, "Crash safety"), checked by [`assert_agent_edit_kept`].
    fn remove_hooks_and_assert_restored(&self) {
        let agent_state = own_state_files(self.agent);
        for schema in &self.hooks {
            self.hooks_cli("remove", schema.id());
        }
        let (before, installed) = (&self.home_before, &self.home_installed);
        let after = snapshot(&self.home);
        let mut touched: Vec<&PathBuf> = installed
            .keys()
            .chain(before.keys())
            .filter(|p| installed.get(*p) != before.get(*p))
            .collect();
        touched.sort();
        touched.dedup();
        assert!(!touched.is_empty(), "the installs wrote nothing");
        let rewritten: Vec<&PathBuf> = touched
            .iter()
            .copied()
            .filter(|p| agent_state.iter().any(|s| Path::new(s) == p.as_path()))
            .filter(|p| installed.get(*p) != after.get(*p) && after.get(*p) != before.get(*p))
            .collect();
        let kept_backups: Vec<PathBuf> = rewritten
            .iter()
            .map(|p| assert_agent_edit_kept(p, before, &after))
            .collect();
        let not_restored: Vec<&PathBuf> = touched
            .iter()
            .copied()
            .filter(|p| !rewritten.contains(p) && !kept_backups.contains(p))
            .filter(|p| after.get(*p) != before.get(*p))
            .collect();
        assert!(
            not_restored.is_empty(),
            "installed by termic and not restored byte for byte: {not_restored:?}"
        );
        let changed: Vec<&PathBuf> = before
            .keys()
            .filter(|p| !agent_state.iter().any(|s| Path::new(s) == p.as_path()))
            .filter(|p| after.get(*p) != before.get(*p))
            .collect();
        assert!(changed.is_empty(), "changed in HOME: {changed:?}");
        let left: Vec<&PathBuf> = after
            .keys()
            .filter(|p| !before.contains_key(*p) && !kept_backups.contains(p))
            // termic's names start with it (termic-hooks/, termic.json);
            // the scratch paths agents echo in their own names only contain it.
            .filter(|p| {
                p.components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with("termic"))
            })
            .collect();
        assert!(left.is_empty(), "termic files left in HOME: {left:?}");
        assert_no_termic_file(&self.project);
    }

    /// `termic run AGENT --event-log FILE` on a PTY, waited for until the
    /// agent's UI shows inside termic (its [`ready_marker`] was painted) and
    /// the output then held still for 2.5 s (grok never does: 15 s at most).
    fn run(&self) -> TermicProcess<'_> {
        let log = self.log.display().to_string();
        let (agent, marker) = (self.agent, ready_marker(self.agent));
        let cmd = self.termic_command(&["run", agent.name(), "--event-log", &log]);
        let options = PtyOptions {
            cols: 160,
            rows: 45,
            ..PtyOptions::default()
        };
        let pty = PtySession::spawn(cmd, options, Some(&self.home)).unwrap();
        if pty.wait_for(marker, 0, 90 * SEC).is_none() {
            panic!(
                "{:?} never appeared in termic's screen",
                String::from_utf8_lossy(marker)
            );
        }
        pty.wait_quiet(Duration::from_millis(2500), 15 * SEC);
        TermicProcess {
            fx: self,
            agent,
            pty: Mutex::new(pty),
        }
    }
}

/// The real `termic` binary running one agent, driven through its UI.
struct TermicProcess<'a> {
    fx: &'a Fixture,
    agent: Agent,
    pty: Mutex<PtySession>,
}

impl TermicProcess<'_> {
    fn pty(&self) -> std::sync::MutexGuard<'_, PtySession> {
        self.pty.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Quits termic with its prefix key (C-] q, then y); true once it exited
    /// (waits up to 15 s).
    fn quit(&self) -> bool {
        self.keys(b"\x1dq");
        thread::sleep(Duration::from_millis(500));
        self.keys(b"y");
        let deadline = Instant::now() + 15 * SEC;
        while !self.pty().exited() {
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(100));
        }
        true
    }

    /// The outer terminal loses focus (CSI O, as a terminal with focus
    /// reporting sends it): termic's focused task is no longer watched.
    fn focus_out(&self) {
        self.keys(b"\x1b[O");
    }

    /// What termic wrote to its outer terminal for attention, read at or
    /// after `since` (unix ms).
    fn attention_since(&self, since: u64) -> OuterAttention {
        let events = trace::events(&self.pty().chunks());
        let recent = events.iter().filter(|e| e.ts_ms >= since as f64);
        let mut seen = OuterAttention::default();
        for event in recent {
            match (event.kind, event.code()) {
                ("bel", _) => seen.bells += 1,
                ("osc", "777") if event.payload().starts_with("notify;") => {
                    seen.notifications.push(event.payload().to_string())
                }
                _ => {}
            }
        }
        seen
    }

    /// Waits up to `timeout` for termic to notify about something at or
    /// after `since`, then 1 s more (a second ring shows up), and returns
    /// all it wrote for attention.
    fn wait_attention(&self, since: u64, timeout: Duration) -> OuterAttention {
        let deadline = Instant::now() + timeout;
        while self.attention_since(since).notifications.is_empty() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(50));
        }
        thread::sleep(SEC);
        self.attention_since(since)
    }
}

/// termic's attention on its outer terminal: bare BELs (a BEL that ends an
/// OSC, such as a title, is not one) and OSC 777 notification bodies.
#[derive(Debug, Default)]
struct OuterAttention {
    bells: usize,
    notifications: Vec<String>,
}

impl Driven for TermicProcess<'_> {
    fn name(&self) -> &str {
        self.agent.name()
    }

    fn event_log(&self) -> &Path {
        &self.fx.log
    }

    fn keys(&self, bytes: &[u8]) -> u64 {
        let t = now_ms() as u64;
        self.pty().send(bytes).unwrap();
        t
    }

    fn dump(&self) {
        let out = self.pty().output();
        let tail = &out[out.len().saturating_sub(4000)..];
        eprintln!("  termic output tail:\n{}", String::from_utf8_lossy(tail));
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if std::env::var_os("TERMIC_REAL_AGENTS_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// Text termic paints once the agent's UI is up inside it: opencode's footer
/// hint (its prompt box comes 10-20 s after start here), grok's model name
/// (listed after its model request), the input box's placeholder of Gemini
/// CLI and Qwen Code (Qwen paints its title seconds before it takes keys).
fn ready_marker(agent: Agent) -> &'static [u8] {
    match agent {
        Agent::Claude => b"Claude Code",
        Agent::Opencode => b"commands",
        Agent::Grok => b"grok-build",
        Agent::Codex => b"OpenAI Codex",
        Agent::Gemini => b"Type your message",
        Agent::Qwen => b"Type your message",
        Agent::Copilot => b"GitHub Copilot",
    }
}

/// `config` (HOME-relative), edited by termic's install and then rewritten
/// by the agent, after `termic hooks remove`: no trace of termic, and as
/// JSON the original plus only what the agent added; termic's backup beside
/// it (`termic-hooks/backup/<name>`) is the original byte for byte. Returns
/// the backup's path.
fn assert_agent_edit_kept(
    config: &Path,
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after: &BTreeMap<PathBuf, Vec<u8>>,
) -> PathBuf {
    let original = before.get(config).expect("the agent's config existed");
    let now = after
        .get(config)
        .expect("the agent's config is still there");
    assert!(
        !String::from_utf8_lossy(now).contains("termic"),
        "termic entries left in {config:?}"
    );
    let json = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
    let (mut now_json, original_json) = (json(now), json(original));
    let added: Vec<String> = now_json
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| original_json.get(k.as_str()).is_none())
        .cloned()
        .collect();
    for key in &added {
        now_json.as_object_mut().unwrap().remove(key);
    }
    eprintln!("{config:?}: the agent added {added:?}; termic removed its entries");
    assert_eq!(
        now_json, original_json,
        "{config:?} lost or changed a value"
    );
    let dir = config.parent().unwrap();
    let backup = dir
        .join("termic-hooks/backup")
        .join(config.file_name().unwrap());
    assert_eq!(
        after.get(&backup),
        Some(original),
        "termic's backup of {config:?} is not the original"
    );
    backup
}

/// Files under HOME the agent rewrites itself while it runs (measured).
/// termic's install touches only Qwen's ([`assert_agent_edit_kept`]). Grok 0.2.111 appends
/// `[marketplace] default_skills_installs_purged = true` to its config.toml
/// on its first run.
fn own_state_files(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Claude => &[".claude.json"],
        Agent::Grok => &[".grok/config.toml"],
        // Qwen Code 0.24.4 adds `"$version": 4` to its settings.json.
        Agent::Qwen => &[".qwen/settings.json"],
        // Copilot CLI 1.0.102 keeps its state in config.json ("managed
        // automatically"); termic's hooks go elsewhere.
        Agent::Copilot => &[".copilot/config.json"],
        Agent::Opencode | Agent::Codex | Agent::Gemini => &[],
    }
}

/// The permission scenario through the binary, `hooks` installed with
/// `termic hooks install`: a prompt, the write tool's permission prompt,
/// `approve`; working, needs you with no done before it, then one done
/// (working again in between is the agent's `check`: Copilot says nothing
/// there). Then termic quits, `termic hooks remove` runs, and HOME and the
/// project are checked. `check` adds the agent's own assertions, given
/// termic, the prompt time and the states since.
fn permission_scenario(
    cache: &Path,
    agent: Agent,
    hooks: Vec<AgentSchema>,
    approve: &[u8],
    check: impl FnOnce(&TermicProcess, u64, &[String]),
) -> Fixture {
    let setup = Setup {
        hooks,
        ..Setup::default()
    };
    let fx = Fixture::new(cache, agent, ScenarioName::Write, setup);
    let termic = fx.run();
    let (t0, states) = permission_turn(&termic, approve);
    assert_honest_turn(&states);
    check(&termic, t0, &states);
    assert!(termic.quit(), "termic quit");
    drop(termic);
    fx.remove_hooks_and_assert_restored();
    fx
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_hooks_installed_by_termic_without_probe_reply() {
    let (cache, _one) = begin();
    let hooks = vec![AgentSchema::CLAUDE];
    let fx = permission_scenario(&cache, Agent::Claude, hooks, b"\r", |termic, t0, states| {
        assert_released_to_working(states);
        termic.assert_needs_you_from(t0, "hook_attention", Some("permission"));
    });
    let project_files: Vec<PathBuf> = snapshot(&fx.project).into_keys().collect();
    assert_eq!(
        project_files,
        vec![PathBuf::from("out.txt")],
        "only the agent's file in the project"
    );
}

/// `termic ARGS` against the fixture's server, to completion: (exit code,
/// stdout).
fn cli(fx: &Fixture, args: &[&str]) -> (Option<i32>, String) {
    let out = fx
        .termic_command(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// One-tap answers (issue 30) on a real agent with termic's hooks: blocked
/// on the write's permission, `termic answer` lists the dialog's choices as
/// the agent paints them, and `approve_once` types the option's number:
/// the write happens and the turn ends in one done (working again in
/// between, but for Copilot, which says nothing there). Answering again
/// sends nothing (exit 3).
fn answered_permission(agent: Agent, setup: Setup) {
    let (cache, _one) = begin();
    let fx = Fixture::new(&cache, agent, ScenarioName::Write, setup);
    let termic = fx.run();
    let t0 = termic.prompt("create the file out.txt please");
    termic.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
    let deadline = Instant::now() + 30 * SEC;
    let listed = loop {
        let (code, out) = cli(&fx, &["answer", "1"]);
        assert_eq!(code, Some(0), "{out}");
        if out.contains("approve_once") || Instant::now() >= deadline {
            break out;
        }
        thread::sleep(Duration::from_millis(200));
    };
    eprintln!("{}: termic answer 1:\n{listed}", agent.name());
    assert!(listed.contains("needs you: permission"), "{listed}");
    assert!(listed.contains("  approve_once"), "{listed}");
    assert!(listed.contains("  deny"), "{listed}");
    let t_answer = now_ms() as u64;
    let (code, out) = cli(&fx, &["answer", "1", "approve_once"]);
    assert_eq!((code, out.trim()), (Some(0), "sent approve_once"));
    termic.expect_state("done", t_answer, 90 * SEC, "no done after the answer");
    eprintln!(
        "{}: done {} ms after the answer",
        agent.name(),
        termic.first("done", t_answer).ts.saturating_sub(t_answer)
    );
    thread::sleep(3 * SEC);
    let states = termic.states(t0);
    if agent != Agent::Copilot {
        assert_released_to_working(&states);
    }
    assert_honest_turn(&states);
    assert!(
        fx.project.join("out.txt").exists(),
        "the write was approved"
    );
    let (code, out) = cli(&fx, &["answer", "1", "approve_once"]);
    assert_eq!(code, Some(3), "{out}");
    assert!(termic.quit(), "termic quit");
    drop(termic);
    if !fx.hooks.is_empty() {
        fx.remove_hooks_and_assert_restored();
    }
}

/// termic's hooks for `schema` installed.
fn hooked(schema: AgentSchema) -> Setup {
    Setup {
        hooks: vec![schema],
        ..Setup::default()
    }
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_permission_answered_with_termic_answer() {
    answered_permission(Agent::Claude, hooked(AgentSchema::CLAUDE));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_gemini_permission_answered_with_termic_answer() {
    answered_permission(Agent::Gemini, hooked(AgentSchema::GEMINI));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_qwen_permission_answered_with_termic_answer() {
    answered_permission(Agent::Qwen, hooked(AgentSchema::QWEN));
}

/// Codex has no hooks: its native status says it waits, and its approval
/// takes `y` (the key its option names), not the option's number.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_codex_permission_answered_with_termic_answer() {
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    answered_permission(Agent::Codex, setup);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_copilot_permission_answered_with_termic_answer() {
    answered_permission(Agent::Copilot, hooked(AgentSchema::COPILOT));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_native_status_without_hooks() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::Write, setup);
    let termic = fx.run();
    let (t0, states) = permission_turn(&termic, b"\r");
    assert_honest_turn(&states);
    termic.assert_needs_you_from(t0, "native_blocked", Some("permission"));
    assert!(termic.quit(), "termic quit");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_codex_needs_you_and_quit_ends_its_app_server() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let fx = Fixture::new(&cache, Agent::Codex, ScenarioName::Write, setup);
    let termic = fx.run();
    let (_, states) = permission_turn(&termic, b"y");
    assert_honest_turn(&states);
    assert!(termic.quit(), "termic quit");
    let deadline = Instant::now() + 10 * SEC;
    while !processes_with_home(&fx.home).is_empty() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    let left = processes_with_home(&fx.home);
    drop(termic); // the harness ends whatever is left, so nothing leaks from the test
    assert!(
        left.is_empty(),
        "codex processes still running after termic quit: {left:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_permission_asked_replied_and_one_done() {
    let (cache, _one) = begin();
    let hooks = vec![AgentSchema::OPENCODE];
    permission_scenario(
        &cache,
        Agent::Opencode,
        hooks,
        b"\r",
        |termic, t0, states| {
            assert_released_to_working(states);
            termic.assert_needs_you_from(t0, "hook_attention", Some("permission"));
            assert_eq!(termic.first("done", t0).rule, "hook_done");
        },
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_grok_permission_needs_you_then_one_done() {
    let (cache, _one) = begin();
    // Both installs, as a user with both agents has them: grok also runs
    // termic's claude hooks from ~/.claude/settings.json, which stay silent.
    let hooks = vec![AgentSchema::CLAUDE, AgentSchema::GROK];
    permission_scenario(&cache, Agent::Grok, hooks, b"3", |termic, t0, _| {
        assert_grok_released(&termic.lines(), t0);
        // Needs you comes from the `Action Required` title or the
        // Notification hook, whichever lands first (the title, usually). Its
        // kind is `permission` only when the hook's message beat the title
        // too, so it is not asserted (docs/gotchas.md).
        let needs = termic.first("needs_you", t0);
        eprintln!("grok needs you: {needs:?}");
        assert!(
            ["title_needs_you", "hook_attention"].contains(&needs.rule.as_str()),
            "{needs:?}"
        );
        assert_eq!(termic.first("done", t0).rule, "hook_done");
    });
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_unwatched_done_rings_and_escape_rings_nothing() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        hooks: vec![AgentSchema::CLAUDE],
        slow_for: Some(8 * SEC),
        ..Setup::default()
    };
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::Slow, setup);
    let termic = fx.run();
    let slow_turn_to_done = || {
        let t0 = termic.prompt("count slowly");
        termic.expect_state("done", t0, 60 * SEC, "the slow turn never ended");
        t0
    };
    // termic starts with its outer terminal focused: the task is watched
    // and its done rings nothing (the badge is enough).
    let t0 = slow_turn_to_done();
    thread::sleep(2 * SEC);
    let watched = termic.attention_since(t0);
    eprintln!("claude watched done: {watched:?}");
    assert_eq!(watched.bells, 0, "a bell for a watched task: {watched:?}");
    assert!(watched.notifications.is_empty(), "{watched:?}");
    termic.focus_out();
    // Control: unwatched, a done rings, so the silence after the Escape
    // below is termic choosing not to ring, not a bell that never could.
    let t1 = slow_turn_to_done();
    let control = termic.wait_attention(t1, 10 * SEC);
    eprintln!("claude unwatched done: {control:?}");
    assert_eq!(
        control.bells, 1,
        "one bell for an unwatched done: {control:?}"
    );
    assert_eq!(
        control.notifications,
        ["notify;termic;claude (claude) is done"],
        "{control:?}"
    );
    let t2 = escape_turn(&termic);
    let states = termic.states(t2);
    assert_eq!(states, ["working", "interrupted"], "{states:?}");
    let quiet = termic.attention_since(t2);
    eprintln!("claude unwatched interrupt: {quiet:?}");
    assert_eq!(quiet.bells, 0, "a bell for an interrupt: {quiet:?}");
    assert!(quiet.notifications.is_empty(), "{quiet:?}");
    assert!(termic.quit(), "termic quit");
}

/// Gemini CLI, Qwen Code or Copilot CLI with `schema` installed by
/// `termic hooks install`, through [`permission_scenario`]. Needs you comes
/// from whichever of the agent's own signs lands first (its title, its
/// dialog on screen, its attention hook; Copilot has no title), never from
/// a quiet fallback; the one done is the agent's end-of-turn hook.
fn hooked_permission(agent: Agent, schema: AgentSchema) {
    let (cache, _one) = begin();
    let started = Instant::now();
    permission_scenario(&cache, agent, vec![schema], b"\r", |termic, t0, states| {
        // Copilot sends nothing between the approval and its agentStop
        // hook (no title, its busy OSC is not trusted): needs you goes
        // straight to done. The others say working again first.
        if agent != Agent::Copilot {
            assert_released_to_working(states);
        }
        let needs = termic.first("needs_you", t0);
        eprintln!("{} needs you: {needs:?}", agent.name());
        assert!(
            ["hook_attention", "title_needs_you", "screen_needs_you"]
                .contains(&needs.rule.as_str()),
            "{needs:?}"
        );
        let done = termic.first("done", t0);
        assert_eq!(done.rule, "hook_done", "{done:?}");
    });
    eprintln!(
        "{}: the binary test took {} s",
        agent.name(),
        started.elapsed().as_secs()
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_gemini_permission_needs_you_then_one_hook_done() {
    hooked_permission(Agent::Gemini, AgentSchema::GEMINI);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_qwen_permission_needs_you_then_one_hook_done() {
    hooked_permission(Agent::Qwen, AgentSchema::QWEN);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_copilot_permission_needs_you_then_one_hook_done() {
    hooked_permission(Agent::Copilot, AgentSchema::COPILOT);
}

/// The task records in the fixture's data dir's `tasks/`, parsed.
fn task_records(fx: &Fixture) -> Vec<serde_json::Value> {
    let dir = fx.root.join("data").join("tasks");
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| std::fs::read(e.ok()?.path()).ok())
                .filter_map(|b| serde_json::from_slice(&b).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// `termic attach` on a PTY, waited for until the agent's UI is up in it
/// and the output held still for 2.5 s.
fn attach_agent(fx: &Fixture) -> PtySession {
    let cmd = fx.termic_command(&["attach"]);
    let options = PtyOptions {
        cols: 160,
        rows: 45,
        ..PtyOptions::default()
    };
    let pty = PtySession::spawn(cmd, options, Some(&fx.home)).unwrap();
    // A resumed Copilot CLI paints no banner (its ready text): its
    // conversation's earlier turn shows instead.
    let markers = [ready_marker(fx.agent), b"PELICAN-41".as_slice()];
    let deadline = Instant::now() + 90 * SEC;
    let mut up = false;
    while !up && Instant::now() < deadline {
        let out = pty.output();
        up = markers
            .iter()
            .any(|m| out.windows(m.len()).any(|w| w == *m));
        if !up {
            pty.wait_for(markers[0], 0, Duration::from_millis(200));
        }
    }
    if !up {
        let out = pty.output();
        let tail = &out[out.len().saturating_sub(3000)..];
        panic!(
            "{} never appeared in termic attach; its output ended with:\n{}",
            fx.agent.name(),
            String::from_utf8_lossy(tail)
        );
    }
    pty.wait_quiet(Duration::from_millis(2500), 15 * SEC);
    pty
}

/// Issue 31, for one real agent: one turn ("remember the word
/// PELICAN-41") in a task of the server, until its record says done;
/// `kill -9` of the server; `termic restore --json` starts it again with
/// its resume option (`resume_args`, and the conversation id its hook
/// reported when `with_session`), and the fake model's next request holds
/// the first turn: the conversation really continued. Returns the
/// restore's answer for the task.
fn restored_in_its_own_conversation(
    agent: Agent,
    hooks: Vec<AgentSchema>,
    with_session: bool,
    resume_args: &[&str],
) -> serde_json::Value {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks,
        ..Setup::default()
    };
    let fx = Fixture::new(&cache, agent, ScenarioName::Plain, setup);
    let out = fx
        .termic_command(&["run", "--detach", "--name", "talk", agent.name()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut pty = attach_agent(&fx);
    pty.send(b"remember the word PELICAN-41").unwrap();
    thread::sleep(Duration::from_millis(400)); // typed, then Enter (a paste-burst guard)
    pty.send(b"\r").unwrap();
    let first = fx
        ._server
        .wait_for(60 * SEC, |r| r.last_user.contains("PELICAN-41"));
    assert!(first.is_some(), "the first turn never reached the model");
    // The turn ends (and, with hooks that carry it, the conversation id
    // reaches the task's record).
    let deadline = Instant::now() + 60 * SEC;
    let session = loop {
        let found = task_records(&fx).into_iter().find_map(|r| {
            let done = r["name"] == "talk" && r["state"] == "done";
            let session = r["session"].as_str().map(str::to_owned);
            (done && (session.is_some() || !with_session)).then_some(session)
        });
        if let Some(session) = found {
            break session;
        }
        assert!(
            Instant::now() < deadline,
            "the record never said done{}: {:?}",
            if with_session {
                " with a conversation id"
            } else {
                ""
            },
            task_records(&fx)
        );
        thread::sleep(Duration::from_millis(100));
    };
    drop(pty);
    let mark: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fx.root.join("data/server.json")).unwrap()).unwrap();
    let server = mark["pid"].as_i64().unwrap() as i32;
    // SAFETY: a signal to this test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);

    let out = fx.termic_command(&["restore", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let talk = restored[0].clone();
    assert_eq!(talk["name"], "talk", "{restored}");
    assert_eq!(talk["resumed"], true, "{restored}");
    assert_eq!(talk["session"].as_str(), session.as_deref(), "{restored}");
    assert_eq!(talk["row"]["id"], 1, "{restored}");
    let mut pty = attach_agent(&fx);
    pty.send(b"what was the word").unwrap();
    thread::sleep(Duration::from_millis(400)); // typed, then Enter (a paste-burst guard)
    pty.send(b"\r").unwrap();
    let second = fx
        ._server
        .wait_for(60 * SEC, |r| r.last_user.contains("what was the word"));
    let second = second.expect("the second turn never reached the model");
    assert!(
        second.body.contains("PELICAN-41"),
        "the resumed conversation lost its first turn ({} bytes)",
        second.body.len()
    );
    // Its process was started with the resume option (and that id).
    let want: Vec<String> = resume_args
        .iter()
        .map(|a| a.replace("{id}", session.as_deref().unwrap_or("")))
        .collect();
    let resumed = processes_with_home(&fx.home).into_iter().any(|pid| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| {
                let args: Vec<String> = c
                    .split(|b| *b == 0)
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                args.windows(want.len()).any(|w| w == want.as_slice())
            })
            .unwrap_or(false)
    });
    assert!(resumed, "no {} process runs with {want:?}", agent.name());
    drop(pty);
    let _ = fx.termic_command(&["server", "stop"]).output();
    for pid in processes_with_home(&fx.home) {
        // SAFETY: this test's own leftovers (HOME is its scratch dir).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    talk
}

/// Claude Code 2.1.332: `--resume ID` with the id its Stop hook reported.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Claude,
        vec![AgentSchema::CLAUDE],
        true,
        &["--resume", "{id}"],
    );
}

/// Codex 0.171.0 (no hooks, no conversation id): `codex resume --last`,
/// the directory's most recent session.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_codex_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(Agent::Codex, Vec::new(), false, &["resume", "--last"]);
}

/// Opencode: the latest conversation of its directory.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Opencode,
        vec![AgentSchema::OPENCODE],
        false,
        &["--continue"],
    );
}

/// Gemini: the latest conversation of its directory.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_gemini_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Gemini,
        vec![AgentSchema::GEMINI],
        false,
        &["--resume", "latest"],
    );
}

/// Qwen: the latest conversation of its directory.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_qwen_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(Agent::Qwen, vec![AgentSchema::QWEN], false, &["--continue"]);
}

/// Copilot: the latest conversation of its directory.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_copilot_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Copilot,
        vec![AgentSchema::COPILOT],
        false,
        &["--continue"],
    );
}

/// Grok: the latest conversation of its directory.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_grok_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(Agent::Grok, vec![AgentSchema::GROK], false, &["--continue"]);
}
