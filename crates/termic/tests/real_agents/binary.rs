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
    assert_grok_released, assert_honest_turn, assert_honest_turn_per_frame, assert_no_termic_file,
    assert_released_to_working, begin, escape_turn, permission_turn, read_lines, snapshot, Driven,
    Setup, QWEN_INPUT_BOX, SEC,
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
    server: FakeModel,
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
            server,
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
            cols: COLS,
            rows: ROWS,
            ..PtyOptions::default()
        };
        let pty = PtySession::spawn(cmd, options, Some(&self.home)).unwrap();
        if !wait_on_screen(&pty, &[marker], 90 * SEC) {
            panic!(
                "{:?} never appeared in termic's screen:\n{}",
                String::from_utf8_lossy(marker),
                screen_of(&pty)
            );
        }
        wait_pane_steady(&pty, Duration::from_millis(2500), 15 * SEC);
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

    fn prompt(&self, text: &str) -> u64 {
        submit(self.fx, &mut self.pty(), text)
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
/// CLI and Qwen Code (Qwen paints its title seconds before it takes keys),
/// Copilot CLI's footer (fresh and resumed; "GitHub Copilot" was only in
/// one of its random start-up tips, so it showed in some runs only).
fn ready_marker(agent: Agent) -> &'static [u8] {
    match agent {
        Agent::Claude => b"Claude Code",
        Agent::Opencode => b"commands",
        Agent::Grok => b"grok-build",
        Agent::Codex => b"OpenAI Codex",
        Agent::Gemini => b"Type your message",
        Agent::Qwen => QWEN_INPUT_BOX.as_bytes(),
        Agent::Copilot => b"Manual Approval",
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

/// One-tap answers (issue 30) on a real agent: blocked on the write's
/// permission, `termic answer` lists the dialog's choices as the agent
/// paints them, and `approve_once` types that choice's key: the write
/// happens and the turn ends in one done (working again in between, but
/// for Copilot, which says nothing there). Answering again sends nothing
/// (exit 3).
fn answered_permission(agent: Agent, setup: Setup) {
    let listed = answered(
        agent,
        ScenarioName::Write,
        setup,
        (
            "create the file out.txt please",
            "permission",
            "approve_once",
        ),
        |fx| {
            assert!(
                fx.project.join("out.txt").exists(),
                "the write was approved"
            )
        },
    );
    assert!(listed.contains("  deny"), "{listed}");
}

/// `prompt` blocks the agent on a dialog of `kind`; `termic answer 1`
/// lists `choice` among the choices (the listing is returned);
/// `termic answer 1 CHOICE` sends it and the turn ends in one done, then
/// `after` checks the fixture.
fn answered(
    agent: Agent,
    scenario: ScenarioName,
    setup: Setup,
    asked: (&str, &str, &str),
    after: impl FnOnce(&Fixture),
) -> String {
    answered_after(agent, scenario, setup, asked, |_| {}, after)
}

/// As [`answered`], `before` acting on the dialog once the task needs you
/// (before the listing).
fn answered_after(
    agent: Agent,
    scenario: ScenarioName,
    setup: Setup,
    (prompt, kind, choice): (&str, &str, &str),
    before: impl FnOnce(&TermicProcess),
    after: impl FnOnce(&Fixture),
) -> String {
    let (cache, _one) = begin();
    let fx = Fixture::new(&cache, agent, scenario, setup);
    let termic = fx.run();
    let t0 = termic.prompt(prompt);
    termic.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
    before(&termic);
    let listed = listing_once(&fx, |out| out.contains(&format!("  {choice} ")));
    eprintln!("{}: termic answer 1:\n{listed}", agent.name());
    assert!(listed.contains(&format!("needs you: {kind}")), "{listed}");
    assert!(listed.contains(&format!("  {choice} ")), "{listed}");
    let t_answer = now_ms() as u64;
    let (code, out) = cli(&fx, &["answer", "1", choice]);
    assert_eq!(
        (code, out.trim()),
        (Some(0), format!("sent {choice}").as_str())
    );
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
    after(&fx);
    let (code, out) = cli(&fx, &["answer", "1", choice]);
    assert_eq!(code, Some(3), "{out}");
    assert!(termic.quit(), "termic quit");
    drop(termic);
    if !fx.hooks.is_empty() {
        fx.remove_hooks_and_assert_restored();
    }
    listed
}

/// `termic answer 1`'s listing once `ready` holds for it (or after 30 s).
fn listing_once(fx: &Fixture, ready: impl Fn(&str) -> bool) -> String {
    listing_every(fx, ready, Duration::from_millis(200))
}

/// As [`listing_once`], asking every `every`.
fn listing_every(fx: &Fixture, ready: impl Fn(&str) -> bool, every: Duration) -> String {
    let deadline = Instant::now() + 30 * SEC;
    loop {
        let (code, out) = cli(fx, &["answer", "1"]);
        assert_eq!(code, Some(0), "{out}");
        if ready(&out) || Instant::now() >= deadline {
            return out;
        }
        thread::sleep(every);
    }
}

/// Claude Code 2.1.332's multi-select question (issue 30), answered one
/// tap at a time through `termic answer`: tick Cheese, tick Basil, each
/// listed ticked once the screen shows it, Submit, then the review's
/// "Submit answers": the model gets "Cheese, Basil" and the turn ends in
/// one done.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_multi_select_question_answered_with_termic_answer() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::AskMultiSelect, setup);
    let termic = fx.run();
    let t0 = termic.prompt("ask me for toppings");
    termic.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
    // Each tap goes as soon as the listing offers it, as a phone user
    // taps: Claude drops a key that comes within 150 ms of the dialog's
    // paint, so termic's answer waits for the dialog to hold still
    // (2026-12-07, docs/gotchas.md). The listing is asked every 20 ms, so
    // the first tap is usually asked for within those 150 ms.
    let steps = [
        ("toggle_1", "[ ] Cheese", "[✔] Cheese"),
        ("toggle_3", "[ ] Basil", "[✔] Basil"),
        ("submit", "Submit", "Submit answers"),
    ];
    for (choice, before, after) in steps {
        let every = Duration::from_millis(20);
        let listed = listing_every(&fx, |out| out.contains(before), every);
        eprintln!("termic answer 1:\n{listed}");
        assert!(
            listed.contains(&format!("{choice} ")) && listed.contains(before),
            "{listed}"
        );
        assert!(!listed.contains("Type something"), "{listed}");
        let (code, out) = cli(&fx, &["answer", "1", choice]);
        assert_eq!(
            (code, out.trim()),
            (Some(0), format!("sent {choice}").as_str())
        );
        let listed = listing_once(&fx, |out| out.contains(after));
        if !listed.contains(after) {
            termic.dump();
        }
        assert!(
            listed.contains(after),
            "{choice} did not lead to {after}:\n{listed}"
        );
    }
    let t_answer = now_ms() as u64;
    let (code, out) = cli(&fx, &["answer", "1", "option_1"]);
    assert_eq!((code, out.trim()), (Some(0), "sent option_1"));
    termic.expect_state("done", t_answer, 60 * SEC, "no done after the review");
    let results: Vec<String> = fx
        .server
        .requests()
        .iter()
        .flat_map(|r| r.tool_results.clone())
        .collect();
    let results = results.join("\n");
    eprintln!("tool results: {results}");
    assert!(results.contains("Cheese, Basil"), "{results}");
    assert!(!results.contains("Olives"), "{results}");
    assert!(termic.quit(), "termic quit");
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

/// Grok 0.2.111's prompt takes the option's digit: `approve_once` is `3`
/// (its "Yes"), and its always-approve-mode option 1 is not offered. Both
/// installs, as in the grok permission test.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_grok_permission_answered_with_termic_answer() {
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE, AgentSchema::GROK],
        ..Setup::default()
    };
    answered_permission(Agent::Grok, setup);
}

