//! The CLI: one file per command, typed args whose doc comments are the help.

mod attach;
mod completions;
mod config;
mod demo;
mod hooks;
mod kill;
mod ls;
mod replay;
mod run;
mod run_detached;
mod send;
mod server;
mod wait;
pub mod workspace;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Exit code for any error not given its own code by a command.
pub const EXIT_FAILURE: u8 = 1;

/// termic: a terminal workspace for coding agents that tells you, per task,
/// whether the agent is working, needs you, or is done.
///
/// Run `termic` in a project directory to open the workspace, or
/// `termic demo` to try it with simulated agents (nothing of yours is touched).
///
/// Inside the workspace every key goes to the focused agent except the prefix
/// key, Ctrl-] by default: Ctrl-] ? shows the keys, Ctrl-] n starts a task,
/// Ctrl-] s opens Settings (hooks per agent), Ctrl-] i the Signal Inspector,
/// Ctrl-] d detaches (the tasks keep running in the termic server: closing
/// the terminal does the same), Ctrl-] q quits (ending every task).
///
/// Examples:
///   termic                      the workspace in this directory
///   termic run claude           with Claude Code already running
///   termic attach               back to the tasks after a detach or a closed terminal
///   termic demo                 simulated agents, nothing of yours touched
///   termic hooks install --detected
///   termic config check
///
/// Exit codes: 0 the workspace was closed (or the command did what it was
/// asked), 1 error (the message says what failed, why, and what to do),
/// 2 usage (a wrong flag or argument). Some commands add their own: see
/// each command's --help.
#[derive(Debug, Parser)]
#[command(
    name = "termic",
    version,
    propagate_version = true,
    verbatim_doc_comment
)]
pub struct Cli {
    #[command(flatten)]
    pub workspace: workspace::WorkspaceArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
// A doc comment on a variant whose args struct has its own would replace
// the struct's long help (with its examples and exit codes) by one line:
// the help of `run`, `replay`, `demo` and `completions` lives on their
// structs.
pub enum Command {
    Run(run::RunArgs),
    /// Install, remove and check lifecycle hooks in agent configs.
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    Replay(replay::ReplayArgs),
    Demo(demo::DemoArgs),
    Completions(completions::CompletionsArgs),
    Attach(attach::AttachArgs),
    Ls(ls::LsArgs),
    Send(send::SendArgs),
    Kill(kill::KillArgs),
    Wait(wait::WaitArgs),
    /// Control the termic server that owns every task.
    #[command(
        subcommand,
        after_help = "Examples:\n  termic server stop\n\n\
Exit codes: 0 done (stop: the server and its tasks are gone, or none ran), 1 error."
    )]
    Server(server::ServerCommand),
    /// Where config.toml is, whether it loads, and every key it takes.
    #[command(subcommand)]
    Config(config::ConfigCommand),
}

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        None => workspace::run(cli.workspace),
        Some(Command::Run(args)) => run::run(cli.workspace, args),
        Some(Command::Hooks(cmd)) => hooks::run(cmd),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::Demo(args)) => demo::run(cli.workspace, args),
        Some(Command::Completions(args)) => completions::run(args),
        Some(Command::Attach(args)) => attach::run(&cli.workspace, args),
        Some(Command::Ls(args)) => ls::run(args),
        Some(Command::Send(args)) => send::run(args),
        Some(Command::Kill(args)) => kill::run(args),
        Some(Command::Wait(args)) => wait::run(args),
        Some(Command::Server(cmd)) => server::run(cli.workspace, cmd),
        Some(Command::Config(cmd)) => config::run(cmd),
    }
}
