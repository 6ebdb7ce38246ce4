//! `termic rename TASK NEW_NAME`: give a task of the server a new name.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::paths::TermicPaths;
use crate::printed::{errln, outln};
use crate::server::client;
use crate::server::protocol::{Request, Response};

/// Give a task of the server a new name.
///
/// The name is the server's: every attached sidebar shows it at once, and
/// `termic ls`, `send`, `kill`, `wait` and `attach` take it. Its number
/// does not change. Another task may have the same name (as in tmux); a
/// name two tasks have is refused as a TASK, so give their numbers then.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  termic rename 3 'build server'\n  termic rename review review-old\n\n\
Exit codes: 0 renamed, 1 error (no such task, an ambiguous name, an empty name, a name with \
control characters or over 60 characters, no server)."
)]
pub struct RenameArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists).
    #[arg(add = super::complete::task())]
    pub task: String,
    /// Its new name (spaces around it are trimmed).
    pub new_name: String,
}

pub fn run(args: RenameArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let mut client = client::connect_running(&paths)?;
    let row = match client.request(&Request::Rename {
        task: args.task,
        name: args.new_name,
    })? {
        Response::Renamed(row) => row,
        _ => bail!("the termic server gave an answer this termic does not know"),
    };
    outln!("Renamed task {} to {}.", row.id, row.name)?;
    // Allowed, as in tmux; a script is told before `send NAME` fails.
    let rows = match client.request(&Request::List)? {
        Response::Tasks(rows) => rows,
        _ => Vec::new(),
    };
    let same: Vec<String> = rows
        .iter()
        .filter(|r| r.name == row.name && r.id != row.id)
        .map(|r| r.id.to_string())
        .collect();
    if !same.is_empty() {
        errln!(
            "termic: task {} has that name too: give numbers to send, kill, wait and attach",
            same.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
