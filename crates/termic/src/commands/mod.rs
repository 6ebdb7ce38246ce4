//! The CLI: one file per command, typed args whose doc comments are the help.

mod answer;
mod attach;
mod attach_host;
mod complete;
mod completions;

pub use completions::COMPLETE_VAR;
mod config;
mod demo;
mod diff;
mod hooks;
mod hosts;
pub(crate) mod kill;
mod ls;
pub(crate) mod merge;
mod rename;
mod replay;
pub mod restore;
mod run;
pub(crate) mod run_detached;
mod send;
mod server;
mod wait;
mod wait_any;

mod web;
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
    Answer(answer::AnswerArgs),
    Rename(rename::RenameArgs),
    Restore(restore::RestoreArgs),
    Kill(kill::KillArgs),
    Wait(wait::WaitArgs),
    Diff(diff::DiffArgs),
    Merge(merge::MergeArgs),
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
    /// Remote machines reached with your own ssh: add one, list them.
    #[command(
        subcommand,
        after_help = "A host's tasks are TASK arguments as HOST:TASK (send, wait, kill); \
`termic run --host NAME` starts one there, `termic ls` lists them with a HOST column.\n\n\
Examples:\n  termic hosts add devbox me@devbox.example.com\n  termic hosts ls\n\n\
Exit codes: 0 done, 1 error."
    )]
    Hosts(hosts::HostsCommand),
    Web(web::WebArgs),
}

impl Cli {
    /// The workspace flags, given before the subcommand or after it, for
    /// the commands they act on (`termic`, `run`, `attach`, `demo`: the
    /// tasks each starts); $TERMIC_EVENT_LOG when no --event-log was given.
    /// Err: a usage error (the flags before a command they do nothing for,
    /// --record-input without --record).
    pub fn workspace_args(&mut self) -> Result<workspace::WorkspaceArgs, String> {
        self.workspace_args_with(std::env::var_os("TERMIC_EVENT_LOG"))
    }

    pub(crate) fn workspace_args_with(
        &mut self,
        env_log: Option<std::ffi::OsString>,
    ) -> Result<workspace::WorkspaceArgs, String> {
        let take = std::mem::take::<workspace::WorkspaceArgs>;
        let sub = match &mut self.command {
            None => workspace::WorkspaceArgs::default(),
            Some(Command::Run(a)) => take(&mut a.workspace),
            Some(Command::Attach(a)) => take(&mut a.workspace),
            Some(Command::Demo(a)) => take(&mut a.workspace),
            Some(_) if self.workspace.given() => {
                return Err(
                    "--event-log, --record and --record-input act on the workspace: \
                            give them to termic itself, or to run, attach or demo"
                        .to_string(),
                )
            }
            Some(_) => return Ok(workspace::WorkspaceArgs::default()),
        };
        take(&mut self.workspace).merge(sub, env_log)
    }
}

/// The host and task of a `HOST:TASK` argument whose HOST is in
/// config.toml's [hosts] (read leniently: a typo elsewhere in the file
/// does not stop a local verb); `None`: a local TASK.
pub(crate) fn remote_target(
    paths: &crate::paths::TermicPaths,
    arg: &str,
) -> Option<(crate::config::hosts::HostDef, String)> {
    if !arg.contains(':') {
        return None;
    }
    let hosts = crate::config::Config::load_lenient(&paths.config_dir).hosts;
    match crate::server::remote::parse_target(arg, &hosts) {
        crate::server::remote::Target::Remote { host, task } => {
            let host = hosts.into_iter().find(|h| h.name == host)?;
            Some((host, task))
        }
        crate::server::remote::Target::Local(_) => None,
    }
}

/// Exit code of a usage error (clap's).
const EXIT_USAGE: u8 = 2;

pub fn dispatch(mut cli: Cli) -> Result<ExitCode> {
    let ws = match cli.workspace_args() {
        Ok(ws) => ws,
        Err(msg) => {
            crate::printed::errln!("termic: {msg}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    match cli.command {
        None => workspace::run(ws),
        Some(Command::Run(args)) => run::run(ws, args),
        Some(Command::Hooks(cmd)) => hooks::run(cmd),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::Demo(args)) => demo::run(ws, args),
        Some(Command::Completions(args)) => completions::run(args),
        Some(Command::Attach(args)) => attach::run(&ws, args),
        Some(Command::Ls(args)) => ls::run(args),
        Some(Command::Send(args)) => send::run(args),
        Some(Command::Answer(args)) => answer::run(args),
        Some(Command::Rename(args)) => rename::run(args),
        Some(Command::Restore(args)) => restore::run(args),
        Some(Command::Kill(args)) => kill::run(args),
        Some(Command::Wait(args)) => wait::run(args),
        Some(Command::Diff(args)) => diff::run(args),
        Some(Command::Merge(args)) => merge::run(args),
        Some(Command::Server(cmd)) => server::run(cmd),
        Some(Command::Config(cmd)) => config::run(cmd),
        Some(Command::Hosts(cmd)) => hosts::run(cmd),
        Some(Command::Web(args)) => web::run(args),
    }
}
