//! Real agents through the real `termic` binary: `termic hooks install` into
//! a fixture HOME, then `termic run AGENT --event-log FILE` in a PTY with the
//! agent's command and env set in config.toml, keys typed into termic's
//! focused task. Asserted on the event log. Opt-in like `real_agents.rs`
//! (TERMIC_REAL_AGENTS=<cache>); one agent at a time.

mod real_agents_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use real_agents_support::{assert_honest_turn, begin, permission_turn, snapshot, Driven, SEC};
use termic_fakemodel::agents::{base_env, Agent};
use termic_fakemodel::drive::scratch_dir;
use termic_fakemodel::pty::{now_ms, processes_with_home, PtyOptions, PtySession};
use termic_fakemodel::{FakeModel, Scenario, ScenarioName, ServerConfig};

/// A fixture: scratch HOME, project, termic config and data dirs, a fake
/// model, and the agent's env written into config.toml.
struct Fixture {
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
    config_dir: PathBuf,
    data_dir: PathBuf,
    log: PathBuf,
    env: Vec<(String, String)>,
    _server: FakeModel,
}

impl Fixture {
    fn new(cache: &Path, agent: Agent, scenario: ScenarioName, probe_reply: bool) -> Fixture {
        let root = scratch_dir(&format!("binary-{}", agent.name()));
        let home = root.join("home");
        let project = root.join("proj");
        let config_dir = root.join("config");
        let data_dir = root.join("data");
        for dir in [&project, &config_dir, &data_dir] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let mut config = ServerConfig::new(Scenario::new(scenario, project.join("out.txt")));
        config.log_path = Some(root.join("requests.jsonl"));
        let server = FakeModel::start(config).unwrap();
        let agent_env = agent
            .prepare(cache, &home, &project, &server.base_url())
            .unwrap();
        let env_table: Vec<String> = agent_env
            .iter()
            .map(|(k, v)| format!("{k} = {v:?}"))
            .collect();
        let toml = format!(
            "[terminal]\nnative_probe_reply = {probe_reply}\n\n[ui]\nwizard_shown = true\n\n\
             [notifications]\ndesktop = false\n\n[agents.{name}]\ncommand = [{bin:?}]\nenv = {{ {env} }}\n",
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
        let log = root.join("events.jsonl");
        Fixture {
            root,
            home,
            project,
            config_dir,
            data_dir,
            log,
            env,
            _server: server,
        }
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
    fn hooks(&self, verb: &str, agent: &str) {
        let mut args = vec!["hooks", verb, agent];
        if verb == "install" {
            args.push("--yes");
        }
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

    /// `termic run AGENT --event-log FILE` on a PTY, waited for until the
    /// agent's UI shows inside termic (its `marker` text was painted) and the
    /// output then held still for 2.5 s.
    fn run(&self, agent: Agent, marker: &[u8]) -> TermicProcess<'_> {
        let log = self.log.display().to_string();
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

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_hooks_installed_by_termic_without_probe_reply() {
    let (cache, _one) = begin();
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::Write, false);
    let before = snapshot(&fx.home.join(".claude"));
    fx.hooks("install", "claude");
    let termic = fx.run(Agent::Claude, b"Claude Code");
    let (t0, states) = permission_turn(&termic, b"\r");
    assert_honest_turn(&states);
    termic.assert_needs_you_from(t0, "hook_attention", Some("permission"));
    assert!(termic.quit(), "termic quit");
    drop(termic);
    fx.hooks("remove", "claude");
    let after = snapshot(&fx.home.join(".claude"));
    // Claude itself writes under ~/.claude while it runs (projects, todos...);
    // the files termic touched must be back byte for byte.
    assert_eq!(
        after.get(Path::new("settings.json")),
        before.get(Path::new("settings.json"))
    );
    assert!(
        !fx.home.join(".claude/termic-hooks").exists(),
        "the hook scripts are gone"
    );
    let project_files: Vec<PathBuf> = snapshot(&fx.project).into_keys().collect();
    assert_eq!(
        project_files,
        vec![PathBuf::from("out.txt")],
        "only the agent's file in the project"
    );
    let _ = (&fx.config_dir, &fx.data_dir);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_native_status_without_hooks() {
    let (cache, _one) = begin();
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::Write, true);
    let termic = fx.run(Agent::Claude, b"Claude Code");
    let (t0, states) = permission_turn(&termic, b"\r");
    assert_honest_turn(&states);
    termic.assert_needs_you_from(t0, "native_blocked", Some("permission"));
    assert!(termic.quit(), "termic quit");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_codex_needs_you_and_quit_ends_its_app_server() {
    let (cache, _one) = begin();
    let fx = Fixture::new(&cache, Agent::Codex, ScenarioName::Write, true);
    let termic = fx.run(Agent::Codex, b"OpenAI Codex");
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
