//! The per-task screen thread: applies the reader's batches to the screen
//! model, answers the terminal queries in them against the screen as it is
//! right after each query, feeds the signal engine (and the recorder) what
//! the same parse found, and tells the engine and the UI what changed.
//! Each byte is parsed once for the screen model and the engine (vt100's
//! `process_also` tees the parse to the engine's [`SignalTap`]); only the
//! reply scanner looks at the bytes again, before the parse, since a reply
//! must be computed right after its query.
//!
//! The UI is only told "dirty" once until it draws, so output is never
//! throttled by rendering and the event channel never floods.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use termic_signal::scanner::SignalTap;

use crate::replies::{apply_with_replies, Applied, Query, ReplyScanner, Responder};

use super::history::History;
use super::reader::Batch;
use super::signals::{screen_facts, screen_rows, SCREEN_FACTS_EVERY_MS};
use super::task::TaskShared;
use super::writer::Source;
use super::RuntimeEvent;

/// Bytes of a batch applied to the screen model before the lock is handed
/// to whoever waits for it. The screen model's worst case per byte is
/// bounded (REP writes one row at most, strings are capped), so a slice
/// costs a few milliseconds at worst: the UI never waits longer for a
/// flooding task's screen. Each slice's signals then go to the engine
/// under one hold of the task's signals lock, which the UI thread also
/// takes on every turn of its loop (a whole 256 KiB batch held it for a
/// few ms on a quiet machine, far longer when preempted with it held).
pub const SLICE: usize = 8 * 1024;

/// `len` bytes cut into slices of at most [`SLICE`], in order. The reply
/// scanner keeps its state from one slice to the next: a query that began
/// in an earlier slice is reported with start 0, as one that began in an
/// earlier batch.
pub fn slices(len: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..len.div_ceil(SLICE)).map(move |i| i * SLICE..((i + 1) * SLICE).min(len))
}

/// Run until the reader ends (its sender is dropped) and every batch it
/// sent is on the screen. Each buffer goes back on `returned` for reuse.
pub fn run(
    batches: Receiver<Batch>,
    returned: Sender<Vec<u8>>,
    shared: Arc<TaskShared>,
    mut responder: Responder,
) {
    let mut pacer = FactsPacer::default();
    let mut scanner = ReplyScanner::new();
    let mut signal_tap = SignalTap::default();
    loop {
        let batch = if pacer.pending() {
            match batches.recv_timeout(Duration::from_millis(SCREEN_FACTS_EVERY_MS)) {
                Ok(batch) => batch,
                Err(RecvTimeoutError::Timeout) => {
                    pacer.reported();
                    report_facts(&shared);
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    report_facts(&shared);
                    break;
                }
            }
        } else {
            match batches.recv() {
                Ok(batch) => batch,
                Err(_) => break,
            }
        };
        let Batch {
            buf,
            len,
            foreground,
        } = batch;
        if let Some(change) = foreground {
            shared.feed_signals(|signals, now| signals.foreground(now, &change));
        }
        if len == 0 {
            continue;
        }
        // Whether this batch's replies answer the OSC 7501 probe.
        let mut probe = false;
        let mut only_queries = true;
        // The replies this batch may queue: what the task's reply budget
        // has room for now (only this thread queues replies, so the room
        // cannot shrink before they are queued).
        let mut replies = BoundedReplies::new(shared.input.room(Source::Reply));
        // Each slice's signals, found by the screen model's own parse.
        let mut scanned = Vec::new();
        {
            let mut parser = shared.lock_parser_to_write();
            for range in slices(len) {
                // Scanned a slice at a time, so the queries found at once
                // are bounded by the slice (8 KiB of `ESC [ c` is 2,730 of
                // them; a whole batch's 87,000 took 7 MB).
                let found = scanner.scan(&buf[range.clone()]);
                probe |= responder.config.native_probe
                    && found.iter().any(|f| f.query == Query::NativeProbe);
                let mut signals = Vec::new();
                let mut tap = signal_tap.performer(&mut signals);
                let part = apply_guarded(&mut parser, |parser| {
                    apply_with_replies(&mut responder, parser, &buf[range.clone()], found, &mut tap)
                })
                .unwrap_or_else(|| {
                    // Debug builds (every test) keep the panic: a reset
                    // would hide a screen-model bug, such as a deferred
                    // cell read, from the end-to-end tests.
                    debug_assert!(false, "the screen model panicked (above)");
                    shared.send(RuntimeEvent::Log(format!(
                        "the screen of task {} failed on its output and \
                         started over (its scrollback is kept)",
                        shared.name()
                    )));
                    Applied {
                        replies: Vec::new(),
                        only_queries: false,
                    }
                });
                tap.finish();
                scanned.push((range, signals));
                // A slice's replies are a few thousand at most (8 KiB of
                // 3-byte queries); the batch keeps only what fits.
                for reply in part.replies {
                    replies.push(&reply);
                }
                only_queries &= part.only_queries;
                // Anyone waiting for this screen (the UI) gets it now.
                parking_lot::MutexGuard::bump(&mut parser);
            }
        }
        // The engine learns of the output before the screen's facts, as a
        // replay of the recording feeds them.
        for (range, signals) in scanned {
            let part = &buf[range];
            shared.feed_signals(|engine, now| engine.output_scanned(now, part, signals));
        }
        let (facts_due, rows_wanted) = {
            let signals = shared.lock_signals();
            let due = signals.facts_due(shared.clock.now_ms());
            (due, signals.screen_rows_wanted())
        };
        let facts = pacer.after_batch(facts_due, only_queries).then(|| {
            let parser = shared.lock_parser();
            (screen_facts(&parser), screen_rows(&parser, rows_wanted))
        });
        // The reader may already be waiting for this buffer.
        let _ = returned.send(buf);
        shared
            .focus_reporting
            .store(responder.focus_reporting(), Ordering::Relaxed);
        // Before the answer is queued: the program's first report, sent once
        // it reads the answer, must find the engine knowing (rules/native.rs).
        if probe {
            shared.feed_signals(|signals, now| {
                signals.probe_answered(now);
                Vec::new()
            });
        }
        // Queued, never written here: a program that stopped reading its
        // input must not stop the output side.
        if !replies.bytes.is_empty() || replies.dropped > 0 {
            shared.queue_replies(replies.bytes, replies.dropped);
        }
        if let Some((facts, rows)) = facts {
            shared.feed_signals(|signals, now| signals.screen_and_rows(now, facts, rows));
        }
        // No redraw for an unchanged screen: an idle Claude Code asks for
        // the cursor five times a second.
        if !only_queries && !shared.dirty.swap(true, Ordering::AcqRel) {
            shared.send(RuntimeEvent::Dirty(shared.meta.id));
        }
    }
}

