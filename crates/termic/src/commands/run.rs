//! `termic run AGENT`.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use super::workspace::WorkspaceArgs;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A built-in agent (claude, codex, grok, agy, opencode) or one defined in config.toml.
    pub agent: String,
    /// Task name shown in the sidebar.
    #[arg(long)]
    pub name: Option<String>,
    /// Run the task in a new git worktree of the current repository.
    #[arg(long)]
    pub worktree: bool,
    /// Arguments passed to the agent unchanged.
    #[arg(last = true)]
    pub agent_args: Vec<String>,
}

pub fn run(_ws: WorkspaceArgs, _args: RunArgs) -> Result<ExitCode> {
    bail!("termic run is not built yet")
}
