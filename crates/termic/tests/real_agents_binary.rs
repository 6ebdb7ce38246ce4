//! Real agents through the real `termic` binary: `termic hooks install` into
//! a fixture HOME, then `termic run AGENT --event-log FILE` in a PTY with the
//! agent's command and env set in config.toml, keys typed into termic's
//! focused task. Asserted on the event log. Opt-in like `real_agents.rs`
//! (TERMIC_REAL_AGENTS=<cache>); one agent at a time.

mod real_agents_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use real_agents_support::{cache, snapshot, ONE_AGENT_AT_A_TIME, SEC};
use serde_json::Value;
use termic_fakemodel::agents::{base_env, Agent};
use termic_fakemodel::drive::scratch_dir;
use termic_fakemodel::pty::{processes_with_home, PtyOptions, PtySession};
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

    /// `termic run AGENT --event-log FILE` on a PTY.
    fn run(&self, agent: Agent) -> PtySession {
        let log = self.log.display().to_string();
        let cmd = self.termic_command(&["run", agent.name(), "--event-log", &log]);
        PtySession::spawn(
            cmd,
            PtyOptions {
                cols: 160,
                rows: 45,
                ..PtyOptions::default()
            },
            Some(&self.home),
        )
        .unwrap()
    }

    fn lines(&self) -> Vec<(u64, String, String)> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| {
                (
                    v["ts"].as_u64().unwrap_or(0),
                    v["to"].as_str().unwrap_or("").to_string(),
                    v["rule"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    fn wait_state(&self, to: &str, since: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self
                .lines()
                .iter()
                .any(|(ts, t, _)| *ts >= since && t == to)
            {
                return true;
            }
            thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if std::env::var_os("TERMIC_REAL_AGENTS_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

fn now() -> u64 {
    termic_fakemodel::pty::now_ms() as u64
}

/// Waits until the agent's UI shows inside termic (its marker text was
/// painted) and the output then held still for 2.5 s.
fn wait_agent_ui(pty: &PtySession, marker: &[u8]) {
    pty.wait_for(marker, 0, Duration::from_secs(90))
        .unwrap_or_else(|| {
            panic!(
                "{:?} never appeared in termic's screen",
                String::from_utf8_lossy(marker)
            );
        });
    pty.wait_quiet(Duration::from_millis(2500), Duration::from_secs(15));
}

/// Prompt, needs you, approve, done; returns the states after the prompt.
fn permission_turn(fx: &Fixture, pty: &mut PtySession, approve: &[u8]) -> Vec<String> {
    pty.send(b"create the file out.txt please").unwrap();
    thread::sleep(Duration::from_millis(400));
    let t0 = now();
    pty.send(b"\r").unwrap();
    assert!(
        fx.wait_state("needs_you", t0, 90 * SEC),
        "no needs_you: {:?}",
        fx.lines()
    );
    thread::sleep(SEC);
    let t_key = now();
    pty.send(approve).unwrap();
    assert!(
        fx.wait_state("done", t_key, 90 * SEC),
        "no done: {:?}",
        fx.lines()
    );
    thread::sleep(3 * SEC);
    let states: Vec<String> = fx
        .lines()
        .into_iter()
        .filter(|(ts, _, _)| *ts >= t0)
        .map(|(_, to, _)| to)
        .collect();
    eprintln!("states: {:?}", fx.lines());
    states
}

fn assert_honest(states: &[String]) {
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
        "done before needs you: {states:?}"
    );
    assert_eq!(
        states.iter().filter(|s| *s == "done").count(),
        1,
        "{states:?}"
    );
}

/// Quits termic with its prefix key (C-] q, then y).
fn quit(pty: &mut PtySession) {
    let _ = pty.send(b"\x1dq");
    thread::sleep(Duration::from_millis(500));
    let _ = pty.send(b"y");
    let deadline = Instant::now() + 15 * SEC;
    while !pty.exited() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_claude_hooks_installed_by_termic_without_probe_reply() {
    let Some(cache) = cache("real_binary_claude_hooks_installed_by_termic_without_probe_reply")
    else {
        return;
    };
    let _one = ONE_AGENT_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::Write, false);
    let before = snapshot(&fx.home.join(".claude"));
    fx.hooks("install", "claude");
    let mut pty = fx.run(Agent::Claude);
    wait_agent_ui(&pty, b"Claude Code");
    let states = permission_turn(&fx, &mut pty, b"\r");
    assert_honest(&states);
    assert!(
        fx.lines()
            .iter()
            .any(|(_, to, rule)| to == "needs_you" && rule.contains("hook")),
        "{:?}",
        fx.lines()
    );
    quit(&mut pty);
    assert!(pty.exited(), "termic quit");
    drop(pty);
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
    let Some(cache) = cache("real_binary_claude_native_status_without_hooks") else {
        return;
    };
    let _one = ONE_AGENT_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let fx = Fixture::new(&cache, Agent::Claude, ScenarioName::Write, true);
    let mut pty = fx.run(Agent::Claude);
    wait_agent_ui(&pty, b"Claude Code");
    let states = permission_turn(&fx, &mut pty, b"\r");
    assert_honest(&states);
    assert!(
        fx.lines()
            .iter()
            .any(|(_, to, rule)| to == "needs_you" && rule.contains("native")),
        "{:?}",
        fx.lines()
    );
    quit(&mut pty);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_binary_codex_needs_you_and_quit_ends_its_app_server() {
    let Some(cache) = cache("real_binary_codex_needs_you_and_quit_ends_its_app_server") else {
        return;
    };
    let _one = ONE_AGENT_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let fx = Fixture::new(&cache, Agent::Codex, ScenarioName::Write, true);
    let mut pty = fx.run(Agent::Codex);
    wait_agent_ui(&pty, b"OpenAI Codex");
    let states = permission_turn(&fx, &mut pty, b"y");
    assert_honest(&states);
    quit(&mut pty);
    assert!(pty.exited(), "termic quit");
    thread::sleep(2 * SEC);
    let left = processes_with_home(&fx.home);
    drop(pty); // the harness ends whatever is left, so nothing leaks from the test
    assert!(
        left.is_empty(),
        "codex processes still running after termic quit: {left:?}"
    );
}
