//! `termic attach [TASK]`: show the workspace of the termic server in this
//! terminal. The server draws it at this terminal's size and sends only
//! the cells that changed; this client sets the terminal up, forwards what
//! the terminal reads (keys, paste, mouse, focus, resizes) and writes what
//! the server sends. It never parses a task's output.

use std::io::{BufReader, BufWriter, Write};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use clap::Args;
use ratatui::crossterm::event;

use super::workspace::WorkspaceArgs;
use crate::app::terminal::TerminalGuard;
use crate::input::probe::{Action, ProbeWatch};
use crate::paths::TermicPaths;
use crate::printed::{errln, outln};
use crate::server::client::{self, Connected, Start};
use crate::server::protocol::input::{InputEvent, Outer};
use crate::server::protocol::{
    read_attach_frame, read_frame, write_frame, AttachFrame, AttachRequest, DetachReason,
    FrameError, Request, Response, RunRequest,
};
use termic_runtime::lock;

/// Show the tasks of the termic server in this terminal (starting the server if none runs).
///
/// The tasks run in the server, so they outlive this terminal: Ctrl-] d
/// detaches, and closing the terminal or losing an SSH connection is the
/// same as detaching. `termic attach` again shows them as they are, with
/// their scrollback. Ctrl-] q quits: it ends every task and the server.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
termic attach              the workspace, every task of the server\n  \
termic attach review       with the task named review focused\n  \
termic attach 3            with task 3 (its number in the sidebar and `termic ls`) focused\n  \
termic attach devbox:2     task 2 of host devbox alone (Ctrl-] d detaches)\n\n\
Two terminals can be attached at once; the tasks take the size of the one\n\
that typed or resized last.\n\n\
Exit codes: 0 detached or quit (or the server stopped), 1 error (no such task,\n\
an ambiguous name, no terminal, a server of another version, or the server was\n\
lost: it ended without a word, killed or crashed).")]
pub struct AttachArgs {
    /// The task to focus: its name, or its number (the one the sidebar shows and `termic ls` lists); HOST:TASK shows a remote task alone.
    #[arg(add = super::complete::task())]
    pub task: Option<String>,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(ws: &WorkspaceArgs, args: AttachArgs) -> Result<ExitCode> {
    attach(ws, Opening::Focus(args.task))
}

/// What the client asks for as it attaches.
pub enum Opening {
    /// Show the workspace with this task (name or number) focused.
    Focus(Option<String>),
    /// Start this task first, and focus it (`termic run` without --detach).
    Run(RunRequest),
}

/// What a user reads when termic is not given a terminal.
pub const NO_TERMINAL: &str = "cannot open the workspace: it needs a terminal, and stdin or \
stdout is not one. Run termic in a terminal window, not through a pipe or a script \
(`termic ls`, `termic run --detach`, `termic hooks`, `termic config` and `termic replay` work \
without one)";

/// What a user reads when `termic` is started inside a termic task.
pub const NESTED: &str = "this terminal is a termic task: the workspace would be drawn inside \
itself. Use the workspace you are in (Ctrl-] then n starts a task), detach it first (Ctrl-] d), \
or to nest anyway: env -u TERMIC_TASK_ID termic";

/// Attach to this user's server (starting it if none runs).
pub fn attach(ws: &WorkspaceArgs, opening: Opening) -> Result<ExitCode> {
    // Checked first, so a pipe never starts a server.
    // SAFETY: isatty only reads the descriptor's state.
    if unsafe { libc::isatty(0) == 0 || libc::isatty(1) == 0 } {
        bail!(NO_TERMINAL);
    }
    // tmux's rule: a workspace drawn inside one of its own tasks is a hall
    // of mirrors (the prefix reaches the outer one, every frame is drawn
    // twice). Refused with the way to do it anyway.
    if std::env::var_os("TERMIC_TASK_ID").is_some_and(|v| !v.is_empty()) {
        bail!(NESTED);
    }
    let paths = TermicPaths::from_env()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    // Unknown keys and wrong values never stop termic (a wrong value keeps
    // its default): each is printed before the screen is taken over (it
    // stays in the scrollback); the server's view shows the first on its
    // message line.
    let config = crate::config::Config::load_lenient(&paths.config_dir);
    for w in &config.warnings {
        errln!("termic: warning: {w}");
    }
    // HOST:TASK: that task's screen alone, from its host (issue 29).
    if let Opening::Focus(Some(task)) = &opening {
        use crate::server::remote::{find_host, parse_target, Target};
        if let Target::Remote { host, task } = parse_target(task, &config.hosts) {
            let host = find_host(&config.hosts, &host)?;
            let prefix = config
                .settings
                .prefix_key
                .as_deref()
                .and_then(crate::input::PrefixKey::parse)
                .unwrap_or_else(crate::input::PrefixKey::default_key);
            return super::attach_host::attach_host(host, &task, prefix);
        }
    }

    let fallback = config.settings.outer_fallback;
    // Checked before the server starts: the tasks this client starts write
    // here, and a path that cannot be used is refused now.
    let outputs = ws.outputs(&cwd);
    let mut client = match client::connect(&paths, Start::IfNeeded)? {
        Some(Connected::Ready(client)) => client,
        Some(Connected::Mismatch { message, .. }) => bail!("{message}"),
        None => bail!("the termic server did not start"),
    };
    // A task that cannot start is reported before the screen is taken.
    let task = match opening {
        Opening::Focus(task) => task,
        Opening::Run(request) => match client.request(&Request::Run(request))? {
            Response::Started(row) => Some(row.id.to_string()),
            other => {
                return Err(crate::server::protocol::unexpected(
                    "the termic server",
                    &other,
                ))
            }
        },
    };
    let server_pid = client.server_pid;
    let (input, output) = client.into_streams();

    // Before the terminal turns raw: a kill of this client (SIGHUP when the
    // terminal closes) restores it; the server sees the connection close
    // and keeps the tasks.
    crate::exit_signals::install(crate::exit_signals::OnExit::RestoreTerminal)
        .context("cannot install the signal handlers")?;
    // A fatal signal shuts the connection once the terminal is put back:
    // the read below returns, and this returns 128 + the signal.
    let shut = input
        .get_ref()
        .try_clone()
        .context("cannot talk to the termic server")?;
    let _wake = crate::exit_signals::wake_on_fatal(move || {
        let _ = shut.shutdown(std::net::Shutdown::Both);
    });
    crate::exit_signals::returning(|| {
        attached(
            AttachRequest {
                task,
                cwd: cwd.to_string_lossy().into_owned(),
                path_var: std::env::var("PATH").unwrap_or_default(),
                cols: 0,
                rows: 0,
                env: crate::server::protocol::client_env(),
                outputs,
            },
            input,
            output,
            server_pid,
            fallback,
        )
    })
}

/// Takes the terminal, attaches with `request` (at the terminal's size)
/// and shows the workspace until the stream ends.
fn attached(
    mut request: AttachRequest,
    mut input: BufReader<UnixStream>,
    mut output: BufWriter<UnixStream>,
    server_pid: i32,
    fallback: crate::config::OuterFallback,
) -> Result<ExitCode> {
    let mut guard = TerminalGuard::enter().context(NO_TERMINAL)?;
    let (cols, rows) = ratatui::crossterm::terminal::size()?;
    (request.cols, request.rows) = (cols, rows);
    write_frame(&mut output, &Request::Attach(request))
        .context("cannot talk to the termic server")?;
    match read_frame::<Response>(&mut input) {
        Ok(Response::Attached) => {}
        Ok(Response::Error { message }) => {
            drop(guard);
            bail!("{message}");
        }
        Ok(other) => {
            drop(guard);
            return Err(crate::server::protocol::unexpected(
                "the termic server",
                &other,
            ));
        }
        Err(e) => {
            drop(guard);
            return Err(e).context("the termic server closed the connection");
        }
    }

    let sender = Arc::new(Sender {
        output: Mutex::new(output),
        size: Mutex::new((cols, rows)),
        verdict: Mutex::new(None),
    });
    // Does this terminal speak OSC 7501? Asked once attached, never waited
    // for: the input thread hears the answer (or its absence) and tells
    // the server, which reports the workspace's state to this terminal.
    // Inside tmux the answer would not come back: no probe, the fallback.
    // The Linux console prints an OSC it does not know: nothing at all.
    let watch = if !parses_osc() {
        // No verdict: the server reports nothing to this terminal.
        ProbeWatch::off()
    } else if in_tmux() {
        sender.send_outer(false);
        ProbeWatch::off()
    } else if guard.write_raw(crate::outer::PROBE).is_ok() {
        ProbeWatch::probing()
    } else {
        ProbeWatch::off()
    };
    let events = Arc::clone(&sender);
    std::thread::Builder::new()
        .name("termic-input".into())
        .spawn(move || forward_events(&events, watch))
        .context("cannot start the input thread")?;
    let ending = show(&mut input, &mut guard, &sender);
    // The server resets what it told the outer terminal before `detached`
    // (prefix d or q); a server that stopped (it may tell before its app
    // ends) or was lost did not: the tab is left clean here.
    if matches!(
        ending,
        Ending::Stopped | Ending::StreamEnded | Ending::Error(_)
    ) {
        if let Some(answered) = *lock(&sender.verdict) {
            let reset = crate::outer::Reporter::reset_for(
                crate::outer::mode(fallback, answered),
                in_tmux(),
            );
            let _ = guard.write_raw(&reset);
        }
    }
    drop(guard);
    if crate::exit_signals::caught().is_some() {
        // The signal shut the stream; `attach` says nothing and returns
        // its status.
        return Ok(ExitCode::SUCCESS);
    }
    match ending {
        Ending::Detached => {
            outln!("Detached. The tasks keep running: `termic attach` shows them again.")?;
            Ok(ExitCode::SUCCESS)
        }
        Ending::Quit => Ok(ExitCode::SUCCESS),
        Ending::Stopped => {
            outln!("The termic server stopped.")?;
            Ok(ExitCode::SUCCESS)
        }
        Ending::TerminalGone => Ok(ExitCode::SUCCESS),
        // The stream ended with no word: a server that still runs dropped
        // this client (it read nothing for too long); one that is gone was
        // killed or crashed.
        Ending::StreamEnded if !server_gone(server_pid) => {
            errln!(
                "termic: the termic server dropped this client (it was not reading). \
                 The tasks keep running: `termic attach` shows them again."
            );
            Ok(ExitCode::FAILURE)
        }
        Ending::StreamEnded => {
            errln!("{LOST}");
            Ok(ExitCode::FAILURE)
        }
        Ending::Error(message) => bail!("{message}"),
    }
}

/// What an attached client says when its server ended without a word.
pub const LOST: &str = "The termic server was lost (it ended without a word: killed or \
crashed). Its tasks are gone; `termic ls` names them.";

enum Ending {
    Detached,
    Quit,
    /// The server said it stopped (`termic server stop`, a signal, prefix
    /// `q` in another client).
    Stopped,
    /// This client's terminal is gone: nobody to tell anything.
    TerminalGone,
    /// The stream ended without `detached`.
    StreamEnded,
    Error(String),
}

/// Whether the server (`pid`) is gone, waiting a little: the stream ends
/// as a killed process closes its descriptors, a moment before it is a
/// zombie.
fn server_gone(pid: i32) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        if termic_runtime::session::process_gone(pid) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The connection's sending half, shared by the input thread and the loop
/// that writes frames, and the size last sent.
struct Sender {
    output: Mutex<BufWriter<UnixStream>>,
    size: Mutex<(u16, u16)>,
    /// Whether the outer terminal answered the OSC 7501 probe, once told.
    verdict: Mutex<Option<bool>>,
}

impl Sender {
    /// Sends one terminal event as the protocol's input event (a key no
    /// client sends is skipped). False once the server is gone.
    fn send(&self, event: event::Event) -> bool {
        if let event::Event::Resize(cols, rows) = event {
            *lock(&self.size) = (cols, rows);
        }
        let Some(event) = crate::input::wire::from_crossterm(event) else {
            return true;
        };
        let mut out = lock(&self.output);
        write_frame(&mut *out, &Request::Input(event)).is_ok() && out.flush().is_ok()
    }

