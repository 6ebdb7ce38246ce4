//! An attached client, in the server: one [`App`] per client over the
//! server's shared runtime, drawn at the client's size into a ratatui
//! terminal whose bytes (only the cells that changed since the last frame,
//! as ratatui diffs them) go to the client as output frames. The client
//! sends its terminal's events; prefix `d` or a client that goes away
//! detaches and the tasks keep running; prefix `q` ends them and the server.

use std::io::{self, BufReader, BufWriter, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use ratatui::crossterm::event::Event;

use super::protocol::input::{InputEvent, Outer};
use super::protocol::{
    read_frame, write_frame, write_output, AttachRequest, DetachReason, Request, Response,
};
use super::Server;
use crate::app::attach::SizeClaim;
use crate::app::terminal::{SharedSize, TerminalGuard};
use crate::app::App;
use crate::notify::Notifier;
use crate::printed::errln;
use crate::workspace::app_options;
use crate::workspace::services::WorkspaceServices;
use termic_runtime::lock;

/// A client that reads nothing for this long is dropped (detached), so a
/// stopped client never holds its view's thread forever.
pub(super) const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Input events from one client queued for its app, at most.
pub(super) const CLIENT_INPUT: usize = 1024;

/// A client's words on its outer terminal queued for its app, at most
/// (it sends one, or two when a late probe answer follows the verdict);
/// past that, a word is dropped, never waited for.
pub(super) const OUTER_WORDS: usize = 4;

/// The size of a client's terminal, within what a real one has (a hostile
/// 65535x65535 would make every frame allocate 4 G cells).
pub fn client_size(cols: u16, rows: u16) -> (u16, u16) {
    (cols.clamp(1, 1000), rows.clamp(1, 500))
}

/// Output for one client: a frame's bytes are collected and sent as one
/// output frame when ratatui flushes.
struct FrameWriter {
    buf: Vec<u8>,
    out: Arc<Mutex<BufWriter<UnixStream>>>,
}

impl Write for FrameWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let result = write_output(&mut *lock(&self.out), &self.buf);
        self.buf.clear();
        result
    }
}

/// Counts an attached client while it lives.
struct Attached<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Attached<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Leaves the hosts' links when dropped, so a client whose loop failed
/// or panicked does not keep them (and their ssh) open.
struct LeaveHosts<'a>(&'a super::host_feeds::HostFeeds, u64);

impl Drop for LeaveHosts<'_> {
    fn drop(&mut self) {
        self.0.leave(self.1);
    }
}

/// How an attach ended.
enum Ending {
    Detached,
    Quit,
}

impl Server {
    /// The restore dialog, when tasks ended with the server before this
    /// one (killed, crashed, stopped, a reboot): Enter starts the picked
    /// ones again (`y` all) in this client's PATH and env, `n` forgets
    /// them all (`crate::ui::restore`).
    fn offer_restore(self: &Arc<Self>, app: &mut App, request: &AttachRequest) {
        use super::protocol::{RestoreAction, RestoreRequest};
        let ask = RestoreRequest {
            tasks: Vec::new(),
            action: RestoreAction::List,
            path_var: request.path_var.clone(),
            cols: request.cols,
            rows: request.rows,
            env: request.env.clone(),
            outputs: request.outputs.clone(),
        };
        let offered = self.restore(ask.clone()).unwrap_or_default();
        let me = Arc::clone(self);
        app.restorer = Some(Box::new(move |action, tasks| {
            me.restore(RestoreRequest {
                action,
                tasks,
                ..ask.clone()
            })
            .unwrap_or_default()
        }));
        if !offered.is_empty() {
            app.overlay = Some(crate::ui::Overlay::Restore(
                crate::ui::restore::RestoreView::new(&offered),
            ));
        }
    }

