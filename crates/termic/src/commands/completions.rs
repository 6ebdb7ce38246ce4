//! `termic completions SHELL`.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// Print shell completions.
///
/// Prints a completion script for SHELL on stdout; install it where your
/// shell looks for completions.
///
/// Examples:
///   termic completions bash > ~/.local/share/bash-completion/completions/termic
///   termic completions zsh > "${fpath[1]}/_termic"
///   termic completions fish > ~/.config/fish/completions/termic.fish
///
/// Exit codes: 0 printed, 2 usage (an unknown shell).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = super::Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "termic", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
