//! `termic restore [--json] [--list | --forget] [TASK...]`: start again the
//! tasks that ended with a server (see `server/restore.rs`).

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::client::{self, Connected, Start};
use crate::server::protocol::{Request, Response, RestoreAction, RestoreRequest, Restored};
use crate::server::remote;

/// Start again the tasks that ended with the termic server.
///
/// After a reboot, a crash, a kill of the server or `termic server stop`,
/// each task is started again in its directory, with its name and number
/// where free. An agent continues its own conversation through its own
/// resume option (every built-in agent but Antigravity); another starts
/// fresh, and this says so. A command task runs its command again; a shell task starts a shell.
/// A task on a host is that host's server's: --host restores it there.
#[derive(Debug, Args)]
#[command(
    after_help = "With --json: one array of objects with name, number, agent, cwd, command, session \
(the agent's conversation id, or null), resumed (true when it continues its conversation), note (why \
it starts fresh, or null), error (why it could not start, or null) and row (the task as `termic ls \
--json` shows it, or null).\n\n\
A task started on a host (termic run --host) is kept by that host's server, not this one: \
termic restore --host NAME lists and restores that host's tasks there.\n\n\
Examples:\n  termic restore\n  termic restore --list\n  termic restore review 3\n  termic restore --forget\n  \
termic restore --host far --list\n\n\
Exit codes: 0 done (also when there was nothing to restore), 1 error (a task could not start: \
its record stays for the next restore)."
)]
pub struct RestoreArgs {
    /// Only these tasks: their names, or the numbers they had. All by default.
    pub tasks: Vec<String>,
    /// List them, start nothing.
    #[arg(long, conflicts_with = "forget")]
    pub list: bool,
    /// Forget them: nothing is started and they are not offered again.
    #[arg(long)]
    pub forget: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// The tasks of a host of config.toml's [hosts] (`termic hosts ls`), restored there by its server.
    #[arg(long, value_name = "NAME", add = super::complete::host())]
    pub host: Option<String>,
}

pub fn run(args: RestoreArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let (cols, rows) = ratatui::crossterm::terminal::size().unwrap_or((120, 40));
    let action = match (args.list, args.forget) {
        (true, _) => RestoreAction::List,
        (_, true) => RestoreAction::Forget,
        _ => RestoreAction::Start,
    };
    let mut request = RestoreRequest {
        tasks: args.tasks,
        action,
        path_var: std::env::var("PATH").unwrap_or_default(),
        cols,
        rows,
        env: crate::server::protocol::client_env(),
        outputs: Default::default(),
    };
    let restored = if let Some(name) = &args.host {
        // The host's server restores its own tasks, with the host's PATH
        // and none of this machine's environment (as `run --host`).
        let config = crate::config::Config::load(&paths.config_dir)?;
        let host = remote::find_host(&config.hosts, name)?.clone();
        request.path_var = super::run_detached::REMOTE_PATH.to_owned();
        request.env = Vec::new();
        remote::with_host(
            &host,
            Some(super::run_detached::HOST_DEADLINE),
            move |r| match r.request(&Request::Restore(request))? {
                Response::Restored(restored) => Ok(restored),
                other => Err(crate::server::protocol::unexpected(
                    &format!("host {}", r.host),
                    &other,
                )),
            },
        )?
    } else {
        let mut client = match client::connect(&paths, Start::IfNeeded)? {
            Some(Connected::Ready(client)) => client,
            Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
            None => bail!("the termic server did not start"),
        };
        match client.request(&Request::Restore(request))? {
            Response::Restored(restored) => restored,
            other => {
                return Err(crate::server::protocol::unexpected(
                    "the termic server",
                    &other,
                ))
            }
        }
    };
    let failed = restored.iter().any(|r| r.error.is_some());
    if args.json {
        outln!("{}", crate::printed::json_text(&restored)?)?;
    } else {
        outln!("{}", describe(&restored, action))?;
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// What a person reads: one line per task.
pub fn describe(restored: &[Restored], action: RestoreAction) -> String {
    if restored.is_empty() {
        return "No task to restore.".into();
    }
    let lines: Vec<String> = restored
        .iter()
        .map(|r| {
            let number = r.row.as_ref().map(|row| row.id).or(r.number);
            let label = match number {
                Some(n) => format!("{n} {}", r.name),
                None => r.name.clone(),
            };
            match (action, &r.error) {
                (RestoreAction::List, _) => {
                    format!("{label}: {} (in {})", r.command, r.cwd)
                }
                (RestoreAction::Forget, _) => format!("Forgot {label}."),
                (RestoreAction::Start, Some(error)) => {
                    let end = if error.ends_with('.') { "" } else { "." };
                    format!("Could not restore {label}: {error}{end}")
                }
                (RestoreAction::Start, None) if r.resumed => {
                    format!("Restored {label} in {}, in its own conversation.", r.cwd)
                }
                (RestoreAction::Start, None) => match &r.note {
                    Some(note) => format!("Restored {label} in {}: {note}.", r.cwd),
                    None => format!("Restored {label} in {}.", r.cwd),
                },
            }
        })
        .collect();
    lines.join("\n")
}
