//! One task's shared state: what the reader thread, the exit waiter and the
//! [`super::Runtime`] API all touch. Locks are held briefly and never across
//! a blocking read.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use portable_pty::MasterPty;

use termic_signal::engine::Transition;

use crate::clock::Clock;
use crate::eventlog::{Entry, EventLog, TaskLabel};

use super::history::History;
use super::signals::TaskSignals;
use super::writer::{InputQueue, Refused, Source};
use super::{lock, RuntimeEvent, TaskMeta, TaskStatus};

/// The parts of a task that outlive the spawn call.
pub struct TaskShared {
    /// The task's fixed facts; its name is [`TaskShared::name`] (a rename
    /// changes it), `meta.name` only the one it started with.
    pub meta: TaskMeta,
    /// The task's name now.
    pub(super) name: Mutex<String>,
    /// When the task entered its current state (ms on the runtime clock):
    /// its start, then each published transition's time.
    pub(super) state_since: AtomicU64,
    pub clock: Arc<dyn Clock>,
    /// Set by the reader on new output, cleared when the UI reads the screen.
    pub dirty: AtomicBool,
    /// The program asked for focus in/out reports (`CSI ? 1004 h`).
    pub focus_reporting: AtomicBool,
    /// Enter was typed: the foreground watch checks the next output at once.
    pub(super) entered: Arc<AtomicBool>,
    /// A parking_lot mutex so the screen thread can hand it over fairly
    /// between slices of a batch (`MutexGuard::bump`): whoever waits for a
    /// task's screen (the UI drawing it, a tick) waits one slice at most.
    /// Read it through `lock_parser` or `try_lock_parser`, which settle it.
    pub(super) parser: parking_lot::Mutex<vt100::Parser<History>>,
    /// parking_lot too, for the same reason: the reader feeds a flood to
    /// the engine a slice at a time and hands the lock over fairly after
    /// each (`feed_signals`), so the UI (next deadline, ticks) and the
    /// screen thread wait one slice at most, never a whole 256 KiB batch.
    pub(super) signals: parking_lot::Mutex<TaskSignals>,
    pub(super) event_log: Option<Arc<EventLog>>,
    /// Bytes for the program's input, written by the writer thread;
    /// bounded per source (`writer.rs`).
    pub(super) input: Arc<InputQueue>,
    /// Replies were dropped and the UI was told (once per task).
    pub(super) replies_dropped: AtomicBool,
    pub(super) master: Mutex<Box<dyn MasterPty + Send>>,
    pub(super) status: Mutex<TaskStatus>,
    pub(super) events: super::events::EventSender,
    /// The server's journal, which keeps this task's record.
    pub(super) journal: Option<Arc<crate::journal::Journal>>,
    /// The session id and state last written to the record.
    pub(super) journaled: Mutex<(Option<String>, &'static str)>,
    /// Last, so it is dropped last: by then every buffer of the task above
    /// is freed (see [`ReleaseFreedMemory`]).
    pub(super) _release: ReleaseFreedMemory,
}

impl Drop for TaskShared {
    /// The writer thread ends and what is still queued for a program that
    /// never read it is freed now, with the rest of the task.
    fn drop(&mut self) {
        self.input.close();
    }
}

/// Gives the memory a task freed back to the system when dropped. glibc
/// keeps freed heap in each thread's arena, where a task's reader and
/// screen threads left their buffers: without this the server's RSS stays
/// at its peak after the task is gone (measured in docs/decisions.md,
/// 2026-12-06).
#[derive(Debug, Default)]
pub struct ReleaseFreedMemory;

impl Drop for ReleaseFreedMemory {
    fn drop(&mut self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only walks and trims malloc's own arenas.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

impl TaskShared {
    /// The task's screen model, settled (vt100's `Parser::settle`), so it
    /// can be read.
    pub fn lock_parser(&self) -> parking_lot::MutexGuard<'_, vt100::Parser<History>> {
        let mut parser = self.parser.lock();
        parser.settle();
        parser
    }

    /// [`Self::lock_parser`] if nobody holds the screen now.
    pub fn try_lock_parser(&self) -> Option<parking_lot::MutexGuard<'_, vt100::Parser<History>>> {
        let mut parser = self.parser.try_lock()?;
        parser.settle();
        Some(parser)
    }

    /// The screen model for the screen thread's output: left unsettled, so
    /// a row that scrolls off before anyone reads the screen is never
    /// written cell by cell. Read it through [`Self::lock_parser`].
    pub(super) fn lock_parser_to_write(
        &self,
    ) -> parking_lot::MutexGuard<'_, vt100::Parser<History>> {
        self.parser.lock()
    }