/// opencode 1.18.33's Reject is Escape, whatever is selected: the write
/// does not happen and the turn ends in one done.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_permission_denied_with_termic_answer() {
    let listed = answered(
        Agent::Opencode,
        ScenarioName::Write,
        hooked(AgentSchema::OPENCODE),
        ("create the file out.txt please", "permission", "deny"),
        |fx| {
            assert!(
                !fx.project.join("out.txt").exists(),
                "the write was rejected"
            )
        },
    );
    // Allow once and Allow always are offered too (the selection read
    // from the colours, 2026-12-06 and 2026-12-07).
    assert!(listed.contains("  approve_once "), "{listed}");
    assert!(listed.contains("  approve_always "), "{listed}");
}

/// opencode 1.18.33's "Allow always" asks again (2026-12-07): `termic
/// answer 1 approve_always` sends Right, Enter, waits for the "Always
/// allow" prompt to show with Confirm selected, then sends Enter: the
/// write happens (Enter on Allow always alone writes nothing) and the
/// turn ends in one done.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_permission_always_answered_with_termic_answer() {
    let started = Instant::now();
    let listed = answered(
        Agent::Opencode,
        ScenarioName::Write,
        hooked(AgentSchema::OPENCODE),
        (
            "create the file out.txt please",
            "permission",
            "approve_always",
        ),
        |fx| {
            assert!(
                fx.project.join("out.txt").exists(),
                "the write was approved"
            )
        },
    );
    assert!(listed.contains("  approve_once "), "{listed}");
    assert!(listed.contains("Allow always"), "{listed}");
    eprintln!("opencode always test: {} ms", started.elapsed().as_millis());
}

