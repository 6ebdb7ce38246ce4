//! The per-user termic server: it owns tasks (the same [`Runtime`] the
//! in-process workspace uses) and answers clients on a Unix socket.
//!
//! - [`protocol`]: frames, messages, the versioned hello (pure).
//! - [`socket`]: where the socket lives, its permissions, peer credentials.
//! - [`client`]: connecting, starting the server on demand.
//! - [`resolve`]: a TASK argument (name or id) to one task (pure).
//!
//! One thread accepts, one thread per connection answers, one thread feeds
//! engine timers and wakes `wait` requests. The server ends when asked
//! (`termic server stop`), on SIGTERM/SIGHUP/SIGINT/SIGQUIT (the same
//! ending: recordings and event log flushed, socket removed, every task's
//! tree ended), or `[server] idle_exit` (config.toml, 60 s by default)
//! after its last task ended with no client connected.

mod answer;
pub mod attach;
pub mod away;
pub mod bridge;
pub mod client;
mod host_feeds;
mod host_pane;
pub mod limit_continue;
pub mod limits;
pub mod panic_hook;
pub mod protocol;
pub mod push;
pub mod remote;
pub mod resolve;
mod restore;
pub mod socket;
mod stop;
pub mod tasklist;
pub mod view;

use std::io::{BufReader, BufWriter};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use crossbeam_channel::{Receiver, Sender};
use termic_signal::engine::State;

use crate::app::overlays::unique_name;
use crate::app::services::Services;
use crate::exit_signals;
use crate::paths::TermicPaths;
use crate::printed::errln;
use crate::workspace::services::WorkspaceServices;
use termic_runtime::clock::{Clock, SystemClock};
use termic_runtime::journal::{self, Journal, ServerMark};
use termic_runtime::{lock, session, Runtime, RuntimeEvent, TaskId, TaskStatus, TermSize};

use answer::row_attention;
use protocol::{
    read_frame, write_frame, KilledWorktree, Request, Response, RunProgram, RunRequest, TaskRow,
    WaitFor, WaitOutcome,
};
use socket::ServerPaths;

/// How long a new connection has to say hello.
/// The context of a server thread that could not start: the server cannot
/// run without it, and `termic server run` prints it with the hint
/// (`limits::with_hint`, so a process limit names `ulimit -u`).
const SERVICE_THREAD: &str = "cannot start the termic server's own threads";

const HELLO_TIMEOUT: Duration = Duration::from_secs(30);

/// How often the server looks whether it is idle, at most.
const IDLE_CHECK: Duration = Duration::from_secs(5);

/// Runtime events queued for one attached client, at most. Its app takes
/// every queued event before each frame, so only a client whose loop is
/// stuck (writing to a terminal that reads nothing, up to the 30 s write
/// timeout) falls this far behind; it is detached rather than kept up to
/// date at the cost of the server's memory (a few MB at most here).
pub const CLIENT_EVENTS: usize = 16 * 1024;

struct Server {
    runtime: Runtime,
    paths: TermicPaths,
    /// Bumped on every transition and exit; `wait` sleeps on it.
    changes: (Mutex<u64>, Condvar),
    connections: AtomicUsize,
    idle_since: Mutex<Instant>,
    clock: Arc<dyn Clock>,
    /// The wall clock (Unix ms) at the runtime clock's 0, read once: a
    /// task's times in its row are this plus the runtime's.
    wall_origin: u64,
    /// Each attached client's and subscriber's copy of the runtime's
    /// events.
    subscribers: Mutex<Vec<Subscriber>>,
    /// Attached clients are numbered from 1; 0 is nobody.
    next_client: AtomicU64,
    /// Every attached client's sizes and which was active last: the
    /// tasks' sizes are chosen there (`[server] window_size`).
    sizes: Arc<Mutex<crate::app::attach::SizeBoard>>,
    /// When the last attached client left (ms on the runtime clock): what
    /// changed after it is marked unseen on the next attach.
    away_since: Mutex<u64>,
    /// What each task was started with, for restart from any client.
    specs: crate::app::TaskSpecs,
    /// Bytes for the next attached client's terminal (OSC 777
    /// notifications the desktop could not show while nobody was attached).
    queued_out: Mutex<Vec<u8>>,
    /// Attached clients now.
    attached: AtomicUsize,
    /// `[server] idle_exit` in config.toml, as last read (at start and at
    /// each attach).
    idle_exit: Mutex<Duration>,
    /// Notifies while no client is attached.
    away: away::AwayNotifier,
    /// Pushes notifications to browsers, ntfy and a webhook (`push`).
    push: Arc<push::Push>,
    /// What the runtime had to tell the user (the event log or a recording
    /// stopped) while nobody was attached: the next attach shows it.
    missed_notice: Mutex<Option<String>>,
    /// Resource errors (out of threads, descriptors) are logged and shown
    /// at most this often.
    shortage_reports: Mutex<limits::RateLimit>,
    /// What the user must hear from the next client that says hello (the
    /// orphan sweep's count), taken by that client.
    startup_notice: Mutex<Option<String>>,
    /// Each attached client's output (by attach number), so that a server
    /// that stops on purpose tells every client so before it exits.
    clients: Mutex<Vec<(u64, ClientOut)>>,
    /// Asked when the server is to end; `serve` then returns.
    stop: stop::Stop,
    /// The links to the remote hosts, while the server runs (issue 29).
    hosts: host_feeds::HostFeeds,
    /// `[tasks] continue_after_limit` as read at start.
    continue_after_limit: bool,
    /// When to type each rate-limited agent's continue prompt (only with
    /// `continue_after_limit`; one plan per task at most).
    limit_plans: Mutex<limit_continue::Plans>,
}

/// The server's own threads: timers, push, the hosts' notes, the idle
/// exit. Without any of them the server cannot run.
fn start_service_threads(
    server: &Arc<Server>,
    events: Receiver<RuntimeEvent>,
    services: &WorkspaceServices,
    socket: &Path,
) -> Result<()> {
    let ticker = Arc::clone(server);
    std::thread::Builder::new()
        .name("termic-ticker".into())
        .spawn(move || ticker.feed_timers(events))
        .context(SERVICE_THREAD)?;
    let pusher = Arc::clone(&server.push);
    std::thread::Builder::new()
        .name("termic-push".into())
        .spawn(move || pusher.run())
        .context(SERVICE_THREAD)?;
    // The hosts' links run while the server does (issue 29): it tells of
    // a remote task's change while nobody is attached.
    server.hosts.sync(&services.config.hosts);
    let teller = Arc::clone(server);
    std::thread::Builder::new()
        .name("termic-host-notes".into())
        .spawn(move || teller.tell_host_notes())
        .context(SERVICE_THREAD)?;
    let idle = Arc::clone(server);
    let socket_path = socket.to_owned();
    std::thread::Builder::new()
        .name("termic-idle".into())
        .spawn(move || idle.exit_when_idle(&socket_path))
        .context(SERVICE_THREAD)?;
    Ok(())
}

/// The task runtime for `services`' settings and agents: the in-process
/// workspace's and the server's. It has no event log or recording of its
/// own: each task has its client's (`Runtime::spawn_with`).
pub fn open_runtime(
    services: &WorkspaceServices,
    clock: Arc<dyn Clock>,
) -> (Runtime, Receiver<RuntimeEvent>) {
    let mut config = services.config.settings.runtime_config();
    config.foreground_agents = Arc::new(services.config.agents.foreground_agents());
    // Every task names this process, so that if it dies without ending
    // them the next server of this data dir can (termic-runtime's orphans.rs).
    config.owner =
        termic_runtime::orphans::Owner::of_this_process(services.data_dir()).map(|o| o.env_value());
    Runtime::new(config, clock)
}

/// An attached client's output stream.
pub(crate) type ClientOut = Arc<Mutex<BufWriter<UnixStream>>>;

