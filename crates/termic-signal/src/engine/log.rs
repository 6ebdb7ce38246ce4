//! The Inspector timeline: a bounded buffer of one-line entries.

use std::collections::VecDeque;

use super::types::{LogEntry, LogKind};

/// Oldest entries are dropped past this, so a task nobody inspects cannot
/// grow memory without bound.
pub const LOG_CAPACITY: usize = 4096;

#[derive(Debug, Default)]
pub struct Log {
    entries: VecDeque<LogEntry>,
    dropped: u64,
}

impl Log {
    pub fn push(&mut self, at: u64, kind: LogKind, text: String) {
        if self.entries.len() == LOG_CAPACITY {
            self.entries.pop_front();
            self.dropped += 1;
        }
        self.entries.push_back(LogEntry { at, kind, text });
    }

    pub fn drain(&mut self) -> Vec<LogEntry> {
        let mut out = Vec::with_capacity(self.entries.len() + 1);
        if self.dropped > 0 {
            let at = self.entries.front().map_or(0, |e| e.at);
            out.push(LogEntry {
                at,
                kind: LogKind::Fact,
                text: format!("{} older entries dropped (log full)", self.dropped),
            });
            self.dropped = 0;
        }
        out.extend(self.entries.drain(..));
        out
    }
}
