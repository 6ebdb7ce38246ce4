//! The simulator's clock: scenario time is virtual milliseconds, scaled to
//! real time by a `--speed` factor, and every deadline is computed from one
//! origin so long scenarios do not drift.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Real duration of `virtual_ms` at `speed` (2.0 runs twice as fast).
pub fn scale(virtual_ms: u64, speed: f64) -> Duration {
    let speed = if speed.is_finite() && speed > 0.0 {
        speed
    } else {
        1.0
    };
    Duration::from_secs_f64(virtual_ms as f64 / 1000.0 / speed)
}

/// Virtual milliseconds elapsed in `real` at `speed`.
pub fn unscale(real: Duration, speed: f64) -> u64 {
    let speed = if speed.is_finite() && speed > 0.0 {
        speed
    } else {
        1.0
    };
    (real.as_secs_f64() * 1000.0 * speed) as u64
}

/// Wall-clock time as Unix epoch milliseconds (fractional), the unit of the
/// simulator's trace and of termic's event log, so the two can be compared.
pub fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Scenario time anchored at the simulator's start.
#[derive(Debug, Clone, Copy)]
pub struct SimClock {
    origin: Instant,
    speed: f64,
}

impl SimClock {
    pub fn new(origin: Instant, speed: f64) -> Self {
        SimClock { origin, speed }
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Virtual milliseconds since the origin.
    pub fn now(&self) -> u64 {
        unscale(self.origin.elapsed(), self.speed)
    }

    /// The real instant at which virtual time `at` is reached.
    pub fn instant_at(&self, at: u64) -> Instant {
        self.origin + scale(at, self.speed)
    }

    /// Real duration of a virtual span.
    pub fn real(&self, virtual_ms: u64) -> Duration {
        scale(virtual_ms, self.speed)
    }

    /// Sleep for a virtual span.
    pub fn sleep(&self, virtual_ms: u64) {
        std::thread::sleep(self.real(virtual_ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_compresses_scenario_time() {
        assert_eq!(scale(1000, 1.0), Duration::from_secs(1));
        assert_eq!(scale(1000, 10.0), Duration::from_millis(100));
        assert_eq!(scale(510_000, 100.0), Duration::from_millis(5100));
    }

    #[test]
    fn nonsense_speed_falls_back_to_real_time() {
        assert_eq!(scale(250, 0.0), Duration::from_millis(250));
        assert_eq!(scale(250, -3.0), Duration::from_millis(250));
        assert_eq!(scale(250, f64::NAN), Duration::from_millis(250));
    }

    #[test]
    fn deadlines_come_from_one_origin() {
        let origin = Instant::now();
        let clock = SimClock::new(origin, 4.0);
        assert_eq!(clock.instant_at(4000), origin + Duration::from_secs(1));
        assert_eq!(unscale(Duration::from_millis(500), 4.0), 2000);
    }
}
