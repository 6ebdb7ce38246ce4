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
//! keys), `osc` (sequences), `payload` (hook payloads
//! per agent), `term` (raw mode, output, trace). Each agent's own module
//! under `agents/` holds the rest of what is known about it.

pub mod agents;
pub mod cli;
pub mod clock;
pub mod config;
pub mod hookrun;
pub mod input;
pub mod osc;
pub mod payload;
pub mod runner;
pub mod scenario;
pub mod term;

pub use cli::SimConfig;

use std::time::Instant;

use agents::{Cx, SimOptions};

fn session_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    nanos ^ (u64::from(std::process::id()) << 40)
}

/// What the agent resolved from its config, like `agy -p "/hooks"` or
/// `grok inspect`: one line per hook, `EVENT NAME COMMAND`.
pub fn hooks_listing(cfg: &SimConfig) -> String {
    (cfg.agent.hooks_listing)(cfg)
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
        serde_json::json!({ "agent": cfg.agent.id, "scenario": scenario.name, "pid": std::process::id() }),
    );
    let mut agent = (cfg.agent.build)(cfg, &cx);
    runner::Runner::new(agent.as_mut(), &mut cx, cfg.run.clone()).run(scenario);
    Ok(())
}
