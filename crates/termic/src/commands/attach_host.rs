//! `termic attach HOST:TASK` (issue 29): one remote task's screen in this
//! terminal, through the host's `view` stream over its own ssh (protocol
//! "The view stream"). The host draws the task and sends what changed;
//! this client writes it and sends the terminal's events as input events.
//! The prefix key then `d` detaches (the task keeps running on the host);
//! the prefix twice sends the prefix to the task.

use std::io::{BufReader, BufWriter, Write};
use std::process::{ChildStdin, ChildStdout, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};

use crate::app::terminal::TerminalGuard;
use crate::config::hosts::HostDef;
use crate::input::PrefixKey;
use crate::printed::{errln, outln};
use crate::server::protocol::{
    read_attach_frame, write_frame, AttachFrame, DetachReason, Request, Response, ViewRequest,
};
use crate::server::remote::{self, SshProcess};
use termic_runtime::lock;

/// What a key does in the remote view, after the prefix state (pure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStep {
    /// To the task.
    Send,
    /// The prefix: wait for the next key.
    Prefix,
    /// Prefix then `d`.
    Detach,
    /// Prefix then a key with no meaning here: dropped.
    Drop,
}

/// The step for `event` when the prefix was (`pending`) or was not just
/// typed. The prefix twice sends it.
pub fn key_step(event: &Event, prefix: &PrefixKey, pending: bool) -> KeyStep {
    let Event::Key(key) = event else {
        return KeyStep::Send;
    };
    if key.kind == KeyEventKind::Release {
        return KeyStep::Send;
    }
    match (pending, prefix.matches(key)) {
        (false, true) => KeyStep::Prefix,
        (false, false) | (true, true) => KeyStep::Send,
        (true, false) if key.code == KeyCode::Char('d') => KeyStep::Detach,
        (true, false) => KeyStep::Drop,
    }
}

/// Show `task` of `host` until detached, closed, or the link is lost.
pub fn attach_host(host: &HostDef, task: &str, prefix: PrefixKey) -> Result<ExitCode> {
    let (ssh, mut remote) = remote::connect(host)?;
    let (cols, rows) = ratatui::crossterm::terminal::size()?;
    match remote.request(&Request::View(ViewRequest {
        task: task.to_owned(),
        cols,
        rows,
        history: 0,
    }))? {
        Response::Viewing { .. } => {}
        _ => bail!("host {}: its server did not show the task", host.name),
    }
    let (mut input, output) = remote.into_streams();
    let ssh = Arc::new(Mutex::new(Some(ssh)));
    let detaching = Arc::new(AtomicBool::new(false));
    crate::exit_signals::install(crate::exit_signals::OnExit::RestoreTerminal)
        .context("cannot install the signal handlers")?;
    // A fatal signal ends ssh once the terminal is put back: the read
    // below returns.
    let on_signal = Arc::clone(&ssh);
    let _wake = crate::exit_signals::wake_on_fatal(move || drop(lock(&on_signal).take()));
    crate::exit_signals::returning(|| {
        let mut guard = TerminalGuard::enter().context(super::attach::NO_TERMINAL)?;
        let sender = Sender {
            output: Mutex::new(output),
            ssh: Arc::clone(&ssh),
            detaching: Arc::clone(&detaching),
            prefix,
        };
        let sender = Arc::new(sender);
        let events = Arc::clone(&sender);
        std::thread::Builder::new()
            .name("termic-input".into())
            .spawn(move || events.forward())
            .context("cannot start the input thread")?;
        let ending = show(&mut input, &mut guard);
        drop(guard);
        // ssh is killed and reaped: the far bridge sees its stdin end.
        drop(lock(&ssh).take());
        if crate::exit_signals::caught().is_some() {
            return Ok(ExitCode::SUCCESS);
        }
        let name = crate::printed::clean_line(task).into_owned();
        match ending {
            _ if detaching.load(Ordering::SeqCst) => {
                outln!(
                    "Detached. Task {name} keeps running on {}: `termic attach {}:{name}` shows it again.",
                    host.name,
                    host.name
                )?;
                Ok(ExitCode::SUCCESS)
            }
            Some(DetachReason::Closed) => {
                outln!("Task {name} on {} was closed.", host.name)?;
                Ok(ExitCode::SUCCESS)
            }
            Some(_) => {
                outln!("The termic server on {} stopped.", host.name)?;
                Ok(ExitCode::SUCCESS)
            }
            None => {
                errln!(
                    "termic: lost the connection to host {}; its task keeps running there: `termic attach {}:{name}` shows it again.",
                    host.name,
                    host.name
                );
                Ok(ExitCode::FAILURE)
            }
        }
    })
}

/// Writes what the host sends until the view ends: how it ended, `None`
/// when the link was lost (or cut on purpose, to detach).
fn show(input: &mut BufReader<ChildStdout>, guard: &mut TerminalGuard) -> Option<DetachReason> {
    loop {
        match read_attach_frame(input) {
            Ok(AttachFrame::Output(bytes)) => {
                if guard.write_raw(&bytes).is_err() {
                    return None;
                }
            }
            Ok(AttachFrame::Message(Response::Detached(reason))) => return Some(reason),
            // `view_size`, a refused input (`error`), what a later version
            // adds: nothing to show.
            Ok(AttachFrame::Message(_)) => {}
            Err(_) => return None,
        }
    }
}

/// The view's sending half and how to end it from the input thread.
struct Sender {
    output: Mutex<BufWriter<ChildStdin>>,
    ssh: Arc<Mutex<Option<SshProcess>>>,
    detaching: Arc<AtomicBool>,
    prefix: PrefixKey,
}

impl Sender {
    fn send(&self, event: Event) -> bool {
        let Some(event) = crate::input::wire::from_crossterm(event) else {
            return true;
        };
        let mut out = lock(&self.output);
        write_frame(&mut *out, &Request::Input(event)).is_ok() && out.flush().is_ok()
    }

    /// This terminal's events to the host until detached or the link ends.
    fn forward(&self) {
        let _ = event::poll(std::time::Duration::ZERO);
        if let Ok((cols, rows)) = ratatui::crossterm::terminal::size() {
            self.send(Event::Resize(cols, rows));
        }
        let mut pending = false;
        while let Ok(ev) = event::read() {
            let step = key_step(&ev, &self.prefix, pending);
            pending = step == KeyStep::Prefix;
            match step {
                KeyStep::Send if !self.send(ev) => return,
                KeyStep::Detach => {
                    self.detaching.store(true, Ordering::SeqCst);
                    drop(lock(&self.ssh).take());
                    return;
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyEvent, KeyModifiers};

    fn key(code: KeyCode, mods: KeyModifiers) -> Event {
        Event::Key(KeyEvent::new(code, mods))
    }

    #[test]
    fn the_prefix_then_d_detaches_and_the_prefix_twice_is_sent() {
        let p = PrefixKey::default_key();
        let ctrl = |c| key(KeyCode::Char(c), KeyModifiers::CONTROL);
        let plain = |c| key(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(key_step(&plain('d'), &p, false), KeyStep::Send);
        assert_eq!(key_step(&ctrl(']'), &p, false), KeyStep::Prefix);
        assert_eq!(key_step(&plain('d'), &p, true), KeyStep::Detach);
        assert_eq!(key_step(&ctrl(']'), &p, true), KeyStep::Send);
        assert_eq!(key_step(&plain('x'), &p, true), KeyStep::Drop);
        assert_eq!(key_step(&Event::FocusGained, &p, false), KeyStep::Send);
    }
}
