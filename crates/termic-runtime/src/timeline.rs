//! A task's Inspector timeline, kept once for every reader: the engine's
//! log entries are drained into it, and each reader (an attached client's
//! app, a test) reads from its own cursor. Draining the engine straight
//! into one client split the timeline between two attached clients.

use std::collections::VecDeque;

use termic_signal::engine::LogEntry;

/// The most entries kept; older ones are dropped first (the Inspector
/// keeps as many: the binary's `app::tasks::TIMELINE_LIMIT` is this).
pub const TIMELINE_KEEP: usize = 5_000;

/// Entries numbered from 0 in the order the engine logged them.
#[derive(Debug, Default)]
pub struct Timeline {
    entries: VecDeque<LogEntry>,
    /// The number of the oldest entry kept.
    first: u64,
}

impl Timeline {
    /// Appends what the engine logged since the last call.
    pub fn extend(&mut self, logged: Vec<LogEntry>) {
        self.entries.extend(logged);
        while self.entries.len() > TIMELINE_KEEP {
            self.entries.pop_front();
            self.first += 1;
        }
    }

    /// The number the next entry will get.
    pub fn end(&self) -> u64 {
        self.first + self.entries.len() as u64
    }

    /// Entries from number `cursor` on (from the oldest kept, when older
    /// ones were dropped), and the cursor for the next read.
    pub fn since(&self, cursor: u64) -> (Vec<LogEntry>, u64) {
        let skip = cursor
            .saturating_sub(self.first)
            .min(self.entries.len() as u64) as usize;
        (
            self.entries.iter().skip(skip).cloned().collect(),
            self.end(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: u64) -> LogEntry {
        LogEntry {
            at,
            kind: termic_signal::engine::LogKind::Timer,
            text: String::new(),
        }
    }

    fn ats(entries: &[LogEntry]) -> Vec<u64> {
        entries.iter().map(|e| e.at).collect()
    }

    #[test]
    fn two_readers_each_see_every_entry() {
        let mut t = Timeline::default();
        t.extend(vec![entry(1), entry(2)]);
        let (a, a_next) = t.since(0);
        t.extend(vec![entry(3)]);
        let (b, b_next) = t.since(0);
        let (a2, _) = t.since(a_next);
        assert_eq!(ats(&a), [1, 2]);
        assert_eq!(ats(&a2), [3]);
        assert_eq!(ats(&b), [1, 2, 3]);
        assert_eq!(b_next, 3);
        assert!(t.since(b_next).0.is_empty());
    }

    #[test]
    fn a_reader_left_behind_resumes_at_the_oldest_kept() {
        let mut t = Timeline::default();
        t.extend((0..TIMELINE_KEEP as u64 + 10).map(entry).collect());
        let (all, next) = t.since(0);
        assert_eq!(all.len(), TIMELINE_KEEP);
        assert_eq!(all[0].at, 10);
        assert_eq!(next, TIMELINE_KEEP as u64 + 10);
    }
}
