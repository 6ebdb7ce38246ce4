//! `termic restore [--json] [--list | --forget] [TASK...]`: start again the
//! tasks that ended with a server (see `server/restore.rs`).

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::client::{self, Connected, Start};
use crate::server::protocol::{Request, Response, RestoreAction, RestoreRequest, Restored};

/// Start again the tasks that ended with the termic server.
///
/// After a reboot, a crash, a kill of the server or `termic server stop`,
/// each task is started again in its directory, with its name and number
/// where free. An agent continues its own conversation where it has a
/// resume option (Claude Code, Codex); another starts fresh, and this says
/// so. A command task runs its command again; a shell task starts a shell.
#[derive(Debug, Args)]
#[command(
    after_help = "With --json: one array of objects with name, number, agent, cwd, command, session \
(the agent's conversation id, or null), resumed (true when it continues its conversation), note (why \
it starts fresh, or null), error (why it could not start, or null) and row (the task as `termic ls \
--json` shows it, or null).\n\n\
Examples:\n  termic restore\n  termic restore --list\n  termic restore review 3\n  termic restore --forget\n\n\
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
}

pub fn run(args: RestoreArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let mut client = match client::connect(&paths, Start::IfNeeded)? {
        Some(Connected::Ready(client)) => client,
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        None => bail!("the termic server did not start"),
    };
    let (cols, rows) = ratatui::crossterm::terminal::size().unwrap_or((120, 40));
    let action = match (args.list, args.forget) {
        (true, _) => RestoreAction::List,
        (_, true) => RestoreAction::Forget,
        _ => RestoreAction::Start,
    };
    let restored = match client.request(&Request::Restore(RestoreRequest {
        tasks: args.tasks,
        action,
        path_var: std::env::var("PATH").unwrap_or_default(),
        cols,
        rows,
        env: crate::server::protocol::client_env(),
        outputs: Default::default(),
    }))? {
        Response::Restored(restored) => restored,
        _ => bail!("the termic server gave an answer this termic does not know"),
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
                    format!("Could not restore {label}: {error}.")
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
