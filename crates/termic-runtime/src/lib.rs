//! The task runtime: every task is a command in its own PTY, with the env
//! contract of design.md, a reader thread feeding its signal engine, a
//! screen thread feeding its screen model, an input writer thread, and an
//! exit waiter. The UI drives it through [`Runtime`] and hears back through
//! a channel of [`RuntimeEvent`]s.
//!
//! The `termic-runtime` crate: no UI, no CLI (`cargo tree` is checked in
//! `.ci/run`). The binary (`termic`) depends on it, never the reverse: the
//! runtime is given its settings as values and tells what happened through
//! its events and typed errors; it prints nothing.
//!
//! - [`agents`]: what the runtime knows of each built-in agent, and which
//!   agent a foreground process is.
//! - [`clock`]: the injected clock (real or test).
//! - [`container`]: a Docker task's container: its PTY mount and its kill.
//! - [`eventlog`]: the JSON Lines event log of every transition.
//! - [`record`], [`record_file`]: asciicast recordings of tasks.
//! - [`replies`]: answers to the terminal queries a task prints.
//! - [`shell`]: the integrated shell's startup files.
//! - [`slug`]: a task's name as a file or branch name.
//! - [`env`]: the spawn env contract (pure).
//! - [`foreground`]: which agent runs in a command or shell task's foreground.
//! - [`history`]: compact scrollback outside the screen model.
//! - [`journal`]: the server's record of each live task, to tell lost ones.
//! - [`names`]: what a task name may be (pure).
//! - [`orphans`]: ending what a termic killed without ending its tasks left.
//! - [`spawn`]: PTY open (under one process-wide lock) and child start.
//! - [`reader`]: the reader thread (read, query scan, engine).
//! - [`screen`]: the screen thread (screen model, replies, dirty flag).
//! - [`session`]: ending every process a task started (group, session, descendants, env).
//! - [`signals`]: the task's signal engine and recorder, fed under one lock.
//! - [`task`]: state shared by the threads of one task.
//! - [`types`]: specs, ids, events, config and errors.
//! - [`writer`]: the input writer thread (the only place a write may block).

pub mod agents;
pub mod clock;
pub mod container;
pub mod env;
pub mod eventlog;
pub mod events;
pub mod foreground;
pub mod history;
pub mod journal;
pub mod names;
pub mod orphans;
pub mod program;
pub mod reader;
pub mod record;
pub mod record_file;
pub mod replay_screen;
pub mod replies;
pub mod screen;
pub mod session;
pub mod shell;
pub mod signals;
pub mod slug;
pub mod spawn;
pub mod task;
pub mod timeline;
pub mod types;
pub mod writer;

use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroU16;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread;
use std::time::Duration;

use crossbeam_channel::Receiver;
use portable_pty::PtySize;
use termic_signal::engine::{Engine, EngineConfig, LogEntry};
use termic_signal::profile::ScreenRows;

use crate::clock::Clock;
use crate::eventlog::EventLog;
use crate::record::{AsciicastRecorder, RecordingFacts, TaskRecorder};
use crate::replies::Responder;

use history::History;
use signals::TaskSignals;
use task::TaskShared;
pub use types::{
    RuntimeConfig, RuntimeError, RuntimeEvent, TaskId, TaskInfo, TaskMeta, TaskOutputs, TaskSpec,
    TaskStatus, TermSize, DEFAULT_SCROLLBACK,
};

/// How long the exit waiter lets the reader and the screen thread drain
/// after the child exits.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(300);

/// A poisoned lock only means a thread panicked mid-update; the data (a
/// screen, a writer) is still usable, so take it rather than cascade.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Inner {
    tasks: Mutex<BTreeMap<TaskId, Arc<TaskShared>>>,
    next_id: AtomicU64,
    events: events::EventSender,
    config: RuntimeConfig,
    clock: Arc<dyn Clock>,
    /// Verified hooks status per agent id (the tui computes it).
    hooks_wired: Arc<Mutex<HashMap<String, bool>>>,
    /// The event log of tasks spawned with [`Runtime::spawn`] (the
    /// in-process tools' and tests'; the server gives each task its own).
    event_log: Mutex<Option<Arc<EventLog>>>,
    /// Every event log a task has open, by path, so tasks of one file
    /// share one writer (one stop, one notice). An entry goes with its
    /// last task; dead ones are pruned at each open, so the map holds at
    /// most one entry per file some live task writes.
    event_logs: Mutex<HashMap<PathBuf, Weak<EventLog>>>,
    record_dir: Mutex<Option<PathBuf>>,
    /// `--record-input`: recordings keep the keystrokes themselves.
    record_input: AtomicBool,
    /// The server's record of each live task (`None`: not kept).
    journal: Mutex<Option<Arc<journal::Journal>>>,
}

impl Drop for Inner {
    /// Quitting termic must not leave agents running behind it.
    fn drop(&mut self) {
        self.end_all();
    }
}

