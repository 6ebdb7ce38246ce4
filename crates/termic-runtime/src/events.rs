//! The runtime's event channel to its one reader (the UI loop, or the
//! server's feed thread): bounded, and never waited on. A task's threads
//! send while holding its engine's lock (so transitions keep the engine's
//! order), and the reader takes that lock in `tick`: a send that waited for
//! room could deadlock them. So past [`EVENT_QUEUE`] an event is dropped
//! and the channel is marked lagged; the reader, after draining, asks
//! [`EventSender::take_lagged`] and then re-reads every task's state from
//! the runtime instead of trusting the events it got (`RuntimeEvent::Resync`).
//! Nothing is lost that the runtime still knows: states, screens and the
//! Inspector's timeline live there; only notifications of dropped
//! transitions are not sent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, TrySendError};

use super::RuntimeEvent;

/// Most events queued for the reader. Its reader takes each in
/// microseconds; reaching this means it is stuck or far slower than a task
/// flooding transitions (4,096 events of at most a few hundred bytes each).
pub const EVENT_QUEUE: usize = 4096;

/// The sending side, shared by every task's threads.
#[derive(Clone)]
pub struct EventSender {
    tx: Sender<RuntimeEvent>,
    lagged: Arc<AtomicBool>,
}

impl EventSender {
    /// A channel that holds at most `capacity` events.
    pub fn channel(capacity: usize) -> (EventSender, Receiver<RuntimeEvent>) {
        let (tx, rx) = crossbeam_channel::bounded(capacity);
        let sender = EventSender {
            tx,
            lagged: Arc::new(AtomicBool::new(false)),
        };
        (sender, rx)
    }

    /// Queue `event`, or drop it and mark the channel lagged when full.
    /// Never waits. A reader that is gone is not an error.
    pub fn send(&self, event: RuntimeEvent) {
        if let Err(TrySendError::Full(_)) = self.tx.try_send(event) {
            self.lagged.store(true, Ordering::Release);
        }
    }

    /// Whether events were dropped since the last call (and clears it).
    pub fn take_lagged(&self) -> bool {
        self.lagged.swap(false, Ordering::AcqRel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TaskId;

    #[test]
    fn a_full_channel_drops_without_waiting_and_says_so_once() {
        let (tx, rx) = EventSender::channel(3);
        for i in 0..10 {
            tx.send(RuntimeEvent::Dirty(TaskId(i)));
        }
        let got: Vec<_> = rx.try_iter().collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(tx.take_lagged());
        assert!(!tx.take_lagged(), "cleared once taken");
        tx.send(RuntimeEvent::Dirty(TaskId(1)));
        assert!(!tx.take_lagged(), "room again: nothing dropped");
        drop(rx);
        tx.send(RuntimeEvent::Dirty(TaskId(2)));
        assert!(!tx.take_lagged(), "a reader that is gone is not a lag");
    }
}