/// A batch's replies, end to end in one buffer, kept only while they fit
/// in `room` bytes: a batch of queries (256 KiB of `ESC [ c` asks 87,000
/// times) never holds more than the task's reply budget has room for. A
/// reply that does not fit whole is dropped whole.
#[derive(Debug)]
struct BoundedReplies {
    bytes: Vec<u8>,
    room: usize,
    /// Replies dropped for want of room.
    dropped: usize,
}

impl BoundedReplies {
    fn new(room: usize) -> Self {
        BoundedReplies {
            bytes: Vec::new(),
            room,
            dropped: 0,
        }
    }

    fn push(&mut self, reply: &[u8]) {
        if self.bytes.len() + reply.len() > self.room {
            self.dropped += 1;
            return;
        }
        self.bytes.extend_from_slice(reply);
    }
}

/// `apply` (a slice of output) on the screen model. If the model panics on
/// it (a bug in vt100 that some output reaches), the task goes on: its
/// screen starts over, blank and of the same size, with the scrollback it
/// had, and `None` says so. A panic that ended the screen thread instead
/// would stop the reader, and the program would block on a full PTY.
pub(super) fn apply_guarded<T>(
    parser: &mut vt100::Parser<History>,
    apply: impl FnOnce(&mut vt100::Parser<History>) -> T,
) -> Option<T> {
    // The parser is replaced whole if `apply` unwinds, so no half-updated
    // state of it is read again.
    match catch_unwind(AssertUnwindSafe(|| apply(&mut *parser))) {
        Ok(applied) => Some(applied),
        Err(_) => {
            let (rows, cols) = parser.screen_mut().size();
            *parser = std::mem::take(parser.callbacks_mut()).into_screen_model(rows, cols);
            None
        }
    }
}

/// When the screen thread tells the engine what the screen shows: at most
/// every [`SCREEN_FACTS_EVERY_MS`] while output streams, and never leaving a
/// change untold. A change the rate limit held back is reported once no
/// batch has come for that long, so the engine sees the screen the agent
/// left (a dialog painted right after its title, an API error right after
/// its idle title) without waiting for a timer's tick. A batch of nothing
/// but queries changes nothing itself, but must not make the thread forget
/// a change before it: Claude Code asks for the cursor right after it paints.
#[derive(Debug, Default)]
struct FactsPacer {
    /// A change of the screen the engine has not been told.
    pending: bool,
}

impl FactsPacer {
    /// After a batch is on the screen: whether to report the facts now
    /// (`due`: the rate limit allows it).
    fn after_batch(&mut self, due: bool, only_queries: bool) -> bool {
        let changed = self.pending || !only_queries;
        self.pending = changed && !due;
        changed && due
    }

    /// A change waits to be reported.
    fn pending(&self) -> bool {
        self.pending
    }

    /// The facts were reported (the wait for more output ran out).
    fn reported(&mut self) {
        self.pending = false;
    }
}

