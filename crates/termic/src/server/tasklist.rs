//! A subscribed task list: `subscribe` answers every task, then pushes each
//! change. Driven by the runtime's events, whatever they are: every event
//! about a task makes the server compute that task's row again, and the row
//! is pushed only when it differs from the one the client has. An event
//! kind added later (a rename, a start) needs no code here beyond naming
//! its task in [`task_of`].
//!
//! Backpressure: the subscriber's copy of the events is bounded
//! ([`super::CLIENT_EVENTS`]) and never waited on. A client that reads
//! slowly makes the server's writes wait (its thread only); meanwhile its
//! events queue, and past the bound they are dropped and the subscription
//! is marked lagged. Once it has drained its queue it computes every row
//! again and pushes what differs from what the client has: a slow client
//! misses intermediate states, never the latest one, and costs the server
//! a bounded queue and one row per task. A client that reads nothing for
//! 30 s is dropped (the write times out).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufReader, BufWriter};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{select, Receiver};

use super::protocol::{read_frame, write_frame, Request, Response, TaskRow};
use super::{ClientOut, Server};
use termic_runtime::{lock, RuntimeEvent, TaskId};

/// The task an event is about, or `None` for one about every task (or
/// none): then every row is computed again. No wildcard: a new kind of
/// event must say which task it names.
pub fn task_of(event: &RuntimeEvent) -> Option<TaskId> {
    match event {
        RuntimeEvent::Dirty(id)
        | RuntimeEvent::Transition(id, _)
        | RuntimeEvent::DeadlineChanged(id)
        | RuntimeEvent::Exited(id, _)
        | RuntimeEvent::Removed(id)
        | RuntimeEvent::RepliesDropped(id)
        | RuntimeEvent::Added(id)
        | RuntimeEvent::Renamed(id, _) => Some(*id),
        RuntimeEvent::Notice(_) | RuntimeEvent::Log(_) | RuntimeEvent::Resync => None,
    }
}

/// What the client was told, to push only what changed (pure).
#[derive(Debug, Default)]
pub struct Sent {
    /// By number, as the client keys them.
    rows: BTreeMap<u64, TaskRow>,
    /// The number each runtime task had when last seen. A restart gives a
    /// new task the old one's number, and the old one's removal may be
    /// seen after the new one's row: it must not remove the new row.
    numbers: HashMap<TaskId, u64>,
}

impl Sent {
    /// The tasks the client was told of.
    pub fn ids(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.numbers.keys().copied()
    }

    /// Task `id` now has `row` (`None`: it is gone). The message to push,
    /// if the client's list changes.
    pub fn update(&mut self, id: TaskId, row: Option<TaskRow>) -> Option<Response> {
        let Some(row) = row else {
            let number = self.numbers.remove(&id)?;
            if self.numbers.values().any(|n| *n == number) {
                return None;
            }
            self.rows.remove(&number);
            return Some(Response::TaskRemoved { id: number });
        };
        // Not possible today (a number is fixed for a task's life), but a
        // task seen under another number no longer holds the old one.
        if let Some(old) = self.numbers.insert(id, row.id) {
            if old != row.id && !self.numbers.values().any(|n| *n == old) {
                self.rows.remove(&old);
            }
        }
        if self.rows.get(&row.id) == Some(&row) {
            return None;
        }
        self.rows.insert(row.id, row.clone());
        Some(Response::Task(row))
    }
}

impl Server {
    /// Serve a subscribed task list until the client closes the connection
    /// or stops reading. `input` and `out` are the connection after the
    /// hello.
    pub(super) fn subscription(&self, input: BufReader<UnixStream>, out: BufWriter<UnixStream>) {
        let _ = out
            .get_ref()
            .set_write_timeout(Some(super::attach::WRITE_TIMEOUT));
        let out: ClientOut = Arc::new(Mutex::new(out));
        let client = self.next_client.fetch_add(1, Ordering::SeqCst);
        // Told `detached("stopped")` if the server stops while it is here,
        // so a remote host tells a stop from a lost connection.
        self.add_client(client, &out);
        self.push_changes(input, &out);
        self.forget_client(client);
        // The reader may still be reading (the client stopped reading
        // but did not close): end it, and its descriptor with it.
        let _ = lock(&out).get_ref().shutdown(std::net::Shutdown::Both);
    }

