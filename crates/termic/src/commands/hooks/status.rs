//! `termic hooks status [--json]`

use anyhow::Result;
use clap::Args;
use termic_hooks::status::{status_report, State};

use super::context::Context;
use super::EXIT_OK;
use crate::printed::errln;

/// Show, per agent and target, whether termic's hooks are installed and
/// wired.
///
/// "Wired" is checked on disk, not taken from a setting: the entry is in
/// the file the agent reads and in the shape it runs, the script exists, is
/// executable and is what this termic generates, nothing disables hooks,
/// and the agent is new enough. termic only stops guessing an agent's turn
/// from its screen when its hooks are wired. Installed but not wired lists
/// every reason.
///
/// Examples:
///   termic hooks status
///   termic hooks status --json
///
/// Exit codes: 0 status printed (whatever it says), 1 error.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StatusArgs {
    /// Print JSON: {"agents": [{"agent", "targets": [{"target", "state": {"key", "summary", "reasons"}, "notes"}]}]}.
    #[arg(long)]
    pub json: bool,
    /// The hooks of this host of config.toml's [hosts] (its termic runs
    /// there over ssh).
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
}

pub fn run(ctx: &Context, args: &StatusArgs) -> Result<u8> {
    let facts = ctx.facts(&termic_hooks::agents::AgentSchema::all());
    let report = status_report(&ctx.docker_agents, &ctx.paths, &ctx.forbidden, &facts);
    let mut out = String::new();
    if args.json {
        out = crate::printed::json_text(&report)? + "\n";
    } else {
        if let Some(w) = &ctx.warning {
            errln!("termic: warning: {w}");
        }
        for agent in &report.agents {
            for (i, t) in agent.targets.iter().enumerate() {
                let name = if i == 0 { agent.agent.as_str() } else { "" };
                out += &format!("{name:<10}{:<22}{}\n", t.target, t.state.summary());
                if let State::NotWired(reasons) = &t.state {
                    for r in reasons {
                        out += &format!("{:<32}- {r}\n", "");
                    }
                }
                for n in &t.notes {
                    out += &format!("{:<32}note: {n}\n", "");
                }
            }
        }
    }
    // `termic hooks status | head` closes the pipe early: not an error.
    crate::printed::write_stdout(&out)?;
    Ok(EXIT_OK)
}
