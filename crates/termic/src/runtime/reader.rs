//! The per-task reader thread: the only consumer of a task's output.
//!
//! It blocks on `read` (no polling), and for every chunk, in order: applies
//! it to the screen model with terminal replies computed at the right point,
//! queues those replies for the agent's input, feeds the signal engine (and the
//! recorder) the chunk and, at most every 50 ms, the screen facts, publishes
//! transitions, and marks the task dirty. The UI is only told "dirty" once until
//! it draws, so output is never throttled by rendering and the event channel
//! never floods.

use std::io::Read;
use std::os::unix::io::RawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::replies::{apply_with_replies, Responder};

use super::signals::screen_facts;
use super::task::TaskShared;
use super::RuntimeEvent;

/// Bytes per read. Large reads amortise locking under heavy output.
const READ_CHUNK: usize = 64 * 1024;

/// A PTY hands over at most ~4 KiB per read; under heavy output, take what
/// is already waiting (up to this many bytes) before processing, so the
/// per-chunk costs (locks, engine call, wake-up) are paid once per batch.
const BATCH: usize = 256 * 1024;

/// Whether `fd` has bytes to read right now (a zero-timeout poll: never waits).
fn readable_now(fd: Option<RawFd>) -> bool {
    let Some(fd) = fd else { return false };
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    n == 1 && pfd.revents & libc::POLLIN != 0
}

/// Read once (blocking), then keep reading while more is already waiting.
/// `None` at EOF with nothing read.
fn read_batch(reader: &mut dyn Read, fd: Option<RawFd>, buf: &mut [u8]) -> Option<usize> {
    let mut filled = 0;
    loop {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        if buf.len() - filled < READ_CHUNK || !readable_now(fd) {
            return Some(filled);
        }
    }
    (filled > 0).then_some(filled)
}

/// Run until EOF (every holder of the PTY slave has closed it). `fd` is the
/// master's descriptor, used only to ask whether more output is waiting.
pub fn run(
    mut reader: Box<dyn Read + Send>,
    fd: Option<RawFd>,
    shared: Arc<TaskShared>,
    mut responder: Responder,
) {
    let mut buf = vec![0u8; BATCH];
    while let Some(n) = read_batch(&mut *reader, fd, &mut buf) {
        let chunk = &buf[..n];
        let now = shared.clock.now_ms();
        let facts_due = shared.lock_signals().facts_due(now);
        let (applied, facts) = {
            let mut parser = shared.lock_parser();
            let applied = apply_with_replies(&mut responder, &mut parser, chunk);
            // A chunk of nothing but queries left the screen as it was.
            let facts = (facts_due && !applied.only_queries).then(|| screen_facts(&parser));
            (applied, facts)
        };
        shared
            .focus_reporting
            .store(responder.focus_reporting(), Ordering::Relaxed);
        // Queued, never written here: a program that stopped reading its
        // input must not stop the output side.
        for reply in applied.replies {
            shared.queue_input(reply);
        }
        let transitions = {
            let mut signals = shared.lock_signals();
            let mut out = signals.output(now, chunk);
            if let Some(facts) = facts {
                out.extend(signals.screen(now, facts));
            }
            shared.check_deadline(&mut signals);
            out
        };
        shared.publish(transitions);
        // No redraw for an unchanged screen: an idle Claude Code asks for
        // the cursor five times a second.
        if !applied.only_queries && !shared.dirty.swap(true, Ordering::AcqRel) {
            shared.send(RuntimeEvent::Dirty(shared.meta.id));
        }
    }
}
