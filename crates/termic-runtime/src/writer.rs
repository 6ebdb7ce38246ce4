//! The per-task input writer thread and its bounded queue.
//!
//! Writing to a PTY blocks once its input buffer is full, which happens when
//! the program is busy and not reading (a large paste into an agent mid-turn).
//! If the UI wrote directly it would freeze, and so would the screen thread
//! waiting to send a terminal reply. So every write (keys, pastes, focus
//! reports, terminal replies) goes through one queue to this thread, which
//! alone may block. One queue keeps replies and keys in the order they were
//! produced.
//!
//! The queue is bounded in bytes, with one budget per source, counted from
//! the push until the bytes are written (so the bound holds while the
//! writer is blocked in a write):
//!
//! - Terminal replies: [`REPLY_BUDGET`]. Past it a reply is dropped. Only a
//!   program that does not read its input fills it (measured before this
//!   bound: `cat` of 30 MB of `ESC [ c` took the server from 7 MB to
//!   598 MB), and such a program cannot use the answers anyway; a real
//!   terminal flooded with queries also stops answering them all.
//! - What the user typed or pasted: [`INPUT_BUDGET`]. Past it the input is
//!   refused and the caller says so ([`Refused`]): input is never dropped
//!   silently, and nobody waits (the UI, the server and the other tasks go
//!   on; only this task's input stops).

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Condvar, Mutex};

use super::lock;

/// Bytes of terminal replies waiting for the program, at most. An agent
/// that reads its input keeps this near zero (opencode's start-up probe,
/// the chattiest measured, is under 1 KiB of replies).
pub const REPLY_BUDGET: usize = 64 * 1024;

/// Bytes of user input (keys, pastes, focus reports) waiting for the
/// program, at most. A paste reaches the server in one protocol frame of
/// at most 1 MiB, so a few whole pastes fit.
pub const INPUT_BUDGET: usize = 4 * 1024 * 1024;

/// Who produced bytes for the program's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// termic's answers to the program's terminal queries.
    Reply,
    /// What the user typed or pasted (or `termic send`).
    User,
}

/// The byte budget of each source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    pub reply: usize,
    pub user: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            reply: REPLY_BUDGET,
            user: INPUT_BUDGET,
        }
    }
}

/// Bytes refused because their source's budget is full: `waiting` bytes of
/// that source are still unread by the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    pub waiting: usize,
}

/// The queue's state and policy (pure: no locks, no threads).
#[derive(Debug, Default)]
pub struct Pending {
    items: VecDeque<(Source, Vec<u8>)>,
    /// Bytes of each source queued or being written.
    reply_bytes: usize,
    user_bytes: usize,
    /// The writer is gone (the PTY failed) or the task was dropped:
    /// nothing more is kept.
    closed: bool,
}

impl Pending {
    fn counter(&mut self, source: Source) -> &mut usize {
        match source {
            Source::Reply => &mut self.reply_bytes,
            Source::User => &mut self.user_bytes,
        }
    }

    /// Bytes of `source` queued or being written.
    pub fn waiting(&self, source: Source) -> usize {
        match source {
            Source::Reply => self.reply_bytes,
            Source::User => self.user_bytes,
        }
    }

    /// Bytes of `source` that would still fit in its budget.
    pub fn room(&self, source: Source, budgets: Budgets) -> usize {
        let budget = match source {
            Source::Reply => budgets.reply,
            Source::User => budgets.user,
        };
        budget.saturating_sub(self.waiting(source))
    }

    /// Queue `bytes` if they fit whole in their source's budget. Once
    /// closed, bytes are taken and dropped: no program will read them.
    pub fn push(
        &mut self,
        source: Source,
        bytes: Vec<u8>,
        budgets: Budgets,
    ) -> Result<(), Refused> {
        if self.closed || bytes.is_empty() {
            return Ok(());
        }
        if bytes.len() > self.room(source, budgets) {
            return Err(Refused {
                waiting: self.waiting(source),
            });
        }
        *self.counter(source) += bytes.len();
        self.items.push_back((source, bytes));
        Ok(())
    }

