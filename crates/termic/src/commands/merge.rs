//! `termic merge TASK [--how ff|rebase|squash|pr] [--into BRANCH]
//! [--remove]`: a worktree task's branch into the branch it was cut from
//! (issue 32).

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;
use termic_review::merge::{self, How, Merged};

use crate::paths::TermicPaths;
use crate::printed::{clean_line, outln};
use crate::server::client;
use crate::server::protocol::{Request, Response};

/// Merge a worktree task's branch into the branch it was cut from.
///
/// Only the task's commits merge: what it has not committed stays in its
/// worktree (see it with `termic diff TASK`). The merge runs in the
/// checkout of the base branch (your repository), with your git and its
/// config and hooks; the task's worktree is not written. A base with
/// uncommitted changes is refused, and a conflict is undone: either way
/// every file is left as it was, and the message says what to do.
/// Nothing merges while the task is working or needs you.
#[derive(Debug, Args)]
#[command(
    after_help = "How (--how, or [review] merge in config.toml, default ff):\n  \
ff      fast-forward only: the base gets the task's commits as they are; refused when the base moved on\n  \
rebase  the task's commits replayed on the base, in a line (the task's branch is left as it was)\n  \
squash  all of the task's commits as one new commit on the base\n  \
pr      push the branch (when there is an origin) and open a pull request with gh (install gh first)\n\n\
--remove: after the merge, remove the task's worktree and its termic/ branch (only once the task \
has exited, its agent quit; a worktree with uncommitted changes is kept). A branch already on the base \
(merged with ff before) is only removed.\n\n\
HOST:TASK: the host's termic merges there, with its git and (without --how) its [review] merge; \
--remove then removes the worktree and branch there and closes the task, once its agent is done or has exited.\n\n\
Examples:\n  termic merge review\n  termic merge 3 --how squash --remove\n  termic merge review --how pr\n  \
termic merge review --into develop\n  termic merge far:review --remove\n\n\
Exit codes: 0 merged (or the pull request opened), 1 nothing merged: the message says why (the task is \
busy, not in a worktree, made no commit, the base is dirty or moved on, a conflict) and what to do."
)]
pub struct MergeArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists);
    /// HOST:TASK for a task of a host in config.toml's [hosts] (it merges there).
    #[arg(add = super::complete::task())]
    pub task: String,
    /// How to merge: ff, rebase, squash or pr (default: [review] merge in config.toml, else ff).
    #[arg(long, value_name = "HOW", value_parser = ["ff", "rebase", "squash", "pr"])]
    pub how: Option<String>,
    /// The branch to merge into (default: the branch checked out in the
    /// repository's main worktree, where the task's worktree was cut from).
    #[arg(long, value_name = "BRANCH")]
    pub into: Option<String>,
    /// Then remove the task's worktree and its branch (the task must have exited).
    #[arg(long)]
    pub remove: bool,
}

/// Why a task in this state does not merge, or `None` (pure).
pub fn busy_reason(state: &str) -> Option<&'static str> {
    match state {
        "working" => {
            Some("it is working and may still commit: wait for it (termic wait TASK), then merge")
        }
        "needs_you" => Some("it needs you: answer it, let it finish, then merge"),
        _ => None,
    }
}

/// The commit message of a squash or rebase merge of task `name`.
pub fn message(name: &str) -> String {
    format!("{name}: the changes of termic task {name}")
}

pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    if let Some((host, task)) = super::remote_target(&paths, &args.task) {
        return run_on_host(host, task, args);
    }
    let mut client = client::connect_running(&paths)?;
    let (name, base, why) = match client.request(&Request::Base {
        task: args.task.clone(),
    })? {
        Response::Base { name, base, why } => (name, base, why),
        Response::Error { message } => bail!("{message}"),
        other => {
            return Err(crate::server::protocol::unexpected(
                "the termic server",
                &other,
            ))
        }
    };
    let shown = clean_line(&name).into_owned();
    let Some(base) = base else {
        bail!(
            "task {shown}: nothing to merge: {}",
            why.unwrap_or_else(|| "it has no base".into())
        );
    };
    let rows = match client.request(&Request::List)? {
        Response::Tasks(rows) => rows,
        other => {
            return Err(crate::server::protocol::unexpected(
                "the termic server",
                &other,
            ))
        }
    };
    let state = rows
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.state.clone())
        .unwrap_or_default();
    if let Some(reason) = busy_reason(&state) {
        bail!(
            "task {shown} was not merged: {}",
            reason.replace("TASK", &shown)
        );
    }
    let how = match args.how.as_deref() {
        Some(h) => How::parse(h).expect("clap checked it"),
        None => {
            crate::config::Config::load_lenient(&paths.config_dir)
                .settings
                .review_merge
        }
    };
    let plan = merge::plan(&base, args.into.as_deref())
        .map_err(|e| anyhow::anyhow!("task {shown} was not merged: {e}"))?;
    let message = message(&shown);
    // Already merged (by a fast-forward): --remove alone removes.
    let already = plan.commits == 0 && args.remove && how != How::Pr;
    let done = if already {
        outln!(
            "Nothing to merge: {} is already on {}.",
            clean_line(&plan.branch),
            clean_line(&plan.into)
        )?;
        None
    } else {
        Some(
            merge::merge(&plan, how, &message)
                .map_err(|e| anyhow::anyhow!("task {shown} was not merged: {e}"))?,
        )
    };
    if let Some(done) = &done {
        outln!("{}", merged_line(done, how))?;
    }
    let wt = plan.worktree.display().to_string();
    let remove_hint = format!(
        "git worktree remove {} && git branch -D {}",
        shell_words::quote(&wt),
        shell_words::quote(&plan.branch)
    );
    if !args.remove {
        if matches!(done, Some(Merged::Merged { .. })) {
            outln!(
                "To remove its worktree and branch: {}",
                clean_line(&remove_hint)
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if matches!(done, Some(Merged::PullRequest { .. })) {
        outln!("Kept the worktree and branch: the pull request needs the branch.")?;
        return Ok(ExitCode::SUCCESS);
    }
    if state != "exited" {
        outln!(
            "Kept the worktree: task {shown} still runs in it. Quit its agent, or close the task, then: {}",
            clean_line(&remove_hint)
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let repo = plan
        .checkout
        .clone()
        .unwrap_or_else(|| plan.worktree.clone());
    crate::worktree::remove_merged(&repo, &plan.worktree, &plan.branch)
        .map_err(|e| anyhow::anyhow!("merged, but {e}"))?;
    outln!(
        "Removed the worktree {} and the branch {}.",
        clean_line(&wt),
        clean_line(&plan.branch)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What a merge did, as the CLI says it (pure; names cleaned).
fn merged_line(done: &Merged, how: How) -> String {
    match done {
        Merged::Merged {
            branch,
            into,
            commits,
            head,
        } => {
            let s = if *commits == 1 { "" } else { "s" };
            let short: String = head.chars().take(12).collect();
            format!(
                "Merged {} into {} ({how}, {commits} commit{s}): {} is now at {short}.",
                clean_line(branch),
                clean_line(into),
                clean_line(into),
                how = how.as_str(),
            )
        }
        Merged::PullRequest { branch, into, url } => format!(
            "Opened a pull request of {} into {}: {}",
            clean_line(branch),
            clean_line(into),
            clean_line(url)
        ),
    }
}

/// `termic merge HOST:TASK`: the host's server merges there (protocol
/// 9), with its git and, without --how, its `[review] merge`; --remove
/// then has it remove the worktree and branch and close the task (once
/// its agent is done or has exited).
fn run_on_host(
    host: crate::config::hosts::HostDef,
    task: String,
    args: MergeArgs,
) -> Result<ExitCode> {
    let remove = args.remove;
    let (merged, how, removed) = crate::server::remote::with_host(
        &host,
        Some(super::run_detached::HOST_DEADLINE),
        move |r| {
            let request = Request::Merge {
                task: task.clone(),
                how: args.how,
                into: args.into,
            };
            let (merged, how) = match r.request(&request)? {
                Response::Merged { merged, how, .. } => (merged, how),
                other => return Err(crate::server::protocol::unexpected("the host", &other)),
            };
            let removed = match remove && matches!(merged, Merged::Merged { .. }) {
                true => Some(r.request(&Request::RemoveMerged { task })),
                false => None,
            };
            Ok((merged, how, removed))
        },
    )?;
    let how = How::parse(&how).unwrap_or(How::Ff);
    outln!("{}", merged_line(&merged, how))?;
    match removed {
        Some(Ok(Response::Killed { worktree: Some(w) })) => {
            outln!(
                "Closed the task and removed the worktree {} and the branch {}.",
                clean_line(&w.path.to_string_lossy()),
                clean_line(w.branch.as_deref().unwrap_or_default())
            )?;
            if let Some(e) = w.error {
                bail!("merged, but {}", clean_line(&e));
            }
        }
        Some(Ok(other)) => return Err(crate::server::protocol::unexpected("the host", &other)),
        Some(Err(e)) => bail!("merged, but not removed: {e}"),
        None if remove => {
            outln!("Kept the worktree and branch: the pull request needs the branch.")?;
        }
        None => {}
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_task_in_a_turn_is_busy() {
        assert!(busy_reason("working").unwrap().contains("wait"));
        assert!(busy_reason("needs_you").unwrap().contains("answer"));
        for s in ["idle", "done", "interrupted", "error", "exited", ""] {
            assert_eq!(busy_reason(s), None, "{s}");
        }
    }
}
