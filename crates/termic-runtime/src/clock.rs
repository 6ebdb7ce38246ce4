//! Time for the runtime, injected so tests control it.
//!
//! Two readings: a monotonic millisecond count (what the signal engine and the
//! recordings use; never goes backwards) and wall time in ms since the Unix
//! epoch (only for the event log's `ts`). Pure code takes these as values; only
//! [`SystemClock`] touches the OS clock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A source of time. `now_ms` is monotonic; `wall_ms` is for humans and logs.
pub trait Clock: Send + Sync {
    /// Milliseconds on a monotonic clock with an arbitrary origin.
    fn now_ms(&self) -> u64;
    /// Milliseconds since the Unix epoch.
    fn wall_ms(&self) -> u64;
}

/// The real clock: monotonic from process start, wall from the system.
#[derive(Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    pub fn new() -> Self {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn wall_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

/// A clock that moves only when told to. `wall_ms` is `epoch_base + now_ms`.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
    epoch_base: u64,
}

impl ManualClock {
    pub fn new(start_ms: u64, epoch_base: u64) -> Self {
        ManualClock {
            now: AtomicU64::new(start_ms),
            epoch_base,
        }
    }

    pub fn set(&self, ms: u64) {
        self.now.store(ms, Ordering::SeqCst);
    }

    pub fn advance(&self, ms: u64) {
        self.now.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }

    fn wall_ms(&self) -> u64 {
        self.epoch_base + self.now_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::new(100, 1_000_000);
        assert_eq!(clock.now_ms(), 100);
        clock.advance(50);
        assert_eq!(clock.now_ms(), 150);
        assert_eq!(clock.wall_ms(), 1_000_150);
        clock.set(7);
        assert_eq!(clock.now_ms(), 7);
    }

    #[test]
    fn system_clock_is_monotonic_and_wall_is_recent() {
        let clock = SystemClock::new();
        let a = clock.now_ms();
        let b = clock.now_ms();
        assert!(b >= a);
        // 2020-01-01 in ms: the wall clock must be past it.
        assert!(clock.wall_ms() > 1_577_836_800_000);
    }
}
