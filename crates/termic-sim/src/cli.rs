//! The command line of `termic-sim AGENT SCENARIO` (also run in-process by
//! `termic demo`, so the demo needs no second binary).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::agents::grok::config::GrokVersion;
use crate::agents::{sim_for, sim_ids};
use crate::runner::RunOptions;
use crate::scenario::Scenario;
use clap::Parser;

/// The AGENT argument's help, from the simulators' registry.
fn agent_help() -> String {
    format!("The agent to simulate: {}.", sim_ids())
}

/// Simulate a coding agent the way the real one was measured to behave:
/// its hook config, hooks, titles and OSCs.
///
/// Keys: Enter submits a prompt; 1, y or Enter approve a prompt as the real
/// agent does; Escape and Ctrl-C interrupt a turn; Ctrl-C or Ctrl-D at the
/// prompt exit. The scenario `hooks-list` prints what the agent resolved
/// from its config (like `agy -p "/hooks"`) and exits.
#[derive(Debug, Parser)]
#[command(name = "termic-sim", version)]
struct Cli {
    #[arg(help = agent_help())]
    agent: String,
    /// A built-in scenario name, a scenario file, or `hooks-list`.
    scenario: String,
    /// Run scenario time this many times faster.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Which grok to simulate.
    #[arg(long, default_value = "1.0.5", value_parser = ["0.2.111", "1.0.5"])]
    grok_version: String,
    /// Claude: never send the OSC 7501 probe (an older Claude).
    #[arg(long)]
    no_native: bool,
    /// Claude: how long to wait for the probe reply, in ms.
    #[arg(long, default_value_t = 1000)]
    probe_wait_ms: u64,
    /// Claude: ms between a hook's exit and its terminalSequence landing.
    #[arg(long, default_value_t = 15)]
    seq_delay_ms: u64,
    /// Submit prompts without waiting for Enter.
    #[arg(long)]
    auto: bool,
    /// With --auto: approve prompts after this many ms of scenario time.
    #[arg(long)]
    auto_approve_ms: Option<u64>,
    /// Exit when the scenario ends instead of sitting at the prompt.
    #[arg(long)]
    exit_at_end: bool,
    /// Append a JSON line per action (hook spawn and exit, titles, keys).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// A line to print at start-up, before the agent's own output.
    #[arg(long)]
    banner: Option<String>,
}

/// Everything one simulator run needs.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Which agent to simulate.
    pub agent: &'static crate::agents::SimDef,
    pub grok_version: GrokVersion,
    /// Claude: send the OSC 7501 probe (false = an older Claude).
    pub probe: bool,
    pub probe_wait_ms: u64,
    pub speed: f64,
    pub seq_delay_ms: u64,
    pub run: RunOptions,
    pub trace: Option<PathBuf>,
    pub home: PathBuf,
    pub cwd: PathBuf,
}

/// Parse `args` (the first is the program name) and run the simulator.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let Some(agent) = sim_for(&cli.agent) else {
        eprintln!("termic-sim: unknown agent {:?} ({})", cli.agent, sim_ids());
        return ExitCode::from(2);
    };
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"));
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let cfg = SimConfig {
        agent,
        grok_version: GrokVersion::parse(&cli.grok_version).unwrap_or(GrokVersion::V1_0_5),
        probe: !cli.no_native,
        probe_wait_ms: cli.probe_wait_ms,
        speed: cli.speed,
        seq_delay_ms: cli.seq_delay_ms,
        run: RunOptions {
            auto: cli.auto,
            auto_approve_ms: cli.auto_approve_ms,
            exit_at_end: cli.exit_at_end,
            banner: cli.banner,
        },
        trace: cli.trace,
        home,
        cwd,
    };
    if cli.scenario == "hooks-list" {
        print!("{}", crate::hooks_listing(&cfg));
        return ExitCode::SUCCESS;
    }
    let scenario = match Scenario::load(&cli.scenario) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("termic-sim: {e}");
            return ExitCode::from(2);
        }
    };
    match crate::simulate(&cfg, &scenario) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("termic-sim: {e:#}");
            ExitCode::FAILURE
        }
    }
}
