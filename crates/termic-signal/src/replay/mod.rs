//! Replay: a recording in, the engine's transition timeline out.
//!
//! [`read_recording`] parses asciicast v2 with termic's facts (format in
//! [`format`] and docs/state-machine.md), [`replay_recording`] drives a fresh
//! [`Engine`] through it on the recording's own clock, calling `tick` at
//! every deadline between events so timers fire at the right virtual time,
//! and [`RecordingWriter`] is what the runtime records with.

mod format;
mod writer;

use std::io::BufRead;
use std::path::Path;

pub use format::{Marker, RecordedEvent, Recording, RecordingHeader, TaskFacts};
pub use writer::RecordingWriter;

use crate::engine::{Engine, EngineConfig, Key, LogEntry, Transition};

// A replay runs the engine's timers up to the recording's `termic:end`
// marker, the instant the recorder closed it, and no further: a timer that
// had not fired by then did not fire live either. A recording without the
// marker was cut off (termic was killed); its timers stop at the last event
// unless the caller asks for a tail.

/// Why a recording could not be read. Messages name the source and line.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("{source_name}: cannot read the recording")]
    Read {
        source_name: String,
        #[source]
        error: std::io::Error,
    },
    #[error("{source_name}:{line}: {message}")]
    Parse {
        source_name: String,
        line: usize,
        message: String,
    },
    #[error("{source_name}: empty file, expected an asciicast v2 header line")]
    Empty { source_name: String },
}

/// Parse a whole recording. `source_name` (usually the path) goes into errors.
pub fn read_recording(
    reader: impl BufRead,
    source_name: &str,
) -> Result<Recording, RecordingError> {
    let parse_error = |line: usize, message: String| RecordingError::Parse {
        source_name: source_name.to_string(),
        line,
        message,
    };
    let mut header = None;
    let mut events = Vec::new();
    let mut last_ms = 0;
    for (index, line) in reader.lines().enumerate() {
        let line = line.map_err(|error| RecordingError::Read {
            source_name: source_name.to_string(),
            error,
        })?;
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        if header.is_none() {
            header = Some(format::parse_header(&line).map_err(|m| parse_error(number, m))?);
            continue;
        }
        if let Some((secs, event)) =
            format::parse_event(&line).map_err(|m| parse_error(number, m))?
        {
            // Times only move forward, even if a recorder's clock stuttered.
            last_ms = ((secs * 1000.0).round() as u64).max(last_ms);
            events.push((last_ms, event));
        }
    }
    let header = header.ok_or_else(|| RecordingError::Empty {
        source_name: source_name.to_string(),
    })?;
    Ok(Recording { header, events })
}

/// Read a recording file.
pub fn read_recording_file(path: &Path) -> Result<Recording, RecordingError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|error| RecordingError::Read {
        source_name: name.clone(),
        error,
    })?;
    read_recording(std::io::BufReader::new(file), &name)
}

/// Replay settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Virtual ms to keep ticking after the last event. `None`: up to the
    /// recording's end marker, or not past the last event when it has none.
    pub tail_ms: Option<u64>,
    /// Whether the user counts as watching before any focus marker.
    pub watched_at_start: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            tail_ms: None,
            watched_at_start: true,
        }
    }
}

/// What a replay produced.
#[derive(Debug, Clone)]
pub struct ReplayOutcome {
    pub transitions: Vec<Transition>,
    /// The Inspector timeline, in order.
    pub log: Vec<LogEntry>,
    /// The recording had no end marker (it was cut off).
    pub cut_off: bool,
}

/// Replay a recording from a reader; the transitions, in order.
pub fn replay(reader: impl BufRead) -> Result<Vec<Transition>, RecordingError> {
    let recording = read_recording(reader, "<recording>")?;
    Ok(replay_recording(&recording, &ReplayOptions::default()).transitions)
}

/// Drive a fresh engine through `recording`.
pub fn replay_recording(recording: &Recording, options: &ReplayOptions) -> ReplayOutcome {
    let facts = &recording.header.termic;
    let config = EngineConfig::new(&facts.agent, &facts.task_id, facts.hooks_wired);
    let mut engine = Engine::new(config);
    let mut transitions = Vec::new();
    let mut log = Vec::new();
    engine.focus(0, options.watched_at_start);
    let mut last = 0;
    let mut end = None;
    for (at, event) in &recording.events {
        let at = *at;
        tick_until(&mut engine, at, &mut transitions);
        last = at;
        match event {
            RecordedEvent::Output(bytes) => transitions.extend(engine.feed_output(at, bytes)),
            RecordedEvent::Input(bytes) => {
                for key in Key::from_input_bytes(bytes) {
                    transitions.extend(engine.key(at, key));
                }
            }
            RecordedEvent::Resize { .. } => {}
            RecordedEvent::Marker(marker) => match marker {
                Marker::Focus(w) => engine.focus(at, *w),
                Marker::HooksWired(w) => engine.set_hooks_wired(at, *w),
                Marker::Exit(code) => transitions.extend(engine.exited(at, *code)),
                Marker::Screen(facts) => transitions.extend(engine.screen(at, *facts)),
                Marker::Foreground { profile, wired } => {
                    transitions.extend(engine.set_foreground(at, profile.as_deref(), *wired))
                }
                Marker::ProbeAnswered => engine.native_probe_answered(at),
                Marker::Keys(keys) => {
                    for key in keys {
                        transitions.extend(engine.key(at, *key));
                    }
                }
                Marker::Rows(rows) => transitions.extend(engine.screen_rows(at, rows)),
                Marker::End => end = Some(at),
            },
        }
        log.extend(engine.drain_log());
    }
    let stop = match (options.tail_ms, end) {
        (Some(tail), _) => last + tail,
        (None, Some(end)) => end,
        (None, None) => last,
    };
    tick_until(&mut engine, stop, &mut transitions);
    log.extend(engine.drain_log());
    ReplayOutcome {
        transitions,
        log,
        cut_off: end.is_none(),
    }
}

/// Fire every timer due up to `to`, each at its own deadline.
fn tick_until(engine: &mut Engine, to: u64, out: &mut Vec<Transition>) {
    while let Some(due) = engine.next_deadline().filter(|d| *d <= to) {
        out.extend(engine.tick(due));
    }
}