/// `termic server run`: serve until stopped. Called in the detached child.
/// Returns the process's exit status once every task has ended: 0 when it
/// was stopped on purpose, 128 + the signal when a signal ended it. The
/// server has no event log or recording of its own: each task has the
/// ones of the client that started it (`TaskOutputs`).
pub fn serve(paths: TermicPaths) -> Result<u8> {
    let server_paths = ServerPaths::from_env(&paths);
    server_paths.prepare_dir()?;
    // A panic is written to server.log (its stderr) before the thread or
    // the process ends: the next start then knows why.
    panic_hook::install();
    exit_signals::install(exit_signals::OnExit::Quiet)
        .context("cannot install the signal handlers")?;
    // A socket file nobody answers on is a crashed server's: replace it.
    if UnixStream::connect(&server_paths.socket).is_ok() {
        anyhow::bail!(
            "a termic server already answers on {}",
            server_paths.socket.display()
        );
    }
    let _ = std::fs::remove_file(&server_paths.socket);
    let me = termic_runtime::orphans::Owner::of_this_process(&paths.data_dir);
    // A server that ended without a word (SIGKILL, the OOM killer, a
    // crash, power loss) could not log it: this start does.
    if let Some(mark) = ServerMark::left_behind(&paths.data_dir) {
        errln!("termic server: {}", mark.ended_silently());
    }
    // A journal write killed between its temp file and the rename left the
    // temp file: gone once it is a minute old (termic's own names only).
    for path in journal::sweep_temp_files(&paths.data_dir, SystemClock::new().wall_ms()) {
        errln!(
            "termic server: removed {}, left by a write that was cut off",
            path.display()
        );
    }
    // Snapshot refs of tasks no record names any more (closed by a server
    // that was killed before it deleted them): deleted in the background,
    // only those taken before this start.
    let records = journal::all_records(&paths.data_dir);
    let started_ms = SystemClock::new().wall_ms();
    // Not thread::spawn, which panics at the process limit: the refs then
    // wait for a later start (2026-12-07).
    let sweep = std::thread::Builder::new()
        .name("termic-sweep-refs".into())
        .spawn(move || {
            let named = records.iter().filter_map(|r| r.snapshot.clone()).collect();
            let dirs: Vec<PathBuf> = records.iter().map(|r| PathBuf::from(&r.cwd)).collect();
            crate::review::sweep_unnamed(&dirs, &named, started_ms)
        });
    if let Err(e) = sweep {
        errln!(
            "termic server: old snapshot refs are left for a later start: {}",
            limits::with_hint(&anyhow::Error::from(e).context("cannot start a thread"))
        );
    }
    // Before the first client can say hello: the processes a server of this
    // data dir left when it was killed are ended, and the first client
    // hears how many.
    let swept = me
        .map(|me| termic_runtime::orphans::sweep(&me))
        .and_then(termic_runtime::orphans::notice);
    if let Some(notice) = &swept {
        errln!("termic server: {notice}");
    }

    let services = WorkspaceServices::new(paths.clone(), PathBuf::from("/"), Default::default())?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock::new());
    let (runtime, events) = open_runtime(&services, Arc::clone(&clock));
    // Every task this server runs is recorded until it ends or is closed,
    // and the server itself is marked, until it ends on purpose.
    if let Some(me) = me {
        let owner = me.env_value();
        runtime.set_journal(Some(Journal::new(&paths.data_dir, &owner)));
        let mark = ServerMark {
            pid: std::process::id(),
            owner,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            started_ms: clock.wall_ms(),
        };
        if let Err(why) = mark.write(&paths.data_dir) {
            errln!("termic server: cannot mark this server as running: {why}");
        }
    }
    let push = Arc::new(push::Push::new(&paths.data_dir, &paths.config_dir));
    let server = Arc::new(Server {
        runtime,
        paths,
        changes: (Mutex::new(0), Condvar::new()),
        connections: AtomicUsize::new(0),
        idle_since: Mutex::new(Instant::now()),
        wall_origin: clock.wall_ms().saturating_sub(clock.now_ms()),
        clock: Arc::clone(&clock),
        subscribers: Mutex::new(Vec::new()),
        next_client: AtomicU64::new(1),
        sizes: Arc::new(Mutex::new(crate::app::attach::SizeBoard::new(
            services.config.settings.window_size,
        ))),
        away_since: Mutex::new(0),
        queued_out: Mutex::new(Vec::new()),
        specs: Default::default(),
        attached: AtomicUsize::new(0),
        continue_after_limit: services.config.settings.continue_after_limit,
        limit_plans: Mutex::new(limit_continue::Plans::default()),
        idle_exit: Mutex::new(Duration::from_secs(
            services.config.settings.server_idle_exit_secs,
        )),
        away: away::AwayNotifier::default(),
        push,
        missed_notice: Mutex::new(None),
        shortage_reports: Mutex::new(limits::RateLimit::new(limits::REPORT_EVERY)),
        startup_notice: Mutex::new(None),
        clients: Mutex::new(Vec::new()),
        stop: stop::Stop::new().context("cannot make the server's stop pipe")?,
        hosts: host_feeds::HostFeeds::new(Arc::clone(&clock)),
    });
    // SIGTERM, SIGHUP, SIGINT, SIGQUIT: the same ending as `server stop`.
    let (on_signal, socket_path) = (Arc::clone(&server), server_paths.socket.clone());
    exit_signals::on_fatal_signal(move |signal| {
        if on_signal.stop.requested().is_none() {
            on_signal.end_every_task(&socket_path, &format!("by {}", signal_name(signal)));
            on_signal.stop.request(128u8.saturating_add(signal as u8));
        }
    });
    // The server's own threads start before it listens: a start at the
    // process limit then ends before any client connects, with its reason
    // in server.log (which the starting client shows), and its mark goes,
    // so the next start does not call it a crash (2026-12-07).
    if let Err(e) = start_service_threads(&server, events, &services, &server_paths.socket) {
        ServerMark::remove(&server.paths.data_dir);
        return Err(e);
    }
    let listener = UnixListener::bind(&server_paths.socket)
        .with_context(|| format!("cannot listen on {}", server_paths.socket.display()))?;
    std::fs::set_permissions(&server_paths.socket, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot chmod 600 {}", server_paths.socket.display()))?;
    // Its tasks whose records are still here were lost: the first client
    // welcomed hears which, once (they move to lost/). Claimed only once
    // this start can serve: a start refused (at the process limit, say)
    // leaves them for the next, whose first client is told (2026-12-07).
    // A client that connects meanwhile waits in the listen queue.
    let lost = claim_lost(&server.paths.data_dir);
    *lock(&server.startup_notice) = match (lost, swept) {
        (Some(lost), Some(swept)) => Some(format!("{lost}\n{swept}")),
        (lost, swept) => lost.or(swept),
    };
    errln!(
        "termic server {} (pid {}) listening on {}",
        env!("CARGO_PKG_VERSION"),
        std::process::id(),
        server_paths.socket.display()
    );

    let own_uid = socket::own_uid();
    let mut backoff = limits::AcceptBackoff::default();
    let mut reserve = limits::ReservedFd::open();
    // Left only when the server is to end (`shut_down`, a signal); a
    // resource error waits and tries again (see `limits`).
    loop {
        if let stop::Woken::Stop(status) = server.stop.wait(&listener) {
            return Ok(status);
        }
        match listener.accept() {
            Ok((stream, _)) => {
                backoff.succeeded();
                // Taken back as soon as a descriptor is free again.
                reserve.restore();
                server.take_connection(stream, own_uid, &server_paths.socket);
            }
            Err(e) => server.accept_failed(&listener, &e, &mut reserve, &mut backoff),
        }
    }
}

/// The shortage an OS error means, or `otherwise`.
fn io_shortage(err: &std::io::Error, otherwise: limits::Shortage) -> limits::Shortage {
    err.raw_os_error()
        .and_then(limits::shortage_of_errno)
        .unwrap_or(otherwise)
}

/// Tell a connection the server cannot serve it, and close it. Non-blocking:
/// the accept loop never waits on a client.
fn refuse(stream: UnixStream, message: String) {
    let _ = stream.set_nonblocking(true);
    let mut out = &stream;
    let _ = write_frame(&mut out, &Response::Error { message });
}

