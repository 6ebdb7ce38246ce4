//! `termic completions SHELL`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use clap_complete::env::Shells;
use clap_complete::Shell;

/// Print shell completions.
///
/// Prints a completion script for SHELL on stdout. It completes
/// subcommands and flags, the numbers and names of the running server's
/// tasks (send, kill, wait, attach, rename) and agents (run, hooks), by
/// asking termic as you press Tab: so it stays right when termic is
/// upgraded, and it needs `termic` on PATH.
///
/// Examples:
///   termic completions bash         print the script for bash
///   termic completions fish         and for fish
///
/// Load it when the shell starts:
///   echo 'source <(termic completions bash)' >> ~/.bashrc
///   echo 'source <(termic completions zsh)' >> ~/.zshrc
///   echo 'termic completions fish | source' > ~/.config/fish/completions/termic.fish
///
/// `COMPLETE=bash termic` prints the same script.
///
/// Exit codes: 0 printed, 2 usage (an unknown shell).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    pub shell: Shell,
}

/// The environment variable that turns a `termic` run into a completion
/// request (clap_complete's convention, as jj and others use it).
pub const COMPLETE_VAR: &str = "COMPLETE";

pub fn run(args: CompletionsArgs) -> Result<ExitCode> {
    let name = args.shell.to_string();
    let shells = Shells::builtins();
    let shell = shells
        .completer(&name)
        .with_context(|| format!("no completion for {name}"))?;
    let mut script = Vec::new();
    shell.write_registration(COMPLETE_VAR, "termic", "termic", "termic", &mut script)?;
    // The script is ours, not a program's text: written as it is.
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
