//! `termic wait TASK --for STATE[,STATE] [--timeout S]`: block until a task
//! of the server reaches a state; the exit code says what happened.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};

use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::protocol::{Request, Response, WaitFor, WaitOutcome};
use crate::server::{client, remote};

/// The state was reached (stdout names it).
pub const EXIT_REACHED: u8 = 0;
/// The task exited before reaching any state waited for.
pub const EXIT_TASK_EXITED: u8 = 3;
/// `--timeout` passed first (the code `timeout(1)` uses).
pub const EXIT_TIMED_OUT: u8 = 124;

/// Spelt as `ls --json`, the event log and this command's output spell
/// them (`needs_you`); `needs-you` is accepted too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateArg {
    #[value(name = "needs_you", alias = "needs-you")]
    NeedsYou,
    Done,
    Exited,
}

impl From<StateArg> for WaitFor {
    fn from(s: StateArg) -> WaitFor {
        match s {
            StateArg::NeedsYou => WaitFor::NeedsYou,
            StateArg::Done => WaitFor::Done,
            StateArg::Exited => WaitFor::Exited,
        }
    }
}

/// Wait until a task of the server needs you, is done, or exited.
#[derive(Debug, Args)]
#[command(
    after_help = "Returns at once when the task is already in a state waited for.\n\n\
States are spelt as `termic ls --json` spells them: needs_you, done, exited \
(needs-you is accepted too).\n\n\
Exit codes: 0 a state was reached (printed), 3 the task exited first, 124 the timeout passed, \
1 an error (no such task, no server).\n\n\
Examples:\n  termic wait review --for needs_you --timeout 600\n  \
termic wait 3 --for done,exited\n  \
termic wait --any --for needs_you    the first task here or on a host that needs you"
)]
pub struct WaitArgs {
    /// The task: its name, or its number (the one the sidebar shows and `termic ls` lists);
    /// HOST:TASK for a task of a host in config.toml's [hosts].
    #[arg(add = super::complete::task(), required_unless_present = "any")]
    pub task: Option<String>,
    /// Any task, here or on any host in config.toml's [hosts]: prints the
    /// first one in a state waited for (`3 needs_you`, `devbox:2 needs_you`).
    #[arg(long, conflicts_with = "task")]
    pub any: bool,
    /// The states to wait for (several: comma-separated).
    #[arg(
        long = "for",
        value_name = "STATE",
        required = true,
        value_delimiter = ','
    )]
    pub states: Vec<StateArg>,
    /// Give up after S seconds.
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
}

pub fn run(args: WaitArgs) -> Result<ExitCode> {
    let timeout_ms = match args.timeout {
        Some(s) if !(s.is_finite() && s >= 0.0) => {
            bail!("--timeout {s} is not a number of seconds; use e.g. --timeout 30")
        }
        Some(s) => Some((s * 1000.0) as u64),
        None => None,
    };
    let paths = TermicPaths::from_env()?;
    let states: Vec<WaitFor> = args.states.iter().copied().map(WaitFor::from).collect();
    let Some(task) = args.task else {
        return super::wait_any::wait_any(&paths, states, timeout_ms);
    };
    let response = if let Some((host, task)) = super::remote_target(&paths, &task) {
        let request = Request::Wait {
            task,
            states: states.clone(),
            timeout_ms,
        };
        // No bound of our own without --timeout (a wait may be long); with
        // one, the host's answer may take that and the connect on top.
        let deadline = timeout_ms
            .map(|ms| std::time::Duration::from_millis(ms) + super::run_detached::HOST_DEADLINE);
        remote::with_host(&host, deadline, move |r| r.request(&request))?
    } else {
        let mut client = client::connect_running(&paths)?;
        client.request(&Request::Wait {
            task,
            states,
            timeout_ms,
        })?
    };
    let code = match response {
        Response::Waited(WaitOutcome::Reached(state)) => {
            outln!("{}", state.as_str())?;
            EXIT_REACHED
        }
        Response::Waited(WaitOutcome::Exited) => {
            outln!("exited")?;
            EXIT_TASK_EXITED
        }
        Response::Waited(WaitOutcome::TimedOut) => {
            outln!("timeout")?;
            EXIT_TIMED_OUT
        }
        other => {
            return Err(crate::server::protocol::unexpected(
                "the termic server",
                &other,
            ))
        }
    };
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{FromArgMatches, Parser};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        wait: WaitArgs,
    }

    fn states(arg: &str) -> Vec<StateArg> {
        let m = <Cli as clap::CommandFactory>::command()
            .try_get_matches_from(["wait", "t", "--for", arg])
            .unwrap();
        Cli::from_arg_matches(&m).unwrap().wait.states
    }

    /// One spelling on the command line and in JSON (`needs_you`), the
    /// other accepted (issue 33 item 11).
    #[test]
    fn needs_you_is_spelt_as_json_spells_it_and_the_dash_is_accepted() {
        assert_eq!(states("needs_you"), [StateArg::NeedsYou]);
        assert_eq!(
            states("needs-you,done"),
            [StateArg::NeedsYou, StateArg::Done]
        );
        assert_eq!(WaitFor::from(StateArg::NeedsYou).as_str(), "needs_you");
        let help = <Cli as clap::CommandFactory>::command()
            .render_long_help()
            .to_string();
        assert!(help.contains("needs_you"), "{help}");
        assert!(!help.contains("[possible values: needs-you"), "{help}");
    }
}