impl Server {
    /// Serve `stream` on a thread of its own. The stream is handed over
    /// through a slot, so when no thread can be started it is still here
    /// to be refused (with the reason) rather than dropped unanswered.
    fn take_connection(self: &Arc<Self>, stream: UnixStream, own_uid: u32, socket: &Path) {
        // The write half is made here, not on the connection's thread:
        // every descriptor the accept loop's reserve competes for is taken
        // on this one thread, so giving the reserve up always lets `accept`
        // have it.
        let write_half = match stream.try_clone() {
            Ok(half) => half,
            Err(e) => {
                let shortage = io_shortage(&e, limits::Shortage::Descriptors);
                refuse(stream, shortage.sentence());
                self.report_shortage(
                    &format!("refused a connection: cannot open its write half: {e}"),
                    Some(shortage),
                );
                return;
            }
        };
        let slot = Arc::new(Mutex::new(Some((stream, write_half))));
        let (server, theirs, socket_path) =
            (Arc::clone(self), Arc::clone(&slot), socket.to_owned());
        let started = std::thread::Builder::new()
            .name("termic-conn".into())
            .spawn(move || {
                let Some((stream, write_half)) = lock(&theirs).take() else {
                    return;
                };
                server.connections.fetch_add(1, Ordering::SeqCst);
                server.converse(stream, write_half, own_uid, &socket_path);
                server.connections.fetch_sub(1, Ordering::SeqCst);
                *lock(&server.idle_since) = Instant::now();
            });
        if let Err(e) = started {
            let shortage = io_shortage(&e, limits::Shortage::Threads);
            if let Some((stream, _)) = lock(&slot).take() {
                refuse(stream, shortage.sentence());
            }
            self.report_shortage(
                &format!("refused a connection: cannot start a thread for it: {e}"),
                Some(shortage),
            );
        }
    }

    /// `accept` failed: for lack of descriptors, the reserved one is given
    /// up for a moment so the waiting client hears why; otherwise (or when
    /// that did not work) the loop waits a little longer each time, so a
    /// shortage that lasts costs no CPU.
    fn accept_failed(
        &self,
        listener: &UnixListener,
        err: &std::io::Error,
        reserve: &mut limits::ReservedFd,
        backoff: &mut limits::AcceptBackoff,
    ) {
        let refuse_one = |shortage: limits::Shortage| {
            listener
                .accept()
                .map(|(stream, _)| refuse(stream, shortage.sentence()))
                .is_ok()
        };
        let Some((shortage, refused)) = limits::on_accept_failure(err, reserve, refuse_one) else {
            return;
        };
        if refused {
            self.report_shortage(
                &format!("refused a connection: cannot accept it: {err}"),
                shortage,
            );
            return;
        }
        self.report_shortage(&format!("cannot accept a connection: {err}"), shortage);
        std::thread::sleep(backoff.failed());
    }

    /// A line in server.log and, for a shortage, a message to every
    /// attached client; at most once per [`limits::REPORT_EVERY`], the
    /// next one saying how many were held back.
    fn report_shortage(&self, what: &str, shortage: Option<limits::Shortage>) {
        let Some(held) = lock(&self.shortage_reports).hit(Instant::now()) else {
            return;
        };
        let more = match held {
            0 => String::new(),
            n => format!(" ({n} more since the last report)"),
        };
        errln!("termic server: {what}{more}");
        if let Some(shortage) = shortage {
            self.publish(RuntimeEvent::Notice(shortage.sentence()));
        }
    }

    /// Fire engine timers when due and wake waiters on every change.
    fn feed_timers(&self, events: Receiver<RuntimeEvent>) {
        loop {
            let now = self.clock.now_ms();
            self.continue_limited(now);
            let plans_due = lock(&self.limit_plans).next_due();
            let timeout = match self.runtime.next_deadline() {
                // Due (or overdue while events kept arriving): fire it first.
                Some(at) if at <= now => {
                    self.runtime.tick(now);
                    continue;
                }
                Some(at) => Duration::from_millis(at - now),
                // Nothing armed: only an event can change anything.
                None => Duration::from_secs(3600),
            };
            let timeout = match plans_due {
                Some(due) => timeout.min(Duration::from_millis(due.saturating_sub(now))),
                None => timeout,
            };
            match events.recv_timeout(timeout) {
                // The runtime prints nothing: its log lines are ours.
                Ok(RuntimeEvent::Log(line)) => errln!("termic server: {line}"),
                Ok(event) => {
                    if let RuntimeEvent::Notice(text) = &event {
                        errln!("termic server: {text}");
                        if self.attached.load(Ordering::SeqCst) == 0 {
                            *lock(&self.missed_notice) = Some(text.clone());
                        }
                    }
                    if let RuntimeEvent::Transition(id, t) = &event {
                        if self.continue_after_limit {
                            let wall = self.clock.wall_ms();
                            lock(&self.limit_plans).on_transition(
                                id.0,
                                t.to,
                                t.at,
                                self.clock.now_ms(),
                                wall,
                                crate::app::attach::utc_offset_secs(wall),
                            );
                        }
                    }
                    if let RuntimeEvent::Exited(id, ..) | RuntimeEvent::Removed(id) = &event {
                        lock(&self.limit_plans).forget(id.0);
                    }
                    if let RuntimeEvent::Transition(id, t) = &event {
                        let away = self.attached.load(Ordering::SeqCst) == 0;
                        let base = lock(&self.specs)
                            .get(&id.0)
                            .and_then(|l| l.base.clone().ok());
                        let earned = self.away.on_transition(
                            &self.runtime,
                            &self.paths,
                            (*id, base),
                            t,
                            away,
                            &self.queued_out,
                        );
                        if let (Some(attention), Some(info)) = (earned, self.runtime.info(*id)) {
                            let kind = t.attention.as_ref().and_then(|a| a.kind.clone());
                            // The dialog's choices now (the row's), for the
                            // notification's buttons.
                            let choices = match attention {
                                crate::notify::Attention::NeedsYou { .. } => {
                                    self.row(*id).map(|r| r.choices).unwrap_or_default()
                                }
                                _ => Vec::new(),
                            };
                            self.push.offer(
                                *id,
                                (u64::from(info.meta.number), &info.meta.name),
                                &attention,
                                kind,
                                &choices,
                            );
                        }
                    }
                    let changed = matches!(
                        event,
                        RuntimeEvent::Transition(..)
                            | RuntimeEvent::Exited(..)
                            | RuntimeEvent::Removed(..)
                            | RuntimeEvent::Added(..)
                            | RuntimeEvent::Renamed(..)
                    );
                    self.publish(event);
                    if changed {
                        self.changed();
                    }
                }
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
            }
            // Events were dropped while this thread was behind: every
            // client re-reads the tasks, and waiters look again.
            if events.is_empty() && self.runtime.take_lagged() {
                errln!(
                    "termic server: fell {} events behind the tasks; clients re-read every task",
                    termic_runtime::events::EVENT_QUEUE
                );
                self.publish(RuntimeEvent::Resync);
                self.changed();
            }
        }
    }

    /// `[tasks] continue_after_limit`: types the continue prompt of each
    /// rate-limited agent whose reset time came, when it is still rate
    /// limited and nobody typed since (decided under the engine's lock, so
    /// a key or a turn in between wins).
    fn continue_limited(&self, now: u64) {
        let due = lock(&self.limit_plans).take_due(now);
        for (task, armed) in due {
            let id = TaskId(task);
            let sent = self.runtime.write_input_if(id, 0, |engine, _| {
                limit_continue::keys_to_type(
                    armed,
                    engine.state(),
                    engine.last_key_at(),
                    engine.continue_prompt(),
                )
                .ok_or(())
            });
            match sent {
                Ok(Ok(())) => errln!(
                    "termic server: task {task}: the usage limit reset, typed its continue prompt"
                ),
                Ok(Err(())) => {}
                Err(e) => {
                    errln!("termic server: task {task}: could not type its continue prompt: {e}")
                }
            }
        }
    }

    /// A copy of the runtime's events from now on, for an attached client
    /// (at most [`CLIENT_EVENTS`] queued; then it is detached).
    fn subscribe(&self) -> Receiver<RuntimeEvent> {
        self.subscribe_with(None)
    }

