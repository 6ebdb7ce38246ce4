//! `termic run AGENT` and `termic run -- CMD`: the workspace with that task
//! already open.
//!
//! Grammar: a word before `--` is always an agent id, and what follows `--`
//! is that agent's extra arguments; with no word before `--`, what follows
//! is a command to run as the task. So `termic run claude -- --resume` is
//! Claude with `--resume`, and `termic run -- claude --resume` is the same
//! program run as a plain command (termic still recognises it as Claude
//! once it is in the foreground).

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::workspace::WorkspaceArgs;
use crate::app::services::Program;
use crate::paths::TermicPaths;
use crate::ui::layout::{SidebarWidth, WorkspaceLayout};
use crate::workspace::services::WorkspaceServices;

/// Open the workspace with one task already running: an agent, or any command after --.
///
/// The task starts in the current directory (or, with --worktree, in a new
/// git worktree of the repository you are in); the workspace opens around
/// it, without the first-run wizard. The task runs in the termic server:
/// Ctrl-] d (or closing the terminal) detaches and it keeps running
/// (`termic attach` shows it again); quitting the workspace (Ctrl-] q) ends
/// every task.
#[derive(Debug, Args)]
#[command(
    override_usage = "termic run [OPTIONS] AGENT [-- AGENT_ARGS...]\n       termic run [OPTIONS] -- COMMAND [ARGS...]",
    after_help = "A word before -- is always an agent; with nothing before --, what follows is a command.\n\n\
Examples:\n  \
termic run claude\n  \
termic run codex --name review --worktree\n  \
termic run mine -- --model fast        agent `mine` with extra arguments\n  \
termic run -- bash                     a shell, with shell integration\n  \
termic run --detach claude             in the server: outlives this terminal\n  \
termic run --name tests -- make test   any command\n\n\
Exit codes: 0 the workspace was closed (with --detach: the task started),\n\
1 error (unknown agent, nothing to run, a worktree that could not be made,\n\
no terminal), 2 usage."
)]
pub struct RunArgs {
    #[arg(help = agent_help(), add = super::complete::agent())]
    pub agent: Option<String>,
    /// Task name shown in the sidebar (default: the agent's id or the command's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Run the task in a new git worktree of the current repository.
    #[arg(long)]
    pub worktree: bool,
    /// Start the task in the termic server and return: it keeps running
    /// after this terminal closes (`termic ls`, `send`, `wait`, `kill`).
    #[arg(long)]
    pub detach: bool,
    /// Start the task on a host of config.toml's [hosts] (`termic hosts ls`),
    /// through ssh; implies --detach.
    #[arg(long, value_name = "NAME", add = super::complete::host())]
    pub host: Option<String>,
    /// With --host: the directory on the host the task starts in (default: /).
    #[arg(long, value_name = "DIR", requires = "host")]
    pub cwd: Option<String>,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    /// After an agent: arguments passed to it unchanged. With no agent: the
    /// command to run and its arguments.
    #[arg(last = true, value_name = "ARGS")]
    pub rest: Vec<String>,
}

/// The AGENT argument's help, listing the built-ins from their registry.
fn agent_help() -> String {
    format!(
        "A built-in agent ({}) or one defined in config.toml. Leave it out and put a command \
         after `--` to run any program",
        crate::agents::user::builtin_list()
    )
}

impl RunArgs {
    /// What the task runs, and the agent's extra arguments.
    pub fn program(self) -> Result<(Program, Vec<String>)> {
        match self.agent {
            Some(agent) => Ok((Program::Agent(agent), self.rest)),
            None if self.rest.is_empty() => bail!(
                "nothing to run: give an agent (termic run claude) or a command after -- (termic run -- bash)"
            ),
            None => Ok((Program::Command(self.rest), Vec::new())),
        }
    }
}

pub fn run(ws: WorkspaceArgs, args: RunArgs) -> Result<ExitCode> {
    if args.host.is_some() {
        return super::run_detached::run_on_host(&ws, args);
    }
    if args.detach {
        return super::run_detached::run(&ws, args);
    }
    // An unknown agent is reported first, terminal or not.
    if let Some(agent) = &args.agent {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let path_var = std::env::var_os("PATH").unwrap_or_default();
        WorkspaceServices::new(TermicPaths::from_env()?, cwd, path_var)?.check_agent(agent)?;
    }
    // The task starts at the size of the workspace's pane in this terminal.
    let (cols, rows) = ratatui::crossterm::terminal::size().unwrap_or((120, 40));
    let (pane_rows, pane_cols) = WorkspaceLayout::pty_size(cols, rows, SidebarWidth::Auto);
    let request = super::run_detached::run_request(&ws, args, pane_cols, pane_rows)?;
    super::attach::attach(&ws, super::attach::Opening::Run(request))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn parse(args: &[&str]) -> Result<(Program, Vec<String>)> {
        let mut argv = vec!["run"];
        argv.extend(args);
        Cli::try_parse_from(argv)?.run.program()
    }

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_word_before_the_dashes_is_an_agent_and_after_them_its_arguments() {
        let (p, extra) = parse(&["claude", "--", "--resume"]).unwrap();
        assert_eq!(p, Program::Agent("claude".into()));
        assert_eq!(extra, ["--resume"]);
        let (p, extra) = parse(&["--name", "r", "codex"]).unwrap();
        assert_eq!(p, Program::Agent("codex".into()));
        assert!(extra.is_empty());
    }

    #[test]
    fn with_no_agent_what_follows_the_dashes_is_the_command() {
        let (p, extra) = parse(&["--", "sh", "-c", "echo hi; sleep 1"]).unwrap();
        assert_eq!(
            p,
            Program::Command(strings(&["sh", "-c", "echo hi; sleep 1"]))
        );
        assert!(extra.is_empty());
        let (p, _) = parse(&["--worktree", "--", "claude", "--resume"]).unwrap();
        assert_eq!(p, Program::Command(strings(&["claude", "--resume"])));
    }

    #[test]
    fn nothing_to_run_says_how() {
        let err = parse(&[]).unwrap_err().to_string();
        assert!(err.contains("termic run -- bash"), "{err}");
    }
}
