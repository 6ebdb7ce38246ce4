//! `termic ls [--json]`: the server's tasks.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::paths::TermicPaths;
use crate::printed::{clean_line, out, outln};
use crate::server::client::{self, Connected, Start};
use crate::server::protocol::{Request, Response, TaskRow};

/// List the tasks of the termic server (started with `termic run --detach`).
///
/// Lists nothing, and starts no server, when no server is running.
#[derive(Debug, Args)]
#[command(
    after_help = "Columns: number (the one the sidebar shows and every verb takes), name, agent, state (idle, working, needs_you, done, \
interrupted, exited), for how long, directory, worktree.\n\
With --json: one array of objects with id (the number), name, agent, state, since (Unix ms), \
started (Unix ms), cwd, worktree, exit_code.\n\n\
Examples:\n  termic ls\n  termic ls --json | jq -r '.[] | select(.state == \"needs_you\") | .name'\n\n\
Exit codes: 0 listed (also when there is no server), 1 error (a server of another version)."
)]
pub struct LsArgs {
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: LsArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    // No server is no task: listing never starts one.
    let rows = match client::connect(&paths, Start::Never)? {
        None => Vec::new(),
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        Some(Connected::Ready(mut client)) => match client.request(&Request::List)? {
            Response::Tasks(rows) => rows,
            other => bail!("the termic server answered something else: {other:?}"),
        },
    };
    if args.json {
        outln!("{}", crate::printed::json_text(&rows)?)?;
    } else if rows.is_empty() {
        outln!(
            "No tasks. Start one with `termic run --detach AGENT` or `termic run --detach -- CMD`."
        )?;
    } else {
        let now = crate::clock::SystemClock::new();
        let now = crate::clock::Clock::wall_ms(&now);
        out!("{}", table(&rows, now))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The human table (pure).
pub fn table(rows: &[TaskRow], now_ms: u64) -> String {
    let mut cells = vec![[
        "#".to_owned(),
        "NAME".into(),
        "AGENT".into(),
        "STATE".into(),
        "SINCE".into(),
        "CWD".into(),
        "WORKTREE".into(),
    ]];
    // One row a line: a name or directory holding a newline or a tab
    // would break the table (the write cleans the rest anyway).
    let cell = |text: &str| clean_line(text).into_owned();
    for r in rows {
        cells.push([
            r.id.to_string(),
            cell(&r.name),
            cell(&r.agent),
            r.state.replace('_', " "),
            ago(now_ms.saturating_sub(r.since)),
            cell(&r.cwd),
            r.worktree.as_deref().map_or_else(|| "-".into(), cell),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| {
            cells
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &cells {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `45s`, `12m`, `3h`, `2d` (pure).
pub fn ago(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_aligns_and_says_how_long() {
        let row = TaskRow {
            id: 7,
            name: "review".into(),
            agent: "claude".into(),
            state: "needs_you".into(),
            since: 1_000,
            started: 0,
            cwd: "/src/app".into(),
            worktree: None,
            exit_code: None,
        };
        let t = table(&[row], 1_000 + 125_000);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("#  NAME    AGENT   STATE"), "{t}");
        assert!(
            lines[1].starts_with("7  review  claude  needs you  2m"),
            "{t}"
        );
        assert!(lines[1].ends_with("/src/app  -"), "{t}");
        assert_eq!(ago(59_999), "59s");
        assert_eq!(ago(2 * 86_400_000), "2d");
    }
}