    /// A copy of the runtime's events from now on, at most
    /// [`CLIENT_EVENTS`] queued; past that they are dropped and `lagged`
    /// is set, for a reader that then looks at every task again (a task
    /// list, a task's view).
    fn subscribe_lagging(&self, lagged: &Arc<AtomicBool>) -> Receiver<RuntimeEvent> {
        self.subscribe_with(Some(Arc::clone(lagged)))
    }

    fn subscribe_with(&self, lagged: Option<Arc<AtomicBool>>) -> Receiver<RuntimeEvent> {
        let (tx, rx) = crossbeam_channel::bounded(CLIENT_EVENTS);
        lock(&self.subscribers).push(Subscriber { tx, lagged });
        rx
    }

    /// Every subscriber gets the event, without waiting for any: one gone
    /// is forgotten; one [`CLIENT_EVENTS`] behind is forgotten (an attached
    /// app: it sees its events end and detaches its client) or marked
    /// lagged (it looks at every task once it has caught up).
    fn publish(&self, event: RuntimeEvent) {
        lock(&self.subscribers).retain(|s| s.offer(event.clone()));
    }

    fn changed(&self) {
        let (count, cvar) = &self.changes;
        *lock(count) += 1;
        cvar.notify_all();
    }

    fn running_tasks(&self) -> usize {
        self.runtime
            .tasks()
            .iter()
            .filter(|t| t.status == TaskStatus::Running)
            .count()
    }

    fn exit_when_idle(&self, socket_path: &std::path::Path) {
        loop {
            let idle_exit = *lock(&self.idle_exit);
            std::thread::sleep(IDLE_CHECK.min(idle_exit).max(Duration::from_secs(1)));
            // A host's running task keeps the server up, as a local one:
            // it is the one to tell of its change.
            let busy = self.connections.load(Ordering::SeqCst) > 0
                || self.running_tasks() > 0
                || lock(self.hosts.board()).has_running_tasks();
            let mut since = lock(&self.idle_since);
            if busy {
                *since = Instant::now();
            } else if since.elapsed() >= idle_exit {
                errln!(
                    "termic server: no task and no client for {}s ([server] idle_exit), exiting",
                    idle_exit.as_secs()
                );
                self.shut_down(socket_path, "([server] idle_exit)");
                return;
            }
        }
    }

    /// The hosts' board changed: while no client is attached, each remote
    /// task's change to needs you, done or error that nobody told yet is
    /// told by the server ([`crate::app::remote_hosts::Board::claim`]: an attached
    /// client that tells it takes it first, so one change is one
    /// notification). Runs for the server's life.
    ///
    /// Every change is also pushed (web push, ntfy, the webhook) once,
    /// by this thread alone, whoever is attached
    /// ([`crate::app::remote_hosts::Board::claim_push`]), unless a client
    /// looks at that task ([`push::Push::offer_remote`]).
    fn tell_host_notes(&self) {
        while self.hosts.noted.recv().is_ok() {
            let pushed = lock(self.hosts.board()).claim_push();
            for note in &pushed {
                self.push.offer_remote(note);
            }
            if self.attached.load(Ordering::SeqCst) > 0 {
                continue;
            }
            let notes = lock(self.hosts.board()).claim(0);
            for note in notes {
                self.away
                    .on_remote_note(&self.paths, &note, &self.queued_out);
            }
        }
    }

    /// One client connection: peer check, hello, then requests until it
    /// closes or sends something that is not a request.
    fn converse(
        self: &Arc<Self>,
        stream: UnixStream,
        write_half: UnixStream,
        own_uid: u32,
        socket_path: &std::path::Path,
    ) {
        let mut out = BufWriter::new(write_half);
        let verdict = socket::peer_cred(&stream)
            .map_err(|e| format!("cannot read the peer's credentials: {e}"))
            .and_then(|peer| socket::authorize(peer.uid, own_uid));
        if let Err(message) = verdict {
            errln!("termic server: refused a connection: {message}");
            let _ = write_frame(&mut out, &Response::Refused { message });
            return;
        }
        // A connection that never says hello holds a thread and two
        // descriptors: it gets a while, not forever.
        let _ = stream.set_read_timeout(Some(HELLO_TIMEOUT));
        let mut input = BufReader::new(stream);
        let hello = read_frame::<Request>(&mut input);
        let _ = input.get_ref().set_read_timeout(None);
        let told = match hello {
            Ok(Request::Hello {
                protocol,
                version,
                quiet,
            }) => {
                let mut answer = protocol::answer_hello(
                    protocol,
                    &version,
                    env!("CARGO_PKG_VERSION"),
                    std::process::id(),
                );
                // The first client welcomed carries the start-up notice
                // (not one that only looks: it would not show it).
                if let Response::Welcome { notice, .. } = &mut answer {
                    if !quiet {
                        *notice = lock(&self.startup_notice).take();
                    }
                }
                let refused = matches!(answer, Response::Refused { .. });
                if write_frame(&mut out, &answer).is_err() || refused {
                    return;
                }
                match answer {
                    Response::Welcome { notice, .. } => notice,
                    _ => None,
                }
            }
            _ => {
                let message = "say hello first: this client does not speak the termic protocol";
                let _ = write_frame(
                    &mut out,
                    &Response::Refused {
                        message: message.into(),
                    },
                );
                return;
            }
        };
        let fd = input.get_ref().as_raw_fd();
        let mut told = told;
        loop {
            let request = match read_frame::<Request>(&mut input) {
                Ok(request) => request,
                // A request of a newer client (protocol 9 on): said, then
                // the connection ends as before.
                Err(protocol::FrameError::Invalid(_)) => {
                    let _ = write_frame(
                        &mut out,
                        &Response::Error {
                            message: protocol::UNKNOWN_REQUEST.into(),
                        },
                    );
                    return;
                }
                Err(_) => return,
            };
            if let Request::Attach(attach) = request {
                return self.attach(attach, told.take(), input, out, socket_path);
            }
            if request == Request::Subscribe {
                return self.subscription(input, out);
            }
            if request == Request::Hosts {
                return self.host_stream(input, out);
            }
            if let Request::Look { host, task } = request {
                return self.look_stream(host, task, input);
            }
            if let Request::View(view) = request {
                return self.view(view, input, out);
            }
            let stop = request == Request::Stop;
            let response = self.answer(request, &|| peer_gone(fd));
            if write_frame(&mut out, &response).is_err() {
                return;
            }
            if stop {
                drop(out);
                self.shut_down(socket_path, "by termic server stop");
                return;
            }
        }
    }

    /// A look at task `task` of remote host `host` until the client
    /// closes the connection: it is not pushed meanwhile.
    fn look_stream(&self, host: String, task: u64, mut input: BufReader<UnixStream>) {
        let client = self.next_client.fetch_add(1, Ordering::SeqCst);
        self.push.look_remote(client, Some((host, task)));
        while read_frame::<Request>(&mut input).is_ok() {}
        self.push.look_remote(client, None);
    }