    fn push_changes(&self, mut input: BufReader<UnixStream>, out: &ClientOut) {
        let lagged = Arc::new(AtomicBool::new(false));
        // Subscribed before the list is made: a change in between is
        // computed again, never missed.
        let events = self.subscribe_lagging(&lagged);
        let mut sent = Sent::default();
        let mut tasks = Vec::new();
        for info in self.runtime.tasks() {
            if let Some(Response::Task(row)) = sent.update(info.meta.id, self.row(info.meta.id)) {
                tasks.push(row);
            }
        }
        // On the rows' clock, so `now - since` is the time in the state.
        let now = self.wall_origin.saturating_add(self.clock.now_ms());
        if write_frame(&mut *lock(out), &Response::Subscribed { now, tasks }).is_err() {
            return;
        }
        // Whatever the client sends is read and ignored; its close ends
        // the subscription.
        let (closed_tx, closed) = crossbeam_channel::bounded::<()>(0);
        let reader = std::thread::Builder::new()
            .name("termic-subscriber".into())
            .spawn(move || {
                while read_frame::<Request>(&mut input).is_ok() {}
                drop(closed_tx);
            });
        if reader.is_err() {
            return;
        }
        while let Some(changed) = next_changes(&events, &closed, &lagged) {
            let ids: BTreeSet<TaskId> = match changed {
                Some(ids) => ids,
                None => sent
                    .ids()
                    .chain(self.runtime.tasks().iter().map(|i| i.meta.id))
                    .collect(),
            };
            for id in ids {
                if let Some(push) = sent.update(id, self.row(id)) {
                    if write_frame(&mut *lock(out), &push).is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// Waits for events and takes every one queued: the tasks they name
/// (`Some`), or `None` when every task must be looked at (an event about
/// all of them, or events were dropped). `None` outside: the client closed.
#[allow(clippy::option_option)]
fn next_changes(
    events: &Receiver<RuntimeEvent>,
    closed: &Receiver<()>,
    lagged: &AtomicBool,
) -> Option<Option<BTreeSet<TaskId>>> {
    let first = select! {
        recv(events) -> ev => ev.ok()?,
        recv(closed) -> _ => return None,
    };
    let mut ids = BTreeSet::new();
    let mut all = false;
    for event in std::iter::once(first).chain(events.try_iter()) {
        match task_of(&event) {
            Some(id) => {
                ids.insert(id);
            }
            None => all = true,
        }
    }
    // Taken after the queue is drained: what was dropped is covered by
    // looking at every task.
    all |= lagged.swap(false, Ordering::AcqRel);
    Some((!all).then_some(ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(number: u64, state: &str) -> TaskRow {
        TaskRow::for_test(number, &format!("t{number}"), "sh", state)
    }

    #[test]
    fn only_a_changed_row_is_pushed() {
        let mut sent = Sent::default();
        let id = TaskId(10);
        assert_eq!(
            sent.update(id, Some(row(1, "idle"))),
            Some(Response::Task(row(1, "idle")))
        );
        assert_eq!(sent.update(id, Some(row(1, "idle"))), None);
        assert_eq!(
            sent.update(id, Some(row(1, "working"))),
            Some(Response::Task(row(1, "working")))
        );
        assert_eq!(sent.update(id, None), Some(Response::TaskRemoved { id: 1 }));
        // Gone already: nothing more.
        assert_eq!(sent.update(id, None), None);
    }

    #[test]
    fn a_restart_keeps_its_number_whichever_event_comes_first() {
        // The new task's row, then the old task's removal.
        let mut sent = Sent::default();
        sent.update(TaskId(1), Some(row(3, "working")));
        assert_eq!(
            sent.update(TaskId(2), Some(row(3, "idle"))),
            Some(Response::Task(row(3, "idle")))
        );
        assert_eq!(sent.update(TaskId(1), None), None);
        assert_eq!(sent.ids().collect::<Vec<_>>(), vec![TaskId(2)]);
        // The removal first, then the new row.
        let mut sent = Sent::default();
        sent.update(TaskId(1), Some(row(3, "working")));
        assert_eq!(
            sent.update(TaskId(1), None),
            Some(Response::TaskRemoved { id: 3 })
        );
        assert_eq!(
            sent.update(TaskId(2), Some(row(3, "idle"))),
            Some(Response::Task(row(3, "idle")))
        );
    }

    #[test]
    fn dropped_events_make_every_task_looked_at() {
        let (tx, rx) = crossbeam_channel::bounded(4);
        let (_closed_tx, closed) = crossbeam_channel::bounded::<()>(0);
        let lagged = AtomicBool::new(false);
        tx.send(RuntimeEvent::Dirty(TaskId(1))).unwrap();
        tx.send(RuntimeEvent::Exited(TaskId(2), Some(0))).unwrap();
        tx.send(RuntimeEvent::Dirty(TaskId(1))).unwrap();
        let ids = next_changes(&rx, &closed, &lagged).unwrap().unwrap();
        assert_eq!(
            ids.into_iter().collect::<Vec<_>>(),
            vec![TaskId(1), TaskId(2)]
        );
        tx.send(RuntimeEvent::Dirty(TaskId(1))).unwrap();
        lagged.store(true, Ordering::SeqCst);
        assert_eq!(next_changes(&rx, &closed, &lagged), Some(None));
        assert!(!lagged.load(Ordering::SeqCst), "taken");
        tx.send(RuntimeEvent::Resync).unwrap();
        assert_eq!(next_changes(&rx, &closed, &lagged), Some(None));
        drop(_closed_tx);
        assert_eq!(next_changes(&rx, &closed, &lagged), None);
    }
}
