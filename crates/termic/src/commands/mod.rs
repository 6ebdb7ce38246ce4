//! The CLI: one file per command, typed args whose doc comments are the help.

mod completions;
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
/// Ctrl-] q quits.
#[derive(Debug, Parser)]
#[command(name = "termic", version, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub workspace: workspace::WorkspaceArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the workspace with one task already running: an agent, or any command after --.
    Run(run::RunArgs),
    /// Install, remove and check lifecycle hooks in agent configs.
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    /// Replay a recording through the state engine and print the transitions.
    Replay(replay::ReplayArgs),
    /// Try termic with simulated agents in a throwaway HOME.
    Demo(demo::DemoArgs),
    /// Print shell completions.
    Completions(completions::CompletionsArgs),
    /// List the tasks of the termic server (started with `termic run --detach`).
    Ls(ls::LsArgs),
    /// Type text into a task of the server.
    Send(send::SendArgs),
    /// End a task of the server and its whole process tree.
    Kill(kill::KillArgs),
    /// Wait until a task of the server needs you, is done, or exited.
    Wait(wait::WaitArgs),
    /// Control the termic server that owns detached tasks.
    #[command(subcommand)]
    Server(server::ServerCommand),
}

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        None => workspace::run(cli.workspace),
        Some(Command::Run(args)) => run::run(cli.workspace, args),
        Some(Command::Hooks(cmd)) => hooks::run(cmd),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::Demo(args)) => demo::run(cli.workspace, args),
        Some(Command::Completions(args)) => completions::run(args),
        Some(Command::Ls(args)) => ls::run(args),
        Some(Command::Send(args)) => send::run(args),
        Some(Command::Kill(args)) => kill::run(args),
        Some(Command::Wait(args)) => wait::run(args),
        Some(Command::Server(cmd)) => server::run(cli.workspace, cmd),
    }
}
