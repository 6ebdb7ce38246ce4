//! `--record DIR`: each task as an asciicast v2 file that `termic replay`
//! feeds back through the signal engine.
//!
//! [`TaskRecorder`] is what the runtime calls, in exactly the order it feeds
//! the engine (both happen under one lock), so a replay sees the same facts
//! in the same order at the same times and reproduces the same transitions.
//! The file format is termic-signal's (`replay::RecordingWriter`): output
//! and resize events plus `termic:` markers for focus, hooks wired, screen
//! facts and exit. Keystrokes are not recorded unless asked for
//! (`--record-input`): what a user types into a task includes passwords
//! and tokens, and recordings get shared. Without it, a `termic:keys`
//! marker keeps only what the keys meant to the engine (Enter, Escape,
//! Ctrl-C, some other key), so a replay still reaches the same states.
//!
//! Whole frames or nothing: the recording is buffered in
//! [`WholeRecords`], which writes whole lines only and, when a write does
//! not land (a full disk), cuts the file back to its last whole frame and
//! stops. The recording stops there (remembered, shown by
//! [`AsciicastRecorder::error`], told to the user once through
//! [`TaskRecorder::take_notice`]); it never stops the agent. Files are
//! created 0600, with or without `--record-input`.

use std::path::{Path, PathBuf};

use termic_signal::engine::{Key, ScreenFacts};
use termic_signal::replay::{Marker, RecordingHeader, RecordingWriter, TaskFacts, WholeRecords};

use crate::record_file::{why_write_failed, RecordFile};
use crate::slug::slug;

/// A sink for everything the engine is fed about one task.
pub trait TaskRecorder: Send {
    fn output(&mut self, now: u64, bytes: &[u8]);
    /// Keys the user sent: the bytes, and what they mean to the engine.
    fn input(&mut self, now: u64, bytes: &[u8], keys: &[Key]);
    fn resize(&mut self, now: u64, cols: u16, rows: u16);
    fn focus(&mut self, now: u64, watched: bool);
    fn hooks_wired(&mut self, now: u64, wired: bool);
    fn screen(&mut self, now: u64, facts: ScreenFacts);
    /// The screen's bottom rows, for the profile's screen rules.
    fn screen_rows(&mut self, now: u64, rows: &termic_signal::profile::ScreenRows);
    fn exit(&mut self, now: u64, code: Option<i32>);
    /// The foreground program's profile changed (`None`: the task's own).
    fn foreground(&mut self, now: u64, profile: Option<&str>, wired: bool) {
        let _ = (now, profile, wired);
    }
    /// termic answered the task's OSC 7501 probe.
    fn probe_answered(&mut self, now: u64) {
        let _ = now;
    }
    /// Push buffered events to disk (at ticks and on shutdown).
    fn flush(&mut self);
    /// Once, after the recording stopped: what to tell the user.
    fn take_notice(&mut self) -> Option<String> {
        None
    }
}

/// What a recording's header says about its task.
#[derive(Debug, Clone)]
pub struct RecordingFacts<'a> {
    pub name: &'a str,
    /// The engine profile (a clone records its base).
    pub profile: &'a str,
    /// The task's `TERMIC_TASK_ID`, so hook messages replay as this task's.
    pub task_id: &'a str,
    pub hooks_wired: bool,
    /// Record the keystrokes themselves (`--record-input`), not only their kinds.
    pub record_input: bool,
    pub cols: u16,
    pub rows: u16,
    /// Monotonic ms at the start: event times are relative to it.
    pub start_ms: u64,
    /// Wall ms at the start (header timestamp, file name).
    pub wall_ms: u64,
}

type Writer = RecordingWriter<WholeRecords<RecordFile>>;

/// Writes one task's recording.
pub struct AsciicastRecorder {
    path: PathBuf,
    name: String,
    writer: Option<Writer>,
    error: Option<std::io::Error>,
    notice: Option<String>,
    record_input: bool,
}

/// `<name>-<unix seconds>-<n>.cast`, the first `n` that is free.
pub fn recording_path(dir: &Path, name: &str, wall_ms: u64) -> PathBuf {
    let base = format!("{}-{}", slug(name), wall_ms / 1000);
    (1..)
        .map(|n| dir.join(format!("{base}-{n}.cast")))
        .find(|p| !p.exists())
        .expect("an unbounded range always yields a free name")
}