    /// Serve one attached client until it detaches, goes away or quits.
    /// `input` and `out` are the connection after the hello.
    pub(super) fn attach(
        self: &Arc<Self>,
        request: AttachRequest,
        notice: Option<String>,
        input: BufReader<UnixStream>,
        out: BufWriter<UnixStream>,
        socket_path: &std::path::Path,
    ) {
        let _ = out.get_ref().set_write_timeout(Some(WRITE_TIMEOUT));
        let stream = out.get_ref().try_clone().ok();
        let out = Arc::new(Mutex::new(out));
        let client = self.next_client.fetch_add(1, Ordering::SeqCst);
        // Told `detached("stopped")` if the server stops while it is here.
        self.add_client(client, &out);
        let ending = match self.show(request, notice, input, &out, client) {
            Ok(ending) => ending,
            Err(e) => {
                let message = crate::printed::error_text(&e);
                errln!("termic server: an attached client ended: {message}");
                let _ = write_frame(&mut *lock(&out), &Response::Error { message });
                Ending::Detached
            }
        };
        *lock(&self.away_since) = self.clock.now_ms();
        // It looks at nothing any more: its watched task is pushed again.
        self.push.look(client, None);
        self.push.look_remote(client, None);
        // This client hears how it ended below, and nothing else.
        self.forget_client(client);
        match ending {
            Ending::Detached => {
                let _ = write_frame(
                    &mut *lock(&out),
                    &Response::Detached(DetachReason::Detached),
                );
                // The input thread is still reading: end it.
                if let Some(stream) = stream {
                    let _ = stream.shutdown(Shutdown::Both);
                }
            }
            Ending::Quit => {
                // The user confirmed "Quitting stops them": nothing is kept
                // for a restore (a `server stop` or a signal keeps them).
                self.runtime.forget_journal();
                // The client exits once told, so its tasks are gone first.
                self.end_every_task(socket_path, "by prefix q in an attached client");
                let _ = write_frame(&mut *lock(&out), &Response::Detached(DetachReason::Quit));
                self.stop.request(0);
            }
        }
    }

