//! Replay: a recording in, the engine's transition timeline out.
//!
//! [`read_recording`] parses asciicast v2 with termic's facts (format in
//! [`format`] and docs/state-machine.md), [`replay_recording`] drives a fresh
//! [`Engine`] through it on the recording's own clock, calling `tick` at
//! every deadline between events so timers fire at the right virtual time,
//! and [`RecordingWriter`] is what the runtime records with.

mod format;
mod whole;
mod writer;

use std::io::BufRead;
use std::path::Path;

pub use format::{CutAt, Marker, RecordedEvent, Recording, RecordingHeader, TaskFacts};
pub use whole::{write_whole, Cut, Truncate, WholeRecords};
pub use writer::RecordingWriter;

use crate::engine::{Engine, EngineConfig, Key, LogEntry, ScreenFacts, Transition};
use crate::profile::ScreenRows;

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
///
/// A last line without its newline that does not parse is a frame the
/// writer never finished (the disk filled up, termic was killed mid-write):
/// the recording is read up to it and [`Recording::cut`] says where. Any
/// other line that does not parse is an error.
pub fn read_recording(
    mut reader: impl BufRead,
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
    let mut cut = None;
    let mut raw = Vec::new();
    let mut byte: u64 = 0;
    let mut ends_at = CutAt { line: 1, byte: 0 };
    for number in 1.. {
        raw.clear();
        let read = reader
            .read_until(b'\n', &mut raw)
            .map_err(|error| RecordingError::Read {
                source_name: source_name.to_string(),
                error,
            })?;
        if read == 0 {
            break;
        }
        let start = byte;
        byte += read as u64;
        ends_at = CutAt {
            line: number + 1,
            byte,
        };
        let ended = raw.last() == Some(&b'\n');
        let parsed = parse_line(&raw, header.is_none());
        let parsed = match parsed {
            Err(_) if !ended && header.is_some() => {
                ends_at = CutAt {
                    line: number,
                    byte: start,
                };
                cut = Some(ends_at);
                break;
            }
            Err(message) => return Err(parse_error(number, message)),
            Ok(parsed) => parsed,
        };
        match parsed {
            Line::Blank => {}
            Line::Header(h) => header = Some(h),
            Line::Event(None) => {}
            Line::Event(Some((secs, event))) => {
                // Times only move forward, even if a recorder's clock stuttered.
                last_ms = ((secs * 1000.0).round() as u64).max(last_ms);
                events.push((last_ms, event));
            }
        }
    }
    let header = header.ok_or_else(|| RecordingError::Empty {
        source_name: source_name.to_string(),
    })?;
    Ok(Recording {
        header,
        events,
        ends_at,
        cut,
    })
}

enum Line {
    Blank,
    Header(RecordingHeader),
    Event(Option<(f64, RecordedEvent)>),
}

/// One line of a recording, with or without its newline.
fn parse_line(raw: &[u8], want_header: bool) -> Result<Line, String> {
    let text = std::str::from_utf8(raw).map_err(|_| "the line is not UTF-8 text".to_string())?;
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(Line::Blank);
    }
    if want_header {
        return format::parse_header(text).map(Line::Header);
    }
    format::parse_event(text).map(Line::Event)
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
    /// Where a torn last frame was left out (see [`Recording::cut`]).
    pub cut: Option<CutAt>,
    /// Where the recording's whole part ends (see [`Recording::ends_at`]).
    pub ends_at: CutAt,
}

/// Replay a recording from a reader; the transitions, in order.
pub fn replay(reader: impl BufRead) -> Result<Vec<Transition>, RecordingError> {
    let recording = read_recording(reader, "<recording>")?;
    Ok(replay_recording(&recording, &ReplayOptions::default()).transitions)
}

/// A terminal screen model a replay drives with the recording's output:
/// the one a live task's screen thread runs (termic-runtime's
/// `ReplayScreen`), so a recording that carries no screen facts of its own
/// (asciinema's, with no termic markers) gets the facts and rows a live
/// task would have had, and the profile's screen rules act as they do live.
pub trait ScreenModel {
    /// Output bytes, applied to the screen.
    fn output(&mut self, bytes: &[u8]);
    /// The terminal was resized.
    fn resize(&mut self, cols: u16, rows: u16);
    /// The screen's facts now, and its last `rows_wanted` non-blank rows
    /// (`None` when `rows_wanted` is 0: nothing is read).
    fn facts(&mut self, rows_wanted: usize) -> (ScreenFacts, Option<ScreenRows>);
}