    /// `gone`: the client hung up (a `wait` stops waiting for nobody).
    fn answer(&self, request: Request, gone: &dyn Fn() -> bool) -> Response {
        let result = match request {
            Request::Hello { .. } => Err(anyhow!("hello was already said")),
            Request::List => Ok(Response::Tasks(self.rows())),
            Request::Run(run) => self.run(run).map(Response::Started),
            Request::Send { task, text, enter } => self.send(&task, &text, enter),
            Request::Kill {
                task,
                remove_worktree,
            } => self.kill(&task, remove_worktree),
            Request::Wait {
                task,
                states,
                timeout_ms,
            } => self
                .wait(&task, &states, timeout_ms.map(Duration::from_millis), gone)
                .map(Response::Waited),
            Request::Stop => Ok(Response::Ok),
            Request::Rename { task, name } => self.rename(&task, &name).map(Response::Renamed),
            Request::Base { task } => self.base(&task),
            Request::History { task } => self.history(&task),
            Request::Timeline { task } => self.timeline(&task),
            Request::Restart { task } => self.restart(&task).map(Response::Started),
            Request::Changes { task } => self.changes(&task),
            Request::Details { task } => self.details(&task),
            Request::ReloadHosts => self.reload_hosts(),
            Request::Revert { task, file, hunk } => self.revert(&task, &file, hunk),
            Request::Merge { task, how, into } => {
                self.merge(&task, how.as_deref(), into.as_deref())
            }
            Request::RemoveMerged { task } => self.remove_merged(&task),
            Request::Restore(restore) => self.restore(restore).map(Response::Restored),
            Request::Answer { task, choice } => self.answer_dialog(&task, &choice),
            Request::Input(_) => Err(anyhow!("input is only for an attached client or a view")),
            // Each turns the connection into a stream, in `converse`.
            Request::Attach(_)
            | Request::Subscribe
            | Request::Hosts
            | Request::Look { .. }
            | Request::View(_) => Err(anyhow!("that request turns a connection into a stream")),
        };
        result.unwrap_or_else(|e| {
            let shortage = limits::shortage(&e);
            if shortage.is_some() {
                self.report_shortage(
                    &format!("a request failed: {}", crate::printed::error_text(&e)),
                    shortage,
                );
            }
            Response::Error {
                message: limits::with_hint(&e),
            }
        })
    }

    fn row(&self, id: TaskId) -> Option<TaskRow> {
        let info = self.runtime.info(id)?;
        let (state, attention, dialog) = self
            .runtime
            .with_engine(id, |e| {
                let block = answer::Block::of(e);
                (e.state(), row_attention(e), answer::needs_screen(block))
            })
            .map_or((None, None, false), |(s, a, d)| (Some(s), a, d));
        // Read again with the screen, only while the agent said it waits:
        // a row is made at every change.
        let choices = match dialog {
            true => self
                .runtime
                .with_engine_and_rows(id, answer::DIALOG_ROWS, |e, rows| {
                    answer::row_choices(answer::Block::of(e), rows)
                })
                .unwrap_or_default(),
            false => Vec::new(),
        };
        let (state, until, reason, exit_code) = match info.status {
            TaskStatus::Exited(code) => ("exited".to_owned(), None, None, code),
            TaskStatus::Running => {
                let state = state.unwrap_or(State::Idle);
                let (until, reason) = match state {
                    State::RateLimited(until) => (until.map(|t| t.as_wire()), None),
                    State::Error(reason) => (None, Some(reason)),
                    _ => (None, None),
                };
                (state.as_str().to_owned(), until, reason, None)
            }
        };
        // The runtime's times as Unix ms, both from one origin: the age
        // every sidebar shows is the same one, and a row made twice is the
        // same row (a subscriber is pushed only what changed).
        let since = self.wall_origin.saturating_add(info.state_since_ms);
        let started = self.wall_origin.saturating_add(info.meta.started_ms);
        // Only the two paths, not the whole spec (its argv and env): `wait`
        // builds a row at every change.
        let (cwd, worktree) = lock(&self.specs)
            .get(&id.0)
            .map(|l| (l.spec.cwd.clone(), l.worktree.clone()))
            .unzip();
        // Where it was started; a task launched some other way: where it
        // runs now.
        let cwd = cwd.or_else(|| std::fs::read_link(format!("/proc/{}/cwd", info.meta.pid)).ok());
        Some(TaskRow {
            // The task's number, not the runtime's id: what every verb
            // takes and every sidebar shows.
            id: u64::from(info.meta.number),
            name: info.meta.name,
            agent: info.meta.agent,
            state,
            until,
            reason,
            since,
            started,
            cwd: cwd.map(|p| p.display().to_string()).unwrap_or_default(),
            worktree: worktree.flatten().map(|w| w.display().to_string()),
            exit_code,
            attention,
            choices,
            away: self
                .away
                .row_away(&self.runtime, id.0, self.wall_origin)
                .map(Box::new),
        })
    }

    /// Every task, by number (as every sidebar lists them).
    fn rows(&self) -> Vec<TaskRow> {
        let mut rows: Vec<TaskRow> = self
            .runtime
            .tasks()
            .iter()
            .filter_map(|t| self.row(t.meta.id))
            .collect();
        rows.sort_by_key(|r| r.id);
        rows
    }

    /// The task a TASK argument (a number or a name) names.
    fn resolve(&self, query: &str) -> Result<TaskId> {
        let rows = self.rows();
        let number = resolve::resolve(query, &rows).map_err(|e| anyhow!(e))?;
        self.task_numbered(number)
            .context("that task is gone (it was closed)")
    }

    /// The task listed under `number`, if any.
    fn task_numbered(&self, number: u64) -> Option<TaskId> {
        self.runtime
            .tasks()
            .iter()
            .find(|t| u64::from(t.meta.number) == number)
            .map(|t| t.meta.id)
    }

