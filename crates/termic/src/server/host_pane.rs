//! The link of a remote task shown in a workspace's pane (issue 29): one
//! thread keeps one `view` stream of the task over `ssh ... termic server
//! bridge` (the one `attach HOST:TASK` uses) and writes its frames into
//! the pane's screen (`app/remote_pane.rs`); a second thread per
//! connection writes the pane's input to it. A lost link is retried after
//! [`backoff`] (1 s doubling to 60 s); each connection starts the screen
//! over with the host's full repaint, so the pane shows the task as it is
//! now. Copy mode asks the host for the task's history over a connection
//! of its own (`history`, protocol 7), bounded by [`HISTORY_WAIT`].
//!
//! Bounds: one ssh for the view at a time (the next starts only after the
//! last was killed and reaped); closing the pane kills it and stops the
//! thread. No queue of frames (see `app/remote_pane.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use termic_runtime::clock::Clock;
use termic_runtime::lock;

use super::host_feeds::FeedStop;
use super::protocol::{
    read_attach_frame, write_frame, AttachFrame, DetachReason, Request, Response, ViewRequest,
};
use super::remote;
use crate::app::remote_hosts::backoff;
use crate::app::remote_pane::{PaneRequest, PaneScreen, RemotePane, PANE_INPUT};
use crate::config::hosts::HostDef;

/// How long copy mode waits for a host's history at most.
pub const HISTORY_WAIT: Duration = Duration::from_secs(20);