    fn show(
        self: &Arc<Self>,
        request: AttachRequest,
        notice: Option<String>,
        input: BufReader<UnixStream>,
        out: &Arc<Mutex<BufWriter<UnixStream>>>,
        client: u64,
    ) -> Result<Ending> {
        let focus = match &request.task {
            Some(task) => Some(self.resolve(task)?),
            None => None,
        };
        let mut services = WorkspaceServices::new(
            self.paths.clone(),
            PathBuf::from(&request.cwd),
            request.path_var.clone().into(),
        )?;
        services.set_client_env(super::os_env(request.env.clone()));
        // The first-run wizard never covers a running task.
        let fresh = focus.is_none() && self.runtime.tasks().is_empty();
        let options = app_options(&mut services, fresh)?;
        let hosts = services.config.hosts.clone();
        let warnings = services.config.warnings.clone();
        *lock(&self.idle_exit) =
            Duration::from_secs(services.config.settings.server_idle_exit_secs);
        let services_window_size = services.config.settings.window_size;
        let services_outer_fallback = services.config.settings.outer_fallback;
        let (fallback_tx, fallback_rx) = crossbeam_channel::unbounded();
        let notifier = Notifier::from_env(fallback_tx, options.notify.osc_fallback);
        let size = client_size(request.cols, request.rows);
        let shared_size: SharedSize = Arc::new(Mutex::new(size));
        // The tasks this client starts write to its event log and record
        // dir: one that cannot be used is refused now, with the reason.
        self.runtime.check_outputs(&request.outputs)?;

        write_frame(&mut *lock(out), &Response::Attached).context("the client went away")?;

        self.attached.fetch_add(1, Ordering::SeqCst);
        let _attached = Attached(&self.attached);
        let events = self.subscribe();
        let mut app = App::new(
            self.runtime.clone(),
            Box::new(services),
            options,
            notifier,
            size,
        );
        app.attached = true;
        app.outputs = request.outputs.clone();
        app.specs = Arc::clone(&self.specs);
        // The policy as config.toml says now, as `idle_exit` above.
        lock(&self.sizes).policy = services_window_size;
        app.size_claim = Some(SizeClaim {
            board: Arc::clone(&self.sizes),
            client,
        });
        let push = Arc::clone(&self.push);
        app.on_watched = Some(Box::new(move |task| push.look(client, task)));
        let push = Arc::clone(&self.push);
        app.on_watched_remote = Some(Box::new(move |task| push.look_remote(client, task)));
        app.refresh_wired();
        if let Some(message) = crate::config::unknown::summary(&warnings) {
            app.message = Some(crate::ui::Message::warning(message));
        }
        // What the runtime said while nobody was attached (a full disk
        // stopped the event log or a recording).
        if let Some(notice) = lock(&self.missed_notice).take() {
            app.message = Some(crate::ui::Message::warning(notice));
        }
        // What the hello told this client (lost tasks, the orphan sweep)
        // comes first: its sentences, not the indented lines of detail
        // (the client printed those before the screen was taken).
        let notice = notice.map(|n| {
            n.lines()
                .filter(|l| !l.starts_with("  "))
                .collect::<Vec<_>>()
                .join(" ")
        });
        if let Some(notice) = notice {
            app.message = Some(crate::ui::Message::warning(match app.message.take() {
                Some(warning) => format!("{notice} {}", warning.text),
                None => notice,
            }));
        }
        let away_since = *lock(&self.away_since);
        app.adopt_tasks(away_since);
        // What the tasks did while nobody was attached, told once.
        if let Some(summary) = self.away.take_summary(&self.runtime, self.clock.now_ms()) {
            // Told: every task list reads the rows again, without `away`.
            self.publish(termic_runtime::RuntimeEvent::Resync);
            app.away_summary = Some(summary.clone());
            app.message = Some(match app.message.take() {
                Some(m) => crate::ui::Message {
                    text: format!("{} {summary}", m.text),
                    ..m
                },
                None => crate::ui::Message::info(summary),
            });
        }
        self.offer_restore(&mut app, &request);
        if let Some(id) = focus {
            app.focus_task(id);
        }
        // Attaching is being active: the tasks take this client's size.
        app.claim_size();
        // Anything queued for the outer terminal while nobody was attached
        // (OSC 777 notifications) comes first.
        let queued = std::mem::take(&mut *lock(&self.queued_out));
        if !queued.is_empty() {
            write_output(&mut *lock(out), &queued).context("the client went away")?;
        }

        // Bounded: a client that sends events faster than its app takes
        // them waits in its own socket (back-pressure on that client only).
        let (input_tx, input_rx) = crossbeam_channel::bounded(CLIENT_INPUT);
        // What the client learns of its terminal: one word, two with a late
        // probe answer; more than OUTER_WORDS unread are dropped.
        let (outer_tx, outer_rx) = crossbeam_channel::bounded(OUTER_WORDS);
        app.outer_rx = outer_rx;
        app.outer_setup = crate::app::outer::OuterSetup {
            fallback: services_outer_fallback,
            tmux: request
                .env
                .iter()
                .any(|(k, v)| k == "TMUX" && !v.is_empty()),
        };
        let reader_size = Arc::clone(&shared_size);
        std::thread::Builder::new()
            .name("termic-attach-input".into())
            .spawn(move || forward_input(input, &reader_size, &input_tx, &outer_tx))?;
        let writer = FrameWriter {
            buf: Vec::new(),
            out: Arc::clone(out),
        };
        let mut guard = TerminalGuard::remote(Box::new(writer), shared_size)?;
        // The hosts' links follow config.toml as it reads now; this
        // client stops being woken when its loop ends, however it ends.
        app.remote = Some(self.hosts.join(client, &hosts));
        let leave = LeaveHosts(&self.hosts, client);
        let result = app.run(&mut guard, input_rx, events, fallback_rx);
        // The outer tab is left clean (detach, quit, the server stopping).
        let reset = app.outer_reset();
        if !reset.is_empty() {
            let _ = guard.write_raw(&reset);
        }
        drop(leave);
        let ending = if app.detach || result.is_err() {
            Ending::Detached
        } else {
            Ending::Quit
        };
        // The tasks this client drew take the remaining clients' size.
        app.release_size();
        // The app's runtime is a clone: dropping it ends no task.
        drop(app);
        Ok(ending)
    }
}

/// Client events to the app, until the client goes away or says something
/// that is not an event. A resize updates the frame size first, so the
/// frame drawn for it has the new size.
fn forward_input(
    mut input: BufReader<UnixStream>,
    size: &SharedSize,
    events: &crossbeam_channel::Sender<Event>,
    outer: &crossbeam_channel::Sender<Outer>,
) {
    while let Ok(Request::Input(event)) = read_frame::<Request>(&mut input) {
        if let InputEvent::Outer(word) = event {
            let _ = outer.try_send(word);
            continue;
        }
        let event = match crate::input::wire::to_crossterm(event) {
            Some(Event::Resize(cols, rows)) => {
                let (cols, rows) = client_size(cols, rows);
                *lock(size) = (cols, rows);
                Event::Resize(cols, rows)
            }
            Some(other) => other,
            None => continue,
        };
        if events.send(event).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_size_is_bounded() {
        assert_eq!(client_size(0, 0), (1, 1));
        assert_eq!(client_size(65535, 65535), (1000, 500));
        assert_eq!(client_size(120, 40), (120, 40));
    }
}