/// The screen's facts (and the screen rules' rows) now, for the engine.
fn report_facts(shared: &TaskShared) {
    let wanted = shared.lock_signals().screen_rows_wanted();
    let (facts, rows) = {
        let parser = shared.lock_parser();
        (screen_facts(&parser), screen_rows(&parser, wanted))
    };
    shared.feed_signals(|signals, now| signals.screen_and_rows(now, facts, rows));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_held_back_by_the_rate_limit_survives_a_batch_of_queries() {
        let mut pacer = FactsPacer::default();
        // Output too soon after the last report: held back.
        assert!(!pacer.after_batch(false, false));
        assert!(pacer.pending());
        // Then a cursor query alone (measured: Claude Code's API error, then
        // CSI 6n): the change is still untold.
        assert!(!pacer.after_batch(false, true));
        assert!(pacer.pending(), "the held-back change was forgotten");
        // Once the limit allows, even a batch of queries reports it.
        assert!(pacer.after_batch(true, true));
        assert!(!pacer.pending());
        // Nothing changed since: queries alone report nothing.
        assert!(!pacer.after_batch(true, true));
        assert!(!pacer.pending());
        // Output when due is reported at once.
        assert!(pacer.after_batch(true, false));
        assert!(!pacer.pending());
        // A held-back change the wait reported is done with.
        assert!(!pacer.after_batch(false, false));
        pacer.reported();
        assert!(!pacer.pending());
        assert!(!pacer.after_batch(false, true));
    }

    #[test]
    fn a_panicking_screen_model_starts_over_and_keeps_the_scrollback() {
        let mut parser = History::new(100).into_screen_model(
            std::num::NonZeroU16::new(3).unwrap(),
            std::num::NonZeroU16::new(20).unwrap(),
        );
        parser.process(b"one\r\ntwo\r\nthree\r\nfour\r\nfive");
        let kept = parser.callbacks().len();
        assert_eq!(kept, 2, "two rows scrolled off");
        assert_eq!(apply_guarded(&mut parser, |p| p.process(b"x")), Some(()));
        let failed = apply_guarded(&mut parser, |p| {
            p.process_also(b" half", &mut NoSignals);
            panic!("a screen model bug");
        });
        assert_eq!(failed, None::<()>);
        // Blank, the same size, the scrollback as it was.
        parser.settle();
        assert_eq!(parser.screen().contents(), "");
        assert_eq!(
            parser.screen().size(),
            (
                std::num::NonZeroU16::new(3).unwrap(),
                std::num::NonZeroU16::new(20).unwrap()
            )
        );
        assert_eq!(parser.callbacks().len(), kept);
        // And it takes output again, scrolling into the same history.
        parser.process(b"a\r\nb\r\nc\r\nd");
        assert_eq!(parser.screen().contents(), "b\nc\nd");
        assert_eq!(parser.callbacks().len(), kept + 1);
    }

    struct NoSignals;
    impl vte::Perform for NoSignals {}

    #[test]
    fn slices_cover_the_batch_and_scanning_them_finds_each_query_once() {
        let len = 2 * SLICE + 100;
        let ranges: Vec<_> = slices(len).collect();
        assert_eq!(ranges, [0..SLICE, SLICE..2 * SLICE, 2 * SLICE..len]);
        assert_eq!(slices(0).count(), 0);
        // Queries at the start, across each boundary and at the end.
        let mut batch = vec![b'x'; len];
        for at in [0, SLICE - 2, 2 * SLICE - 1, len - 4] {
            batch[at..at + 4].copy_from_slice(b"\x1b[5n");
        }
        let mut scanner = ReplyScanner::new();
        let ends: Vec<Vec<(usize, usize)>> = slices(len)
            .map(|r| {
                let found = scanner.scan(&batch[r]);
                assert!(found.iter().all(|f| f.query == Query::Status));
                found.iter().map(|f| (f.start, f.end)).collect()
            })
            .collect();
        // A query that began in an earlier slice starts at 0 and ends in
        // the slice holding its last byte.
        assert_eq!(ends, [vec![(0, 4)], vec![(0, 2)], vec![(0, 3), (96, 100)]]);
    }

    #[test]
    fn a_batch_keeps_only_the_replies_that_fit_whole() {
        let mut replies = BoundedReplies::new(25);
        for _ in 0..1000 {
            replies.push(b"\x1b[?62;22c");
        }
        // Two of 9 bytes fit in 25; a third would be cut, so it is dropped.
        assert_eq!(replies.bytes, b"\x1b[?62;22c\x1b[?62;22c");
        assert_eq!(replies.dropped, 998);
        let mut none = BoundedReplies::new(0);
        none.push(b"\x1b[0n");
        assert!(none.bytes.is_empty());
        assert_eq!(none.dropped, 1);
    }
}