impl Inner {
    /// Flushes every task's recording and held event-log lines, ends each
    /// running task's tree and waits for the SIGKILLs.
    fn end_all(&self) {
        // Every task is ended on purpose and kept for a restore: the
        // records stay (marked stopped), and a task started from now on,
        // as the process exits, keeps none.
        if let Some(journal) = lock(&self.journal).take() {
            journal.keep_all();
        }
        // A copy: nothing else waits on the map's lock while trees end.
        let tasks: Vec<Arc<TaskShared>> = lock(&self.tasks).values().cloned().collect();
        for task in &tasks {
            let mut signals = task.lock_signals();
            signals.flush_recording();
            task.send_notices(&mut signals);
            // A burst the event log held is written before termic goes.
            let held: Vec<_> = signals.flush_log().into_iter().collect();
            task.write_log(&held);
            drop(signals);
            if task.status() == TaskStatus::Running {
                session::end_task(&task.meta.processes());
                // termic is exiting: the reaper thread dies with it, so the
                // container is stopped now by a client that outlives us.
                if let Some(container) = &task.meta.container {
                    crate::container::kill_detached(container);
                }
            }
        }
        // A task that ignores SIGHUP and SIGTERM gets its SIGKILL before
        // termic goes (the reapers die with the process).
        session::wait_for_reapers();
    }
}

/// The task runtime. Cheap to clone; every clone drives the same tasks.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

fn nonzero(v: u16) -> NonZeroU16 {
    NonZeroU16::new(v).unwrap_or(NonZeroU16::MIN)
}

impl Runtime {
    /// Whether the event channel dropped events since the last call (its
    /// reader was [`events::EVENT_QUEUE`] behind): the reader must then
    /// re-read every task's state ([`RuntimeEvent::Resync`]). Only the
    /// channel's one reader asks.
    pub fn take_lagged(&self) -> bool {
        self.inner.events.take_lagged()
    }

    /// A runtime and the receiving end of its event channel.
    pub fn new(config: RuntimeConfig, clock: Arc<dyn Clock>) -> (Runtime, Receiver<RuntimeEvent>) {
        let (events, receiver) = events::EventSender::channel(events::EVENT_QUEUE);
        let inner = Inner {
            tasks: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(1),
            events,
            config,
            clock,
            hooks_wired: Arc::new(Mutex::new(HashMap::new())),
            event_log: Mutex::new(None),
            event_logs: Mutex::new(HashMap::new()),
            record_dir: Mutex::new(None),
            record_input: AtomicBool::new(false),
            journal: Mutex::new(None),
        };
        (
            Runtime {
                inner: Arc::new(inner),
            },
            receiver,
        )
    }