    fn run(&self, run: RunRequest) -> Result<TaskRow> {
        let cwd = PathBuf::from(&run.cwd);
        let mut services =
            WorkspaceServices::new(self.paths.clone(), cwd.clone(), run.path_var.into())?;
        services.set_client_env(os_env(run.env));
        let size = task_size(run.cols, run.rows);
        let taken: Vec<String> = self
            .runtime
            .tasks()
            .into_iter()
            .map(|t| t.meta.name)
            .collect();
        let taken = || taken.iter().map(String::as_str);
        let launch = match &run.program {
            RunProgram::Agent { id, args } => {
                let name = run.name.clone().unwrap_or_else(|| unique_name(id, taken()));
                services.launch(id, &name, run.worktree, size, args)?
            }
            RunProgram::Command { argv } => {
                if argv.is_empty() {
                    anyhow::bail!("nothing to run: give a command after --");
                }
                let label = crate::agents::command::command_label(argv);
                let name = run
                    .name
                    .clone()
                    .unwrap_or_else(|| unique_name(&label, taken()));
                services.launch_command(argv, &name, run.worktree, size)?
            }
        };
        if matches!(run.program, RunProgram::Agent { .. }) {
            self.runtime
                .set_hooks_wired(&launch.spec.agent, launch.hooks_wired);
        }
        let spec = launch.spec.clone();
        // Before the task starts, so nothing it does is in its base.
        let base = crate::review::take_base(
            &spec.cwd,
            launch.worktree.as_deref(),
            &crate::review::snapshot_key(&spec.name),
        )
        .map_err(|e| e.to_string());
        let id = match self.runtime.spawn_with(launch.spec, &run.outputs, None) {
            Ok(id) => id,
            Err(err) => {
                if let Some(path) = &launch.worktree {
                    let _ = services.discard_worktree(path);
                }
                if let Ok(base) = &base {
                    let _ = crate::review::drop_base(base);
                }
                return Err(err.into());
            }
        };
        lock(&self.specs).insert(
            id.0,
            crate::app::Launched {
                spec,
                worktree: launch.worktree,
                outputs: run.outputs.clone(),
                base,
            },
        );
        // After `specs`: an attached client adopts the task from the
        // runtime's event and reads its worktree there; a journal write
        // first would widen that window.
        // What a restore starts it from: the arguments as asked (not the
        // ones termic adds), and its worktree.
        let asked = match &run.program {
            RunProgram::Agent { args, .. } | RunProgram::Command { argv: args } => args.clone(),
        };
        let (worktree, (snapshot, review_base)) = lock(&self.specs)
            .get(&id.0)
            .map(|l| {
                let worktree = l
                    .worktree
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned());
                (worktree, crate::review::kept_of(&l.base))
            })
            .unwrap_or_default();
        let _ = self.runtime.journal_update(id, |r| {
            r.args = Some(asked);
            r.worktree = worktree;
            r.snapshot = snapshot;
            r.review_base = review_base;
        });
        self.changed();
        self.row(id).context("the task vanished as it started")
    }

    /// `termic rename TASK NAME`: the runtime's name, so every sidebar
    /// shows it on the `Renamed` event.
    fn rename(&self, task: &str, name: &str) -> Result<TaskRow> {
        let id = self.resolve(task)?;
        self.runtime.rename(id, name)?;
        self.changed();
        self.row(id).context("that task is gone (it was closed)")
    }

    /// `termic diff TASK`: what the task's changes are counted from.
    fn base(&self, task: &str) -> Result<Response> {
        let id = self.resolve(task)?;
        let name = self
            .runtime
            .info(id)
            .map(|i| i.meta.name)
            .context("that task is gone (it was closed)")?;
        let base = lock(&self.specs).get(&id.0).map(|l| l.base.clone());
        let (base, why) = match base {
            Some(Ok(b)) => (Some(b), None),
            Some(Err(why)) => (None, Some(why)),
            None => (
                None,
                Some("termic did not start this task, so it took no snapshot".to_owned()),
            ),
        };
        Ok(Response::Base { name, base, why })
    }

    /// Task TASK's Inspector timeline, the newest entries that fit one
    /// frame (the workspace's Inspector on a remote task, protocol 8).
    fn timeline(&self, task: &str) -> Result<Response> {
        let id = self.resolve(task)?;
        let started = self
            .runtime
            .info(id)
            .context("that task is gone (it was closed)")?
            .meta
            .started_ms;
        let (log, _) = self.runtime.log_since(id, 0);
        let entries = log
            .iter()
            .map(|e| {
                let entry = crate::app::inspector_entry(e, started);
                protocol::TimelineEntry {
                    at_ms: entry.at.as_millis() as u64,
                    transition: entry.kind == crate::ui::inspector::EntryKind::Transition,
                    text: entry.text,
                }
            })
            .collect();
        Ok(Response::Timeline(protocol::fit_timeline(entries)))
    }

    /// `details` (protocol 9): what task TASK's details panel shows
    /// beyond its row, as the workspace reads it for a local task.
    fn details(&self, task: &str) -> Result<Response> {
        let id = self.resolve(task)?;
        let info = self
            .runtime
            .info(id)
            .context("that task is gone (it was closed)")?;
        let spec = lock(&self.specs).get(&id.0).map(|l| l.spec.clone());
        let (native, profile) = self
            .runtime
            .with_engine(id, |e| (e.native_status_seen(), e.config().agent.clone()))
            .unwrap_or((false, info.meta.agent.clone()));
        let wired = self.runtime.hooks_wired_for(&info.meta.agent);
        let (command, branch) = match spec {
            Some(spec) => {
                let argv: Vec<String> = spec
                    .argv
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
                (
                    shell_words::join(&argv),
                    crate::app::services::git_branch(&spec.cwd),
                )
            }
            None => (String::new(), None),
        };
        Ok(Response::Details(protocol::TaskDetails {
            command,
            branch,
            channel: crate::app::task_basics::status_channel_words(wired, native, &profile).into(),
            pid: info.meta.pid,
            exited: matches!(info.status, TaskStatus::Exited(_)),
        }))
    }

    /// `reload_hosts` (protocol 9): config.toml's `[hosts]` read again and
    /// the links made to follow it. A file that does not load (half saved,
    /// not TOML) keeps the links as they are and says why in server.log.
    fn reload_hosts(&self) -> Result<Response> {
        match crate::config::Config::load(&self.paths.config_dir) {
            Ok(config) => {
                self.hosts.sync(&config.hosts);
                Ok(Response::HostsReloaded {
                    hosts: config.hosts.len(),
                })
            }
            Err(e) => {
                errln!("termic server: hosts not read again, the links are kept: {e}");
                Err(anyhow!("config.toml did not load, the links are kept: {e}"))
            }
        }
    }

    /// `changes` (protocol 8): task TASK's changes since its base, read
    /// here as `termic diff` reads them, cut to one frame.
    fn changes(&self, task: &str) -> Result<Response> {
        let Response::Base { base, why, .. } = self.base(task)? else {
            anyhow::bail!("that task has no base");
        };
        let Some(base) = base else {
            anyhow::bail!(
                "no changes to show: {}",
                why.unwrap_or_else(|| "no snapshot".into())
            );
        };
        let changes =
            crate::review::changes(&base).map_err(|e| anyhow!("cannot read the changes: {e}"))?;
        Ok(Response::Changes(protocol::fit_changes(changes)))
    }

    /// Task TASK's base, or why it has none (an error for the user).
    fn base_of(&self, task: &str) -> Result<(String, crate::review::ReviewBase)> {
        let Response::Base { name, base, why } = self.base(task)? else {
            anyhow::bail!("that task has no base");
        };
        match base {
            Some(base) => Ok((name, base)),
            None => anyhow::bail!(
                "no changes to show: {}",
                why.unwrap_or_else(|| "no snapshot".into())
            ),
        }
    }

    /// Task TASK's row.
    fn row_of(&self, task: &str) -> Result<TaskRow> {
        let id = self.resolve(task)?;
        self.row(id).context("that task is gone (it was closed)")
    }

    /// `revert` (protocol 9): hunk `hunk` of `file` turned around in the
    /// task's directory, as the diff view's revert does; refused while
    /// the agent is working or needs you.
    fn revert(
        &self,
        task: &str,
        file: &termic_review::model::FileDiff,
        hunk: usize,
    ) -> Result<Response> {
        use crate::review::revert::{revert_hunk, Reverted};
        let badge = crate::app::remote_hosts::badge_of_row(&self.row_of(task)?);
        if let Some(why) = crate::app::review::busy_reason(Some(&badge), "Revert") {
            anyhow::bail!("{why}");
        }
        let (_, base) = self.base_of(task)?;
        Ok(Response::Reverted(
            match revert_hunk(&base.dir, file, hunk)? {
                Reverted::WorkTree => protocol::RevertedIn::WorkTree,
                Reverted::IndexAndWorkTree => protocol::RevertedIn::IndexAndWorkTree,
            },
        ))
    }

    /// `merge` (protocol 9): as `termic merge TASK` does, here.
    fn merge(&self, task: &str, how: Option<&str>, into: Option<&str>) -> Result<Response> {
        use termic_review::merge;
        let state = self.row_of(task)?.state;
        let (name, base) = self.base_of(task)?;
        let shown = crate::printed::clean_line(&name).into_owned();
        if let Some(reason) = crate::commands::merge::busy_reason(&state) {
            anyhow::bail!(
                "task {shown} was not merged: {}",
                reason.replace("TASK", &shown)
            );
        }
        let how = match how {
            Some(h) => merge::How::parse(h).with_context(|| format!("no merge is named {h}"))?,
            None => {
                crate::config::Config::load_lenient(&self.paths.config_dir)
                    .settings
                    .review_merge
            }
        };
        let plan =
            merge::plan(&base, into).map_err(|e| anyhow!("task {shown} was not merged: {e}"))?;
        let merged = merge::merge(&plan, how, &crate::commands::merge::message(&shown))
            .map_err(|e| anyhow!("task {shown} was not merged: {e}"))?;
        Ok(Response::Merged {
            merged,
            how: how.as_str().to_owned(),
            worktree: plan.worktree,
        })
    }

    /// `remove_merged` (protocol 9): the merged task's worktree and
    /// branch removed, then the task closed, once its agent is done or
    /// has exited (the diff view's offer after a merge).
    fn remove_merged(&self, task: &str) -> Result<Response> {
        use crate::worktree::RemoveMergedError;
        let badge = crate::app::remote_hosts::badge_of_row(&self.row_of(task)?);
        if let Some(why) = crate::app::merge::removal_refusal(Some(&badge)) {
            anyhow::bail!("{why}");
        }
        let (_, base) = self.base_of(task)?;
        let plan = termic_review::merge::plan(&base, None)?;
        let repo = plan
            .checkout
            .clone()
            .unwrap_or_else(|| plan.worktree.clone());
        let removed = crate::worktree::remove_merged(&repo, &plan.worktree, &plan.branch);
        // Nothing removed, the task kept: what git said, and what to do
        // (the client names this host before it).
        match removed {
            Err(RemoveMergedError::Worktree(crate::worktree::WorktreeError::Remove {
                path,
                reason,
            })) => anyhow::bail!(
                "the worktree is kept: {reason}. Have the agent commit its changes and merge \
                 again, or delete them with: git worktree remove --force {}",
                path.display()
            ),
            Err(RemoveMergedError::Worktree(e)) => anyhow::bail!("{e}"),
            _ => {}
        }
        self.kill(task, false)?;
        Ok(Response::Killed {
            worktree: Some(protocol::KilledWorktree {
                path: plan.worktree,
                branch: Some(plan.branch),
                removed: true,
                error: removed.err().map(|e| e.to_string()),
            }),
        })
    }

    /// `restart` (protocol 8): exited task TASK starts again in its place,
    /// as the workspace's restart does; its row.
    fn restart(&self, task: &str) -> Result<TaskRow> {
        let id = self.resolve(task)?;
        let new = crate::app::restart_task(&self.runtime, &self.specs, id, None)
            .map_err(|e| anyhow!(e))?;
        self.changed();
        self.row(new).context("the task vanished as it started")
    }

    /// Task TASK's history and screen, the newest [`HISTORY_LINES`] lines
    /// (copy mode on a remote task, issue 29).
    fn history(&self, task: &str) -> Result<Response> {
        let id = self.resolve(task)?;
        let all = self
            .runtime
            .all_rows(id)
            .context("that task is gone (it was closed)")?;
        Ok(Response::History(history_rows(all)))
    }

    fn send(&self, task: &str, text: &str, enter: bool) -> Result<Response> {
        let id = self.resolve(task)?;
        self.runtime.write_input(id, text.as_bytes())?;
        if enter {
            // On its own, as a key: the engine sees Enter, not pasted text.
            self.runtime.write_input(id, b"\r")?;
        }
        Ok(Response::Ok)
    }

    /// `answer`: the choice's keys, sent only if the task's screen shows
    /// that choice, checked and sent under the screen's lock. For an agent
    /// whose dialogs drop keys that come too soon after they are painted
    /// (Claude Code), once the dialog held still that long (at most
    /// [`answer::SETTLE_MAX`]); a choice that opens a second prompt
    /// (opencode's "Allow always") gets that prompt's keys once it shows as
    /// measured (at most [`answer::FOLLOW_UP_MAX`]), else nothing more.
    /// Nothing is ever sent twice.
    fn answer_dialog(&self, task: &str, choice: &str) -> Result<Response> {
        use protocol::Answered;
        let id = self.resolve(task)?;
        let mut settle = answer::Settle::default();
        let deadline = Instant::now() + answer::SETTLE_MAX;
        let then = loop {
            let now = Instant::now();
            let mut then = None;
            let sent = self
                .runtime
                .write_input_if(id, answer::DIALOG_ROWS, |engine, rows| {
                    let answer = answer::decide_answer(answer::Block::of(engine), rows, choice)
                        .map_err(Some)?;
                    if !settle.ready(now, &answer.shown, answer.hold) {
                        return Err(None);
                    }
                    then = answer.then;
                    Ok(answer.keys)
                })?;
            match sent {
                Ok(()) => break then,
                Err(Some(why)) => return Ok(Response::Answered(why)),
                Err(None) if now >= deadline => {
                    return Ok(Response::Answered(Answered::ScreenChanged))
                }
                Err(None) => std::thread::sleep(answer::POLL),
            }
        };
        let Some(then) = then else {
            return Ok(Response::Answered(Answered::Sent));
        };
        let deadline = Instant::now() + answer::FOLLOW_UP_MAX;
        loop {
            let sent = self
                .runtime
                .write_input_if(id, answer::DIALOG_ROWS, |_, rows| then.keys(rows).ok_or(()))?;
            if sent.is_ok() {
                return Ok(Response::Answered(Answered::Sent));
            }
            if Instant::now() >= deadline {
                return Ok(Response::Answered(Answered::PartlySent));
            }
            std::thread::sleep(answer::POLL);
        }
    }

    /// End the task's whole process tree and forget it; answers once no
    /// process of it is left.
    fn kill(&self, task: &str, remove_worktree: bool) -> Result<Response> {
        let id = self.resolve(task)?;
        let processes = self
            .runtime
            .info(id)
            .map(|i| i.meta.processes())
            .context("the task is gone")?;
        self.runtime.remove(id)?;
        let launched = lock(&self.specs).remove(&id.0);
        // A killed task's record is forgotten, so nothing restores it:
        // its snapshot ref goes with it.
        if let Some(Ok(base)) = launched.as_ref().map(|l| &l.base) {
            // Best effort: a ref left behind costs a tree, not the task.
            let _ = crate::review::drop_base(base);
        }
        let worktree = launched.and_then(|l| l.worktree);
        self.away.forget(id);
        let deadline = Instant::now() + session::KILL_GRACE * 10;
        while session::task_alive(&processes) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        self.changed();
        // Removed after the task's processes are gone: git refuses to
        // remove a worktree a process still holds files in only on some
        // systems, but an agent writing into it while it goes is a mess on all.
        let worktree = worktree.map(|path| {
            let branch = crate::worktree::branch(&path);
            let error = remove_worktree
                .then(|| crate::worktree::remove_anywhere(&path).err())
                .flatten()
                .map(|e| e.to_string());
            KilledWorktree {
                removed: remove_worktree && error.is_none(),
                path,
                branch,
                error,
            }
        });
        Ok(Response::Killed { worktree })
    }

    fn wait(
        &self,
        task: &str,
        states: &[WaitFor],
        timeout: Option<Duration>,
        gone: &dyn Fn() -> bool,
    ) -> Result<WaitOutcome> {
        let id = self.resolve(task)?;
        // A timeout too large for the clock is no timeout (never a panic).
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let (count, cvar) = &self.changes;
        let mut seen = lock(count);
        loop {
            // A task closed while we wait (`termic kill`, a client's close)
            // has exited as far as the waiter is concerned: the README's
            // code for that is "exited", not an error.
            let Some(row) = self.row(id) else {
                return Ok(WaitOutcome::Exited);
            };
            if let Some(outcome) = wait_outcome(&row, states) {
                return Ok(outcome);
            }
            if gone() {
                // Nobody to answer; the thread and the connection end.
                return Ok(WaitOutcome::TimedOut);
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) => left,
                    None => return Ok(WaitOutcome::TimedOut),
                },
                None => Duration::from_secs(3600),
            };
            // Transitions bump the counter; the timeout is only a backstop.
            seen = cvar
                .wait_timeout(seen, left.min(Duration::from_secs(1)))
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

