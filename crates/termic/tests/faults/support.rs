//! What several fault modules wait with.

use std::time::{Duration, Instant};

/// Polls `done` until it holds or `within` passes; false on timeout.
pub fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}
