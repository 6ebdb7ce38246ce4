//! `[tasks] continue_after_limit`: when an agent stopped on a usage limit
//! that names its reset ("rate limited until 15:00"), the server types the
//! agent's continue prompt (its profile's `continue_prompt`, then Enter)
//! at that time: once, only if the task is still rate limited and nobody
//! typed in it since the limit. Pure: every call carries the time.
//!
//! Bounded: at most one plan per task (a new limit replaces the old one),
//! dropped at any other transition of the task and when it is typed or
//! found unwanted, so the map never holds more than the running tasks.

use std::collections::BTreeMap;

use termic_signal::engine::State;
use termic_signal::limit::ResetAt;

const DAY_MS: i64 = 86_400_000;

/// Milliseconds from `now_wall_ms` (Unix ms) to the next `until` on the
/// local clock (`utc_offset_secs` east of UTC): 0 at that very minute,
/// never more than a day.
pub fn ms_until(until: ResetAt, now_wall_ms: u64, utc_offset_secs: i64) -> u64 {
    let local = now_wall_ms as i64 + utc_offset_secs * 1000;
    let into_day = local.rem_euclid(DAY_MS);
    let target = i64::from(until.minute_of_day()) * 60_000;
    let ahead = (target - into_day).rem_euclid(DAY_MS);
    // Within the reset minute itself ("until 15:00" read at 15:00:20): now.
    if DAY_MS - ahead < 60_000 {
        return 0;
    }
    ahead as u64
}

/// One task's plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Armed {
    /// When the task became rate limited (engine ms): a key after this
    /// means somebody typed since.
    pub limited_at: u64,
    /// When to type (the server's clock, ms).
    pub due: u64,
}

/// The plans of every task, by task id.
#[derive(Debug, Default)]
pub struct Plans {
    armed: BTreeMap<u64, Armed>,
}

impl Plans {
    /// A task's transition to `to` at `at` (engine ms), seen at `now` (the
    /// server's clock) and `now_wall_ms`: a rate limit with a time arms
    /// the task, anything else disarms it.
    pub fn on_transition(
        &mut self,
        task: u64,
        to: State,
        at: u64,
        now: u64,
        now_wall_ms: u64,
        utc_offset_secs: i64,
    ) {
        match to {
            State::RateLimited(Some(until)) => {
                let due = now + ms_until(until, now_wall_ms, utc_offset_secs);
                self.armed.insert(
                    task,
                    Armed {
                        limited_at: at,
                        due,
                    },
                );
            }
            _ => {
                self.armed.remove(&task);
            }
        }
    }

    /// A task that ended or was closed.
    pub fn forget(&mut self, task: u64) {
        self.armed.remove(&task);
    }

    /// The earliest time a plan is due.
    pub fn next_due(&self) -> Option<u64> {
        self.armed.values().map(|a| a.due).min()
    }

    /// The plans due at `now`, removed (each is tried once).
    pub fn take_due(&mut self, now: u64) -> Vec<(u64, Armed)> {
        let due: Vec<(u64, Armed)> = self
            .armed
            .iter()
            .filter(|(_, a)| a.due <= now)
            .map(|(t, a)| (*t, *a))
            .collect();
        for (task, _) in &due {
            self.armed.remove(task);
        }
        due
    }

    /// How many tasks have a plan.
    pub fn len(&self) -> usize {
        self.armed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.armed.is_empty()
    }
}

/// The bytes to type for a due plan, or `None` when it is not wanted any
/// more: the task is no longer rate limited, somebody pressed a key since
/// the limit, or its agent has no continue prompt.
pub fn keys_to_type(
    armed: Armed,
    state: State,
    last_key_at: Option<u64>,
    prompt: Option<&str>,
) -> Option<Vec<u8>> {
    if !matches!(state, State::RateLimited(_)) {
        return None;
    }
    if last_key_at.is_some_and(|k| k > armed.limited_at) {
        return None;
    }
    let prompt = prompt?;
    let mut keys = prompt.as_bytes().to_vec();
    keys.push(b'\r');
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-06 14:00:00 UTC, Unix ms.
    const TWO_PM_UTC: u64 = 1_796_565_600_000;

    fn at(h: u8, m: u8) -> ResetAt {
        ResetAt::new(h, m).unwrap()
    }

    #[test]
    fn the_reset_is_the_next_time_of_day_on_the_local_clock() {
        let hour = 3_600_000;
        assert_eq!(ms_until(at(15, 0), TWO_PM_UTC, 0), hour);
        // Paris (UTC+1): 14:00 UTC is 15:00 there; 16:00 is an hour away.
        assert_eq!(ms_until(at(16, 0), TWO_PM_UTC, 3600), hour);
        // Passed today: tomorrow.
        assert_eq!(ms_until(at(13, 0), TWO_PM_UTC, 0), 23 * hour);
        // West of UTC (UTC-5: 09:00).
        assert_eq!(ms_until(at(9, 30), TWO_PM_UTC, -5 * 3600), hour / 2);
        // The reset minute itself, a little past: now.
        assert_eq!(ms_until(at(14, 0), TWO_PM_UTC + 20_000, 0), 0);
    }

    #[test]
    fn a_limit_with_a_time_arms_once_and_any_other_transition_disarms() {
        let mut plans = Plans::default();
        let limited = State::RateLimited(Some(at(15, 0)));
        plans.on_transition(1, limited, 500, 1_000, TWO_PM_UTC, 0);
        assert_eq!(plans.next_due(), Some(1_000 + 3_600_000));
        // No time: nothing to wait for.
        plans.on_transition(2, State::RateLimited(None), 500, 1_000, TWO_PM_UTC, 0);
        assert_eq!(plans.len(), 1);
        assert!(plans.take_due(1_000 + 3_599_999).is_empty());
        let due = plans.take_due(1_000 + 3_600_000);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].0, 1);
        // Once: taken is gone.
        assert!(plans.take_due(u64::MAX).is_empty());
        // The agent worked again before the reset: disarmed.
        plans.on_transition(1, limited, 500, 1_000, TWO_PM_UTC, 0);
        plans.on_transition(1, State::Working, 900, 2_000, TWO_PM_UTC, 0);
        assert_eq!(plans.next_due(), None);
        plans.on_transition(1, limited, 500, 1_000, TWO_PM_UTC, 0);
        plans.forget(1);
        assert!(plans.is_empty());
    }

    #[test]
    fn it_types_only_while_rate_limited_and_untouched() {
        let armed = Armed {
            limited_at: 500,
            due: 10_000,
        };
        let limited = State::RateLimited(Some(at(15, 0)));
        assert_eq!(
            keys_to_type(armed, limited, None, Some("continue")),
            Some(b"continue\r".to_vec())
        );
        // A key before the limit does not count.
        assert!(keys_to_type(armed, limited, Some(400), Some("continue")).is_some());
        // Somebody typed since.
        assert_eq!(
            keys_to_type(armed, limited, Some(600), Some("continue")),
            None
        );
        // No longer rate limited.
        assert_eq!(
            keys_to_type(armed, State::Working, None, Some("continue")),
            None
        );
        assert_eq!(
            keys_to_type(armed, State::Done, None, Some("continue")),
            None
        );
        // An agent with no continue prompt.
        assert_eq!(keys_to_type(armed, limited, None, None), None);
    }
}