/// One reader of the runtime's events in the server, and what happens when
/// it falls [`CLIENT_EVENTS`] behind.
struct Subscriber {
    tx: Sender<RuntimeEvent>,
    /// Set when an event was dropped for it (it then looks at every task);
    /// `None`: it is dropped itself.
    lagged: Option<Arc<AtomicBool>>,
}

impl Subscriber {
    /// Queue `event` without waiting: whether to keep the subscriber (not
    /// when it is gone, nor an attached app [`CLIENT_EVENTS`] behind).
    fn offer(&self, event: RuntimeEvent) -> bool {
        match self.tx.try_send(event) {
            Ok(()) => true,
            Err(crossbeam_channel::TrySendError::Full(_)) => match &self.lagged {
                Some(lagged) => {
                    lagged.store(true, Ordering::Release);
                    true
                }
                None => {
                    errln!(
                        "termic server: detached a client that fell {CLIENT_EVENTS} events \
                         behind (it was not reading its output)"
                    );
                    false
                }
            },
            Err(crossbeam_channel::TrySendError::Disconnected(_)) => false,
        }
    }
}

/// The newest lines of a task's rows (at most [`protocol::HISTORY_LINES`])
/// that fit one frame: wide, colourful lines take fewer, halved until the
/// answer fits. Pure.
fn history_rows(all: termic_runtime::history::AllRows) -> protocol::HistoryRows {
    let mut keep = protocol::HISTORY_LINES;
    loop {
        let skip = all.formatted.len().saturating_sub(keep);
        let rows = protocol::HistoryRows {
            formatted: all.formatted[skip..].to_vec(),
            plain: all.plain[skip.min(all.plain.len())..].to_vec(),
            rows: all.rows,
            cols: all.cols,
        };
        let size =
            serde_json::to_vec(&Response::History(rows.clone())).map_or(usize::MAX, |b| b.len());
        if size < protocol::MAX_FRAME || keep == 0 {
            return rows;
        }
        keep /= 2;
    }
}

