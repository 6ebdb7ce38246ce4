//! `termic run AGENT`: the workspace with that task already open.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::workspace::{open, InitialTask, WorkspaceArgs};

/// Examples:
///
///   termic run claude
///   termic run codex --name review --worktree
///   termic run mine -- --model fast
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A built-in agent (claude, codex, grok, agy, opencode) or one defined in config.toml.
    pub agent: String,
    /// Task name shown in the sidebar (default: the agent's id).
    #[arg(long)]
    pub name: Option<String>,
    /// Run the task in a new git worktree of the current repository.
    #[arg(long)]
    pub worktree: bool,
    /// Arguments passed to the agent unchanged.
    #[arg(last = true)]
    pub agent_args: Vec<String>,
}

pub fn run(ws: WorkspaceArgs, args: RunArgs) -> Result<ExitCode> {
    let task = InitialTask {
        agent: args.agent,
        name: args.name,
        worktree: args.worktree,
        args: args.agent_args,
    };
    open(ws, Some(task))
}
