//! `termic hooks status|install|remove`: the CLI over `termic-hooks`.
//!
//! - [`context`]: paths, Docker agents, forbidden roots and facts, read once.
//! - [`status`], [`install`], [`remove`]: one file per subcommand.

mod context;
mod install;
mod on_host;
mod remove;
mod status;

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use crate::printed::{errln, out, outln};

/// Everything went as asked.
pub const EXIT_OK: u8 = 0;
/// Refused: a malformed config, disableAllHooks, an agent too old, a target
/// inside a project. Nothing was written for that agent.
pub const EXIT_REFUSED: u8 = 3;
/// A bad agent name (clap uses the same code for other usage errors).
pub const EXIT_USAGE: u8 = 2;

/// The AGENT arguments' help, listing the hook agents from their registry.
fn agents_help() -> String {
    format!(
        "Agents: {} (or a clone's id)",
        termic_hooks::agents::installable_ids().join(", ")
    )
}

/// The agents and `--dry-run`, shared by `install` and `remove`.
#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    #[arg(value_name = "AGENT", help = agents_help(), add = super::complete::agent())]
    pub agents: Vec<String>,
    /// Show the files that would change and the diff of each, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The hooks of this host of config.toml's [hosts]: its termic runs
    /// there over ssh, and the files named are the host's.
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
}

#[derive(Debug, Subcommand)]
#[command(after_help = "\
Hooks go only into each agent's global, per-user config (never a project's).
Paths come from $HOME, and from $TERMIC_DATA_DIR (Docker agents' dirs) and
$TERMIC_CONFIG_DIR (config.toml) when set, so you can try it on a scratch HOME:
  HOME=/tmp/h termic hooks install claude --dry-run

Examples:
  termic hooks status
  termic hooks install --detected
  termic hooks remove claude

Exit codes: 0 done, 1 error or cancelled, 2 usage (unknown agent, or
install or remove without --yes when stdin is not a terminal), 3 refused
(nothing written for that agent). See each command's --help.")]
pub enum HooksCommand {
    Status(status::StatusArgs),
    Install(install::InstallArgs),
    Remove(remove::RemoveArgs),
}

/// The diff of every plan, before the question: what each file gets.
fn show_diffs<'a>(plans: impl Iterator<Item = &'a termic_hooks::plan::InstallPlan>) -> Result<()> {
    let diff: String = plans.map(|p| p.diff()).collect();
    if !diff.is_empty() {
        outln!("The changes, file by file:\n{diff}")?;
    }
    Ok(())
}

/// The user's consent to write what was just shown, for install and
/// remove alike: `--yes`, or yes to `question` on a terminal. `None` goes
/// on; `Some(code)` is the exit code when nothing may be written (2 on a
/// pipe: nobody can answer there, and writing anyway would be consent
/// nobody gave; 1 when the answer was no). `retry` ends the pipe's message.
fn consent(yes: bool, question: &str, retry: &str) -> Result<Option<u8>> {
    if yes {
        return Ok(None);
    }
    if !std::io::stdin().is_terminal() {
        errln!(
            "termic: stdin is not a terminal, so termic cannot ask; nothing was written. \
             Run again with --yes to {retry}"
        );
        return Ok(Some(EXIT_USAGE));
    }
    if !confirm(question)? {
        outln!("Nothing was written.")?;
        return Ok(Some(1));
    }
    Ok(None)
}

/// Asks `question` with `[y/N]` on stdin (a terminal): yes only for y or yes.
fn confirm(question: &str) -> Result<bool> {
    use std::io::BufRead;
    out!("{question} [y/N] ")?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes" | "Yes"))
}

pub fn run(cmd: HooksCommand) -> Result<ExitCode> {
    let host = match &cmd {
        HooksCommand::Status(a) => a.host.clone(),
        HooksCommand::Install(a) => a.common.host.clone(),
        HooksCommand::Remove(a) => a.common.host.clone(),
    };
    if let Some(host) = host {
        return on_host::run(&cmd, &host).map(ExitCode::from);
    }
    let ctx = context::Context::from_env()?;
    let code = match cmd {
        HooksCommand::Status(args) => status::run(&ctx, &args)?,
        HooksCommand::Install(args) => install::run(&ctx, &args)?,
        HooksCommand::Remove(args) => remove::run(&ctx, &args)?,
    };
    Ok(ExitCode::from(code))
}
