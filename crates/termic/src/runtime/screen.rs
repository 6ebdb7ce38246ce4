//! The per-task screen thread: applies the reader's batches to the screen
//! model, answers the terminal queries in them against the screen as it is
//! right after each query, and tells the engine and the UI what changed.
//!
//! The UI is only told "dirty" once until it draws, so output is never
//! throttled by rendering and the event channel never floods.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use crate::replies::{apply_with_replies, Query, Responder};

use super::reader::Batch;
use super::signals::screen_facts;
use super::task::TaskShared;
use super::RuntimeEvent;

/// Run until the reader ends (its sender is dropped) and every batch it
/// sent is on the screen. Each buffer goes back on `returned` for reuse.
pub fn run(
    batches: Receiver<Batch>,
    returned: Sender<Vec<u8>>,
    shared: Arc<TaskShared>,
    mut responder: Responder,
) {
    for batch in batches {
        let facts_due = shared.lock_signals().facts_due(shared.clock.now_ms());
        let (applied, facts, buf, probe) = {
            let mut parser = shared.lock_parser();
            let Batch { buf, len, found } = batch;
            // Whether this batch's replies answer the OSC 7501 probe.
            let probe = responder.config.native_probe
                && found.iter().any(|f| f.query == Query::NativeProbe);
            let applied = apply_with_replies(&mut responder, &mut parser, &buf[..len], found);
            // A batch of nothing but queries left the screen as it was.
            let facts = (facts_due && !applied.only_queries).then(|| screen_facts(&parser));
            (applied, facts, buf, probe)
        };
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
        for reply in applied.replies {
            shared.queue_input(reply);
        }
        if let Some(facts) = facts {
            shared.feed_signals(|signals, now| signals.screen(now, facts));
        }
        // No redraw for an unchanged screen: an idle Claude Code asks for
        // the cursor five times a second.
        if !applied.only_queries && !shared.dirty.swap(true, Ordering::AcqRel) {
            shared.send(RuntimeEvent::Dirty(shared.meta.id));
        }
    }
}