/// opencode 1.18.33's prompt marks its selected option by colour alone
/// (2026-12-06): the user first moves the selection to "Allow always"
/// (Right), then `termic answer 1 approve_once` reads the selection from
/// the screen's colours and sends Left, Enter: the write happens (Enter
/// alone would have opened the "Always allow" confirmation and written
/// nothing) and the turn ends in one done.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_permission_answered_with_termic_answer() {
    let started = Instant::now();
    let listed = answered_after(
        Agent::Opencode,
        ScenarioName::Write,
        hooked(AgentSchema::OPENCODE),
        (
            "create the file out.txt please",
            "permission",
            "approve_once",
        ),
        |termic| {
            let shades = |termic: &TermicProcess| {
                let mut shades = options_shades(&termic.pty());
                shades.truncate(3);
                shades
            };
            let deadline = Instant::now() + 30 * SEC;
            while selected_of(&shades(termic)) != Some(0) && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(100));
            }
            eprintln!(
                "opencode options before Right: {:?}",
                options_shades(&termic.pty())
            );
            assert_eq!(selected_of(&shades(termic)), Some(0), "Allow once first");
            termic.keys(b"\x1b[C");
            let deadline = Instant::now() + 10 * SEC;
            while selected_of(&shades(termic)) != Some(1) && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(100));
            }
            eprintln!("opencode options after Right: {:?}", shades(termic));
            assert_eq!(selected_of(&shades(termic)), Some(1), "Right moved it");
        },
        |fx| {
            assert!(
                fx.project.join("out.txt").exists(),
                "the write was approved"
            )
        },
    );
    assert!(listed.contains("  deny "), "{listed}");
    eprintln!(
        "opencode answered test: {} ms",
        started.elapsed().as_millis()
    );
}

/// The background of each of opencode's three permission options on a
/// 160x45 terminal fed `pty`'s output (termic's own screen, which paints
/// the task's colours), then the row's own background; empty when not
/// shown.
fn options_shades(pty: &PtySession) -> Vec<(String, vt100::Color)> {
    let mut parser = termic_screen();
    parser.process(&pty.output());
    let screen = parser.screen();
    let mut out = Vec::new();
    for (row, text) in screen.rows(0, COLS).enumerate() {
        if !text.contains("Allow once") || !text.contains("Reject") {
            continue;
        }
        for option in ["Allow once", "Allow always", "Reject"] {
            let Some(at) = text.find(option) else {
                return Vec::new();
            };
            let col = text[..at].chars().count() as u16;
            let cell = screen.cell(row as u16, col).expect("a cell");
            out.push((option.to_string(), cell.bgcolor()));
        }
        // The row's own background, left of the first option's box.
        let first = text[..text.find("Allow once").unwrap_or(0)].chars().count() as u16;
        let gap = screen
            .cell(row as u16, first.saturating_sub(2))
            .expect("a cell");
        out.push(("(row)".to_string(), gap.bgcolor()));
    }
    out
}

