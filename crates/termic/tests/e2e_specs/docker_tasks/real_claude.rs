//! Real Claude Code 2.1.332 in a container, end to end, beside the same
//! agent on the host in the same run: the real `termic` binary, `termic
//! hooks install claude` writing the Docker target itself, the fake model
//! server, and Write-tool permission turns. Each turn must go working, needs
//! you (from the hook, no done before it) and exactly one done after the
//! approval. Latency is the hook's start (termic_fakemodel's recorder,
//! registered beside termic's hook for the same event so both start
//! together) to termic's event-log line, inside the container and on the
//! host, with the load average.
//!
//! The container reaches the fake model on 127.0.0.1 through
//! `--network host` in the agent's `docker_args`: termic adds no network
//! option of its own (docker's default bridge unless the user says
//! otherwise; see docs/decisions.md). Claude's binary and the recorder are
//! bind-mounted read-only; `.claude.json` (onboarding done, the project
//! trusted) sits in the termic-owned dir, where `CLAUDE_CONFIG_DIR`, which
//! termic sets for a claude-based Docker agent, makes Claude read it.
//!
//! Needs TERMIC_REAL_AGENTS (the cache `.ci/real-agents-install` fills) and
//! the test image built with Claude's libraries (`.ci/docker-test-image
//! <termic-sim> <claude.exe>`, which [`image`] does when the variable is
//! set).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use termic_fakemodel::agents::Agent;
use termic_fakemodel::drive::serve_scenario;
use termic_fakemodel::pty::now_ms;
use termic_fakemodel::recorder;
use termic_fakemodel::{FakeModel, ScenarioName};

use crate::docker_support::{containers_of, image, toml_str, wait_containers, CONFIG_HEAD};
use crate::real_agents_support::{
    assert_honest_turn, assert_released_to_working, begin, permission_turn, Driven,
};
use crate::support::{Fixture, SEC};
use crate::termic_pty::Termic;

/// Where the Docker agent's config dir is mounted.
const INSIDE: &str = "/root/.claude";

/// One side of the comparison: a fixture with its own fake model, the
/// agent's id in config.toml, and where its hook recorder writes.
pub(crate) struct Side {
    pub(crate) place: &'static str,
    pub(crate) fx: Fixture,
    pub(crate) agent_id: &'static str,
    pub(crate) log: PathBuf,
    /// Text termic paints once the agent's UI is up inside it.
    pub(crate) ready: &'static str,
    pub(crate) _server: FakeModel,
}

impl Side {
    /// The scratch HOME prepared as the real-agent suites prepare it
    /// (onboarding, trust, `permissions.defaultMode`), the recorder added;
    /// returns the agent's env as a config.toml inline table.
    fn prepare(fx: &Fixture, cache: &Path, server: &FakeModel) -> String {
        let env = Agent::Claude
            .prepare(cache, &fx.home(), &fx.project(), &server.base_url())
            .unwrap();
        recorder::install(Agent::Claude, &fx.home()).unwrap();
        let pairs: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{k} = {}", toml_str(v)))
            .collect();
        format!("{{ {} }}", pairs.join(", "))
    }

    fn host(cache: &Path) -> Side {
        let fx = Fixture::new();
        let server =
            serve_scenario(fx.root.path(), &fx.project(), ScenarioName::Write, None).unwrap();
        let env = Side::prepare(&fx, cache, &server);
        let claude = Agent::Claude.binary(cache);
        let config = format!(
            "{CONFIG_HEAD}[agents.claude]\ncommand = [{}]\nenv = {env}\n",
            toml_str(&claude.display().to_string())
        );
        std::fs::write(fx.config_dir().join("config.toml"), config).unwrap();
        Side::install(fx, "claude", "host", server)
    }

