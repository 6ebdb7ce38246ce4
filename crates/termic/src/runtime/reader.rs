//! The per-task reader thread: the only consumer of a task's output.
//!
//! It blocks on `read` (no polling), and for every chunk, in order: applies
//! it to the screen model with terminal replies computed at the right point,
//! writes those replies back to the agent, and marks the task dirty. The UI is only told "dirty" once until
//! it draws, so output is never throttled by rendering and the event channel
//! never floods.

use std::io::{Read, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::replies::{apply_with_replies, Responder};

use super::task::TaskShared;
use super::RuntimeEvent;

/// Bytes per read. Large reads amortise locking under heavy output.
const READ_CHUNK: usize = 64 * 1024;

/// Run until EOF (every holder of the PTY slave has closed it).
pub fn run(mut reader: Box<dyn Read + Send>, shared: Arc<TaskShared>, mut responder: Responder) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let chunk = &buf[..n];
        let replies = {
            let mut parser = shared.lock_parser();
            apply_with_replies(&mut responder, &mut parser, chunk)
        };
        shared
            .focus_reporting
            .store(responder.focus_reporting(), Ordering::Relaxed);
        if !replies.is_empty() {
            let mut writer = shared.lock_writer();
            for reply in &replies {
                // A child that stopped reading its input cannot be helped;
                // never let that stop the output side.
                let _ = writer.write_all(reply);
            }
            let _ = writer.flush();
        }
        if !shared.dirty.swap(true, Ordering::AcqRel) {
            shared.send(RuntimeEvent::Dirty(shared.meta.id));
        }
    }
}