    /// The oldest queued bytes, still counted until [`Pending::written`].
    pub fn pop(&mut self) -> Option<(Source, Vec<u8>)> {
        self.items.pop_front()
    }

    /// `len` bytes of `source` that [`Pending::pop`] gave are written (or
    /// given up on).
    pub fn written(&mut self, source: Source, len: usize) {
        let counter = self.counter(source);
        *counter = counter.saturating_sub(len);
    }

    /// Drop everything queued and keep nothing more.
    pub fn close(&mut self) {
        self.closed = true;
        self.items = VecDeque::new();
        self.reply_bytes = 0;
        self.user_bytes = 0;
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }
}

/// The queue between a task's producers (the UI, the server, the screen
/// thread's replies) and its writer thread. Pushing never blocks beyond a
/// short lock.
#[derive(Debug, Default)]
pub struct InputQueue {
    pending: Mutex<Pending>,
    ready: Condvar,
    budgets: Budgets,
}

impl InputQueue {
    pub fn new(budgets: Budgets) -> Self {
        InputQueue {
            pending: Mutex::new(Pending::default()),
            ready: Condvar::new(),
            budgets,
        }
    }

    /// Queue `bytes` for the program, or refuse them whole (see
    /// [`Pending::push`]).
    pub fn push(&self, source: Source, bytes: Vec<u8>) -> Result<(), Refused> {
        lock(&self.pending).push(source, bytes, self.budgets)?;
        self.ready.notify_one();
        Ok(())
    }

    /// Bytes of `source` that would fit now.
    pub fn room(&self, source: Source) -> usize {
        lock(&self.pending).room(source, self.budgets)
    }

    /// Bytes of `source` waiting now.
    pub fn waiting(&self, source: Source) -> usize {
        lock(&self.pending).waiting(source)
    }

    /// Free what is queued and end the writer thread (it finishes the write
    /// it is in, if any).
    pub fn close(&self) {
        lock(&self.pending).close();
        self.ready.notify_all();
    }

