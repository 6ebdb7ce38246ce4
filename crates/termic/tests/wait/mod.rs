//! Waiting in a test: for the event, polled, never for a fixed time
//! (issue 28 item 6). Every termic test binary declares this module.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// Polls `done` every 20 ms until it holds or `within` passes; false on
/// timeout (the caller's assert says what did not happen).
pub fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    eventually_some(within, || done().then_some(())).is_some()
}

/// Polls `get` every 20 ms until it gives a value or `within` passes.
pub fn eventually_some<T>(within: Duration, mut get: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(v) = get() {
            return Some(v);
        }
        if start.elapsed() >= within {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
