//! `termic hooks status|install|remove`: the CLI over `termic-hooks`.
//!
//! - [`context`]: paths, Docker agents, forbidden roots and facts, read once.
//! - [`status`], [`install`], [`remove`]: one file per subcommand.

mod context;
mod install;
mod remove;
mod status;

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

/// Everything went as asked.
pub const EXIT_OK: u8 = 0;
/// Refused: a malformed config, disableAllHooks, an agent too old, a target
/// inside a project. Nothing was written for that agent.
pub const EXIT_REFUSED: u8 = 3;
/// A bad agent name (clap uses the same code for other usage errors).
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    Status(status::StatusArgs),
    Install(install::InstallArgs),
    Remove(remove::RemoveArgs),
}

pub fn run(cmd: HooksCommand) -> Result<ExitCode> {
    let ctx = context::Context::from_env()?;
    let code = match cmd {
        HooksCommand::Status(args) => status::run(&ctx, &args)?,
        HooksCommand::Install(args) => install::run(&ctx, &args)?,
        HooksCommand::Remove(args) => remove::run(&ctx, &args)?,
    };
    Ok(ExitCode::from(code))
}
