//! The per-task input writer thread.
//!
//! Writing to a PTY blocks once its input buffer is full, which happens when
//! the program is busy and not reading (a large paste into an agent mid-turn).
//! If the UI wrote directly it would freeze, and so would the reader thread
//! waiting to send a terminal reply. So every write (keys, pastes, focus
//! reports, terminal replies) goes through one queue to this thread, which
//! alone may block. One queue keeps replies and keys in the order they were
//! produced.

use std::io::Write;

use crossbeam_channel::Receiver;

/// Write each queued buffer in order until every sender is gone. A write
/// error (the program exited and closed the PTY) drops what is still queued.
pub fn run(mut writer: Box<dyn Write + Send>, queue: Receiver<Vec<u8>>) {
    let mut broken = false;
    for bytes in queue {
        if broken {
            continue;
        }
        broken = writer
            .write_all(&bytes)
            .and_then(|()| writer.flush())
            .is_err();
    }
}
