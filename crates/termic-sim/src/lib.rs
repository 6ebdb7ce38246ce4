//! Agent simulators for tests and `termic demo`.
//!
//! `termic-sim AGENT SCENARIO` behaves the way the plan's appendix and
//! `real-agents/README.md` measured the real agent behaving: it reads that
//! agent's real hook config under `$HOME` with the agent's schema rules
//! ([`config`]), runs hooks as that agent does ([`hookrun`]), and paints the
//! titles and OSC sequences the real agent paints ([`agents`]). A scenario
//! ([`scenario`]) is a step list with time offsets; keys on stdin drive the
//! prompts, approvals and interrupts ([`runner`]).
//!
//! Modules: `clock` (virtual time and `--speed`), `input` (terminal bytes to
//! keys), `osc` (sequences and Claude's allowlist), `payload` (hook payloads
//! per agent), `term` (raw mode, output, trace), `opencode_host` (plugins in
//! node).

pub mod agents;
pub mod cli;
pub mod clock;
pub mod config;
pub mod hookrun;
pub mod input;
pub mod opencode_host;
pub mod osc;
pub mod payload;
pub mod runner;
pub mod scenario;
pub mod term;

use std::path::PathBuf;
use std::time::Instant;

use agents::grok::config::GrokVersion;
use agents::{Agent, Cx, SimOptions};

/// Which agent to simulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    Claude,
    Grok,
    Agy,
    Opencode,
    Codex,
    Gemini,
    Qwen,
    Copilot,
}

impl AgentKind {
    pub const ALL: [AgentKind; 8] = [
        AgentKind::Claude,
        AgentKind::Grok,
        AgentKind::Agy,
        AgentKind::Opencode,
        AgentKind::Codex,
        AgentKind::Gemini,
        AgentKind::Qwen,
        AgentKind::Copilot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Grok => "grok",
            AgentKind::Agy => "agy",
            AgentKind::Opencode => "opencode",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
            AgentKind::Qwen => "qwen",
            AgentKind::Copilot => "copilot",
        }
    }

    pub fn parse(s: &str) -> Option<AgentKind> {
        AgentKind::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// Everything one simulator run needs.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub agent: AgentKind,
    pub grok_version: GrokVersion,
    /// Claude: send the OSC 7501 probe (false = an older Claude).
    pub probe: bool,
    pub probe_wait_ms: u64,
    pub speed: f64,
    pub seq_delay_ms: u64,
    pub run: runner::RunOptions,
    pub trace: Option<PathBuf>,
    pub home: PathBuf,
    pub cwd: PathBuf,
}

fn session_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    nanos ^ (u64::from(std::process::id()) << 40)
}

fn build_agent(cfg: &SimConfig, cx: &Cx) -> Box<dyn Agent> {
    match cfg.agent {
        AgentKind::Claude => Box::new(agents::claude::Claude::new(
            cx,
            cfg.probe,
            cfg.probe_wait_ms,
        )),
        AgentKind::Grok => Box::new(agents::grok::Grok::new(cx, cfg.grok_version)),
        AgentKind::Agy => Box::new(agents::agy::Agy::new(cx)),
        AgentKind::Opencode => Box::new(agents::opencode::Opencode::new(cx)),
        AgentKind::Codex => Box::new(agents::codex::Codex::new(cx)),
        AgentKind::Gemini => Box::new(agents::gemini::Gemini::new(cx)),
        AgentKind::Qwen => Box::new(agents::qwen::Qwen::new(cx)),
        AgentKind::Copilot => Box::new(agents::copilot::Copilot::new(cx)),
    }
}

/// What the agent resolved from its config, like `agy -p "/hooks"` or
/// `grok inspect`: one line per hook, `EVENT NAME COMMAND`.
pub fn hooks_listing(cfg: &SimConfig) -> String {
    use std::fmt::Write as _;
    let reg = match cfg.agent {
        AgentKind::Claude => agents::claude::config::load(&cfg.home, &cfg.cwd),
        AgentKind::Grok => {
            let flag = std::env::var("GROK_CLAUDE_HOOKS_ENABLED").ok();
            agents::grok::config::load(&cfg.home, cfg.grok_version, flag.as_deref())
        }
        AgentKind::Agy => agents::agy::config::load(&cfg.home),
        AgentKind::Gemini => agents::gemini::load(&cfg.home),
        AgentKind::Qwen => agents::qwen::load(&cfg.home),
        AgentKind::Copilot => agents::copilot::load(&cfg.home),
        AgentKind::Opencode => {
            let xdg = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from);
            let mut s = String::new();
            for f in agents::opencode::config::plugin_files(&agents::opencode::config::config_dir(
                &cfg.home,
                xdg.as_deref(),
            )) {
                let _ = writeln!(s, "plugin {}", f.display());
            }
            return s;
        }
        AgentKind::Codex => return "codex: hooks are not simulated (native status only)\n".into(),
    };
    if cfg.agent == AgentKind::Agy {
        let mut s = reg.notes.join("\n");
        s.push('\n');
        s.push_str(&agents::agy::config::listing(&reg));
        return s;
    }
    let mut s = String::new();
    for note in &reg.notes {
        let _ = writeln!(s, "# {note}");
    }
    for (event, h) in &reg.hooks {
        let _ = writeln!(s, "{event:<18} {:<40} {}", h.name, h.command);
    }
    s
}

/// Run one simulated agent on this process's terminal until it exits.
pub fn simulate(cfg: &SimConfig, scenario: &scenario::Scenario) -> anyhow::Result<()> {
    let trace = match &cfg.trace {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| anyhow::anyhow!("cannot open trace file {}: {e}", p.display()))?,
        ),
        None => None,
    };
    let out = term::Output::new(Box::new(std::io::stdout()), trace);
    let _raw = term::RawMode::enable();
    let rx = term::spawn_reader();
    let session = payload::Session::new(
        session_seed(),
        &cfg.cwd.display().to_string(),
        &cfg.home.display().to_string(),
    );
    let opts = SimOptions {
        seq_delay_ms: cfg.seq_delay_ms,
    };
    let clock = clock::SimClock::new(Instant::now(), cfg.speed);
    let mut cx = Cx::new(
        out,
        clock,
        cfg.home.clone(),
        cfg.cwd.clone(),
        session,
        opts,
        rx,
    );
    cx.trace(
        "start",
        serde_json::json!({ "agent": cfg.agent.name(), "scenario": scenario.name, "pid": std::process::id() }),
    );
    let mut agent = build_agent(cfg, &cx);
    runner::Runner::new(agent.as_mut(), &mut cx, cfg.run.clone()).run(scenario);
    Ok(())
}
