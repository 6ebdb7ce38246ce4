//! The engine's timers. Each deadline is derived from the engine's fields
//! (see `Engine::deadline`), so it can never go stale; this module keeps the
//! last computed set so arming and cancelling show up in the Inspector.

use super::log::Log;
use super::span::Span;
use super::types::LogKind;

/// One timer per rule that fires on time rather than on a signal.
/// Order is priority when two fall due at the same millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimerKind {
    NativeHold,
    InterruptQuiet,
    PermissionDebounce,
    Settle,
    SettleCeiling,
    ByteQuiet,
    SettledScreen,
    ScrollbackStable,
    AbsoluteCeiling,
}

impl TimerKind {
    pub const ALL: [TimerKind; 9] = [
        TimerKind::NativeHold,
        TimerKind::InterruptQuiet,
        TimerKind::PermissionDebounce,
        TimerKind::Settle,
        TimerKind::SettleCeiling,
        TimerKind::ByteQuiet,
        TimerKind::SettledScreen,
        TimerKind::ScrollbackStable,
        TimerKind::AbsoluteCeiling,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TimerKind::NativeHold => "native hold",
            TimerKind::InterruptQuiet => "interrupt quiet",
            TimerKind::PermissionDebounce => "permission debounce",
            TimerKind::Settle => "settle",
            TimerKind::SettleCeiling => "settle ceiling",
            TimerKind::ByteQuiet => "byte quiet",
            TimerKind::SettledScreen => "settled screen",
            TimerKind::ScrollbackStable => "scrollback stable",
            TimerKind::AbsoluteCeiling => "absolute ceiling",
        }
    }
}

/// Deadlines last seen, indexed like [`TimerKind::ALL`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Timers {
    due: [Option<u64>; 9],
}

impl Timers {
    /// Store the freshly derived deadlines, logging arm and cancel edges
    /// (a deadline that merely moves, like byte-quiet on every chunk, is not logged).
    pub fn update(&mut self, now: u64, fresh: [Option<u64>; 9], log: &mut Log) {
        for (i, kind) in TimerKind::ALL.into_iter().enumerate() {
            match (self.due[i], fresh[i]) {
                (None, Some(at)) => log.push(
                    now,
                    LogKind::Timer,
                    format!(
                        "{} armed, fires in {}",
                        kind.as_str(),
                        Span(at.saturating_sub(now))
                    ),
                ),
                (Some(_), None) => {
                    log.push(now, LogKind::Timer, format!("{} cancelled", kind.as_str()))
                }
                _ => {}
            }
        }
        self.due = fresh;
    }

    /// Forget a timer that just fired, so the next update does not log it as cancelled.
    pub fn fired(&mut self, kind: TimerKind) {
        self.due[kind as usize] = None;
    }

    /// Every armed timer, earliest first.
    pub fn armed(&self) -> Vec<(TimerKind, u64)> {
        let mut armed: Vec<(TimerKind, u64)> = TimerKind::ALL
            .into_iter()
            .zip(self.due)
            .filter_map(|(k, d)| d.map(|d| (k, d)))
            .collect();
        armed.sort_by_key(|(_, d)| *d);
        armed
    }

    /// The earliest deadline and its timer.
    pub fn earliest(&self) -> Option<(u64, TimerKind)> {
        TimerKind::ALL
            .into_iter()
            .zip(self.due)
            .filter_map(|(k, d)| d.map(|d| (d, k)))
            .min_by_key(|(d, _)| *d)
    }
}
