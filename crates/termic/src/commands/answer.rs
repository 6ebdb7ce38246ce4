//! `termic answer TASK [CHOICE]`: what a task that needs you is asked and
//! the choices its agent's dialog offers; with CHOICE, answer with it.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use crate::config::hosts::HostDef;
use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::protocol::{Answered, Request, Response, TaskRow};
use crate::server::{client, remote, resolve};

/// The choice's keys were sent.
pub const EXIT_SENT: u8 = 0;
/// Nothing was sent: the dialog changed, or the task no longer needs you.
pub const EXIT_NOT_SENT: u8 = 3;

/// Answer a task that needs you, with one of the choices its dialog offers.
///
/// Without CHOICE: what the task is asked and its choices. With CHOICE:
/// termic types that choice's keys into the task, but only if the task
/// still needs you and its screen still shows that choice; otherwise it
/// sends nothing and says why.
#[derive(Debug, Args)]
#[command(
    after_help = "Choices are offered when the agent itself said it waits (its hooks or its \
own status) and termic knows that agent's dialog. Otherwise answer on the task's screen: \
termic attach TASK.\n\n\
Choices: approve_once, approve_always, deny for a permission; option_1, option_2 ... for a \
question's or a plan's options (what the dialog shows now). \
`termic ls --json` shows them too (attention, choices).\n\n\
Examples:\n  termic answer 3\n  termic answer review approve_once\n  termic answer devbox:2 deny\n\n\
Exit codes: 0 listed, or the answer was sent; 3 nothing was sent (the screen changed, or the \
task no longer needs you), or only the first step of a two-step answer; 1 error (no such task \
or choice, no server)."
)]
pub struct AnswerArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists);
    /// HOST:TASK for a task of a host in config.toml's [hosts].
    #[arg(add = super::complete::task())]
    pub task: String,
    /// The choice to answer with, as `termic answer TASK` lists it.
    pub choice: Option<String>,
}

pub fn run(args: AnswerArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let remote = super::remote_target(&paths, &args.task);
    let task = match &remote {
        Some((_, task)) => task.clone(),
        None => args.task.clone(),
    };
    let request = match &args.choice {
        Some(choice) => Request::Answer {
            task: task.clone(),
            choice: choice.clone(),
        },
        None => Request::List,
    };
    let response = match remote {
        Some((host, _)) => on_host(&host, request)?,
        None => client::connect_running(&paths)?.request(&request)?,
    };
    match response {
        Response::Tasks(rows) => {
            let number = resolve::resolve(&task, &rows).map_err(|e| anyhow::anyhow!(e))?;
            let Some(row) = rows.iter().find(|r| r.id == number) else {
                bail!("that task is gone (it was closed)");
            };
            outln!("{}", describe(row, &args.task))?;
            Ok(ExitCode::from(EXIT_SENT))
        }
        Response::Answered(answered) => {
            let choice = args.choice.unwrap_or_default();
            let (code, text) = match answered {
                Answered::Sent => (EXIT_SENT, format!("sent {choice}")),
                Answered::ScreenChanged => (
                    EXIT_NOT_SENT,
                    format!(
                        "the screen changed, nothing was sent: `termic answer {}` shows what \
                         it asks now",
                        args.task
                    ),
                ),
                Answered::NotNeeded => (
                    EXIT_NOT_SENT,
                    "the task no longer needs you, nothing was sent".to_string(),
                ),
                Answered::PartlySent => (
                    EXIT_NOT_SENT,
                    format!(
                        "sent the first step of {choice}, but the agent's confirmation did not \
                         show as expected, so nothing more was sent: answer it on the task's \
                         screen (termic attach {})",
                        args.task
                    ),
                ),
                Answered::UnknownChoice => bail!(
                    "{choice} is not a choice this task offers: `termic answer {}` lists them",
                    args.task
                ),
            };
            outln!("{text}")?;
            Ok(ExitCode::from(code))
        }
        other => Err(crate::server::protocol::unexpected(
            "the termic server",
            &other,
        )),
    }
}