    pub fn lock_signals(&self) -> parking_lot::MutexGuard<'_, TaskSignals> {
        self.signals.lock()
    }

    /// Tell the event log and the UI about transitions, in order (the log
    /// through the task's flood guard, which may also have a burst's record
    /// due at `now`). Called under the signals lock.
    pub fn publish(&self, signals: &mut TaskSignals, now: u64, transitions: Vec<Transition>) {
        if self.event_log.is_some() {
            let entries = signals.log_entries(now, &transitions);
            self.write_log(&entries);
        }
        // Under the signals lock: the age `ls` and every sidebar read is
        // the last transition's, in the engine's order.
        if let Some(last) = transitions.last() {
            self.state_since.store(last.at, Ordering::Release);
        }
        for t in transitions {
            self.send(RuntimeEvent::Transition(self.meta.id, t));
        }
        self.send_notices(signals);
        self.journal_facts(signals);
    }

    /// Keep the agent's session id (as soon as a hook reports it, again
    /// when it changes) and the task's state in its journal record. The
    /// exit a stopping server causes is not a state worth keeping.
    fn journal_facts(&self, signals: &TaskSignals) {
        let Some(journal) = &self.journal else { return };
        let engine = &signals.engine;
        let state = engine.state();
        if state == termic_signal::engine::State::Exited {
            return;
        }
        let (session, state) = (engine.session_id(), state.as_str());
        let mut kept = lock(&self.journaled);
        if kept.0.as_deref() == session && kept.1 == state {
            return;
        }
        *kept = (session.map(str::to_owned), state);
        drop(kept);
        let written = journal.update(self.meta.id, |record| {
            record.session = session.map(str::to_owned);
            record.state = Some(state.to_owned());
        });
        if let Err(why) = written {
            self.send(RuntimeEvent::Log(format!(
                "cannot keep the task's record: {why}"
            )));
        }
    }

    /// Tell the UI, once, that this task's recording stopped.
    pub fn send_notices(&self, signals: &mut TaskSignals) {
        for notice in signals.take_notices() {
            self.send(RuntimeEvent::Notice(notice));
        }
    }

    /// Write entries to the event log (if any) with wall-clock times.
    pub fn write_log(&self, entries: &[Entry]) {
        let Some(log) = &self.event_log else { return };
        let now = self.clock.now_ms();
        let wall_now = self.clock.wall_ms();
        let wall = |at: u64| wall_now.saturating_sub(now.saturating_sub(at));
        let name = self.name();
        let label = TaskLabel {
            task: &name,
            pid: self.meta.pid,
            agent: &self.meta.agent,
        };
        for entry in entries {
            // A full disk must not stop an agent: the UI still gets it.
            if log.append_entry(label, entry, wall).is_err() {
                break;
            }
        }
        // The log stopped: the user hears it once, from whichever task
        // wrote last.
        if let Some(notice) = log.take_notice() {
            self.send(RuntimeEvent::Notice(notice));
        }
    }

    /// Feed the engine through `f` and publish what it decided, all under
    /// the signals lock: the reader, the screen thread, input, ticks and the
    /// exit waiter all feed it, and their transitions must reach the log in
    /// the order the engine made them. `now` is read under the lock too, so
    /// the engine's clock never runs backwards between threads.
    pub fn feed_signals(&self, f: impl FnOnce(&mut TaskSignals, u64) -> Vec<Transition>) {
        let mut signals = self.lock_signals();
        let now = self.clock.now_ms();
        let transitions = f(&mut signals, now);
        self.publish(&mut signals, now, transitions);
        // After publishing: a burst held by the event log has a deadline too.
        self.check_deadline(&mut signals);
        // Whoever waits (the UI asking for the next deadline) goes next,
        // before this thread's next feed takes the lock again.
        parking_lot::MutexGuard::unlock_fair(signals);
    }

    /// After feeding the engine: wake the UI if a timer moved earlier.
    pub fn check_deadline(&self, signals: &mut TaskSignals) {
        if signals.deadline_moved_earlier() {
            self.send(RuntimeEvent::DeadlineChanged(self.meta.id));
        }
    }

    /// Queue what the user typed or pasted for the program; never blocks.
    /// Refused whole while [`super::writer::INPUT_BUDGET`] bytes wait for a
    /// program that is not reading.
    pub fn queue_input(&self, bytes: Vec<u8>) -> Result<(), Refused> {
        self.input.push(Source::User, bytes)
    }

    /// Queue terminal replies for the program; never blocks. Past
    /// [`super::writer::REPLY_BUDGET`] they are dropped: the first time,
    /// the server log and the UI are told.
    pub fn queue_replies(&self, bytes: Vec<u8>, dropped: usize) {
        let refused = self.input.push(Source::Reply, bytes).is_err();
        if (dropped > 0 || refused) && !self.replies_dropped.swap(true, Ordering::Relaxed) {
            self.send(RuntimeEvent::Log(format!(
                "task {} does not read its input: its terminal replies \
                 are dropped past {} KiB waiting",
                self.name(),
                super::writer::REPLY_BUDGET / 1024
            )));
            self.send(RuntimeEvent::RepliesDropped(self.meta.id));
        }
    }

    pub fn lock_master(&self) -> MutexGuard<'_, Box<dyn MasterPty + Send>> {
        lock(&self.master)
    }

    /// The task's name now (a rename from any client changes it).
    pub fn name(&self) -> String {
        lock(&self.name).clone()
    }

    /// When the task entered its current state (ms on the runtime clock).
    pub fn state_since(&self) -> u64 {
        self.state_since.load(Ordering::Acquire)
    }

    pub fn status(&self) -> TaskStatus {
        *lock(&self.status)
    }

    pub fn set_status(&self, status: TaskStatus) {
        *lock(&self.status) = status;
    }

    /// Send to the UI; a UI that went away is not the task's problem.
    pub fn send(&self, event: RuntimeEvent) {
        self.events.send(event);
    }
}
