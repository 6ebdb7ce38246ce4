//! `termic hooks status|install|remove`.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Show, per agent and target, whether termic's hooks are installed and wired.
    Status,
}

pub fn run(_cmd: HooksCommand) -> Result<ExitCode> {
    let paths = crate::paths::TermicPaths::from_env()?;
    let _ = (paths.home, paths.data_dir, paths.config_dir);
    bail!("termic hooks is not built yet")
}
