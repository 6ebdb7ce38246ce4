//! `termic diff TASK [--stat] [--json]`: what a task changed (issue 32).

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::paths::TermicPaths;
use crate::printed::{clean_line, out, outln};
use crate::review::model::{Changes, FileStatus, LineKind};
use crate::server::client;
use crate::server::protocol::{Request, Response};

/// Show what a task changed.
///
/// A task in a worktree: its branch from the commit it was cut from, and
/// what is not committed yet. A task in a plain directory of a git
/// repository: what changed since the task started (termic took a
/// snapshot of the tree then, so your own earlier edits are not counted).
/// Untracked files count; ignored ones do not. git runs as you (your
/// config), and nothing of yours (index, HEAD, branches, files) is written.
#[derive(Debug, Args)]
#[command(
    after_help = "With --json: an object with task, base (the commit or snapshot tree), kind (worktree or snapshot), \
stat {added, removed, files}, cut (the patch was longer than termic reads), and files: each with path, old_path, \
status (added, deleted, modified, renamed), binary, added, removed and hunks {header, old_start, new_start, \
lines: [{kind (context, added, removed, no_newline), old, new, text}]}.\n\n\
Examples:\n  termic diff review\n  termic diff far:review\n  termic diff 3 --stat\n  termic diff review --json | jq -r '.files[].path'\n\n\
Exit codes: 0 shown (also when nothing changed), 1 error (no such task, not a repository, the snapshot is gone, git failed)."
)]
pub struct DiffArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists);
    /// HOST:TASK for a task of a host in config.toml's [hosts] (git runs there).
    #[arg(add = super::complete::task())]
    pub task: String,
    /// Only the files and their counts, and the totals.
    #[arg(long)]
    pub stat: bool,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let (name, base, changes) = match super::remote_target(&paths, &args.task) {
        // A task of a host: its server reads the changes there.
        Some((host, task)) => crate::server::remote::with_host(
            &host,
            Some(super::run_detached::HOST_DEADLINE),
            move |r| {
                let base = r.request(&Request::Base { task: task.clone() })?;
                let base = base_of(base)?;
                match r.request(&Request::Changes { task })? {
                    Response::Changes(changes) => Ok((base.0, base.1, changes)),
                    other => Err(crate::server::protocol::unexpected("the host", &other)),
                }
            },
        )?,
        None => {
            let mut client = client::connect_running(&paths)?;
            let (name, base) = base_of(client.request(&Request::Base { task: args.task })?)?;
            let changes = crate::review::changes(&base)
                .map_err(|e| anyhow::anyhow!("task {}: {e}", clean_line(&name)))?;
            (name, base, changes)
        }
    };
    if args.json {
        let value = serde_json::json!({
            "task": name,
            "base": base.object,
            "kind": base.kind,
            "stat": changes.stat(),
            "cut": changes.cut,
            "files": if args.stat { serde_json::to_value(stat_only(&changes))? } else { serde_json::to_value(&changes.files)? },
        });
        outln!("{}", crate::printed::json_text(&value)?)?;
    } else if args.stat {
        out!("{}", stat_text(&changes))?;
    } else {
        out!("{}", patch_text(&changes))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The task's name and base from a `base` answer, or why it has none.
fn base_of(answer: Response) -> Result<(String, crate::review::ReviewBase)> {
    let (name, base, why) = match answer {
        Response::Base { name, base, why } => (name, base, why),
        other => {
            return Err(crate::server::protocol::unexpected(
                "the termic server",
                &other,
            ))
        }
    };
    let Some(base) = base else {
        bail!(
            "task {}: no changes to show: {}",
            clean_line(&name),
            why.unwrap_or_else(|| "it has no base".into())
        );
    };
    Ok((name, base))
}

/// The files without their hunks (for `--stat --json`).
fn stat_only(changes: &Changes) -> Vec<serde_json::Value> {
    changes
        .files
        .iter()
        .map(|f| {
            serde_json::json!({
                "path": f.path, "old_path": f.old_path, "status": f.status,
                "binary": f.binary, "added": f.added, "removed": f.removed,
            })
        })
        .collect()
}

/// `path | +3 -1` a file, then the totals (pure).
pub fn stat_text(changes: &Changes) -> String {
    let mut out = String::new();
    for f in &changes.files {
        let counts = if f.binary {
            "binary".to_owned()
        } else {
            format!("+{} -{}", f.added, f.removed)
        };
        out.push_str(&format!("{} | {counts}\n", file_label(f)));
    }
    out.push_str(&format!("{}\n", changes.stat()));
    if changes.cut {
        out.push_str("(the diff is cut: it is longer than termic reads)\n");
    }
    out
}

fn file_label(f: &crate::review::model::FileDiff) -> String {
    match (&f.old_path, f.status) {
        (Some(old), _) => format!("{} -> {}", clean_line(old), clean_line(&f.path)),
        (None, FileStatus::Added) => format!("{} (new)", clean_line(&f.path)),
        (None, FileStatus::Deleted) => format!("{} (deleted)", clean_line(&f.path)),
        (None, _) => clean_line(&f.path).into_owned(),
    }
}

/// A unified diff of the changes, each name and line cleaned (pure).
pub fn patch_text(changes: &Changes) -> String {
    let mut out = String::new();
    if changes.files.is_empty() {
        out.push_str("No changes.\n");
    }
    for f in &changes.files {
        let old = f.old_path.as_deref().unwrap_or(&f.path);
        let from = if f.status == FileStatus::Added {
            "/dev/null".to_owned()
        } else {
            format!("a/{}", clean_line(old))
        };
        let to = if f.status == FileStatus::Deleted {
            "/dev/null".to_owned()
        } else {
            format!("b/{}", clean_line(&f.path))
        };
        out.push_str(&format!("--- {from}\n+++ {to}\n"));
        if f.binary {
            out.push_str("Binary file changed\n");
        }
        for h in &f.hunks {
            out.push_str(&clean_line(&h.header));
            out.push('\n');
            for l in &h.lines {
                let mark = match l.kind {
                    LineKind::Added => "+",
                    LineKind::Removed => "-",
                    LineKind::Context => " ",
                    LineKind::NoNewline => "",
                };
                out.push_str(mark);
                out.push_str(&clean_line(&l.text));
                out.push('\n');
            }
        }
    }
    if changes.cut {
        out.push_str("(the diff is cut: it is longer than termic reads)\n");
    }
    out
}