    /// What dropping the last clone does (recordings and held event-log
    /// lines flushed, every task's tree ended, the SIGKILLs waited for), for
    /// a process that exits while clones remain (the server).
    pub fn end_all(&self) {
        self.inner.end_all();
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// Start a task. Its output starts flowing to the screen model at once.
    /// It takes the smallest number no listed task holds.
    /// Its transitions go to the runtime's event log and its recording to
    /// its record dir ([`Runtime::set_event_log`], [`Runtime::set_record_dir`]).
    pub fn spawn(&self, spec: TaskSpec) -> Result<TaskId, RuntimeError> {
        self.spawn_task(spec, None, None, None)
    }

    /// [`Runtime::spawn_with`] for a restored task: it takes `number` when
    /// no listed task holds it, else the smallest free one.
    pub fn spawn_numbered(
        &self,
        spec: TaskSpec,
        outputs: &TaskOutputs,
        number: Option<u32>,
    ) -> Result<TaskId, RuntimeError> {
        self.spawn_task(spec, None, Some(outputs), number)
    }

    /// Change task `id`'s journal record (what a restore needs that the
    /// runtime does not know: the user's arguments, the worktree).
    pub fn journal_update(
        &self,
        id: TaskId,
        change: impl FnOnce(&mut journal::TaskRecord),
    ) -> Result<(), String> {
        match lock(&self.inner.journal).clone() {
            Some(journal) => journal.update(id, change),
            None => Ok(()),
        }
    }

    /// Start a task whose transitions and recording go where `outputs`
    /// says (the flags of the client that started it), and nowhere else;
    /// in place of task `replaces` when given (see
    /// [`Runtime::spawn_replacing`]).
    pub fn spawn_with(
        &self,
        spec: TaskSpec,
        outputs: &TaskOutputs,
        replaces: Option<TaskId>,
    ) -> Result<TaskId, RuntimeError> {
        self.spawn_task(spec, replaces, Some(outputs), None)
    }

    /// Start a task in place of task `old` (a restart): the new task takes
    /// `old`'s number and `old` is removed in the same step, so no moment
    /// lists two tasks with one number. When the new task cannot start,
    /// `old` stays as it was.
    pub fn spawn_replacing(&self, old: TaskId, spec: TaskSpec) -> Result<TaskId, RuntimeError> {
        self.spawn_task(spec, Some(old), None, None)
    }

    /// Whether tasks can be started with `outputs`: its event log opens
    /// and its record dir exists or can be made. For a client that
    /// attaches with `--event-log`/`--record`, so a bad path is refused as
    /// it attaches, not at its first task.
    pub fn check_outputs(&self, outputs: &TaskOutputs) -> Result<(), RuntimeError> {
        if let Some(path) = &outputs.event_log {
            self.open_event_log(path)?;
        }
        if let Some(dir) = &outputs.record {
            std::fs::create_dir_all(dir).map_err(|source| RuntimeError::Record {
                dir: dir.clone(),
                source,
            })?;
        }
        Ok(())
    }

    /// The event log at `path`, shared with the tasks that already write
    /// it, or opened now.
    pub fn open_event_log(&self, path: &std::path::Path) -> Result<Arc<EventLog>, RuntimeError> {
        let mut logs = lock(&self.inner.event_logs);
        logs.retain(|_, log| log.strong_count() > 0);
        if let Some(log) = logs.get(path).and_then(Weak::upgrade) {
            return Ok(log);
        }
        let log = Arc::new(EventLog::open(path)?);
        logs.insert(path.to_owned(), Arc::downgrade(&log));
        Ok(log)
    }

    fn spawn_task(
        &self,
        spec: TaskSpec,
        replaces: Option<TaskId>,
        outputs: Option<&TaskOutputs>,
        wanted: Option<u32>,
    ) -> Result<TaskId, RuntimeError> {
        let config = &self.inner.config;
        // Where this task's transitions and recording go, checked before
        // anything starts.
        let (event_log, record_dir, record_input) = match outputs {
            Some(o) => (
                o.event_log
                    .as_deref()
                    .map(|p| self.open_event_log(p))
                    .transpose()?,
                o.record.clone(),
                o.record_input,
            ),
            None => (
                lock(&self.inner.event_log).clone(),
                lock(&self.inner.record_dir).clone(),
                self.inner.record_input.load(Ordering::Relaxed),
            ),
        };
        let spawned = spawn::spawn(&spec, &config.term_program, config.owner.as_deref())?;
        let id = TaskId(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let journal = lock(&self.inner.journal).clone();
        let record = journal.as_ref().map(|j| {
            journal::TaskRecord::new(
                &spec.name,
                &spec.agent,
                &spec.argv,
                &spec.cwd,
                self.inner.clock.wall_ms(),
                j.owner(),
            )
        });
        let parser = History::new(config.scrollback)
            .into_screen_model(nonzero(spec.size.rows), nonzero(spec.size.cols));
        let wired = self.hooks_wired_for(&spec.agent);
        let master_fd = spawned.master.as_raw_fd();
        let engine = Engine::new(EngineConfig::new(&spec.profile, &spawned.task_id, wired));
        let recorder = match record_dir {
            None => None,
            Some(dir) => {
                let facts = RecordingFacts {
                    name: &spec.name,
                    profile: &spec.profile,
                    task_id: &spawned.task_id,
                    hooks_wired: wired,
                    record_input,
                    cols: spec.size.cols,
                    rows: spec.size.rows,
                    start_ms: self.inner.clock.now_ms(),
                    wall_ms: self.inner.clock.wall_ms(),
                };
                match AsciicastRecorder::create(&dir, &facts) {
                    Ok(r) => Some(Box::new(r) as Box<dyn TaskRecorder>),
                    Err(source) => {
                        session::end_task(&session::TaskProcesses {
                            leader: spawned.pid,
                            task_id: spawned.task_id.clone(),
                            container: spec.container.clone(),
                        });
                        return Err(RuntimeError::Record { dir, source });
                    }
                }
            }
        };
        let input = Arc::new(writer::InputQueue::new(writer::Budgets::default()));
        let entered = Arc::new(AtomicBool::new(false));
        let watch = watches_foreground(&spec.profile).then(|| {
            foreground::ForegroundWatch::new(
                Arc::clone(&config.foreground_agents),
                Arc::clone(&self.inner.hooks_wired),
                Arc::clone(&entered),
            )
        });
        // Numbered and listed under one lock: two spawns at once never take
        // the same number.
        let mut tasks = self.lock_tasks();
        let replaced = replaces.and_then(|old| tasks.remove(&old));
        let number = match &replaced {
            Some(old) => old.meta.number,
            None => match wanted {
                Some(n) if n > 0 && tasks.values().all(|t| t.meta.number != n) => n,
                _ => smallest_free_number(tasks.values().map(|t| t.meta.number)),
            },
        };
        let started_ms = self.inner.clock.now_ms();
        let shared = Arc::new(TaskShared {
            name: Mutex::new(spec.name.clone()),
            state_since: AtomicU64::new(started_ms),
            meta: TaskMeta {
                id,
                number,
                name: spec.name,
                agent: spec.agent,
                task_id: spawned.task_id,
                pty_path: spawned.pty_path,
                pid: spawned.pid,
                started_ms,
                container: spec.container,
            },
            clock: Arc::clone(&self.inner.clock),
            dirty: AtomicBool::new(false),
            focus_reporting: AtomicBool::new(false),
            entered,
            parser: parking_lot::Mutex::new(parser),
            signals: parking_lot::Mutex::new(TaskSignals::new(engine, recorder)),
            event_log,
            input: Arc::clone(&input),
            replies_dropped: AtomicBool::new(false),
            master: Mutex::new(spawned.master),
            status: Mutex::new(TaskStatus::Running),
            events: self.inner.events.clone(),
            journal: journal.clone(),
            journaled: Mutex::new((None, "")),
            _release: task::ReleaseFreedMemory,
        });
        tasks.insert(id, Arc::clone(&shared));
        drop(tasks);
        session::register(&shared.meta.processes());
        // Before the exit waiter starts, which removes it.
        if let (Some(journal), Some(mut record)) = (&journal, record) {
            // The number the user sees, known only now.
            record.number = Some(u64::from(number));
            record.profile = Some(spec.profile.clone());
            // A task with no record still runs; only a later loss of the
            // server could not name it.
            if let Err(why) = journal.write(id, &record) {
                shared.send(RuntimeEvent::Log(format!(
                    "no record kept of task {}: {why}",
                    record.name
                )));
            }
        }

        let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(1);
        let (batch_tx, batch_rx) = crossbeam_channel::bounded(reader::IN_FLIGHT);
        let (returned_tx, returned_rx) = crossbeam_channel::bounded(reader::IN_FLIGHT);
        let reader_shared = Arc::clone(&shared);
        let screen_shared = Arc::clone(&shared);
        let responder = Responder::new(config.replies.clone());
        let reader = spawned.reader;
        // The child is handed to its waiter through a slot: when a thread
        // cannot be started (out of threads, `ulimit -u`), whatever did not
        // start is dropped, and the child must still be here to be killed
        // and reaped.
        let child_slot = Arc::new(Mutex::new(Some(spawned.child)));
        let spawn_thread = |name: String, f: Box<dyn FnOnce() + Send>| {
            thread::Builder::new().name(name).spawn(f).map(drop)
        };
        let pty_writer = spawned.writer;
        let waiter_shared = Arc::clone(&shared);
        let waiter_child = Arc::clone(&child_slot);
        let waiter_journal = journal.clone();
        let started = spawn_thread(
            format!("termic-read-{}", id.0),
            Box::new(move || {
                reader::run(
                    reader,
                    master_fd,
                    reader_shared,
                    batch_tx,
                    returned_rx,
                    watch,
                );
            }),
        )
        .and_then(|()| {
            spawn_thread(
                format!("termic-screen-{}", id.0),
                Box::new(move || {
                    screen::run(batch_rx, returned_tx, screen_shared, responder);
                    let _ = done_tx.send(());
                }),
            )
        })
        .and_then(|()| {
            spawn_thread(
                format!("termic-write-{}", id.0),
                Box::new(move || writer::run(pty_writer, input)),
            )
        })
        .and_then(|()| {
            spawn_thread(
                format!("termic-wait-{}", id.0),
                Box::new(move || {
                    let Some(mut child) = lock(&waiter_child).take() else {
                        return;
                    };
                    let code = match child.wait() {
                        Ok(status) if status.signal().is_none() => {
                            i32::try_from(status.exit_code()).ok()
                        }
                        _ => None,
                    };
                    // Let the last output reach the screen first (`done_rx`:
                    // the screen thread ended, after the reader's EOF); a
                    // leftover process holding the PTY is ended so the
                    // reader can finish.
                    let processes = waiter_shared.meta.processes();
                    if done_rx.recv_timeout(DRAIN_AFTER_EXIT).is_err() {
                        session::end_task(&processes);
                        let _ = done_rx.recv_timeout(session::KILL_GRACE * 2);
                    } else if session::task_alive(&processes) {
                        session::end_task(&processes);
                    } else if let Some(container) = &processes.container {
                        // The client is gone; its container must be too (a
                        // killed client leaves it running).
                        crate::container::kill(container);
                    }
                    session::unregister(&processes);
                    waiter_shared.feed_signals(|signals, now| signals.exited(now, code));
                    waiter_shared.set_status(TaskStatus::Exited(code));
                    // Ended while its owner lives: not lost.
                    if let Some(journal) = &waiter_journal {
                        journal.remove(waiter_shared.meta.id);
                    }
                    waiter_shared.send(RuntimeEvent::Exited(waiter_shared.meta.id, code));
                }),
            )
        });
        if let Err(source) = started {
            self.abandon(&shared, &child_slot);
            if let Some(journal) = &journal {
                journal.remove(id);
            }
            if let Some(old) = replaced {
                self.lock_tasks().insert(old.meta.id, old);
            }
            return Err(RuntimeError::Io {
                id,
                what: "start a thread",
                source,
            });
        }
        // Every attached sidebar lists it now, before it prints anything;
        // before the old one's `Removed`, so a sidebar replaces that row in
        // place.
        shared.send(RuntimeEvent::Added(id));
        if let Some(old) = replaced {
            self.forget(&old);
        }
        Ok(id)
    }

    /// Rename task `id` (any client's prefix `,`, `termic rename`): every
    /// sidebar, `termic ls`, the verbs' TASK and the event log's next
    /// lines take the new name (a recording keeps the one in its header).
    /// The name is checked ([`names::task_name`]); the one kept is
    /// returned. `Renamed` follows on the channel.
    pub fn rename(&self, id: TaskId, name: &str) -> Result<String, RuntimeError> {
        let name = names::task_name(name)?;
        let task = self.task(id)?;
        // Kept and told under one lock: two renames at once reach every
        // client in the order the runtime kept them, so the last event is
        // the name it has (a send never waits).
        let mut kept = lock(&task.name);
        name.clone_into(&mut kept);
        task.send(RuntimeEvent::Renamed(id, name.clone()));
        drop(kept);
        if task.status() == TaskStatus::Running {
            if let Some(journal) = lock(&self.inner.journal).as_ref() {
                if let Err(why) = journal.rename(id, &name) {
                    task.send(RuntimeEvent::Log(format!(
                        "cannot rename the task's record: {why}"
                    )));
                }
            }
        }
        Ok(name)
    }

    /// Undo a spawn whose threads could not all be started: no half task
    /// stays listed, and its processes are killed at once (it never ran
    /// for the user) and the child reaped. Threads that did start end by
    /// themselves: the reader at the PTY's end, the others when their
    /// channels close with the task's last reference.
    fn abandon(
        &self,
        task: &Arc<TaskShared>,
        child: &Mutex<Option<Box<dyn portable_pty::Child + Send + Sync>>>,
    ) {
        self.lock_tasks().remove(&task.meta.id);
        let processes = task.meta.processes();
        session::unregister(&processes);
        session::signal_task(&processes, libc::SIGKILL);
        if let Some(container) = &processes.container {
            crate::container::kill_detached(container);
        }
        // SIGKILLed with its group above: this wait is short.
        if let Some(mut child) = lock(child).take() {
            let _ = child.wait();
        }
        task.set_status(TaskStatus::Exited(None));
    }

    fn lock_tasks(&self) -> std::sync::MutexGuard<'_, BTreeMap<TaskId, Arc<TaskShared>>> {
        lock(&self.inner.tasks)
    }

    fn all_tasks(&self) -> Vec<Arc<TaskShared>> {
        self.lock_tasks().values().cloned().collect()
    }

    /// Whether `agent`'s hooks were verified wired (the tui's last read).
    pub fn hooks_wired_for(&self, agent: &str) -> bool {
        lock(&self.inner.hooks_wired)
            .get(agent)
            .copied()
            .unwrap_or(false)
    }

    /// Append every transition from now on to `log` (`None`: stop).
    /// Applies to tasks spawned after the call.
    pub fn set_event_log(&self, log: Option<EventLog>) {
        *lock(&self.inner.event_log) = log.map(Arc::new);
    }

    /// Record every task spawned from now on as an asciicast v2 file in
    /// `dir` (created if missing), replayable with `termic replay`.
    pub fn set_record_dir(&self, dir: Option<PathBuf>) {
        *lock(&self.inner.record_dir) = dir;
    }

    /// Forget every task's record and keep none from now on: the user
    /// ended every task on purpose (prefix `q`, confirmed), so nothing is
    /// offered for a restore.
    pub fn forget_journal(&self) {
        if let Some(journal) = lock(&self.inner.journal).take() {
            journal.remove_all();
        }
    }

    /// Keep a record of every task spawned from now on in `journal`, until
    /// it is closed or ends (the server's; see [`journal`]).
    pub fn set_journal(&self, journal: Option<journal::Journal>) {
        *lock(&self.inner.journal) = journal.map(Arc::new);
    }

    /// Whether recordings keep what the user types (off by default: it
    /// holds passwords). Off, only the kind of each key is kept (Enter,
    /// Escape, Ctrl-C, other), which is all a replay needs.
    pub fn set_record_input(&self, on: bool) {
        self.inner.record_input.store(on, Ordering::Relaxed);
    }

    /// The verified hooks status of agent `agent` (by agent id). Tasks of
    /// that agent, running and future, get it; while wired the engine's
    /// heuristics stand down for them.
    pub fn set_hooks_wired(&self, agent: &str, wired: bool) {
        lock(&self.inner.hooks_wired).insert(agent.to_owned(), wired);
        let now = self.inner.clock.now_ms();
        for task in self.all_tasks() {
            if task.meta.agent == agent {
                let mut signals = task.lock_signals();
                signals.hooks_wired(now, wired);
                task.check_deadline(&mut signals);
            }
        }
    }

    /// Which task the user is watching (the focused one while the outer
    /// terminal has focus), or `None`. Every task's engine is told.
    pub fn set_watched(&self, watched: Option<TaskId>) {
        let now = self.inner.clock.now_ms();
        for task in self.all_tasks() {
            task.lock_signals()
                .focus(now, Some(task.meta.id) == watched);
        }
    }

    /// Fire every engine timer due at `now` (refreshing screen facts
    /// first, so a settle check sees the final screen, unless the task's
    /// screen thread is busy with output). Transitions arrive on the channel.
    pub fn tick(&self, now: u64) {
        for task in self.all_tasks() {
            if task.status() != TaskStatus::Running {
                continue;
            }
            // A screen thread holding its screen is applying output: the
            // screen is not final, and it feeds the facts itself when done.
            // Never wait for it here (the UI thread calls this).
            let wanted = task.lock_signals().screen_rows_wanted();
            let facts = task.try_lock_parser().map(|p| {
                let rows = signals::screen_rows(&p, wanted);
                (signals::screen_facts(&p), rows)
            });
            let mut signals = task.lock_signals();
            let mut transitions = match facts {
                Some((facts, rows)) => signals.screen_and_rows(now, facts, rows),
                None => Vec::new(),
            };
            transitions.extend(signals.tick(now));
            // Under the lock, like every other feed (see `feed_signals`).
            task.publish(&mut signals, now, transitions);
        }
    }

    /// The earliest engine timer over all tasks: sleep until then (or until
    /// an event) and call [`Runtime::tick`]. `None`: nothing is armed.
    pub fn next_deadline(&self) -> Option<u64> {
        self.all_tasks()
            .iter()
            .filter_map(|t| t.lock_signals().announce_deadline())
            .min()
    }

    /// Read the task's engine (state, since, native status seen...).
    pub fn with_engine<R>(&self, id: TaskId, f: impl FnOnce(&Engine) -> R) -> Option<R> {
        let task = self.task(id).ok()?;
        let signals = task.lock_signals();
        Some(f(&signals.engine))
    }

    /// The Inspector timeline entries from number `cursor` on, and the
    /// cursor for the next read. Every reader (each attached client) keeps
    /// its own cursor and sees every entry.
    pub fn log_since(&self, id: TaskId, cursor: u64) -> (Vec<LogEntry>, u64) {
        self.task(id)
            .map(|t| t.lock_signals().log_since(cursor))
            .unwrap_or((Vec::new(), cursor))
    }

    /// The Inspector timeline entries since the last `drain_log` for this
    /// task (one reader's cursor, kept by the runtime: for tests and tools
    /// that read one task's timeline as it grows).
    pub fn drain_log(&self, id: TaskId) -> Vec<LogEntry> {
        self.task(id)
            .map(|t| t.lock_signals().drain_log())
            .unwrap_or_default()
    }

    fn task(&self, id: TaskId) -> Result<Arc<TaskShared>, RuntimeError> {
        self.lock_tasks()
            .get(&id)
            .cloned()
            .ok_or(RuntimeError::NoSuchTask(id))
    }

    /// Every task, oldest first.
    pub fn tasks(&self) -> Vec<TaskInfo> {
        self.lock_tasks().values().map(|t| info(t)).collect()
    }

    pub fn info(&self, id: TaskId) -> Option<TaskInfo> {
        self.task(id).ok().map(|t| info(&t))
    }

    /// Read the task's screen model (for drawing). Clears the dirty flag
    /// first, so output arriving meanwhile yields a new `Dirty`. Keep `f`
    /// short: the reader waits for this lock.
    pub fn with_screen<R>(&self, id: TaskId, f: impl FnOnce(&vt100::Screen) -> R) -> Option<R> {
        let task = self.task(id).ok()?;
        task.dirty.store(false, Ordering::Release);
        let parser = task.lock_parser();
        Some(f(parser.screen()))
    }

    /// Lines of scrollback kept for the task (the most a view can go back).
    pub fn history_len(&self, id: TaskId) -> usize {
        self.task(id)
            .map(|t| t.lock_parser().callbacks().len())
            .unwrap_or(0)
    }

    /// Like [`Runtime::with_screen`], but the view `offset` lines above the
    /// live screen (0 = live; clamped to [`Runtime::history_len`]). Older
    /// lines are rebuilt from compact history into a throwaway screen of the
    /// task's size, so drawing code is the same for both.
    pub fn with_scrolled_screen<R>(
        &self,
        id: TaskId,
        offset: usize,
        f: impl FnOnce(&vt100::Screen) -> R,
    ) -> Option<R> {
        if offset == 0 {
            return self.with_screen(id, f);
        }
        let task = self.task(id).ok()?;
        task.dirty.store(false, Ordering::Release);
        let view = {
            let parser = task.lock_parser();
            let screen = parser.screen();
            let (rows, cols) = screen.size();
            let live: Vec<String> = screen.rows_formatted(0, cols.get()).collect();
            parser
                .callbacks()
                .view(&live, rows.get(), cols.get(), offset)
        };
        Some(f(view.screen()))
    }

    /// The newest stored lines of the task's scrollback, oldest first,
    /// formatted (characters and SGR from default attributes): at most
    /// `lines` of them and `max_bytes` bytes (older ones go first).
    pub fn history_tail(&self, id: TaskId, lines: usize, max_bytes: usize) -> Option<Vec<String>> {
        let task = self.task(id).ok()?;
        let parser = task.lock_parser();
        let history = parser.callbacks();
        let len = history.len();
        let mut tail = Vec::new();
        let mut bytes = 0;
        for i in (len.saturating_sub(lines)..len).rev() {
            let Some(line) = history.line(i) else { break };
            bytes += line.len() + 2;
            if bytes > max_bytes {
                break;
            }
            tail.push(line);
        }
        tail.reverse();
        Some(tail)
    }

    /// The task's whole history and live screen, oldest first, formatted
    /// and plain, with the screen's size: what copy mode browses.
    pub fn all_rows(&self, id: TaskId) -> Option<history::AllRows> {
        let task = self.task(id).ok()?;
        let parser = task.lock_parser();
        Some(parser.callbacks().all_rows(parser.screen()))
    }

    /// Whether the program asked for focus in/out reports.
    pub fn wants_focus_events(&self, id: TaskId) -> bool {
        self.task(id)
            .map(|t| t.focus_reporting.load(Ordering::Relaxed))
            .unwrap_or(false)
    }

    /// Send bytes to the task's input (keys, paste, focus reports).
    /// The engine sees the keys (Enter, Escape, Ctrl-C) before the agent
    /// can react to them. Never blocks: the bytes are queued for the task's
    /// writer thread, so a program that is not reading cannot freeze the UI.
    /// Refused whole ([`RuntimeError::InputFull`]) while
    /// [`writer::INPUT_BUDGET`] bytes already wait for a program that is
    /// not reading: the caller tells the user, nothing is lost silently.
    pub fn write_input(&self, id: TaskId, bytes: &[u8]) -> Result<(), RuntimeError> {
        let task = self.task(id)?;
        let running = task.status() == TaskStatus::Running;
        let mut refused = None;
        task.feed_signals(|signals, now| {
            // Queued under the engine's lock, so the engine sees the keys
            // before any output the program writes in answer (the screen
            // thread feeds it under the same lock), and never sees keys
            // that were refused.
            if running {
                if let Err(full) = task.queue_input(bytes.to_vec()) {
                    refused = Some(full);
                    return Vec::new();
                }
            }
            signals.input(now, bytes)
        });
        if let Some(full) = refused {
            return Err(RuntimeError::InputFull {
                id,
                waiting_kib: full.waiting.div_ceil(1024),
            });
        }
        if bytes.contains(&b'\r') {
            task.entered.store(true, Ordering::Relaxed);
        }
        if !running {
            return Err(RuntimeError::Exited(id));
        }
        Ok(())
    }

    /// Read the task's engine and the last `rows` non-blank rows of its
    /// screen, with their background colours, at one instant (the screen's lock, then the engine's: no
    /// output is applied or fed in between). Clears the dirty flag first,
    /// as [`Runtime::with_screen`] does, so output after this read yields
    /// a new `Dirty`: whoever made something of these rows (a task row's
    /// choices) hears of the next change even when no client draws.
    pub fn with_engine_and_rows<R>(
        &self,
        id: TaskId,
        rows: usize,
        f: impl FnOnce(&Engine, &ScreenRows) -> R,
    ) -> Option<R> {
        let task = self.task(id).ok()?;
        task.dirty.store(false, Ordering::Release);
        let parser = task.lock_parser();
        let screen = signals::dialog_rows(&parser, rows).unwrap_or_default();
        let signals = task.lock_signals();
        let out = f(&signals.engine, &screen);
        drop(signals);
        drop(parser);
        Some(out)
    }

    /// Send the bytes `decide` returns to the task's input, deciding on
    /// the engine and the last `rows` non-blank rows of the screen (with
    /// their background colours) under
    /// both their locks, held until the bytes are queued: the screen
    /// `decide` saw is the screen the keys answer (no output is applied
    /// in between). `decide`'s `Err` sends nothing and is returned as is.
    /// Otherwise as [`Runtime::write_input`] (refused whole when the
    /// input is full, an error once the task exited).
    pub fn write_input_if<T>(
        &self,
        id: TaskId,
        rows: usize,
        decide: impl FnOnce(&Engine, &ScreenRows) -> Result<Vec<u8>, T>,
    ) -> Result<Result<(), T>, RuntimeError> {
        let task = self.task(id)?;
        if task.status() != TaskStatus::Running {
            return Err(RuntimeError::Exited(id));
        }
        // The screen's lock first, then the engine's (inside the feed):
        // no other path holds both, so the order cannot deadlock.
        let parser = task.lock_parser();
        let screen = signals::dialog_rows(&parser, rows).unwrap_or_default();
        let mut outcome = None;
        let mut refused = None;
        let mut entered = false;
        task.feed_signals(|signals, now| match decide(&signals.engine, &screen) {
            Err(no) => {
                outcome = Some(Err(no));
                Vec::new()
            }
            Ok(bytes) => {
                if let Err(full) = task.queue_input(bytes.clone()) {
                    refused = Some(full);
                    return Vec::new();
                }
                outcome = Some(Ok(()));
                entered = bytes.contains(&b'\r');
                signals.input(now, &bytes)
            }
        });
        drop(parser);
        if let Some(full) = refused {
            return Err(RuntimeError::InputFull {
                id,
                waiting_kib: full.waiting.div_ceil(1024),
            });
        }
        if entered {
            task.entered.store(true, Ordering::Relaxed);
        }
        Ok(outcome.expect("the feed always runs its closure"))
    }

    /// Resize the PTY (the child gets SIGWINCH) and the screen model.
    pub fn resize(&self, id: TaskId, size: TermSize) -> Result<(), RuntimeError> {
        let task = self.task(id)?;
        // The engine hears of the resize before the program gets SIGWINCH:
        // told after, the program's redraw could be read first, as work (a
        // resize made an idle REPL working under load, CI of 2026-12-07).
        {
            let now = self.inner.clock.now_ms();
            let mut signals = task.lock_signals();
            signals.resize(now, size.cols, size.rows);
            task.check_deadline(&mut signals);
        }
        task.lock_master()
            .resize(PtySize {
                rows: size.rows.max(1),
                cols: size.cols.max(1),
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| RuntimeError::Io {
                id,
                what: "resize the PTY",
                source: std::io::Error::other(format!("{e:#}")),
            })?;
        let (rows, cols) = (nonzero(size.rows), nonzero(size.cols));
        let changed = {
            let mut parser = task.lock_parser();
            // A reflow bug must not end the client's thread with the task's
            // screen half moved: the screen starts over at the new size,
            // with the scrollback, as the screen thread does on a panic.
            screen::apply_guarded(&mut parser, |p| history::resize(p, rows, cols)).unwrap_or_else(
                || {
                    // Debug builds (every test) keep the panic.
                    debug_assert!(false, "the reflow panicked (above)");
                    task.send(RuntimeEvent::Log(format!(
                        "the screen of task {} failed to reflow and started over (its \
                         scrollback is kept)",
                        task.name()
                    )));
                    parser.set_size(rows, cols);
                    true
                },
            )
        };
        // Every client drawing it redraws (the reflow moved its rows).
        if changed && !task.dirty.swap(true, Ordering::AcqRel) {
            task.send(RuntimeEvent::Dirty(id));
        }
        Ok(())
    }

    /// End the task's whole process group and session (SIGHUP, SIGTERM,
    /// then SIGKILL after a grace period). `Exited` follows on the channel.
    pub fn kill(&self, id: TaskId) -> Result<(), RuntimeError> {
        let task = self.task(id)?;
        if task.status() == TaskStatus::Running {
            session::end_task(&task.meta.processes());
        }
        Ok(())
    }

    /// Forget a task (killing it first if it still runs). Closing its PTY
    /// master is the hang-up a real terminal gives when its window closes.
    pub fn remove(&self, id: TaskId) -> Result<(), RuntimeError> {
        let task = self
            .lock_tasks()
            .remove(&id)
            .ok_or(RuntimeError::NoSuchTask(id))?;
        self.forget(&task);
        Ok(())
    }

    /// What follows a task's leaving the list: its tree ended if it still
    /// runs, and `Removed` sent.
    fn forget(&self, task: &TaskShared) {
        if task.status() == TaskStatus::Running {
            session::end_task(&task.meta.processes());
        }
        // Closed on purpose: not lost.
        if let Some(journal) = lock(&self.inner.journal).as_ref() {
            journal.remove(task.meta.id);
        }
        task.send(RuntimeEvent::Removed(task.meta.id));
    }
}

/// The smallest positive number not in `held` (tmux's window index with
/// `base-index 1` and `renumber-windows off`). Pure.
pub fn smallest_free_number(held: impl Iterator<Item = u32>) -> u32 {
    let mut held: Vec<u32> = held.collect();
    held.sort_unstable();
    let mut free = 1;
    for n in held {
        if n == free {
            free += 1;
        } else if n > free {
            break;
        }
    }
    free
}

/// A command or shell task (not an agent's) watches its foreground for an
/// agent started inside it.
fn watches_foreground(profile: &str) -> bool {
    termic_signal::profile::profile_for(profile).turns != termic_signal::profile::Turns::Agent
}

fn info(task: &TaskShared) -> TaskInfo {
    let mut meta = task.meta.clone();
    meta.name = task.name();
    // The status first: an exit publishes its transition (the age) before
    // it sets the status, so an exited task never shows an older age.
    let status = task.status();
    TaskInfo {
        meta,
        status,
        state_since_ms: task.state_since(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{smallest_free_number, Runtime, RuntimeConfig, TaskOutputs};
    use crate::clock::ManualClock;

    /// Tasks writing one file share one writer (one stop and one notice
    /// after a full disk); the writer goes with its last task, and a path
    /// that cannot be opened is refused with the path.
    #[test]
    fn tasks_of_one_event_log_share_its_writer_until_the_last_goes() {
        let dir = tempfile::tempdir().unwrap();
        let (rt, _events) =
            Runtime::new(RuntimeConfig::default(), Arc::new(ManualClock::new(0, 0)));
        let path = dir.path().join("a.jsonl");
        let first = rt.open_event_log(&path).unwrap();
        let second = rt.open_event_log(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        let other = rt.open_event_log(&dir.path().join("b.jsonl")).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        drop((first, second, other));
        let again = rt.open_event_log(&path).unwrap();
        assert_eq!(
            super::lock(&rt.inner.event_logs).len(),
            1,
            "dead entries pruned"
        );
        drop(again);
        let bad = TaskOutputs {
            event_log: Some(dir.path().join("no/such/dir/x.jsonl")),
            ..TaskOutputs::default()
        };
        let err = rt.check_outputs(&bad).unwrap_err().to_string();
        assert!(err.contains("no/such/dir/x.jsonl"), "{err}");
        let record = TaskOutputs {
            record: Some(dir.path().join("casts/deep")),
            ..TaskOutputs::default()
        };
        rt.check_outputs(&record).unwrap();
        assert!(dir.path().join("casts/deep").is_dir());
    }

    #[test]
    fn the_smallest_positive_number_not_held_is_next() {
        let next = |held: &[u32]| smallest_free_number(held.iter().copied());
        assert_eq!(next(&[]), 1);
        assert_eq!(next(&[1, 2, 3]), 4);
        assert_eq!(next(&[2, 3]), 1);
        assert_eq!(next(&[3, 1, 4]), 2);
        assert_eq!(next(&[1, 1, 2]), 3);
        assert_eq!(next(&[5, 2, 1, 3]), 4);
    }
}