/// Stops the link when the pane is dropped.
struct StopOnDrop(Arc<FeedStop>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// What one pane's link thread works with.
struct PaneLink {
    program: std::ffi::OsString,
    host: HostDef,
    number: u64,
    size: (u16, u16),
    stop: Arc<FeedStop>,
    screen: Arc<Mutex<PaneScreen>>,
    requests: Receiver<PaneRequest>,
    wake: Sender<()>,
    clock: Arc<dyn Clock>,
}

/// Open task `number` of `host` in a pane of `size` (cols, rows).
pub(super) fn open(
    program: std::ffi::OsString,
    host: HostDef,
    number: u64,
    size: (u16, u16),
    clock: Arc<dyn Clock>,
) -> Option<RemotePane> {
    let (requests_tx, requests) = crossbeam_channel::bounded(PANE_INPUT);
    let (wake, woken) = crossbeam_channel::bounded(1);
    let stop = Arc::new(FeedStop::default());
    let screen = Arc::new(Mutex::new(PaneScreen::default()));
    let link = PaneLink {
        program,
        host: host.clone(),
        number,
        size,
        stop: Arc::clone(&stop),
        screen: Arc::clone(&screen),
        requests,
        wake,
        clock,
    };
    std::thread::Builder::new()
        .name("termic-host-pane".into())
        .spawn(move || link.run())
        .ok()?;
    Some(RemotePane {
        host: host.name,
        number,
        screen,
        requests: requests_tx,
        wake: woken,
        sent_size: Some(size),
        copy_wanted: None,
        _link: Box::new(StopOnDrop(stop)),
    })
}

impl PaneLink {
    fn woke(&self) {
        let _ = self.wake.try_send(());
    }

    /// Until stopped: view the task, and after a failure wait the backoff
    /// and view it again.
    fn run(&self) {
        let mut failures = 0u32;
        while !self.stop.is_stopped() {
            let ended = self.follow();
            drop(lock(&self.stop.ssh).take());
            if self.stop.is_stopped() {
                break;
            }
            match ended {
                Ok(true) => {
                    lock(&self.screen).link = crate::app::remote_pane::PaneLink::Closed;
                    self.woke();
                    break;
                }
                Ok(false) => failures = 1,
                Err(reason) => {
                    failures = failures.saturating_add(1);
                    lock(&self.screen).down(self.clock.wall_ms(), reason);
                    self.woke();
                    if self.stop.wait(backoff(failures)) {
                        break;
                    }
                    continue;
                }
            }
            lock(&self.screen).down(
                self.clock.wall_ms(),
                format!("host {}: lost the connection to it", self.host.name),
            );
            self.woke();
            if self.stop.wait(backoff(failures)) {
                break;
            }
        }
        drop(lock(&self.stop.ssh).take());
    }

    /// One view: `Ok(true)` when the task was closed, `Ok(false)` when a
    /// live view was lost, `Err` when it never started.
    fn follow(&self) -> Result<bool, String> {
        let (ssh, mut remote) = remote::spawn_program(&self.program, &self.host)
            .map_err(|e| crate::printed::error_text(&e))?;
        if !self.stop.hold(ssh) {
            return Ok(false);
        }
        // The pane's latest size: it may have changed while down.
        let (cols, rows) = lock(&self.screen).wanted.unwrap_or(self.size);
        let viewing = (|| -> anyhow::Result<()> {
            remote.hello()?;
            match remote.request(&Request::View(ViewRequest {
                task: self.number.to_string(),
                cols,
                rows,
                // Copy mode asks for the history itself (`history`).
                history: 0,
            }))? {
                Response::Viewing { .. } => Ok(()),
                _ => anyhow::bail!("host {}: its server did not show the task", self.host.name),
            }
        })();
        if let Err(e) = viewing {
            return Err(crate::printed::error_text(&e));
        }
        lock(&self.screen).connected();
        self.woke();
        let (mut input, output) = remote.into_streams();
        let alive = Arc::new(AtomicBool::new(true));
        let writer = {
            let alive = Arc::clone(&alive);
            let requests = self.requests.clone();
            let (program, host, number) = (self.program.clone(), self.host.clone(), self.number);
            let (screen, wake) = (Arc::clone(&self.screen), self.wake.clone());
            std::thread::Builder::new()
                .name("termic-host-pane-input".into())
                .spawn(move || {
                    forward(output, &requests, &alive, |request| {
                        history(&program, &host, number, &screen, &wake, request)
                    })
                })
        };
        if writer.is_err() {
            return Err(format!("host {}: no thread for its input", self.host.name));
        }
        let ended = loop {
            match read_attach_frame(&mut input) {
                Ok(AttachFrame::Output(bytes)) => lock(&self.screen).output(&bytes),
                Ok(AttachFrame::Message(Response::ViewSize(size))) => {
                    lock(&self.screen).sized(size)
                }
                Ok(AttachFrame::Message(Response::Detached(DetachReason::Closed))) => break true,
                Ok(AttachFrame::Message(Response::Detached(_))) => break false,
                // A refused input (`error`), what a later version adds.
                Ok(AttachFrame::Message(_)) => continue,
                Err(_) => break false,
            }
            self.woke();
        };
        alive.store(false, Ordering::SeqCst);
        Ok(ended)
    }
}

/// The pane's input to the view until the connection is no longer
/// `alive` (its reader ended) or a write fails. A history request goes to
/// `history`, off this connection.
fn forward(
    mut output: std::io::BufWriter<std::process::ChildStdin>,
    requests: &Receiver<PaneRequest>,
    alive: &AtomicBool,
    history: impl Fn(PaneRequest),
) {
    use std::io::Write;
    while alive.load(Ordering::SeqCst) {
        match requests.recv_timeout(Duration::from_millis(200)) {
            Ok(PaneRequest::Input(event)) => {
                if write_frame(&mut output, &Request::Input(event)).is_err()
                    || output.flush().is_err()
                {
                    return;
                }
            }
            Ok(request @ PaneRequest::History) => history(request),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Ask the host for the task's history on a connection of its own (a
/// thread, so input goes on meanwhile); the answer goes to the screen.
fn history(
    program: &std::ffi::OsStr,
    host: &HostDef,
    number: u64,
    screen: &Arc<Mutex<PaneScreen>>,
    wake: &Sender<()>,
    _request: PaneRequest,
) {
    let (program, host) = (program.to_owned(), host.clone());
    let (screen, wake) = (Arc::clone(screen), wake.clone());
    let _ = std::thread::Builder::new()
        .name("termic-host-history".into())
        .spawn(move || {
            let task = number.to_string();
            let answer = remote::with_host_using(&program, &host, Some(HISTORY_WAIT), move |r| {
                match r.request(&Request::History { task })? {
                    Response::History(rows) => Ok(rows),
                    _ => anyhow::bail!("host {}: its server sent no history", r.host),
                }
            });
            lock(&screen).history = Some(answer.map_err(|e| crate::printed::error_text(&e)));
            let _ = wake.try_send(());
        });
}