    fn docker(cache: &Path, image: &str) -> Side {
        let fx = Fixture::new();
        let server =
            serve_scenario(fx.root.path(), &fx.project(), ScenarioName::Write, None).unwrap();
        let env = Side::prepare(&fx, cache, &server);
        // What a person's first interactive run would have left in the
        // termic-owned dir: the onboarding state and their settings (here
        // with the recorder's hooks, host paths mounted at the same place).
        let dir = fx.data_dir().join("docker-agents/claude-box");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fx.home().join(".claude.json"), dir.join(".claude.json")).unwrap();
        std::fs::copy(
            fx.home().join(".claude/settings.json"),
            dir.join("settings.json"),
        )
        .unwrap();
        let exe = Agent::Claude.binary(cache).canonicalize().unwrap();
        let rec = fx.home().join("rec");
        let rec = rec.display();
        let docker_args = [
            "--network".to_owned(),
            "host".to_owned(),
            "--mount".to_owned(),
            format!(
                "type=bind,src={},dst=/usr/local/bin/claude,readonly",
                exe.display()
            ),
            // The recorder's script at its host path; its log under
            // the container's $HOME (/root/rec) lands in the same dir.
            "-v".to_owned(),
            format!("{rec}:{rec}"),
            "-v".to_owned(),
            format!("{rec}:/root/rec"),
        ];
        let quoted: Vec<String> = docker_args.iter().map(|a| toml_str(a)).collect();
        let config = format!(
            "{CONFIG_HEAD}[agents.claude-box]\nbase = \"claude\"\ndocker = true\nimage = {}\n\
             command = [\"claude\"]\nenv = {env}\ndocker_args = [{}]\n",
            toml_str(image),
            quoted.join(", ")
        );
        std::fs::write(fx.config_dir().join("config.toml"), config).unwrap();
        let side = Side::install(fx, "claude-box", "container", server);
        let rows = side.fx.hooks_status();
        let state = rows
            .iter()
            .find(|(a, t, _)| a == "claude" && t == "docker:claude-box")
            .map(|(_, _, s)| s.as_str());
        assert_eq!(state, Some("wired"), "{rows:?}");
        let settings = std::fs::read_to_string(dir.join("settings.json")).unwrap();
        assert!(
            settings.contains(&format!("{INSIDE}/termic-hooks/")),
            "termic's hooks by their container paths: {settings}"
        );
        side
    }

    /// `termic hooks install claude`: termic writes its own hooks (the host
    /// target, and the Docker target of every claude-based Docker agent).
    fn install(
        fx: Fixture,
        agent_id: &'static str,
        place: &'static str,
        server: FakeModel,
    ) -> Side {
        let out = fx.termic(&["hooks", "install", "claude", "--yes"]);
        assert!(
            out.status.success(),
            "hooks install: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Side {
            place,
            ready: "Claude Code",
            log: fx.log_path(),
            fx,
            agent_id,
            _server: server,
        }
    }

    /// When each recorded hook started (unix ms), with its payload.
    fn hooks(&self) -> Vec<recorder::HookRecord> {
        recorder::read(&self.fx.home())
    }
}

/// termic running one side's agent, driven by the shared scenarios.
pub(crate) struct Running<'a> {
    side: &'a Side,
    termic: Mutex<Termic>,
}