impl Recording {
    /// The recording carries the live screen's facts (`termic:screen` or
    /// `termic:rows` markers): a replay feeds those, not its own model's.
    pub fn has_screen_facts(&self) -> bool {
        self.events.iter().any(|(_, e)| {
            matches!(
                e,
                RecordedEvent::Marker(Marker::Screen(_) | Marker::Rows(_))
            )
        })
    }
}

/// What a replay's screen model last told the engine: like the live
/// runtime, facts and rows go to the engine only when they changed.
#[derive(Default)]
struct ModelFeed {
    facts: Option<ScreenFacts>,
    rows: Option<ScreenRows>,
}

impl ModelFeed {
    fn after_output(
        &mut self,
        model: &mut dyn ScreenModel,
        engine: &mut Engine,
        at: u64,
        out: &mut Vec<Transition>,
    ) {
        let (facts, rows) = model.facts(engine.screen_rows_wanted());
        if self.facts != Some(facts) {
            self.facts = Some(facts);
            out.extend(engine.screen(at, facts));
        }
        if let Some(rows) = rows {
            if self.rows.as_ref() != Some(&rows) {
                out.extend(engine.screen_rows(at, &rows));
                self.rows = Some(rows);
            }
        }
    }
}

/// Drive a fresh engine through `recording`.
pub fn replay_recording(recording: &Recording, options: &ReplayOptions) -> ReplayOutcome {
    replay_recording_with(recording, options, None)
}

/// Drive a fresh engine through `recording`, with `screen` as the task's
/// screen model when the recording has no screen facts of its own
/// ([`Recording::has_screen_facts`]). The model gets every output and
/// resize; after each output the engine gets its facts and rows when they
/// changed, in the order the live runtime feeds them (output first).
pub fn replay_recording_with(
    recording: &Recording,
    options: &ReplayOptions,
    screen: Option<&mut dyn ScreenModel>,
) -> ReplayOutcome {
    let mut model = screen.filter(|_| !recording.has_screen_facts());
    let mut feed = ModelFeed::default();
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
            RecordedEvent::Output(bytes) => {
                transitions.extend(engine.feed_output(at, bytes));
                if let Some(model) = model.as_deref_mut() {
                    model.output(bytes);
                    feed.after_output(model, &mut engine, at, &mut transitions);
                }
            }
            RecordedEvent::Input(bytes) => {
                for key in Key::from_input_bytes(bytes) {
                    transitions.extend(engine.key(at, key));
                }
            }
            RecordedEvent::Resize { cols, rows } => {
                if let Some(model) = model.as_deref_mut() {
                    model.resize(*cols, *rows);
                }
                engine.resize(at);
            }
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
        cut: recording.cut,
        ends_at: recording.ends_at,
    }
}