    /// The next bytes to write, waiting for them; `None` once closed.
    fn next(&self) -> Option<(Source, Vec<u8>)> {
        let mut pending = lock(&self.pending);
        loop {
            if pending.is_closed() {
                return None;
            }
            if let Some(item) = pending.pop() {
                return Some(item);
            }
            pending = self.ready.wait(pending).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn written(&self, source: Source, len: usize) {
        lock(&self.pending).written(source, len);
    }
}

/// Write each queued buffer in order until the queue is closed. A write
/// error (the program exited and closed the PTY) closes it: what is still
/// queued is dropped and nothing more is kept.
pub fn run(mut writer: Box<dyn Write + Send>, queue: std::sync::Arc<InputQueue>) {
    while let Some((source, bytes)) = queue.next() {
        let failed = writer
            .write_all(&bytes)
            .and_then(|()| writer.flush())
            .is_err();
        queue.written(source, bytes.len());
        if failed {
            queue.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex as StdMutex};

    const SMALL: Budgets = Budgets { reply: 8, user: 16 };

    #[test]
    fn replies_past_their_budget_are_refused_whole_and_input_keeps_its_own() {
        let mut p = Pending::default();
        assert_eq!(p.push(Source::Reply, b"12345".to_vec(), SMALL), Ok(()));
        // 5 + 4 > 8: refused whole, never cut (half a reply is garbage).
        assert_eq!(
            p.push(Source::Reply, b"abcd".to_vec(), SMALL),
            Err(Refused { waiting: 5 })
        );
        assert_eq!(p.push(Source::Reply, b"abc".to_vec(), SMALL), Ok(()));
        assert_eq!(p.room(Source::Reply, SMALL), 0);
        // Full replies do not take the user's room.
        assert_eq!(p.push(Source::User, vec![b'k'; 16], SMALL), Ok(()));
        assert_eq!(
            p.push(Source::User, b"x".to_vec(), SMALL),
            Err(Refused { waiting: 16 })
        );
        // In order, whatever the source.
        let order: Vec<_> = std::iter::from_fn(|| p.pop())
            .map(|(s, b)| (s, b.len()))
            .collect();
        assert_eq!(
            order,
            [(Source::Reply, 5), (Source::Reply, 3), (Source::User, 16)]
        );
    }

    #[test]
    fn bytes_count_until_written_so_the_bound_holds_during_a_blocked_write() {
        let mut p = Pending::default();
        p.push(Source::Reply, vec![0; 8], SMALL).unwrap();
        let (source, bytes) = p.pop().unwrap();
        // The writer holds them (blocked in write): still no room.
        assert_eq!(p.room(Source::Reply, SMALL), 0);
        assert!(p.push(Source::Reply, b"r".to_vec(), SMALL).is_err());
        p.written(source, bytes.len());
        assert_eq!(p.room(Source::Reply, SMALL), 8);
        assert_eq!(p.push(Source::Reply, b"r".to_vec(), SMALL), Ok(()));
    }

    #[test]
    fn a_closed_queue_keeps_nothing() {
        let mut p = Pending::default();
        p.push(Source::User, b"typed".to_vec(), SMALL).unwrap();
        p.close();
        assert_eq!(p.pop(), None);
        assert_eq!(p.waiting(Source::User), 0);
        // Taken and dropped: no program will read them.
        assert_eq!(p.push(Source::User, b"more".to_vec(), SMALL), Ok(()));
        assert_eq!(p.pop(), None);
    }

    /// A PTY that takes nothing until told to: a program not reading.
    struct Stuck {
        open: Arc<(StdMutex<bool>, Condvar)>,
        got: Arc<StdMutex<Vec<u8>>>,
    }

    impl Write for Stuck {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let (open, turned) = &*self.open;
            let mut guard = open.lock().unwrap();
            while !*guard {
                guard = turned.wait(guard).unwrap();
            }
            self.got.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_program_that_never_reads_holds_at_most_the_budget_and_pushing_never_waits() {
        let open = Arc::new((StdMutex::new(false), Condvar::new()));
        let got = Arc::new(StdMutex::new(Vec::new()));
        let queue = Arc::new(InputQueue::new(Budgets {
            reply: 100,
            user: 1000,
        }));
        let writer = Stuck {
            open: Arc::clone(&open),
            got: Arc::clone(&got),
        };
        let thread = {
            let queue = Arc::clone(&queue);
            std::thread::spawn(move || run(Box::new(writer), queue))
        };
        // A flood of 10-byte replies: every push returns at once, and what
        // is kept stays within the budget.
        let mut kept = 0;
        for _ in 0..10_000 {
            if queue.push(Source::Reply, b"\x1b[?62;22c".to_vec()).is_ok() {
                kept += 1;
            }
            assert!(queue.waiting(Source::Reply) <= 100);
        }
        // Counted until written: the one the writer is stuck on too.
        assert_eq!(kept, 100 / 9);
        // The user's input still fits, in its own budget.
        assert_eq!(queue.push(Source::User, b"hello\r".to_vec()), Ok(()));
        assert_eq!(
            queue.push(Source::User, vec![b'p'; 1000]),
            Err(Refused { waiting: 6 })
        );
        // The program reads: everything kept arrives, in order, then the
        // queue is empty again.
        {
            let (flag, turned) = &*open;
            *flag.lock().unwrap() = true;
            turned.notify_all();
        }
        let mut want = b"\x1b[?62;22c".repeat(kept);
        want.extend_from_slice(b"hello\r");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while got.lock().unwrap().len() < want.len() {
            assert!(std::time::Instant::now() < deadline, "never written");
            std::thread::yield_now();
        }
        assert_eq!(*got.lock().unwrap(), want);
        assert_eq!(queue.waiting(Source::Reply), 0);
        queue.close();
        thread.join().unwrap();
    }
}
