//! `termic completions SHELL`.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// Print a completion script, e.g. `termic completions bash > /etc/bash_completion.d/termic`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = super::Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "termic", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