/// Ask `host`'s server (over ssh, as every HOST:TASK verb does): what
/// `termic answer HOST:TASK [CHOICE]` and the web page's answer to a
/// remote task both send.
pub(crate) fn on_host(host: &HostDef, request: Request) -> Result<Response> {
    remote::with_host(host, Some(super::run_detached::HOST_DEADLINE), move |r| {
        r.request(&request)
    })
}

/// The web page's answer to task `task` of host `host` (a name in
/// config.toml's [hosts]), as `termic answer HOST:TASK CHOICE` sends it.
pub(crate) fn answer_on_host(
    paths: &TermicPaths,
    host: &str,
    task: &str,
    choice: &str,
) -> Result<Response> {
    let hosts = crate::config::Config::load_lenient(&paths.config_dir).hosts;
    let host = remote::find_host(&hosts, host)?;
    on_host(
        host,
        Request::Answer {
            task: task.to_owned(),
            choice: choice.to_owned(),
        },
    )
}

/// What `termic answer TASK` prints for a task (pure): what it is asked
/// and each choice, or why there is nothing to choose. `arg` is the TASK
/// as given, for the commands it suggests.
pub fn describe(row: &TaskRow, arg: &str) -> String {
    let Some(attention) = &row.attention else {
        let state = row.state.replace('_', " ");
        return format!("{} does not need you (it is {state})", row.name);
    };
    let mut out = format!("{} needs you: {}", row.name, attention.kind);
    if let Some(message) = &attention.message {
        out.push_str(": ");
        out.push_str(message);
        if attention.from_output {
            out.push_str(" (from its output)");
        }
    }
    if row.choices.is_empty() {
        out.push_str(&format!(
            "\ntermic cannot answer it for you: answer on its screen (termic attach {arg})"
        ));
        return out;
    }
    let width = row.choices.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for choice in &row.choices {
        out.push_str(&format!("\n  {:<width$}  {}", choice.id, choice.label));
    }
    out.push_str(&format!("\nAnswer: termic answer {arg} CHOICE"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::protocol::{Choice, RowAttention};

    fn row(attention: Option<RowAttention>, choices: &[(&str, &str)]) -> TaskRow {
        TaskRow {
            id: 3,
            name: "login".into(),
            agent: "claude".into(),
            state: "needs_you".into(),
            until: None,
            reason: None,
            since: 0,
            started: 0,
            cwd: "/".into(),
            worktree: None,
            exit_code: None,
            attention: attention.map(Box::new),
            choices: choices
                .iter()
                .map(|(id, label)| Choice {
                    id: (*id).into(),
                    label: (*label).into(),
                })
                .collect(),
            away: None,
        }
    }

    #[test]
    fn the_listing_says_what_is_asked_and_each_choice() {
        let asked = Some(RowAttention {
            kind: "permission".into(),
            message: Some("approve Write: src/login.rs".into()),
            from_output: false,
        });
        let text = describe(&row(asked, &[("approve_once", "Yes"), ("deny", "No")]), "3");
        assert_eq!(
            text,
            "login needs you: permission: approve Write: src/login.rs\n  \
             approve_once  Yes\n  deny          No\nAnswer: termic answer 3 CHOICE"
        );
        let guessed = Some(RowAttention {
            kind: "permission".into(),
            message: Some("Allow?".into()),
            from_output: true,
        });
        let text = describe(&row(guessed, &[]), "login");
        assert!(text.starts_with("login needs you: permission: Allow? (from its output)\n"));
        assert!(
            text.ends_with("answer on its screen (termic attach login)"),
            "{text}"
        );
        let mut working = row(None, &[]);
        working.state = "working".into();
        assert_eq!(
            describe(&working, "3"),
            "login does not need you (it is working)"
        );
    }
}