/// Which option stands out by its background (the others share one).
fn selected_of(shades: &[(String, vt100::Color)]) -> Option<usize> {
    (0..shades.len()).find(|&i| {
        let others: Vec<_> = (0..shades.len()).filter(|&j| j != i).collect();
        others.iter().all(|&j| shades[j].1 != shades[i].1)
            && others.windows(2).all(|w| shades[w[0]].1 == shades[w[1]].1)
    })
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
    assert_honest_turn_per_frame(&states);
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
    attach_task(fx, None, true)
}

/// [`attach_agent`] with task `focus` focused (`termic attach TASK`).
/// `reap_home`: dropping it also ends every process of the scratch HOME
/// (the server and its tasks too); else only the client.
fn attach_task(fx: &Fixture, focus: Option<&str>, reap_home: bool) -> PtySession {
    let mut args = vec!["attach"];
    args.extend(focus);
    let cmd = fx.termic_command(&args);
    let options = PtyOptions {
        cols: COLS,
        rows: ROWS,
        ..PtyOptions::default()
    };
    let pty = PtySession::spawn(cmd, options, reap_home.then_some(fx.home.as_path())).unwrap();
    // A resumed agent may paint its earlier turn before its ready text.
    let markers = [ready_marker(fx.agent), b"PELICAN-41".as_slice()];
    if !wait_on_screen(&pty, &markers, 90 * SEC) {
        panic!(
            "{} never appeared in termic attach; it showed:\n{}",
            fx.agent.name(),
            screen_of(&pty)
        );
    }
    wait_pane_steady(&pty, Duration::from_millis(2500), 15 * SEC);
    pty
}

/// Whether one of `markers` shows on `pty`'s screen (as a terminal draws
/// it, so text split by colour changes or drawn in pieces still matches)
/// within `timeout`.
fn wait_on_screen(pty: &PtySession, markers: &[&[u8]], timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let screen = screen_of(pty);
        if markers
            .iter()
            .any(|m| screen.contains(&*String::from_utf8_lossy(m)))
        {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        let seen = pty.len();
        pty.wait_for(b"\x1b", seen, Duration::from_millis(200));
    }
}

/// Waits until the agent's pane held still for `quiet` (or `timeout`):
/// termic's screen right of its sidebar, above its status line. The whole
/// output never goes quiet: the sidebar's clock ("idle 12s") ticks every
/// second, so a wait for quiet output always ran to its timeout.
fn wait_pane_steady(pty: &PtySession, quiet: Duration, timeout: Duration) {
    let mut parser = termic_screen();
    let (mut read, mut last, mut since) = (0, String::new(), Instant::now());
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        let out = pty.output();
        parser.process(&out[read..]);
        read = out.len();
        let pane: String = parser
            .screen()
            .rows(SIDEBAR_COLS, COLS - SIDEBAR_COLS)
            .take(usize::from(ROWS) - 1)
            .collect::<Vec<_>>()
            .join("\n");
        if pane != last {
            (last, since) = (pane, Instant::now());
        } else if since.elapsed() >= quiet {
            return;
        }
        thread::sleep(Duration::from_millis(100));
    }
    eprintln!("the agent's pane did not hold still for {quiet:?} within {timeout:?}:\n{last}");
}

/// The size of the terminal termic runs in, in these tests.
const COLS: u16 = 160;
const ROWS: u16 = 45;

/// termic's sidebar at [`COLS`] (a quarter, at most its full width), and
/// its border.
const SIDEBAR_COLS: u16 = termic::ui::layout::SIDEBAR_WIDTH + 1;

/// A terminal of termic's size in these tests, to feed its output to.
fn termic_screen() -> vt100::Parser {
    let size = |n| std::num::NonZeroU16::new(n).expect("a size");
    vt100::Parser::new(size(ROWS), size(COLS), 0)
}

