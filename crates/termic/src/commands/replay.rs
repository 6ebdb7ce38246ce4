//! `termic replay FILE`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// An asciicast v2 recording written by `termic --record DIR`.
    pub file: PathBuf,
    /// Print one JSON object per transition instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: ReplayArgs) -> Result<ExitCode> {
    bail!("termic replay is not built yet")
}
