//! `termic kill TASK`: end a task of the server, its whole process tree.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::paths::TermicPaths;
use crate::server::client;
use crate::server::protocol::Request;

/// End a task of the server and its whole process tree.
#[derive(Debug, Args)]
#[command(
    after_help = "The task gets SIGHUP and SIGTERM, and SIGKILL after a grace period; \
the command returns once none of its processes is left, and the task is no longer listed.\n\n\
Examples:\n  termic kill review\n  termic kill 3\n\n\
Exit codes: 0 the task is gone, 1 error (no such task, an ambiguous name, no server)."
)]
pub struct KillArgs {
    /// The task: its name, or its id from `termic ls`.
    pub task: String,
}

pub fn run(args: KillArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let mut client = client::connect_running(&paths)?;
    client.request(&Request::Kill { task: args.task })?;
    Ok(ExitCode::SUCCESS)
}
