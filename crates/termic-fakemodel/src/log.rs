//! The request log: every request the server answered, in memory for the
//! library API and as JSON lines in a file for tests and people.

use std::fs::File;
use std::io::Write;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// One request and what the server answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Unix time in milliseconds when the request was read.
    pub ts_ms: u64,
    pub method: String,
    pub path: String,
    /// `anthropic`, `chat`, `responses`, `models` or `other`.
    pub api: String,
    /// A title or other request without tools.
    pub side: bool,
    /// Tool calls the model had made in this turn before this request.
    pub step: usize,
    pub last_user: String,
    pub tool_results: Vec<String>,
    pub tools: Vec<String>,
    /// What the server streamed back, summarised.
    pub reply: String,
    /// Unix ms when the answer was fully written, or the client hung up.
    pub finished_ms: Option<u64>,
    /// The client closed the connection before the answer was complete
    /// (an agent interrupted by Escape does this).
    pub client_closed: bool,
    /// The request's body (lossy UTF-8), in memory only: a test reads the
    /// whole conversation an agent sent (a resumed one holds its earlier
    /// turns). Not written to the log file.
    #[serde(skip)]
    pub body: String,
}

pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Entries in arrival order; a finished entry is also appended to the file.
pub struct RequestLog {
    entries: Mutex<Vec<LogEntry>>,
    changed: Condvar,
    file: Option<Mutex<File>>,
}

impl RequestLog {
    pub fn new(file: Option<File>) -> RequestLog {
        RequestLog {
            entries: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            file: file.map(Mutex::new),
        }
    }

    /// Records a request that is being answered; returns its index.
    pub fn begin(&self, entry: LogEntry) -> usize {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.push(entry);
        self.changed.notify_all();
        entries.len() - 1
    }

    /// Marks a request answered and writes its line to the file.
    ///
    /// The file line is written before the entry is marked finished, so a
    /// waiter that sees `finished_ms` also finds the line in the file.
    pub fn finish(&self, index: usize, client_closed: bool) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = entries.get_mut(index) else {
            return;
        };
        entry.finished_ms = Some(unix_ms());
        entry.client_closed = client_closed;
        if let Some(file) = &self.file {
            let line = serde_json::to_string(entry).unwrap_or_default();
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            // The log is for assertions and people; a failed write must not
            // break the answer the agent is waiting for.
            let _ = writeln!(file, "{line}");
        }
        self.changed.notify_all();
    }

    pub fn entries(&self) -> Vec<LogEntry> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Waits until an entry matches, or `timeout` passes.
    pub fn wait_for(
        &self,
        timeout: Duration,
        matches: impl Fn(&LogEntry) -> bool,
    ) -> Option<LogEntry> {
        let deadline = Instant::now() + timeout;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(found) = entries.iter().find(|e| matches(e)) {
                return Some(found.clone());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            entries = self
                .changed
                .wait_timeout(entries, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
