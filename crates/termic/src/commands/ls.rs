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
interrupted, error [: REASON], rate limited [until HH:MM], exited), for how long, directory, worktree.\n\
With --json: one array of objects with id (the number), name, agent, state, until (HH:MM, only \
when rate_limited and the agent named its reset), reason (only when error and its server named \
why: overloaded, server_error, auth_failed or api_error), since (Unix ms: when \
it entered that state), started (Unix ms), cwd, worktree, exit_code; a task that needs you \
also has attention (kind, message, from_output) and, when termic can answer it, choices (id, \
label: see termic answer). A task that did something while no client was attached has away: \
changes (state, at), more, stat (the diff stat of its last done, or null) and message (its agent's \
last message, where its hooks carry one).\n\n\
Examples:\n  termic ls\n  termic ls --json | jq -r '.[] | select(.state == \"needs_you\") | .name'\n\n\
Exit codes: 0 listed (also when there is no server), 1 error (a server of another version)."
)]
pub struct LsArgs {
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
    /// Only the tasks of this host of config.toml's [hosts] (asked through ssh).
    #[arg(long, value_name = "NAME", add = super::complete::host())]
    pub host: Option<String>,
}

/// A task row with the host it runs on (`None`: this machine), for
/// `ls --json` once hosts are configured.
#[derive(serde::Serialize)]
struct HostRow<'r> {
    host: Option<&'r str>,
    #[serde(flatten)]
    row: &'r TaskRow,
}

