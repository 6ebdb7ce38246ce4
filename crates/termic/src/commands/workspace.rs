//! `termic` with no subcommand: the workspace, shown by the termic server
//! (`commands/attach.rs`). Also the in-process workspace `termic demo`
//! opens. What the server shares with it (the real services, the app's
//! options) is in `crate::workspace`, below the server.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use ratatui::crossterm::event;

use crate::app::services::Program;
use crate::app::terminal::TerminalGuard;
use crate::app::App;
use crate::notify::Notifier;
use crate::paths::TermicPaths;
use crate::printed::errln;
use termic_runtime::clock::SystemClock;
use termic_runtime::TaskOutputs;

use crate::workspace::app_options;
use crate::workspace::services::WorkspaceServices;

/// The flags that act on the tasks a client starts: on `termic` itself,
/// `run`, `attach` and `demo` (each task keeps the flags of the client
/// that started it; the server has none of its own), given before the
/// subcommand (`termic --event-log F run claude`) or after it (`termic run
/// --event-log F claude`). Not clap `global`: a global flag is listed in
/// every subcommand's help, `termic ls --help` too, where it does nothing.
#[derive(Debug, Args, Default)]
pub struct WorkspaceArgs {
    /// Append one JSON line per state transition to FILE (default:
    /// $TERMIC_EVENT_LOG).
    #[arg(long, value_name = "FILE")]
    pub event_log: Option<PathBuf>,
    /// Record each task as an asciicast v2 file in DIR (replay with `termic replay`).
    /// What you type is not recorded, only which keys were Enter, Escape or Ctrl-C.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// With --record: also record what you type into tasks. Off by default
    /// because it includes any password or token you type; do not share
    /// such a recording.
    #[arg(long)]
    pub record_input: bool,
}

impl WorkspaceArgs {
    /// Whether any of these flags was given.
    pub(crate) fn given(&self) -> bool {
        self.event_log.is_some() || self.record.is_some() || self.record_input
    }

    /// The flags given before the subcommand (`self`) and after it
    /// (`sub`; it wins where both give one), then `env_log`
    /// ($TERMIC_EVENT_LOG) when neither gave --event-log. Err: a usage
    /// error to print.
    pub(crate) fn merge(
        self,
        sub: WorkspaceArgs,
        env_log: Option<std::ffi::OsString>,
    ) -> Result<WorkspaceArgs, String> {
        let merged = WorkspaceArgs {
            event_log: sub
                .event_log
                .or(self.event_log)
                .or_else(|| env_log.filter(|v| !v.is_empty()).map(PathBuf::from)),
            record: sub.record.or(self.record),
            record_input: sub.record_input || self.record_input,
        };
        if merged.record_input && merged.record.is_none() {
            return Err(
                "--record-input needs --record DIR: it adds what you type to the \
                        recordings, so there must be recordings"
                    .to_string(),
            );
        }
        Ok(merged)
    }

    /// Where the tasks this client starts write their transitions and
    /// recordings: these flags, relative paths made absolute from `cwd`
    /// (the server runs in `/`).
    pub(crate) fn outputs(&self, cwd: &std::path::Path) -> TaskOutputs {
        TaskOutputs {
            event_log: self.event_log.as_ref().map(|p| cwd.join(p)),
            record: self.record.as_ref().map(|p| cwd.join(p)),
            record_input: self.record_input,
        }
    }
}

/// A task to start as the workspace opens (`termic run`).
pub struct InitialTask {
    pub program: Program,
    pub name: Option<String>,
    pub worktree: bool,
    pub args: Vec<String>,
}

/// `termic`: the workspace, shown by the termic server (started if none
/// runs), so its tasks outlive this terminal.
pub fn run(args: WorkspaceArgs) -> Result<ExitCode> {
    super::attach::attach(&args, super::attach::Opening::Focus(None))
}