/// Fire every timer due up to `to`, each at its own deadline.
fn tick_until(engine: &mut Engine, to: u64, out: &mut Vec<Transition>) {
    while let Some(due) = engine.next_deadline().filter(|d| *d <= to) {
        out.extend(engine.tick(due));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recording() -> (Vec<u8>, usize) {
        let header = RecordingHeader {
            width: 80,
            height: 24,
            timestamp: Some(1),
            termic: TaskFacts::default(),
        };
        let mut w = RecordingWriter::new(Vec::new(), &header, 0).unwrap();
        let header_len = w.get_ref().len();
        w.marker(0, &Marker::Focus(false)).unwrap();
        for i in 0..12u64 {
            w.output(i * 10, format!("line {i} \u{2733}\r\n").as_bytes())
                .unwrap();
        }
        w.resize(200, 100, 30).unwrap();
        w.marker(210, &Marker::Exit(Some(0))).unwrap();
        w.marker(210, &Marker::End).unwrap();
        (w.into_inner(), header_len)
    }

    #[test]
    fn a_recording_cut_at_any_byte_replays_up_to_its_last_whole_frame() {
        let (bytes, header_len) = recording();
        let whole = read_recording(&bytes[..], "x").unwrap();
        assert_eq!(whole.cut, None);
        assert_eq!(whole.events.len(), 16);
        for k in 0..bytes.len() {
            let part = &bytes[..k];
            let read = read_recording(part, "x");
            if k + 1 < header_len {
                // No header, nothing to replay: an error, not a guess.
                assert!(read.is_err(), "cut at {k} in the header");
                continue;
            }
            let rec = read.unwrap_or_else(|e| panic!("cut at {k}: {e}"));
            // The whole part ends at the last newline before k.
            let boundary = part.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let whole_lines = part[..boundary].iter().filter(|&&b| b == b'\n').count();
            // A frame cut just before its newline is whole.
            let unended_whole = boundary != k && bytes[k] == b'\n';
            let at_boundary = boundary == k || unended_whole;
            match rec.cut {
                None => assert!(at_boundary, "cut at {k} not reported"),
                Some(cut) => {
                    assert!(!at_boundary, "cut at {k} reported at a boundary");
                    assert_eq!(cut.byte, boundary as u64, "cut at {k}");
                    assert_eq!(cut.line, whole_lines + 1, "cut at {k}");
                }
            }
            // Every frame before the cut, unchanged.
            let frames = whole_lines + usize::from(unended_whole) - 1;
            assert_eq!(rec.events[..], whole.events[..frames], "cut at {k}");
            if rec.cut.is_none() {
                assert_eq!(rec.ends_at.byte, k as u64, "cut at {k}");
            }
            let outcome = replay_recording(&rec, &ReplayOptions::default());
            assert_eq!(outcome.cut, rec.cut);
        }
    }

    /// Counts what a replay gave it; its facts change with every output.
    #[derive(Default)]
    struct CountingModel {
        outputs: u64,
        resizes: u64,
    }

    impl ScreenModel for CountingModel {
        fn output(&mut self, _bytes: &[u8]) {
            self.outputs += 1;
        }
        fn resize(&mut self, _cols: u16, _rows: u16) {
            self.resizes += 1;
        }
        fn facts(&mut self, _rows_wanted: usize) -> (ScreenFacts, Option<ScreenRows>) {
            let facts = ScreenFacts {
                hash: self.outputs,
                scrollback_lines: 0,
            };
            (facts, None)
        }
    }

    #[test]
    fn the_screen_model_runs_only_for_a_recording_without_screen_facts() {
        // No termic markers (asciinema's): the model gets every output and
        // resize.
        let (bytes, _) = recording();
        let rec = read_recording(&bytes[..], "x").unwrap();
        assert!(!rec.has_screen_facts());
        let mut model = CountingModel::default();
        replay_recording_with(&rec, &ReplayOptions::default(), Some(&mut model));
        assert_eq!((model.outputs, model.resizes), (12, 1));
        // The live screen's facts recorded: those are fed, the model is not run.
        let header = RecordingHeader {
            width: 80,
            height: 24,
            timestamp: None,
            termic: TaskFacts::default(),
        };
        let mut w = RecordingWriter::new(Vec::new(), &header, 0).unwrap();
        w.output(0, b"x").unwrap();
        w.marker(
            0,
            &Marker::Screen(ScreenFacts {
                hash: 1,
                scrollback_lines: 0,
            }),
        )
        .unwrap();
        let rec = read_recording(&w.into_inner()[..], "x").unwrap();
        assert!(rec.has_screen_facts());
        let mut model = CountingModel::default();
        replay_recording_with(&rec, &ReplayOptions::default(), Some(&mut model));
        assert_eq!(model.outputs, 0);
    }

    #[test]
    fn a_torn_line_inside_the_file_is_still_an_error() {
        let (mut bytes, header_len) = recording();
        // A line torn and another glued onto it (the old event-log fault).
        bytes.drain(header_len + 5..header_len + 12);
        let err = read_recording(&bytes[..], "x").unwrap_err();
        assert!(err.to_string().starts_with("x:2: "), "{err}");
    }
}
