//! `termic kill TASK`: end a task of the server, its whole process tree.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::protocol::{KilledWorktree, Request, Response};
use crate::server::{client, remote};

/// End a task of the server and its whole process tree.
#[derive(Debug, Args)]
#[command(
    after_help = "The task gets SIGHUP and SIGTERM, and SIGKILL after a grace period; \
the command returns once none of its processes is left, and the task is no longer listed.\n\n\
A task started with --worktree keeps its worktree and branch unless \
--remove-worktree is given; either way a line says what is left.\n\n\
Examples:\n  termic kill review\n  termic kill 3\n  termic kill review --remove-worktree\n\n\
Exit codes: 0 the task is gone (also when its worktree could not be removed: the line says why), \
1 error (no such task, an ambiguous name, no server)."
)]
pub struct KillArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists);
    /// HOST:TASK for a task of a host in config.toml's [hosts].
    #[arg(add = super::complete::task())]
    pub task: String,
    /// Also remove the task's git worktree (its branch is kept), as closing
    /// it in the workspace offers.
    #[arg(long)]
    pub remove_worktree: bool,
}

pub fn run(args: KillArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let response = if let Some((host, task)) = super::remote_target(&paths, &args.task) {
        let request = Request::Kill {
            task,
            remove_worktree: args.remove_worktree,
        };
        remote::with_host(&host, Some(super::run_detached::HOST_DEADLINE), move |r| {
            r.request(&request)
        })?
    } else {
        let mut client = client::connect_running(&paths)?;
        client.request(&Request::Kill {
            task: args.task,
            remove_worktree: args.remove_worktree,
        })?
    };
    if let Response::Killed {
        worktree: Some(worktree),
    } = response
    {
        outln!("{}", worktree_line(&worktree))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What became of a killed task's worktree, in one line.
pub(crate) fn worktree_line(w: &KilledWorktree) -> String {
    let path = w.path.display();
    let branch = w
        .branch
        .as_deref()
        .map(|b| format!("; its branch {b} is kept"))
        .unwrap_or_default();
    match (&w.error, w.removed) {
        (_, true) => format!("Removed its worktree {path}{branch}."),
        (Some(why), false) => format!("Kept its worktree {path}: {why}"),
        (None, false) => {
            format!("Kept its worktree {path}{branch}. To remove it: git worktree remove {path}")
        }
    }
}
