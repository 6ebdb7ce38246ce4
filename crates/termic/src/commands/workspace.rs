//! `termic` with no subcommand: the workspace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Debug, Args)]
pub struct WorkspaceArgs {
    /// Append one JSON line per state transition to FILE.
    #[arg(long, global = true, env = "TERMIC_EVENT_LOG", value_name = "FILE")]
    pub event_log: Option<PathBuf>,
    /// Record each task as an asciicast v2 file in DIR (replay with `termic replay`).
    #[arg(long, global = true, value_name = "DIR")]
    pub record: Option<PathBuf>,
}

pub fn run(_args: WorkspaceArgs) -> Result<ExitCode> {
    bail!("the workspace is not built yet")
}
