//! `termic send TASK TEXT [--enter]`: type into a task of the server.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::paths::TermicPaths;
use crate::server::protocol::Request;
use crate::server::{client, remote};

/// Type text into a task of the server.
///
/// The text is sent as keys, as is; --enter presses Enter after it.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  termic send review 'run the tests' --enter\n  termic send 3 y\n\n\
Exit codes: 0 typed, 1 error (no such task, an ambiguous name, the task has exited, no server)."
)]
pub struct SendArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists);
    /// HOST:TASK for a task of a host in config.toml's [hosts].
    #[arg(add = super::complete::task())]
    pub task: String,
    /// The text to type, sent as is.
    pub text: String,
    /// Press Enter after the text.
    #[arg(long)]
    pub enter: bool,
}

pub fn run(args: SendArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    if let Some((host, task)) = super::remote_target(&paths, &args.task) {
        let request = Request::Send {
            task,
            text: args.text,
            enter: args.enter,
        };
        remote::with_host(&host, Some(super::run_detached::HOST_DEADLINE), move |r| {
            r.request(&request)
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut client = client::connect_running(&paths)?;
    client.request(&Request::Send {
        task: args.task,
        text: args.text,
        enter: args.enter,
    })?;
    Ok(ExitCode::SUCCESS)
}