pub fn run(args: LsArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let hosts = crate::config::Config::load_lenient(&paths.config_dir).hosts;
    if args.host.is_some() || !hosts.is_empty() {
        return run_with_hosts(&paths, args, &hosts);
    }
    // No server is no task: listing never starts one.
    let rows = match client::connect(&paths, Start::Never)? {
        None => Vec::new(),
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        Some(Connected::Ready(mut client)) => match client.request(&Request::List)? {
            Response::Tasks(rows) => rows,
            other => {
                return Err(crate::server::protocol::unexpected(
                    "the termic server",
                    &other,
                ))
            }
        },
    };
    if args.json {
        outln!("{}", crate::printed::json_text(&rows)?)?;
    } else if rows.is_empty() {
        outln!(
            "No tasks. Start one with `termic run --detach AGENT` or `termic run --detach -- CMD`."
        )?;
    } else {
        let now = termic_runtime::clock::SystemClock::new();
        let now = termic_runtime::clock::Clock::wall_ms(&now);
        out!("{}", table(&rows, now))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `ls` once hosts are configured (or `--host`): this machine's tasks
/// first, then each host's, every host asked at once and each within
/// HOST_DEADLINE; a host that fails is one line saying so (on stderr with
/// --json), never the failure of the whole command.
fn run_with_hosts(
    paths: &TermicPaths,
    args: LsArgs,
    hosts: &[crate::config::hosts::HostDef],
) -> Result<ExitCode> {
    use crate::server::remote;
    let asked: Vec<crate::config::hosts::HostDef> = match &args.host {
        Some(name) => vec![remote::find_host(hosts, name)?.clone()],
        None => hosts.to_vec(),
    };
    let asks: Vec<_> = asked
        .into_iter()
        .map(|h| {
            std::thread::spawn(move || {
                // `subscribe` (then the connection is dropped), not
                // `list`: its answer has the host's clock, so the ages are
                // the host's whatever the skew between the two clocks.
                let rows = remote::with_host(&h, Some(super::run_detached::HOST_DEADLINE), |r| {
                    match r.request(&Request::Subscribe)? {
                        Response::Subscribed { now, tasks } => Ok((tasks, skew_from(now))),
                        other => Err(crate::server::protocol::unexpected(
                            &format!("host {}", r.host),
                            &other,
                        )),
                    }
                });
                (h.name, rows)
            })
        })
        .collect();
    let mut listed: Vec<(Option<String>, Vec<TaskRow>, i64)> = Vec::new();
    if args.host.is_none() {
        let rows = match client::connect(paths, Start::Never)? {
            None => Vec::new(),
            Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
            Some(Connected::Ready(mut client)) => match client.request(&Request::List)? {
                Response::Tasks(rows) => rows,
                other => {
                    return Err(crate::server::protocol::unexpected(
                        "the termic server",
                        &other,
                    ))
                }
            },
        };
        listed.push((None, rows, 0));
    }
    let mut failed: Vec<(String, String)> = Vec::new();
    for ask in asks {
        let Ok((name, rows)) = ask.join() else {
            continue;
        };
        match rows {
            Ok((rows, skew)) => listed.push((Some(name), rows, skew)),
            Err(e) => failed.push((name, crate::printed::error_text(&e))),
        }
    }
    if args.json {
        let rows: Vec<HostRow<'_>> = listed
            .iter()
            .flat_map(|(host, rows, _)| {
                rows.iter().map(move |row| HostRow {
                    host: host.as_deref(),
                    row,
                })
            })
            .collect();
        outln!("{}", crate::printed::json_text(&rows)?)?;
        for (_, why) in &failed {
            crate::printed::errln!("termic: {why}");
        }
    } else {
        let now = termic_runtime::clock::SystemClock::new();
        let now = termic_runtime::clock::Clock::wall_ms(&now);
        out!("{}", host_table(&listed, &failed, now))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A host's clock (`remote_now`, Unix ms) minus this machine's now.
fn skew_from(remote_now: u64) -> i64 {
    let local = termic_runtime::clock::SystemClock::new();
    let local = termic_runtime::clock::Clock::wall_ms(&local);
    (remote_now as i128 - local as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// The table with a HOST column (pure): `local` for this machine's
/// tasks, then each host's, each with its clock's skew from this one
/// (ms, 0 for local: a row's age is by its own host's clock); a host that
/// did not answer is one line with the reason. Every remote text (name,
/// agent, state, directory, the reason) is cleaned to one line.
pub fn host_table(
    listed: &[(Option<String>, Vec<TaskRow>, i64)],
    failed: &[(String, String)],
    now_ms: u64,
) -> String {
    let cell = |text: &str| clean_line(text).into_owned();
    let mut cells: Vec<Vec<String>> = vec![[
        "HOST", "#", "NAME", "AGENT", "STATE", "SINCE", "CWD", "WORKTREE",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()];
    for (host, rows, skew) in listed {
        let host = host.as_deref().unwrap_or("local");
        let host_now = now_ms.saturating_add_signed(*skew);
        if rows.is_empty() {
            let mut row = vec![host.to_owned(), "-".into(), "(no tasks)".into()];
            row.resize(8, String::new());
            cells.push(row);
        }
        for r in rows {
            cells.push(vec![
                host.to_owned(),
                r.id.to_string(),
                cell(&r.name),
                cell(&r.agent),
                cell(&state_cell(r)),
                ago(host_now.saturating_sub(r.since)),
                cell(&r.cwd),
                r.worktree.as_deref().map_or_else(|| "-".into(), cell),
            ]);
        }
    }
    let mut out = aligned(&cells);
    for (host, why) in failed {
        let why = cell(why);
        let why = why.strip_prefix(&format!("host {host}: ")).unwrap_or(&why);
        out.push_str(&format!("{host}: unreachable: {why}\n"));
    }
    out
}

/// A row's state as the table shows it: `needs you`, `rate limited until
/// 15:00`, `error: auth failed` (pure; the caller cleans it). An error's
/// reason is shown by its label, only when it is one this termic knows.
fn state_cell(r: &TaskRow) -> String {
    let state = r.state.replace('_', " ");
    match (r.state.as_str(), r.until.as_deref(), r.stop_reason()) {
        ("rate_limited", Some(until), _) => format!("{state} until {until}"),
        ("error", _, Some(reason)) => format!("{state}: {}", reason.label()),
        _ => state,
    }
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
            cell(&state_cell(r)),
            ago(now_ms.saturating_sub(r.since)),
            cell(&r.cwd),
            r.worktree.as_deref().map_or_else(|| "-".into(), cell),
        ]);
    }
    aligned(&cells)
}

/// Rows as columns two spaces apart, each as wide as its widest cell, and
/// no trailing blanks (pure).
pub(crate) fn aligned<R: AsRef<[String]>>(rows: &[R]) -> String {
    let columns = rows.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.as_ref().get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .as_ref()
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
            until: None,
            reason: None,
            since: 1_000,
            started: 0,
            cwd: "/src/app".into(),
            worktree: None,
            exit_code: None,
            attention: None,
            choices: Vec::new(),
            away: None,
        };
        let t = table(&[row], 1_000 + 125_000);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("#  NAME    AGENT   STATE"), "{t}");
        assert!(
            lines[1].starts_with("7  review  claude  needs you  2m"),
            "{t}"
        );
        assert!(lines[1].ends_with("/src/app  -"), "{t}");
        let limited = TaskRow {
            until: Some("15:00".into()),
            ..TaskRow::for_test(8, "fix", "claude", "rate_limited")
        };
        let t = table(&[limited], 125_000);
        assert!(
            t.lines()
                .nth(1)
                .unwrap()
                .contains("rate limited until 15:00"),
            "{t}"
        );
        assert_eq!(ago(59_999), "59s");
        assert_eq!(ago(2 * 86_400_000), "2d");
    }

    /// Remote text is data: a hostile name, agent, state and reason are
    /// one clean line each; an empty host is a row; a failed one a line.
    #[test]
    fn the_host_table_cleans_remote_text() {
        let row = TaskRow {
            id: 3,
            name: "evil\x1b]0;pwned\x07\x1b[31mred\nline".into(),
            agent: "sh\x1b[2J".into(),
            state: "working\u{9b}".into(),
            until: None,
            reason: None,
            since: 0,
            started: 0,
            cwd: "/\u{202e}x".into(),
            worktree: None,
            exit_code: None,
            attention: None,
            choices: Vec::new(),
            away: None,
        };
        let t = host_table(
            &[(None, vec![], 0), (Some("far".into()), vec![row], 0)],
            &[(
                "gone".into(),
                "host gone: cannot reach it: \x1b[5mConnection refused".into(),
            )],
            1_000,
        );
        assert!(!t.chars().any(|c| c.is_control() && c != '\n'), "{t:?}");
        assert!(!t.contains('\u{202e}'), "{t:?}");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].starts_with("HOST   #"), "{t}");
        assert!(lines[1].starts_with("local  -  (no tasks)"), "{t}");
        assert!(lines[2].starts_with("far    3  evil"), "{t}");
        assert!(
            lines[3].starts_with("gone: unreachable: cannot reach it:"),
            "{t}"
        );
        // An error's reason (protocol 10) is its label, and one this
        // termic does not know is never printed: a plain error.
        // As the host's answer gives them: rows read off the wire.
        let error = |id: u64, reason: &str| -> TaskRow {
            let mut v =
                serde_json::to_value(TaskRow::for_test(id, "fix", "claude", "error")).unwrap();
            v["reason"] = serde_json::Value::from(reason);
            serde_json::from_value(v).unwrap()
        };
        let t = host_table(
            &[(
                Some("far".into()),
                vec![error(1, "auth_failed"), error(2, "\x1b[2Jpwned")],
                0,
            )],
            &[],
            1_000,
        );
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[1].contains("  error: auth failed  "), "{t}");
        assert!(lines[2].contains("  error  "), "{t}");
        assert!(!t.contains("pwned") && !t.contains("auth_failed"), "{t}");
    }

    /// A host whose clock is an hour ahead (or behind) shows the age its
    /// own clock says: 12 s, not an hour and 12 s (or 0).
    #[test]
    fn a_hosts_ages_come_from_its_own_clock() {
        let local_now = 1_800_000_000_000u64;
        for skew in [3_600_000i64, -3_600_000, 0] {
            let host_now = local_now.saturating_add_signed(skew);
            let row = TaskRow {
                since: host_now - 12_000,
                ..TaskRow::for_test(1, "build", "claude", "working")
            };
            let t = host_table(&[(Some("far".into()), vec![row], skew)], &[], local_now);
            let line = t.lines().nth(1).unwrap();
            assert!(line.contains(" 12s "), "skew {skew}: {t}");
        }
    }
}