impl Running<'_> {
    pub(crate) fn start(side: &Side) -> Running<'_> {
        let log = side.log.display().to_string();
        let termic = side
            .fx
            .start_termic(&["run", side.agent_id, "--event-log", &log]);
        let running = Running {
            side,
            termic: Mutex::new(termic),
        };
        running.wait_ready();
        running
    }

    pub(crate) fn termic(&self) -> std::sync::MutexGuard<'_, Termic> {
        self.termic.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The agent's UI is up in termic (its ready text painted) and the
    /// screen then held still for 2 s: keys typed sooner can be lost.
    fn wait_ready(&self) {
        let deadline = Instant::now() + 90 * SEC;
        let (mut last, mut since) = (String::new(), Instant::now());
        loop {
            let screen = self.termic().screen();
            let up = screen.contains(self.side.ready);
            if screen != last {
                (last, since) = (screen, Instant::now());
            } else if up && since.elapsed() > 2 * SEC {
                // config.toml, docker_args included, read without a warning.
                assert!(!last.contains("unknown key"), "{last}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: the agent never came up; screen:\n{last}",
                self.side.place
            );
            thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Driven for Running<'_> {
    fn name(&self) -> &str {
        self.side.place
    }

    fn event_log(&self) -> &Path {
        &self.side.log
    }

    fn keys(&self, bytes: &[u8]) -> u64 {
        let t = now_ms() as u64;
        self.termic().send(bytes);
        t
    }

    fn dump(&self) {
        eprintln!("  {} screen:\n{}", self.side.place, self.termic().screen());
    }
}

/// Per turn: PermissionRequest hook start to needs you, Stop hook start to
/// done (ms).
#[derive(Default)]
struct Latency {
    attention: Vec<f64>,
    done: Vec<f64>,
}

/// `turns` permission turns on `side`; every one honest.
fn run_side(side: &Side, turns: usize) -> Latency {
    let running = Running::start(side);
    let mut latency = Latency::default();
    for turn in 0..turns {
        let (t0, states) = permission_turn(&running, b"\r");
        assert_honest_turn(&states);
        assert_released_to_working(&states);
        let needs = running.assert_needs_you_from(t0, "hook_attention", Some("permission"));
        let done = running.first("done", needs.ts);
        assert_eq!(done.rule, "hook_done", "{}: turn {turn}", side.place);
        let hooks = side.hooks();
        let started = |event: &str| {
            hooks
                .iter()
                .find(|h| h.event == event && h.ts_ms >= t0 as f64)
                .unwrap_or_else(|| panic!("{}: no {event} hook recorded", side.place))
                .clone()
        };
        let asked = started("PermissionRequest");
        let stopped = started("Stop");
        latency.attention.push(needs.ts as f64 - asked.ts_ms);
        latency.done.push(done.ts as f64 - stopped.ts_ms);
        if turn == 0 {
            let screen = running.termic().screen();
            assert!(
                screen.lines().any(|l| l.trim_start().starts_with("done ")),
                "{}: the done badge: {screen}",
                side.place
            );
        }
        if side.place == "container" {
            // The hooks ran inside: Claude's transcript is under the
            // container's config dir, not a host path.
            assert!(
                asked.payload.contains(&format!("{INSIDE}/projects/")),
                "hook payload from inside the container: {}",
                asked.payload
            );
        }
    }
    // The server the workspace started owns the container.
    let pid = super::lifecycle::server_pid(&side.fx);
    assert!(running.termic().quit(), "{}: termic quits", side.place);
    if side.place == "container" {
        wait_containers(pid, "after quit", 20 * SEC, <[String]>::is_empty);
        assert!(containers_of(pid).is_empty());
    }
    latency
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Nearest-rank percentile of `values` (sorted here).
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn row(values: &[f64]) -> String {
    format!(
        "{:>7.1} {:>7.1} {:>7.1}",
        percentile(values, 50.0),
        percentile(values, 99.0),
        values.iter().copied().fold(f64::MIN, f64::max)
    )
}

#[test]
#[ignore = "needs a Docker engine and TERMIC_REAL_AGENTS: run by .ci/run's Docker step"]
fn real_claude_in_a_container_goes_working_needs_you_done_like_on_the_host() {
    let Some(image) = image() else { return };
    let (cache, _one) = begin();
    let turns: usize = std::env::var("DOCKER_REAL_CLAUDE_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let sides = [Side::host(&cache), Side::docker(&cache, &image)];
    let load_before = load();
    // Both at once, so both see the same load.
    let results: Vec<Latency> = thread::scope(|s| {
        let runs: Vec<_> = sides
            .iter()
            .map(|side| s.spawn(move || run_side(side, turns)))
            .collect();
        runs.into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    // Claude kept its state in the mounted dir (CLAUDE_CONFIG_DIR).
    let state = std::fs::read_to_string(
        sides[1]
            .fx
            .data_dir()
            .join("docker-agents/claude-box/.claude.json"),
    )
    .unwrap();
    assert!(state.contains("numStartups"), "{state}");
    println!("load average before: {load_before}, after: {}", load());
    println!("hook start to event-log line, ms: p50 p99 max ({turns} turns each)");
    for (side, l) in sides.iter().zip(&results) {
        println!(
            "{:<10} PermissionRequest -> needs_you {}   Stop -> done {}",
            side.place,
            row(&l.attention),
            row(&l.done)
        );
    }
}