    /// Tells the server whether this terminal answered the OSC 7501 probe.
    fn send_outer(&self, osc7501: bool) -> bool {
        *lock(&self.verdict) = Some(osc7501);
        let event = InputEvent::Outer(Outer { osc7501 });
        let mut out = lock(&self.output);
        write_frame(&mut *out, &Request::Input(event)).is_ok() && out.flush().is_ok()
    }

    /// Sends the terminal's size when it is not the one last sent: a
    /// resize crossterm did not report (one that came while it was not yet
    /// listening for SIGWINCH) is caught at the next frame.
    fn sync_size(&self) {
        if let Ok((cols, rows)) = ratatui::crossterm::terminal::size() {
            if *lock(&self.size) != (cols, rows) {
                self.send(event::Event::Resize(cols, rows));
            }
        }
    }
}

/// Writes what the server sends until it ends the stream.
fn show(input: &mut BufReader<UnixStream>, guard: &mut TerminalGuard, sender: &Sender) -> Ending {
    loop {
        match read_attach_frame(input) {
            Ok(AttachFrame::Output(bytes)) => {
                if guard.write_raw(&bytes).is_err() {
                    // The terminal is gone: nothing to show, the server
                    // sees this connection close.
                    return Ending::TerminalGone;
                }
                sender.sync_size();
            }
            Ok(AttachFrame::Message(Response::Detached(DetachReason::Detached))) => {
                return Ending::Detached
            }
            Ok(AttachFrame::Message(Response::Detached(DetachReason::Quit))) => {
                return Ending::Quit
            }
            Ok(AttachFrame::Message(Response::Detached(DetachReason::Stopped))) => {
                return Ending::Stopped
            }
            Ok(AttachFrame::Message(Response::Error { message })) => return Ending::Error(message),
            Ok(AttachFrame::Message(_)) => {}
            Err(FrameError::Invalid(e)) => {
                return Ending::Error(format!("the termic server sent something unreadable: {e}"))
            }
            Err(_) => return Ending::StreamEnded,
        }
    }
}

/// This terminal's events to the server, until either side goes away.
/// `watch` takes the answer to the OSC 7501 probe out of them.
fn forward_events(sender: &Sender, mut watch: ProbeWatch) {
    // The first poll sets up crossterm's SIGWINCH handling; a resize before
    // it sent no event, so the size is checked once now.
    let _ = event::poll(std::time::Duration::ZERO);
    sender.sync_size();
    let start = std::time::Instant::now();
    let now = || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    loop {
        let actions = match watch.next_deadline() {
            Some(at) => {
                let wait = std::time::Duration::from_millis(at.saturating_sub(now()));
                match event::poll(wait) {
                    Ok(true) => match event::read() {
                        Ok(ev) => watch.feed(ev, now()),
                        Err(_) => return,
                    },
                    Ok(false) => watch.tick(now()),
                    Err(_) => return,
                }
            }
            None => match event::read() {
                Ok(ev) => watch.feed(ev, now()),
                Err(_) => return,
            },
        };
        for action in actions {
            let sent = match action {
                Action::Forward(ev) => sender.send(ev),
                Action::Outer(osc7501) => sender.send_outer(osc7501),
            };
            if !sent {
                return;
            }
        }
    }
}

/// Whether this terminal swallows an OSC it does not know. The Linux
/// console takes `ESC ]` only for its palette and prints the rest of any
/// other OSC as text.
fn parses_osc() -> bool {
    let term = std::env::var("TERM").unwrap_or_default();
    !matches!(term.as_str(), "linux" | "dumb")
}

/// This client runs inside tmux.
fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}
