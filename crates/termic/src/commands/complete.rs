//! Dynamic shell completion (`COMPLETE=bash termic`, or the script
//! `termic completions SHELL` prints): the values a shell offers for
//! TASK arguments (the running server's task numbers and names, asked
//! quietly: no server is started), for AGENT arguments (the built-in
//! agents and those in config.toml) and for `--host` (config.toml's
//! hosts; no host is asked).

use std::ffi::OsStr;

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};

use crate::paths::TermicPaths;
use crate::server::client;
use crate::server::protocol::TaskRow;

/// For a TASK argument.
pub fn task() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let Ok(paths) = TermicPaths::from_env() else {
            return Vec::new();
        };
        task_candidates(&client::peek_tasks(&paths), &current.to_string_lossy())
    })
}

/// For an AGENT argument.
pub fn agent() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let agents = match TermicPaths::from_env() {
            Ok(paths) => crate::config::Config::load_lenient(&paths.config_dir).agents,
            Err(_) => crate::agents::AgentRegistry::default(),
        };
        let ids: Vec<(String, String)> = agents
            .all()
            .iter()
            .map(|a| (a.id.clone(), a.program().to_owned()))
            .collect();
        named_candidates(&ids, &current.to_string_lossy())
    })
}

/// For a `--host` argument: the hosts of config.toml (no host is asked).
pub fn host() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let Ok(paths) = TermicPaths::from_env() else {
            return Vec::new();
        };
        let hosts: Vec<(String, String)> = crate::config::Config::load_lenient(&paths.config_dir)
            .hosts
            .into_iter()
            .map(|h| (h.name, h.destination))
            .collect();
        // The same shape as an agent's: a name and what it stands for.
        named_candidates(&hosts, &current.to_string_lossy())
    })
}

/// Numbers first (what the sidebar shows), then names; each with what it
/// is as help. A name a terminal could not show as typed (control
/// characters) is left out: its number is offered instead (pure).
pub fn task_candidates(rows: &[TaskRow], current: &str) -> Vec<CompletionCandidate> {
    let numbers = rows.iter().map(|row| {
        (
            row.id.to_string(),
            format!("{} ({})", printable(&row.name), row.state.replace('_', " ")),
        )
    });
    let names = rows
        .iter()
        .filter(|row| !row.name.chars().any(termic_signal::text::is_unprintable))
        .map(|row| (row.name.clone(), format!("task {}", row.id)));
    numbers
        .chain(names)
        .filter(|(value, _)| value.starts_with(current))
        .map(|(value, help)| CompletionCandidate::new(value).help(Some(help.into())))
        .collect()
}

/// Names starting with `current`, each with what it stands for as help
/// (an agent's program, a host's destination) (pure).
pub fn named_candidates(agents: &[(String, String)], current: &str) -> Vec<CompletionCandidate> {
    agents
        .iter()
        .filter(|(id, _)| id.starts_with(current))
        .map(|(id, program)| {
            CompletionCandidate::new(id.clone()).help(Some(printable(program).into()))
        })
        .collect()
}

fn printable(text: &str) -> String {
    termic_signal::text::clean_line(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, name: &str, state: &str) -> TaskRow {
        TaskRow {
            id,
            name: name.to_owned(),
            agent: String::new(),
            state: state.to_owned(),
            until: None,
            reason: None,
            since: 0,
            started: 0,
            cwd: String::new(),
            worktree: None,
            exit_code: None,
            attention: None,
            choices: Vec::new(),
            away: None,
        }
    }

    fn values(c: &[CompletionCandidate]) -> Vec<String> {
        c.iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn tasks_complete_by_number_then_name_with_what_each_is() {
        let rows = [row(1, "build", "working"), row(2, "bash", "needs_you")];
        let all = task_candidates(&rows, "");
        assert_eq!(values(&all), ["1", "2", "build", "bash"]);
        assert_eq!(all[1].get_help().unwrap().to_string(), "bash (needs you)");
        assert_eq!(all[2].get_help().unwrap().to_string(), "task 1");
        assert_eq!(values(&task_candidates(&rows, "b")), ["build", "bash"]);
        assert_eq!(values(&task_candidates(&rows, "bu")), ["build"]);
        assert_eq!(values(&task_candidates(&rows, "2")), ["2"]);
    }

    #[test]
    fn a_name_with_control_characters_is_offered_by_number_only() {
        let rows = [row(3, "x\x1b]0;pwned\x07y", "done")];
        let all = task_candidates(&rows, "");
        assert_eq!(values(&all), ["3"]);
        let help = all[0].get_help().unwrap().to_string();
        assert!(!help.contains('\x1b') && !help.contains('\x07'), "{help:?}");
    }

    #[test]
    fn names_complete_by_prefix_with_what_they_stand_for() {
        let agents = [
            ("claude".to_owned(), "claude".to_owned()),
            ("codex".to_owned(), "codex".to_owned()),
            ("mine".to_owned(), "/opt/x/bin/mine".to_owned()),
        ];
        assert_eq!(values(&named_candidates(&agents, "c")), ["claude", "codex"]);
        assert_eq!(
            named_candidates(&agents, "m")[0]
                .get_help()
                .unwrap()
                .to_string(),
            "/opt/x/bin/mine"
        );
    }
}
