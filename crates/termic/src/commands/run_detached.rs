//! `termic run --detach ...`: start the task in the server (starting the
//! server if none runs) and return; the task outlives this terminal.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use super::run::RunArgs;
use super::workspace::WorkspaceArgs;
use crate::app::services::Program;
use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::client::{self, Connected, Start};
use crate::server::protocol::{Request, Response, RunProgram, RunRequest};

pub fn run(ws: &WorkspaceArgs, args: RunArgs) -> Result<ExitCode> {
    let (cols, rows) = ratatui::crossterm::terminal::size().unwrap_or((120, 40));
    let request = run_request(ws, args, cols, rows)?;
    let paths = TermicPaths::from_env()?;
    let mut client = match client::connect(&paths, Start::IfNeeded)? {
        Some(Connected::Ready(client)) => client,
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        None => bail!("the termic server did not start"),
    };
    match client.request(&Request::Run(request))? {
        Response::Started(row) => {
            outln!(
                "Started task {} ({}), number {}.",
                row.name,
                row.agent,
                row.id
            )?;
            Ok(ExitCode::SUCCESS)
        }
        other => bail!("the termic server answered something else: {other:?}"),
    }
}

/// The server's request for `termic run ARGS` from this directory, with a
/// PTY of `cols` x `rows`, writing to this command's event log and
/// recording (`ws`), if any.
pub fn run_request(ws: &WorkspaceArgs, args: RunArgs, cols: u16, rows: u16) -> Result<RunRequest> {
    let (name, worktree) = (args.name.clone(), args.worktree);
    let (program, extra) = args.program()?;
    let program = match program {
        Program::Agent(id) => RunProgram::Agent { id, args: extra },
        Program::Command(argv) => RunProgram::Command { argv },
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Ok(RunRequest {
        program,
        name,
        worktree,
        cwd: cwd.to_string_lossy().into_owned(),
        path_var: std::env::var("PATH").unwrap_or_default(),
        cols,
        rows,
        env: crate::server::protocol::client_env(),
        outputs: ws.outputs(&cwd),
    })
}