impl AsciicastRecorder {
    /// Create the file (and `dir`) and write the header, plus a focus
    /// marker at time zero: a task starts unwatched, while a replay assumes
    /// watched unless told otherwise.
    pub fn create(dir: &Path, facts: &RecordingFacts<'_>) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let path = recording_path(dir, facts.name, facts.wall_ms);
        let file = RecordFile::create_new(&path)?;
        let header = RecordingHeader {
            width: facts.cols,
            height: facts.rows,
            timestamp: Some(facts.wall_ms / 1000),
            termic: TaskFacts {
                agent: facts.profile.to_owned(),
                task_id: facts.task_id.to_owned(),
                hooks_wired: facts.hooks_wired,
            },
        };
        let mut writer = RecordingWriter::new(WholeRecords::new(file, 0), &header, facts.start_ms)?;
        writer.marker(facts.start_ms, &Marker::Focus(false))?;
        Ok(AsciicastRecorder {
            path,
            name: facts.name.to_owned(),
            writer: Some(writer),
            error: None,
            notice: None,
            record_input: facts.record_input,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The write error that stopped this recording, if any.
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    fn write(&mut self, f: impl FnOnce(&mut Writer) -> std::io::Result<()>) {
        let Some(w) = self.writer.as_mut() else {
            return;
        };
        if let Err(e) = f(w) {
            let cut = w.get_ref().cut();
            let why = why_write_failed(cut.map_or(&e, |c| &c.error));
            let replays = match cut {
                Some(c) if c.truncate_error.is_none() => "termic replay reads it up to there",
                _ => "its last line may be cut short",
            };
            self.notice = Some(format!(
                "Recording of {} stopped: {why} ({}); {replays}.",
                self.name,
                self.path.display()
            ));
            self.writer = None;
            self.error = Some(e);
        }
    }
}

impl TaskRecorder for AsciicastRecorder {
    fn output(&mut self, now: u64, bytes: &[u8]) {
        self.write(|w| w.output(now, bytes));
    }

    fn input(&mut self, now: u64, bytes: &[u8], keys: &[Key]) {
        if self.record_input {
            self.write(|w| w.input(now, bytes));
        } else if !keys.is_empty() {
            self.write(|w| w.marker(now, &Marker::Keys(keys.to_vec())));
        }
    }

    fn resize(&mut self, now: u64, cols: u16, rows: u16) {
        self.write(|w| w.resize(now, cols, rows));
    }

    fn focus(&mut self, now: u64, watched: bool) {
        self.write(|w| w.marker(now, &Marker::Focus(watched)));
    }

    fn hooks_wired(&mut self, now: u64, wired: bool) {
        self.write(|w| w.marker(now, &Marker::HooksWired(wired)));
    }

    fn screen(&mut self, now: u64, facts: ScreenFacts) {
        self.write(|w| w.marker(now, &Marker::Screen(facts)));
    }

    fn screen_rows(&mut self, now: u64, rows: &termic_signal::profile::ScreenRows) {
        self.write(|w| w.marker(now, &Marker::Rows(rows.clone())));
    }

    fn foreground(&mut self, now: u64, profile: Option<&str>, wired: bool) {
        let marker = Marker::Foreground {
            profile: profile.map(str::to_owned),
            wired,
        };
        self.write(|w| w.marker(now, &marker));
    }

    fn probe_answered(&mut self, now: u64) {
        self.write(|w| w.marker(now, &Marker::ProbeAnswered));
    }

    fn exit(&mut self, now: u64, code: Option<i32>) {
        self.write(|w| {
            w.marker(now, &Marker::Exit(code))?;
            // Nothing follows an exit: the recording is whole.
            w.marker(now, &Marker::End)?;
            w.flush()
        });
    }

    fn flush(&mut self) {
        self.write(|w| w.flush());
    }

    fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_slugged_and_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let a = recording_path(dir.path(), "fix the bug", 1_700_000_123_456);
        assert_eq!(a.file_name().unwrap(), "fix-the-bug-1700000123-1.cast");
        std::fs::write(&a, "").unwrap();
        let b = recording_path(dir.path(), "fix the bug", 1_700_000_123_456);
        assert_eq!(b.file_name().unwrap(), "fix-the-bug-1700000123-2.cast");
    }
}
