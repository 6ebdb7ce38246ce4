//! The per-task reader thread: the only consumer of a task's PTY output.
//!
//! It blocks on `read` (a `poll` with a timeout only while a foreground check
//! is owed, see [`super::foreground`]) and hands every batch to the screen
//! thread ([`super::screen`]), which scans it for terminal queries, feeds
//! the signal engine and applies it to the screen model, in that order.
//! The reader does nothing else with the bytes, so it is back in `read` at
//! once: a PTY hands over at most ~4 KiB per read, and under a flood the
//! program's writes wait on the reader's round trip (measured: a reader
//! that also scanned and fed the engine made 200 MiB take 1.3x as long on
//! 2 cores, bench/README.md fifth pass). The agent's writes wait on the
//! screen thread only when [`IN_FLIGHT`] batches are already queued.

use std::io::Read;
use std::os::unix::io::RawFd;
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use super::foreground::{ForegroundChange, ForegroundWatch};
use super::task::TaskShared;

/// Bytes per read. Large reads amortise locking under heavy output.
const READ_CHUNK: usize = 64 * 1024;

/// A PTY hands over at most ~4 KiB per read; under heavy output, take what
/// is already waiting (up to this many bytes) before processing, so the
/// per-batch costs (locks, engine call, wake-up) are paid once per batch.
const BATCH: usize = 256 * 1024;

/// Batches read but not yet on the screen, at most. Bounds the memory a
/// flood can take (`IN_FLIGHT * BATCH` = 2 MiB) and how far the engine and
/// the screen may trail the reader; under a flood the reader then waits for
/// the screen thread.
pub const IN_FLIGHT: usize = 8;

/// Output read from the PTY, on its way to the screen thread.
pub struct Batch {
    /// Holds `len` bytes of output; the rest is spare room. Empty (not a
    /// pool buffer) for a batch that only carries `foreground`.
    pub buf: Vec<u8>,
    pub len: usize,
    /// Another program took the foreground before these bytes: the engine
    /// is told first, in order with the output before and after it (a
    /// shell's mark after an agent exits is the shell's again, and an
    /// agent's first hook is the agent's).
    pub foreground: Option<ForegroundChange>,
}

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

/// Wait up to `ms` for output on `fd`: `false` when none came in time.
fn output_within(fd: RawFd, ms: u64) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let timeout = ms.min(i32::MAX as u64) as i32;
    loop {
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        // Output, hang-up or an error: let the read find out which.
        return n != 0;
    }
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

/// Buffers for batches: reused once the screen thread hands them back, and
/// allocated only while fewer than [`IN_FLIGHT`] exist, so a task that never
/// floods holds one. After a flood the task keeps what it needed (measured:
/// 1.3 MiB per task with full scrollback, bench/memory.sh); freeing spare
/// buffers once output went quiet did not lower the RSS measured there.
struct BufferPool {
    returned: Receiver<Vec<u8>>,
    allocated: usize,
}

impl BufferPool {
    /// A free buffer, waiting for the screen thread when all are in flight.
    /// `None` when the screen thread is gone.
    fn take(&mut self) -> Option<Vec<u8>> {
        if let Ok(buf) = self.returned.try_recv() {
            return Some(buf);
        }
        if self.allocated < IN_FLIGHT {
            self.allocated += 1;
            return Some(vec![0; BATCH]);
        }
        self.returned.recv().ok()
    }
}

/// Run until EOF (every holder of the PTY slave has closed it). `fd` is the
/// master's descriptor, used only to ask whether more output is waiting.
/// Batches go to `screen`; their buffers come back on `returned`. Dropping
/// `screen` at the end tells the screen thread the output is over.
pub fn run(
    mut reader: Box<dyn Read + Send>,
    fd: Option<RawFd>,
    shared: Arc<TaskShared>,
    screen: Sender<Batch>,
    returned: Receiver<Vec<u8>>,
    mut watch: Option<ForegroundWatch>,
) {
    let mut pool = BufferPool {
        returned,
        allocated: 0,
    };
    while let Some(mut buf) = pool.take() {
        // Output went quiet with a foreground check owed: do it now, so a
        // program that took the foreground and waits silently is seen.
        if let (Some(w), Some(fd)) = (watch.as_mut(), fd) {
            if let Some(ms) = w.quiet_wait_ms(shared.clock.now_ms()) {
                if !output_within(fd, ms) {
                    if let Some(change) = w.quiet_check(shared.clock.now_ms(), fd) {
                        let only_change = Batch {
                            buf: Vec::new(),
                            len: 0,
                            foreground: Some(change),
                        };
                        if screen.send(only_change).is_err() {
                            break;
                        }
                    }
                }
            }
        }
        let Some(len) = read_batch(&mut *reader, fd, &mut buf) else {
            break;
        };
        let mut foreground = None;
        if let (Some(w), Some(fd)) = (watch.as_mut(), fd) {
            if w.due(shared.clock.now_ms(), &buf[..len]) {
                foreground = w.check(fd);
            }
        }
        let batch = Batch {
            buf,
            len,
            foreground,
        };
        if screen.send(batch).is_err() {
            break;
        }
    }
}