/// The workspace with its tasks in this process (`termic demo`: one per
/// simulated agent; they end when it quits or its terminal closes). The
/// first-run wizard shows only when no task was asked for.
pub fn open_with(args: WorkspaceArgs, initial: Vec<InitialTask>) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let outputs = args.outputs(&cwd);
    let mut services = WorkspaceServices::new(paths, cwd, path_var)?;
    let settings = services.config.settings.clone();

    let (runtime, runtime_events) =
        crate::server::open_runtime(&services, Arc::new(SystemClock::new()));
    // An event log that cannot be opened, a record dir that cannot be
    // made: said before the screen is taken over.
    runtime.check_outputs(&outputs)?;
    let options = app_options(&mut services, initial.is_empty())?;

    // An unknown agent is reported before the screen is taken over.
    for task in &initial {
        if let Program::Agent(agent) = &task.program {
            services.check_agent(agent)?;
        }
    }

    // Unknown keys never stop termic: each is printed before the screen is
    // taken over (it stays in the scrollback), and the first is shown on the
    // workspace's message line.
    let config_warnings = services.config.warnings.clone();
    for w in &config_warnings {
        errln!("termic: warning: {w}");
    }

    let (fallback_tx, fallback_rx) = crossbeam_channel::unbounded();
    let notifier = Notifier::from_env(fallback_tx, settings.notifications.osc_fallback);
    // Before the terminal turns raw: a kill of termic from now on restores
    // it and ends every task.
    crate::exit_signals::install(crate::exit_signals::OnExit::RestoreTerminal)
        .context("cannot install the signal handlers")?;
    // Once the signal put the terminal back and ended the tasks, the app's
    // loop stops and this returns 128 + the signal.
    let (stop_tx, stop_rx) = crossbeam_channel::bounded(1);
    let _wake = crate::exit_signals::wake_on_fatal(move || {
        let _ = stop_tx.try_send(());
    });
    crate::exit_signals::returning(move || {
        let mut guard = TerminalGuard::enter().context(
            "cannot open the workspace: it needs a terminal, and stdin or stdout is not one. \
             Run termic in a terminal window, not through a pipe or a script \
             (`termic hooks`, `termic config` and `termic replay` work without one)",
        )?;
        let size = ratatui::crossterm::terminal::size()?;
        let mut app = App::new(runtime, Box::new(services), options, notifier, size);
        app.outputs = outputs;
        app.refresh_wired();
        if let Some(message) = crate::config::unknown::summary(&config_warnings) {
            app.message = Some(crate::ui::Message::warning(message));
        }
        for task in initial {
            app.launch_program(
                &task.program,
                task.name.as_deref(),
                task.worktree,
                &task.args,
            )?;
        }

        let (input_tx, input_rx) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("termic-input".into())
            .spawn(move || {
                while let Ok(ev) = event::read() {
                    if input_tx.send(ev).is_err() {
                        break;
                    }
                }
            })
            .context("cannot start the input thread")?;
        app.stop = stop_rx;
        let result = app.run(&mut guard, input_rx, runtime_events, fallback_rx);
        // Ending the app ends every task before the terminal is restored.
        drop(app);
        drop(guard);
        result.map(|()| ExitCode::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::Parser;

    use super::WorkspaceArgs;
    use crate::commands::Cli;

    /// `argv` parsed as main parses it, and the workspace flags merged.
    fn workspace(argv: &[&str], env_log: Option<&str>) -> Result<WorkspaceArgs, String> {
        let mut cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
        cli.workspace_args_with(env_log.map(Into::into))
    }

    #[test]
    fn keystrokes_are_recorded_only_when_asked_and_only_with_a_recording() {
        let ws = workspace(&["termic", "--record", "casts", "run", "claude"], None).unwrap();
        assert!(!ws.record_input, "off by default");
        let ws = workspace(
            &["termic", "run", "--record", "c", "--record-input", "x"],
            None,
        )
        .unwrap();
        assert!(ws.record_input);
        // Before and after the subcommand together.
        let ws = workspace(
            &["termic", "--record", "c", "run", "--record-input", "x"],
            None,
        );
        assert!(ws.unwrap().record_input);
        for argv in [
            &["termic", "--record-input", "run", "claude"][..],
            &["termic", "run", "--record-input", "claude"][..],
            &["termic", "--record-input"][..],
        ] {
            let err = workspace(argv, None).unwrap_err();
            assert!(err.contains("--record"), "{argv:?}: {err}");
        }
    }

    #[test]
    fn the_workspace_flags_parse_before_or_after_the_subcommand() {
        let log = |ws: Result<WorkspaceArgs, String>| ws.unwrap().event_log.unwrap();
        for argv in [
            &["termic", "--event-log", "F", "run", "claude"][..],
            &["termic", "run", "--event-log", "F", "claude"][..],
            &["termic", "run", "claude", "--event-log", "F"][..],
            &["termic", "--event-log", "F"][..],
            &["termic", "attach", "--event-log", "F"][..],
            &["termic", "demo", "--event-log", "F"][..],
        ] {
            assert_eq!(log(workspace(argv, None)), PathBuf::from("F"), "{argv:?}");
        }
        // After the subcommand wins; a flag given wins over the variable.
        let argv = ["termic", "--event-log", "A", "run", "--event-log", "B", "x"];
        assert_eq!(log(workspace(&argv, None)), PathBuf::from("B"));
        let argv = ["termic", "run", "--event-log", "F", "x"];
        assert_eq!(log(workspace(&argv, Some("ENV"))), PathBuf::from("F"));
        assert_eq!(
            log(workspace(&["termic", "run", "x"], Some("ENV"))),
            PathBuf::from("ENV")
        );
        let ws = workspace(&["termic", "run", "x"], Some("")).unwrap();
        assert_eq!(ws.event_log, None, "an empty variable is no log");
    }

    #[test]
    fn the_workspace_flags_are_refused_where_they_do_nothing() {
        // After the subcommand: clap does not know them there.
        // The server has no log of its own (each task has its client's).
        for sub in [
            &["ls"][..],
            &["hooks", "status"],
            &["server", "stop"],
            &["server", "run"],
            &["rename", "1", "x"],
        ] {
            let mut argv = vec!["termic"];
            argv.extend_from_slice(sub);
            argv.extend(["--event-log", "F"]);
            let err = workspace(&argv, None).unwrap_err();
            assert!(err.contains("--event-log"), "{argv:?}: {err}");
        }
        // Before it: termic says where they act.
        for sub in ["ls", "server"] {
            let mut argv = vec!["termic", "--record", "D", sub];
            if sub == "server" {
                argv.push("run");
            }
            let err = workspace(&argv, None).unwrap_err();
            assert!(err.contains("run, attach or demo"), "{argv:?}: {err}");
        }
        // The variable alone is no error anywhere.
        assert!(workspace(&["termic", "ls"], Some("F")).is_ok());
    }
}