/// The PTY size for a run request, within what a real terminal has: a
/// hostile 65535x65535 would make the screen model allocate 4 G cells.
pub fn task_size(cols: u16, rows: u16) -> TermSize {
    TermSize {
        cols: cols.clamp(20, 1000),
        rows: rows.clamp(5, 500),
    }
}

/// A client's environment as the runtime takes it.
fn os_env(env: Vec<(String, String)>) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    env.into_iter().map(|(k, v)| (k.into(), v.into())).collect()
}

/// Whether the client on `fd` hung up (it may not send anything while it
/// waits, so reading cannot tell).
fn peer_gone(fd: std::os::fd::RawFd) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLRDHUP,
        revents: 0,
    };
    // SAFETY: one pollfd, zero timeout.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    ready > 0 && poll.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0
}

/// Whether `row` ends a wait for `states` (pure).
pub fn wait_outcome(row: &TaskRow, states: &[WaitFor]) -> Option<WaitOutcome> {
    let reached = states.iter().copied().find(|s| s.as_str() == row.state);
    match reached {
        Some(state) => Some(WaitOutcome::Reached(state)),
        None if row.state == "exited" => Some(WaitOutcome::Exited),
        None => None,
    }
}

impl Server {
    /// End every task, tell the clients, remove the socket, and have
    /// `serve` return (the process exits 0).
    fn shut_down(&self, socket_path: &std::path::Path, why: &str) {
        self.end_every_task(socket_path, why);
        self.stop.request(0);
    }

    /// Remove the socket (no new client) and end every task's process tree,
    /// its recording and event log flushed first; the tasks' records and
    /// the server's mark go (nothing was lost), every attached client is
    /// told the server stopped, and server.log says `why`.
    pub(crate) fn end_every_task(&self, socket_path: &std::path::Path, why: &str) {
        let _ = std::fs::remove_file(socket_path);
        // No ssh of the host links outlives the server.
        self.hosts.stop_all();
        self.runtime.end_all();
        session::end_every_task();
        ServerMark::remove(&self.paths.data_dir);
        let clients = std::mem::take(&mut *lock(&self.clients));
        for (_, out) in clients {
            tell_stopped(&out);
        }
        errln!("termic server: stopped {why}");
    }

    /// Keep an attached client's output, to tell it when the server stops.
    pub(crate) fn add_client(&self, client: u64, out: &ClientOut) {
        lock(&self.clients).push((client, Arc::clone(out)));
    }

    pub(crate) fn forget_client(&self, client: u64) {
        lock(&self.clients).retain(|(c, _)| *c != client);
    }
}

/// How long a stopping server tries to get a client's output to itself
/// (its app may be writing a frame to a client that reads slowly).
const TELL_STOPPED_WITHIN: Duration = Duration::from_secs(1);

/// `detached("stopped")` to one client. A client whose output stays busy
/// is not waited for: it sees the stream end, as if the server were lost.
fn tell_stopped(out: &ClientOut) {
    let stopped = Response::Detached(protocol::DetachReason::Stopped);
    let deadline = Instant::now() + TELL_STOPPED_WITHIN;
    loop {
        let mut out = match out.try_lock() {
            Ok(out) => out,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        let _ = out
            .get_ref()
            .set_write_timeout(Some(Duration::from_millis(500)));
        let _ = write_frame(&mut *out, &stopped);
        // The last word: a frame or push another thread has ready fails
        // instead of following it.
        let _ = out.get_ref().shutdown(std::net::Shutdown::Write);
        return;
    }
}

/// The name of a signal that ends the server, for its log.
fn signal_name(signal: libc::c_int) -> String {
    match signal {
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGQUIT => "SIGQUIT".into(),
        n => format!("signal {n}"),
    }
}

/// At start: claim the records of tasks a gone server left (see
/// [`journal::claim_lost`]); files that are no record are logged, and so
/// is the notice naming the lost tasks, which is returned.
fn claim_lost(data_dir: &Path) -> Option<String> {
    let claimed = journal::claim_lost(data_dir, SystemClock::new().wall_ms());
    for skipped in &claimed.skipped {
        errln!("termic server: skipped {skipped}");
    }
    let notice = journal::lost_notice(&claimed.lost)?;
    errln!("termic server: {notice}");
    Some(notice)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_history_answer_keeps_the_newest_lines_that_fit_one_frame() {
        let line = |i: usize, width: usize| format!("\x1b[31m{i:06}{}", "x".repeat(width));
        let all = |n: usize, width: usize| termic_runtime::history::AllRows {
            formatted: (0..n).map(|i| line(i, width)).collect(),
            plain: (0..n).map(|i| format!("{i:06}")).collect(),
            rows: 24,
            cols: 80,
        };
        let short = super::history_rows(all(5000, 10));
        assert_eq!(short.formatted.len(), super::protocol::HISTORY_LINES);
        assert!(
            short.formatted[0].contains("003000"),
            "{:?}",
            &short.formatted[0]
        );
        assert!(short.plain.last().unwrap().ends_with("004999"));
        // 2000 lines of 2 KiB do not fit 1 MiB: fewer, still the newest.
        let wide = super::history_rows(all(5000, 2048));
        assert!(wide.formatted.len() <= 500, "{}", wide.formatted.len());
        assert!(!wide.formatted.is_empty());
        assert!(wide.formatted.last().unwrap().contains("004999"));
        let bytes = serde_json::to_vec(&super::Response::History(wide)).unwrap();
        assert!(bytes.len() < super::protocol::MAX_FRAME);
    }

    use super::*;

    fn row(state: &str) -> TaskRow {
        TaskRow::for_test(1, "t", "claude", state)
    }

    #[test]
    fn a_client_too_far_behind_loses_its_events_and_the_server_never_waits() {
        let (tx, rx) = crossbeam_channel::bounded(CLIENT_EVENTS);
        let app = Subscriber { tx, lagged: None };
        let event = RuntimeEvent::Dirty(TaskId(1));
        for _ in 0..CLIENT_EVENTS {
            assert!(app.offer(event.clone()));
        }
        // Full: dropped at once (the app then detaches the client).
        assert!(!app.offer(event.clone()));
        assert_eq!(rx.len(), CLIENT_EVENTS);
        // A client gone is forgotten too.
        drop(rx);
        assert!(!app.offer(event.clone()));

        // A task list or a view is kept, marked lagged.
        let (tx, rx) = crossbeam_channel::bounded(2);
        let lagged = Arc::new(AtomicBool::new(false));
        let list = Subscriber {
            tx,
            lagged: Some(Arc::clone(&lagged)),
        };
        for _ in 0..3 {
            assert!(list.offer(event.clone()));
        }
        assert_eq!(rx.len(), 2);
        assert!(lagged.load(Ordering::SeqCst));
        drop(rx);
        assert!(!list.offer(event), "gone: forgotten");
    }

    #[test]
    fn a_run_request_size_is_bounded() {
        assert_eq!(
            task_size(65535, 65535),
            TermSize {
                cols: 1000,
                rows: 500
            }
        );
        assert_eq!(task_size(0, 0), TermSize { cols: 20, rows: 5 });
        assert_eq!(
            task_size(120, 40),
            TermSize {
                cols: 120,
                rows: 40
            }
        );
    }

    #[test]
    fn a_wait_ends_on_an_awaited_state_or_an_exit() {
        let want = [WaitFor::NeedsYou];
        assert_eq!(wait_outcome(&row("working"), &want), None);
        assert_eq!(
            wait_outcome(&row("needs_you"), &want),
            Some(WaitOutcome::Reached(WaitFor::NeedsYou))
        );
        assert_eq!(
            wait_outcome(&row("exited"), &want),
            Some(WaitOutcome::Exited)
        );
        assert_eq!(
            wait_outcome(&row("exited"), &[WaitFor::Done, WaitFor::Exited]),
            Some(WaitOutcome::Reached(WaitFor::Exited))
        );
    }
}
