//! One real agent run, set up the way every real-agent test needs it: a
//! fake model server with a scenario, a scratch HOME and project prepared
//! for the agent, optional hook recorders, and the agent on a PTY, started
//! and waited for until its UI is up. Dropping the run ends every process
//! it started and deletes its directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::agents::Agent;
use crate::pty::{now_ms, PtyOptions, PtySession};
use crate::recorder::{self, HookRecord};
use crate::trace::{events, TermEvent};
use crate::{FakeModel, Scenario, ScenarioName, ServerConfig};

/// How to start a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Answer Claude Code's OSC 7501 probe.
    pub probe: bool,
    /// Register the hook recorder (prints nothing, changes nothing).
    pub recorder: bool,
    /// Extra env for the agent.
    pub env: Vec<(String, String)>,
    /// How long the slow scenario streams.
    pub slow_for: Option<Duration>,
    /// Keep the run's directory (for a person to look at).
    pub keep: bool,
    /// Runs on the prepared HOME just before the agent starts (e.g. to
    /// install termic's hooks).
    pub before_spawn: Option<fn(&Path)>,
}

/// A started agent and everything around it.
pub struct AgentRun {
    pub agent: Agent,
    pub root: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub server: FakeModel,
    pub pty: PtySession,
    keep: bool,
}

static RUN_COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh, unique directory under the system temp dir.
pub fn scratch_dir(label: &str) -> PathBuf {
    let n = RUN_COUNTER.fetch_add(1, Ordering::SeqCst);
    std::env::temp_dir().join(format!("termic-real-{label}-{}-{n}", std::process::id()))
}

/// A fake model playing `scenario` for an agent working in `project` (the
/// scenario writes `project/out.txt`), streaming for `slow_for` when given,
/// and logging its requests to `root/requests.jsonl`.
pub fn serve_scenario(
    root: &Path,
    project: &Path,
    scenario: ScenarioName,
    slow_for: Option<Duration>,
) -> Result<FakeModel, crate::FakeModelError> {
    let mut script = Scenario::new(scenario, project.join("out.txt"));
    if let Some(slow_for) = slow_for {
        script.slow_for = slow_for;
    }
    let mut config = ServerConfig::new(script);
    config.log_path = Some(root.join("requests.jsonl"));
    FakeModel::start(config)
}

impl AgentRun {
    /// Starts `agent` against a fake model playing `scenario` and waits until
    /// its UI is up (it set a title and then went quiet, or 12 s passed).
    pub fn start(
        cache: &Path,
        agent: Agent,
        scenario: ScenarioName,
        options: RunOptions,
    ) -> anyhow::Result<AgentRun> {
        let root = scratch_dir(agent.name());
        let (home, project) = (root.join("home"), root.join("proj"));
        std::fs::create_dir_all(&project)?;
        let server = serve_scenario(&root, &project, scenario, options.slow_for)?;
        let mut env = agent.prepare(cache, &home, &project, &server.base_url())?;
        env.extend(options.env.iter().cloned());
        if options.recorder {
            recorder::install(agent, &home)?;
        }
        if let Some(before) = options.before_spawn {
            before(&home);
        }
        let command: Command = agent.command(cache, &home, &project, &env);
        let pty_options = PtyOptions {
            answer_status_probe: options.probe,
            ..PtyOptions::default()
        };
        let pty = PtySession::spawn(command, pty_options, Some(&home))?;
        let run = AgentRun {
            agent,
            root,
            home,
            project,
            server,
            pty,
            keep: options.keep,
        };
        run.wait_ready()?;
        Ok(run)
    }

    fn wait_ready(&self) -> anyhow::Result<()> {
        // Every agent sets a title once its UI is up; typing before that
        // loses the prompt (opencode takes 10-20 s here). Grok never goes
        // quiet (it keeps painting), hence the bound on the quiet wait.
        if self
            .pty
            .wait_for(b"\x1b]0;", 0, Duration::from_secs(90))
            .is_none()
        {
            anyhow::bail!("{} set no window title within 90 s", self.agent.name());
        }
        self.pty
            .wait_quiet(Duration::from_millis(2500), Duration::from_secs(12));
        Ok(())
    }

    /// Types `text`, then Enter; returns the unix ms of the Enter.
    pub fn prompt(&mut self, text: &str) -> std::io::Result<f64> {
        self.pty.send(text.as_bytes())?;
        thread::sleep(Duration::from_millis(400));
        let t0 = now_ms();
        self.pty.send(b"\r")?;
        Ok(t0)
    }

    /// Sends keys; returns the unix ms they were sent.
    pub fn keys(&mut self, bytes: &[u8]) -> std::io::Result<f64> {
        let t = now_ms();
        self.pty.send(bytes)?;
        Ok(t)
    }

    /// Answers a prompt the agent shows: waits 1 s first, as a person reads
    /// it (keys sent sooner can be dropped), then sends `bytes`; returns the
    /// unix ms they were sent.
    pub fn answer(&mut self, bytes: &[u8]) -> std::io::Result<f64> {
        thread::sleep(Duration::from_secs(1));
        self.keys(bytes)
    }

    /// OSCs and BELs so far.
    pub fn term_events(&self) -> Vec<TermEvent> {
        events(&self.pty.chunks())
    }

    /// OSC 7501 payloads (`state=...`) at or after `since`, with their times.
    pub fn native_states(&self, since: f64) -> Vec<(f64, String)> {
        self.term_events()
            .into_iter()
            .filter(|e| e.ts_ms >= since && e.code() == "7501" && e.payload().starts_with("state="))
            .map(|e| (e.ts_ms, e.payload().to_string()))
            .collect()
    }

    /// Window titles at or after `since`, consecutive repeats dropped.
    pub fn titles(&self, since: f64) -> Vec<(f64, String)> {
        let mut out: Vec<(f64, String)> = Vec::new();
        for e in self.term_events() {
            if e.ts_ms >= since && e.kind == "osc" && matches!(e.code(), "0" | "2") {
                if out.last().is_some_and(|(_, t)| t == e.payload()) {
                    continue;
                }
                out.push((e.ts_ms, e.payload().to_string()));
            }
        }
        out
    }

    pub fn hooks(&self) -> Vec<HookRecord> {
        recorder::read(&self.home)
    }

    /// Polls until `find` returns something, or `timeout` passes.
    pub fn wait<T>(&self, timeout: Duration, find: impl Fn(&AgentRun) -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(found) = find(self) {
                return Some(found);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for a recorded hook named `event` at or after `since`.
    pub fn wait_hook(&self, event: &str, since: f64, timeout: Duration) -> Option<HookRecord> {
        self.wait(timeout, |run| {
            run.hooks()
                .into_iter()
                .find(|h| h.event == event && h.ts_ms >= since)
        })
    }

    /// Waits for a native status whose payload starts with `prefix`.
    pub fn wait_native(
        &self,
        prefix: &str,
        since: f64,
        timeout: Duration,
    ) -> Option<(f64, String)> {
        self.wait(timeout, |run| {
            run.native_states(since)
                .into_iter()
                .find(|(_, s)| s.starts_with(prefix))
        })
    }

    /// Waits for a title containing `part`.
    pub fn wait_title(&self, part: &str, since: f64, timeout: Duration) -> Option<(f64, String)> {
        self.wait(timeout, |run| {
            run.titles(since)
                .into_iter()
                .find(|(_, t)| t.contains(part))
        })
    }
}

impl Drop for AgentRun {
    fn drop(&mut self) {
        self.pty.kill();
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}