/// What a 160x45 terminal shows after `pty`'s output so far (a failure's
/// message, and what [`wait_on_screen`] reads).
fn screen_of(pty: &PtySession) -> String {
    let mut parser = termic_screen();
    parser.process(&pty.output());
    parser.screen().contents()
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
    run_detached(&fx, "talk", agent.name());
    let mut pty = attach_agent(&fx);
    submit(&fx, &mut pty, "remember the word PELICAN-41");
    let first = fx
        .server
        .wait_for(60 * SEC, |r| r.last_user.contains("PELICAN-41"));
    assert!(
        first.is_some(),
        "the first turn never reached the model; termic showed:\n{}",
        screen_of(&pty)
    );
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
    // A reboot comes after the agent saved its conversation: wait for
    // that save, as a user's reboot would (Copilot 1.0.102 writes its
    // events file up to a few hundred ms after the done, or later).
    if let Some(saved) = saved_file(agent, session.as_deref()) {
        wait_until_settled(&fx.home.join(saved));
    }
    drop(pty);
    kill_9_the_server(&fx);
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
    // In the agent's prompt box, not eaten by a dialog (Copilot's "Session
    // in use" takes no text and answers the Enter): `submit` panics when
    // the text never shows.
    submit(&fx, &mut pty, "what was the word");
    let second = fx
        .server
        .wait_for(60 * SEC, |r| r.last_user.contains("what was the word"));
    let second = second.unwrap_or_else(|| {
        panic!(
            "the second turn never reached the model; termic attach showed:\n{}",
            screen_of(&pty)
        )
    });
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
    stop_everything(&fx);
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

/// opencode 1.18.33: `--session ID` with the root session's id its plugin
/// reported (2026-12-06).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Opencode,
        vec![AgentSchema::OPENCODE],
        true,
        &["--session", "{id}"],
    );
}

/// Gemini CLI 0.61.0: `--resume UUID` with the `session_id` its AfterAgent
/// hook reported (2026-12-06).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_gemini_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Gemini,
        vec![AgentSchema::GEMINI],
        true,
        &["--resume", "{id}"],
    );
}

/// Qwen Code 0.24.4: `--resume ID` with the `session_id` its Stop hook
/// reported (2026-12-06).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_qwen_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Qwen,
        vec![AgentSchema::QWEN],
        true,
        &["--resume", "{id}"],
    );
}

/// Copilot CLI 1.0.102: `--resume ID` with the `sessionId` its agentStop
/// hook reported (2026-12-06).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_copilot_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Copilot,
        vec![AgentSchema::COPILOT],
        true,
        &["--resume", "{id}"],
    );
}

/// Grok 0.2.111: `--resume ID` with the `sessionId` its Stop hook
/// reported (2026-12-06).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_grok_is_restored_in_its_own_conversation_after_a_kill_9() {
    restored_in_its_own_conversation(
        Agent::Grok,
        vec![AgentSchema::GROK],
        true,
        &["--resume", "{id}"],
    );
}

/// The file in which `agent` keeps conversation `session` once saved,
/// relative to HOME (termic's own `saved` check for the restore).
fn saved_file(agent: Agent, session: Option<&str>) -> Option<String> {
    let session = session?;
    termic::agents::builtin::BUILTINS
        .iter()
        .find(|b| b.id == agent.name())
        .and_then(|b| match b.resume {
            termic::agents::builtin::Resume::Args { saved, .. } => saved,
            termic::agents::builtin::Resume::Fresh => None,
        })
        .map(|path| path.replace("{id}", session))
}

/// Waits until `path` exists and its size and mtime held for 500 ms.
fn wait_until_settled(path: &Path) {
    let deadline = Instant::now() + 30 * SEC;
    let look = || {
        std::fs::metadata(path)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let mut last = (look(), Instant::now());
    loop {
        thread::sleep(Duration::from_millis(100));
        let now = look();
        if now != last.0 {
            last = (now, Instant::now());
        } else if now.is_some() && last.1.elapsed() >= Duration::from_millis(500) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} was never written, or never settled",
            path.display()
        );
    }
}

