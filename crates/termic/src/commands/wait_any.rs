//! `termic wait --any --for STATE[,STATE]` (issue 29): until any task, of
//! this machine's server or of any host in config.toml, is in one of the
//! states. Each source is one `subscribe` stream (the local socket, or one
//! ssh per host); the first row in a state waited for ends the wait and is
//! printed as the target every verb takes (`3`, `devbox:2`) and the state.
//! A host that cannot be reached or is lost is a warning on stderr, not
//! the end of the wait, while another source is still followed.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use crossbeam_channel::{RecvTimeoutError, Sender};

use crate::paths::TermicPaths;
use crate::printed::{errln, outln};
use crate::server::protocol::{Request, Response, TaskRow, WaitFor};
use crate::server::{client, remote};

/// The first row in a state waited for, and that state (pure). An exited
/// task ends nothing unless `exited` is waited for: other tasks may still
/// reach a state.
pub fn first_reached(rows: &[TaskRow], states: &[WaitFor]) -> Option<(u64, WaitFor)> {
    rows.iter().find_map(|row| {
        states
            .iter()
            .copied()
            .find(|s| s.as_str() == row.state)
            .map(|s| (row.id, s))
    })
}

/// A task as the verbs take it: `3` here, `devbox:3` on a host (pure).
pub fn target(host: Option<&str>, id: u64) -> String {
    match host {
        Some(host) => format!("{host}:{id}"),
        None => id.to_string(),
    }
}

/// What a source says, once, before it ends.
enum Heard {
    Reached(String, WaitFor),
    Lost(String),
}

/// Follow one `subscribe` stream (its answer read by `next`) until a row
/// is in a state waited for, or the stream ends.
fn follow(
    host: Option<&str>,
    states: &[WaitFor],
    mut next: impl FnMut() -> Result<Response>,
    tx: &Sender<Heard>,
) {
    let heard = loop {
        let rows = match next() {
            Ok(Response::Subscribed { tasks, .. }) => tasks,
            Ok(Response::Task(row)) => vec![row],
            Ok(Response::Detached(_)) => {
                let who = host.map_or("this machine's".to_owned(), |h| format!("host {h}'s"));
                break Heard::Lost(format!("{who} termic server stopped"));
            }
            Ok(_) => continue,
            Err(e) => break Heard::Lost(crate::printed::error_text(&e)),
        };
        if let Some((id, state)) = first_reached(&rows, states) {
            break Heard::Reached(target(host, id), state);
        }
    };
    let _ = tx.send(heard);
}

/// `termic wait --any`: exit 0 with `TARGET STATE` printed, 124 at the
/// timeout, 1 when no source could be followed.
pub fn wait_any(
    paths: &TermicPaths,
    states: Vec<WaitFor>,
    timeout_ms: Option<u64>,
) -> Result<ExitCode> {
    let hosts = crate::config::Config::load_lenient(&paths.config_dir).hosts;
    // Each source sends once: room for all, so no sender ever waits.
    let (tx, rx) = crossbeam_channel::bounded(hosts.len() + 1);
    let mut sources = 0usize;
    // No server here: no local task to wait for.
    if let Ok(mut local) = client::connect_running(paths) {
        if let Ok(first) = local.request(&Request::Subscribe) {
            let (mut input, _output) = local.into_streams();
            let (tx, states) = (tx.clone(), states.clone());
            let mut first = Some(first);
            std::thread::spawn(move || {
                let _keep = _output;
                follow(
                    None,
                    &states,
                    || match first.take() {
                        Some(first) => Ok(first),
                        None => Ok(crate::server::protocol::read_frame(&mut input)?),
                    },
                    &tx,
                )
            });
            sources += 1;
        }
    }
    // Each host's ssh is kept here: killed and reaped when this returns.
    let mut ssh = Vec::new();
    for host in hosts {
        let (process, mut r) = match remote::spawn(&host) {
            Ok(started) => started,
            Err(e) => {
                errln!("termic: {}", crate::printed::error_text(&e));
                continue;
            }
        };
        ssh.push(process);
        sources += 1;
        let (tx, states) = (tx.clone(), states.clone());
        std::thread::spawn(move || {
            let mut subscribed = false;
            follow(
                Some(&host.name),
                &states,
                || {
                    if !subscribed {
                        subscribed = true;
                        r.hello()?;
                        return r.request(&Request::Subscribe);
                    }
                    r.read()
                },
                &tx,
            )
        });
    }
    drop(tx);
    if sources == 0 {
        bail!("nothing to wait on: no termic server runs here and no host in config.toml answers");
    }
    let deadline = timeout_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
    loop {
        let heard = match deadline {
            Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match heard {
            Ok(Heard::Reached(target, state)) => {
                outln!("{} {}", crate::printed::clean_line(&target), state.as_str())?;
                return Ok(ExitCode::from(super::wait::EXIT_REACHED));
            }
            Ok(Heard::Lost(message)) => errln!("termic: {message}"),
            Err(RecvTimeoutError::Timeout) => {
                outln!("timeout")?;
                return Ok(ExitCode::from(super::wait::EXIT_TIMED_OUT));
            }
            Err(RecvTimeoutError::Disconnected) => {
                bail!("every source was lost before a task reached a state waited for")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, state: &str) -> TaskRow {
        TaskRow::for_test(id, "t", "sh", state)
    }

    #[test]
    fn the_first_row_in_a_state_waited_for_ends_the_wait() {
        let rows = [
            row(1, "working"),
            row(2, "exited"),
            row(3, "needs_you"),
            row(4, "done"),
        ];
        assert_eq!(
            first_reached(&rows, &[WaitFor::NeedsYou]),
            Some((3, WaitFor::NeedsYou))
        );
        // An exited task ends nothing unless exited is waited for.
        assert_eq!(
            first_reached(&rows[..2], &[WaitFor::NeedsYou, WaitFor::Done]),
            None
        );
        assert_eq!(
            first_reached(&rows, &[WaitFor::Done, WaitFor::Exited]),
            Some((2, WaitFor::Exited))
        );
        assert_eq!(target(Some("devbox"), 2), "devbox:2");
        assert_eq!(target(None, 3), "3");
    }
}
