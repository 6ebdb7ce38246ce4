//! `--record DIR`: each task as an asciicast v2 file that `termic replay`
//! feeds back through the signal engine.
//!
//! [`TaskRecorder`] is what the runtime calls, in exactly the order it feeds
//! the engine (both happen under one lock), so a replay sees the same facts
//! in the same order at the same times and reproduces the same transitions.

use termic_signal::engine::ScreenFacts;

/// A sink for everything the engine is fed about one task.
pub trait TaskRecorder: Send {
    fn output(&mut self, now: u64, bytes: &[u8]);
    fn input(&mut self, now: u64, bytes: &[u8]);
    fn resize(&mut self, now: u64, cols: u16, rows: u16);
    fn focus(&mut self, now: u64, watched: bool);
    fn hooks_wired(&mut self, now: u64, wired: bool);
    fn screen(&mut self, now: u64, facts: ScreenFacts);
    fn exit(&mut self, now: u64, code: Option<i32>);
}
