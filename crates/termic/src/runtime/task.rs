//! One task's shared state: what the reader thread, the exit waiter and the
//! [`super::Runtime`] API all touch. Locks are held briefly and never across
//! a blocking read.

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_channel::Sender;
use portable_pty::MasterPty;

use crate::clock::Clock;

use super::{RuntimeEvent, TaskMeta, TaskStatus};

/// The parts of a task that outlive the spawn call.
pub struct TaskShared {
    pub meta: TaskMeta,
    pub clock: Arc<dyn Clock>,
    /// Set by the reader on new output, cleared when the UI reads the screen.
    pub dirty: AtomicBool,
    /// The program asked for focus in/out reports (`CSI ? 1004 h`).
    pub focus_reporting: AtomicBool,
    pub(super) parser: Mutex<vt100::Parser>,
    pub(super) writer: Mutex<Box<dyn Write + Send>>,
    pub(super) master: Mutex<Box<dyn MasterPty + Send>>,
    pub(super) status: Mutex<TaskStatus>,
    pub(super) events: Sender<RuntimeEvent>,
}

/// A poisoned lock only means another thread panicked mid-update; the data
/// (a screen, a writer) is still usable, so take it rather than cascade.
fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TaskShared {
    pub fn lock_parser(&self) -> MutexGuard<'_, vt100::Parser> {
        lock(&self.parser)
    }

    pub fn lock_writer(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        lock(&self.writer)
    }

    pub fn lock_master(&self) -> MutexGuard<'_, Box<dyn MasterPty + Send>> {
        lock(&self.master)
    }

    pub fn status(&self) -> TaskStatus {
        *lock(&self.status)
    }

    pub fn set_status(&self, status: TaskStatus) {
        *lock(&self.status) = status;
    }

    /// Send to the UI; a UI that went away is not the task's problem.
    pub fn send(&self, event: RuntimeEvent) {
        let _ = self.events.send(event);
    }
}
