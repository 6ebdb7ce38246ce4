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
use crate::server::remote;

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
        other => Err(crate::server::protocol::unexpected(
            "the termic server",
            &other,
        )),
    }
}

/// `termic run --host NAME ...`: the task starts in the host's server,
/// through ssh. The request carries none of this machine's environment,
/// directory or PATH (they are this machine's, and the environment may
/// hold secrets the host has no business with): the task gets the remote
/// server's environment, in `--cwd` or `/`.
pub fn run_on_host(ws: &WorkspaceArgs, args: RunArgs) -> Result<ExitCode> {
    if ws.given() {
        bail!("--event-log, --record and --record-input are files of this machine: they cannot be given with --host");
    }
    let paths = TermicPaths::from_env()?;
    let config = crate::config::Config::load(&paths.config_dir)?;
    let name = args.host.clone().unwrap_or_default();
    let host = remote::find_host(&config.hosts, &name)?.clone();
    let (cols, rows) = ratatui::crossterm::terminal::size().unwrap_or((120, 40));
    let request = remote_run_request(args, cols, rows)?;
    let row = remote::with_host(&host, Some(HOST_DEADLINE), move |r| {
        match r.request(&Request::Run(request))? {
            Response::Started(row) => Ok(row),
            other => Err(crate::server::protocol::unexpected(
                &format!("host {}", r.host),
                &other,
            )),
        }
    })?;
    outln!(
        "Started task {} ({}) on {}, number {}: {}:{}.",
        row.name,
        row.agent,
        host.name,
        row.id,
        host.name,
        row.id
    )?;
    Ok(ExitCode::SUCCESS)
}

/// How long a verb waits for a host's answer (ssh's connect timeout is
/// within it).
pub const HOST_DEADLINE: std::time::Duration = std::time::Duration::from_secs(20);

/// The PATH an agent is looked up in on a host: this machine's PATH
/// means nothing there, and the request has no way to say "the server's".
pub const REMOTE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The run request for a host (pure): no local env, cwd or PATH.
pub fn remote_run_request(args: RunArgs, cols: u16, rows: u16) -> Result<RunRequest> {
    let (name, worktree) = (args.name.clone(), args.worktree);
    let cwd = args.cwd.clone().unwrap_or_else(|| "/".to_owned());
    let (program, extra) = args.program()?;
    let program = match program {
        Program::Agent(id) => RunProgram::Agent { id, args: extra },
        Program::Command(argv) => RunProgram::Command { argv },
    };
    Ok(RunRequest {
        program,
        name,
        worktree,
        cwd,
        // Where the host's server looks for the agent; the task's own PATH
        // is the server's (the remote login's).
        path_var: REMOTE_PATH.to_owned(),
        cols,
        rows,
        env: Vec::new(),
        outputs: Default::default(),
    })
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