/// `kill -9` of the fixture's server, waited for until it is gone (else
/// the next command may still connect to its socket and be reset).
fn kill_9_the_server(fx: &Fixture) {
    let mark: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fx.root.join("data/server.json")).unwrap()).unwrap();
    let server = mark["pid"].as_i64().unwrap() as i32;
    // SAFETY: a signal to this test's own server.
    assert_eq!(unsafe { libc::kill(server, libc::SIGKILL) }, 0);
    let gone = || {
        std::fs::read_to_string(format!("/proc/{server}/stat"))
            .map(|stat| stat.rsplit(") ").next().is_some_and(|r| r.starts_with('Z')))
            .unwrap_or(true)
    };
    let deadline = Instant::now() + 10 * SEC;
    while !gone() {
        assert!(
            Instant::now() < deadline,
            "the killed server is still there"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Types `text` on termic's `pty` as a person does: the text shows in the
/// agent's input box (a panic if it never does, with the screen), 400 ms
/// later Enter (typed keys and an Enter that reach the agent together
/// are a paste to Codex CLI and Gemini CLI: the Enter becomes a newline).
/// When in 10 s no request carries the text and no state moved, Enter once
/// more, as a person who sees the prompt still in its box would: Codex CLI
/// just after start-up and Gemini CLI under load kept a shown prompt
/// after its Enter (docs/gotchas.md, "termic's own screen is never quiet,
/// and a prompt left in its input box").
/// Returns the unix ms of the first Enter.
fn submit(fx: &Fixture, pty: &mut PtySession, text: &str) -> u64 {
    pty.send(text.as_bytes()).unwrap();
    if !wait_on_screen(pty, &[text.as_bytes()], 30 * SEC) {
        panic!(
            "the typed {text:?} never showed; termic showed:\n{}",
            screen_of(pty)
        );
    }
    thread::sleep(Duration::from_millis(400));
    let enter = now_ms() as u64;
    pty.send(b"\r").unwrap();
    let taken = fx
        .server
        .wait_for(10 * SEC, |r| r.ts_ms >= enter && r.last_user.contains(text))
        .is_some();
    let moved = read_lines(&fx.log).iter().any(|l| l.ts >= enter);
    if !taken && !moved {
        eprintln!(
            "{}: {text:?} still unsent 10 s after its Enter; Enter again. termic showed:\n{}",
            fx.agent.name(),
            screen_of(pty)
        );
        pty.send(b"\r").unwrap();
    }
    enter
}

/// Types `text` into the attached task, then Enter, and waits for the
/// fake model to receive it; returns that request.
fn turn(fx: &Fixture, pty: &mut PtySession, text: &str) -> termic_fakemodel::log::LogEntry {
    submit(fx, pty, text);
    fx.server
        .wait_for(60 * SEC, |r| r.last_user.contains(text))
        .unwrap_or_else(|| {
            panic!(
                "{text:?} never reached the model; termic attach showed:\n{}",
                screen_of(pty)
            )
        })
}

/// Task `name`'s conversation id once its record says done.
fn done_with_session(fx: &Fixture, name: &str) -> String {
    let deadline = Instant::now() + 60 * SEC;
    loop {
        let found = task_records(fx).into_iter().find_map(|r| {
            let done = r["name"] == name && r["state"] == "done";
            done.then(|| r["session"].as_str().map(str::to_owned))
                .flatten()
        });
        if let Some(session) = found {
            return session;
        }
        assert!(
            Instant::now() < deadline,
            "{name}'s record never said done with a conversation id: {:?}",
            task_records(fx)
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// Issue 31's reason for per-task ids (2026-12-06): two tasks of one
/// agent in ONE directory, each told its own word; `kill -9` of the
/// server; after `termic restore` each task's next request holds its own
/// word and not the other's. Resuming the directory's latest would give
/// both the second task's conversation, so the first task's check fails.
fn two_tasks_in_one_directory_each_resume_their_own(agent: Agent, hooks: Vec<AgentSchema>) {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks,
        ..Setup::default()
    };
    let fx = Fixture::new(&cache, agent, ScenarioName::Plain, setup);
    let mut sessions = Vec::new();
    for (name, word) in [("first", "PELICAN-41"), ("second", "OSPREY-77")] {
        run_detached(&fx, name, agent.name());
        let mut pty = attach_task(&fx, Some(name), false);
        turn(&fx, &mut pty, &format!("remember the word {word}"));
        sessions.push(done_with_session(&fx, name));
        drop(pty);
    }
    assert_ne!(sessions[0], sessions[1], "one conversation each");
    kill_9_the_server(&fx);

    let out = fx.termic_command(&["restore", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (i, name) in ["first", "second"].iter().enumerate() {
        let task = restored
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == *name)
            .unwrap_or_else(|| panic!("{name} not restored: {restored}"));
        assert_eq!(
            task["session"].as_str(),
            Some(sessions[i].as_str()),
            "{restored}"
        );
        assert_eq!(task["resumed"], true, "{restored}");
    }
    for (name, own, other) in [
        ("first", "PELICAN-41", "OSPREY-77"),
        ("second", "OSPREY-77", "PELICAN-41"),
    ] {
        let mut pty = attach_task(&fx, Some(name), false);
        let asked = turn(&fx, &mut pty, &format!("what was the {name} word"));
        assert!(
            asked.body.contains(own) && !asked.body.contains(other),
            "{name} resumed the wrong conversation (holds {own}: {}, holds {other}: {})",
            asked.body.contains(own),
            asked.body.contains(other)
        );
        drop(pty);
    }
    stop_everything(&fx);
}

/// Gemini CLI 0.61.0: two tasks in one directory, each back in its own
/// conversation by UUID (with `--resume latest` both got the second's).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_two_gemini_tasks_in_one_directory_each_resume_their_own_conversation() {
    two_tasks_in_one_directory_each_resume_their_own(Agent::Gemini, vec![AgentSchema::GEMINI]);
}

/// `termic run --detach --name NAME AGENT` in the fixture: it started.
fn run_detached(fx: &Fixture, name: &str, agent: &str) {
    let out = fx
        .termic_command(&["run", "--detach", "--name", name, agent])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The server stopped, and every process left under the scratch HOME
/// killed (this test's own leftovers).
fn stop_everything(fx: &Fixture) {
    let _ = fx.termic_command(&["server", "stop"]).output();
    for pid in processes_with_home(&fx.home) {
        // SAFETY: this test's own leftovers (HOME is its scratch dir).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// Issue 31 item 3 with a real agent and termic's hooks: a turn run while
/// no client is attached ends with its row's `away` carrying the agent's
/// last message, which is the fake model's answer.
fn last_message_is_the_models_answer_in_the_away_row(agent: Agent, schema: AgentSchema) {
    let (cache, _one) = begin();
    let fx = Fixture::new(&cache, agent, ScenarioName::Plain, hooked(schema));
    run_detached(&fx, "talk", agent.name());
    // Attached until the agent is up, then nobody is.
    drop(attach_task(&fx, None, false));
    let (code, out) = cli(&fx, &["send", "talk", "say hello"]);
    assert_eq!(code, Some(0), "{out}");
    thread::sleep(Duration::from_millis(400)); // typed, then Enter (a paste-burst guard)
    let (code, out) = cli(&fx, &["send", "talk", "", "--enter"]);
    assert_eq!(code, Some(0), "{out}");
    let deadline = Instant::now() + 120 * SEC;
    let row = loop {
        let (_, out) = cli(&fx, &["ls", "--json"]);
        let rows: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        let talk = rows
            .as_array()
            .and_then(|r| r.iter().find(|r| r["name"] == "talk"))
            .cloned();
        if let Some(talk) = talk.filter(|t| t["state"] == "done" && !t["away"]["message"].is_null())
        {
            break talk;
        }
        assert!(Instant::now() < deadline, "no done with a message: {out}");
        thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(
        row["away"]["message"],
        termic_fakemodel::scenario::PLAIN_ANSWER,
        "{row}"
    );
    let states: Vec<&str> = row["away"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["state"].as_str())
        .collect();
    assert_eq!(states.last(), Some(&"done"), "{row}");
    stop_everything(&fx);
}

/// Claude Code 2.1.332: its Stop hook's `last_assistant_message`, sent as
/// `message=`.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_last_message_is_the_models_answer_in_the_away_row() {
    last_message_is_the_models_answer_in_the_away_row(Agent::Claude, AgentSchema::CLAUDE);
}

/// opencode 1.18.33: the text of the assistant's last `message.part.updated`
/// of the turn, which termic's plugin keeps and sends with its done
/// (2026-12-06).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_opencode_last_message_is_the_models_answer_in_the_away_row() {
    last_message_is_the_models_answer_in_the_away_row(Agent::Opencode, AgentSchema::OPENCODE);
}
