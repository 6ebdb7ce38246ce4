//! One task's signal engine, its recorder, and the screen facts it is fed.
//!
//! Everything the engine learns about a task goes through [`TaskSignals`],
//! which records it first (when recording) and then feeds the engine, under
//! one lock: the recording is then a faithful, ordered copy of the engine's
//! inputs. It also remembers the deadline it last announced, so the UI is
//! woken when a task's next timer moves EARLIER than what it planned for.

use termic_signal::engine::{Engine, Key, LogEntry, ScreenFacts, Transition};
use termic_signal::profile::ScreenRows;
use termic_signal::signal::Signal;

use crate::eventlog::{Coalescer, Entry};
use crate::record::TaskRecorder;

use super::history::History;
use super::timeline::Timeline;

/// Screen facts are computed at most this often from the screen thread (they are
/// also refreshed at every tick, so the last state is never missed).
pub const SCREEN_FACTS_EVERY_MS: u64 = 50;

/// FNV-1a over the visible rows: any stable hash will do for "changed?".
pub fn screen_facts(parser: &vt100::Parser<History>) -> ScreenFacts {
    let screen = parser.screen();
    let (_, cols) = screen.size();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for row in screen.rows(0, cols.get()) {
        for b in row.bytes().chain(std::iter::once(b'\n')) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    ScreenFacts {
        hash,
        scrollback_lines: parser.callbacks().pushed(),
    }
}

/// The last `wanted` non-blank rows of the visible screen, for the task
/// profile's screen rules (`None` when it has none: nothing is read).
pub fn screen_rows(parser: &vt100::Parser<History>, wanted: usize) -> Option<ScreenRows> {
    if wanted == 0 {
        return None;
    }
    let screen = parser.screen();
    let (_, cols) = screen.size();
    let rows: Vec<String> = screen.rows(0, cols.get()).collect();
    Some(ScreenRows::bottom(&rows, wanted))
}

/// As [`screen_rows`], each row with its background colours (see
/// [`ScreenRows::backgrounds`]): what a dialog is read from on the answer
/// path, where the one an agent marks by colour alone can be read.
pub fn dialog_rows(parser: &vt100::Parser<History>, wanted: usize) -> Option<ScreenRows> {
    if wanted == 0 {
        return None;
    }
    let screen = parser.screen();
    let (rows, cols) = screen.size();
    let read: Vec<(String, Vec<(u16, u32)>)> = (0..rows.get())
        .map(|row| shaded_row(screen, row, cols.get()))
        .collect();
    Some(ScreenRows::bottom_shaded(read, wanted))
}

/// One row's text (an empty cell is a space; trailing blanks are trimmed
/// later) and its background runs by char.
fn shaded_row(screen: &vt100::Screen, row: u16, cols: u16) -> (String, Vec<(u16, u32)>) {
    let mut text = String::new();
    let mut runs: Vec<(u16, u32)> = Vec::new();
    let mut chars: u16 = 0;
    for col in 0..cols {
        let Some(cell) = screen.cell(row, col) else {
            break;
        };
        if cell.is_wide_continuation() {
            continue;
        }
        let key = shade_key(cell);
        let contents = if cell.has_contents() {
            cell.contents()
        } else {
            " "
        };
        for ch in contents.chars() {
            if runs.last().is_none_or(|(_, k)| *k != key) {
                runs.push((chars, key));
            }
            text.push(ch);
            chars = chars.saturating_add(1);
        }
    }
    (text, runs)
}

/// A cell's background as painted, as an opaque key (an inverse cell's
/// background is its foreground colour).
fn shade_key(cell: &vt100::Cell) -> u32 {
    let key = |color: vt100::Color| match color {
        vt100::Color::Default => 0,
        vt100::Color::Idx(i) => 0x0100_0000 | u32::from(i),
        vt100::Color::Rgb(r, g, b) => {
            0x0200_0000 | (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b)
        }
    };
    if cell.inverse() {
        0x0400_0000 | key(cell.fgcolor())
    } else {
        key(cell.bgcolor())
    }
}

/// The engine side of a task.
pub struct TaskSignals {
    pub engine: Engine,
    recorder: Option<Box<dyn TaskRecorder>>,
    last_facts: Option<(u64, ScreenFacts)>,
    /// The rows last fed to the screen rules.
    last_rows: Option<ScreenRows>,
    announced_deadline: Option<u64>,
    /// The event log's flood guard: its deadline is one of the task's timers.
    log_guard: Coalescer,
    /// The Inspector timeline every reader reads from its own cursor.
    timeline: Timeline,
    /// [`TaskSignals::drain_log`]'s cursor.
    drained: u64,
    /// What the recorder asked to tell the user (it stopped), not yet sent.
    notices: Vec<String>,
}

impl TaskSignals {
    pub fn new(engine: Engine, recorder: Option<Box<dyn TaskRecorder>>) -> Self {
        TaskSignals {
            engine,
            recorder,
            last_facts: None,
            last_rows: None,
            announced_deadline: None,
            log_guard: Coalescer::new(0),
            timeline: Timeline::default(),
            drained: 0,
            notices: Vec::new(),
        }
    }

    /// The timeline from `cursor` on (see [`Timeline::since`]), with what
    /// the engine logged since the last read appended first.
    pub fn log_since(&mut self, cursor: u64) -> (Vec<LogEntry>, u64) {
        self.timeline.extend(self.engine.drain_log());
        self.timeline.since(cursor)
    }

    /// The timeline since the last call of this function.
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        let (entries, next) = self.log_since(self.drained);
        self.drained = next;
        entries
    }

    fn rec(&mut self, f: impl FnOnce(&mut dyn TaskRecorder)) {
        if let Some(r) = self.recorder.as_deref_mut() {
            f(r);
            self.notices.extend(r.take_notice());
        }
    }

    /// What to tell the user (a recording stopped), once each.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Whether screen facts are due (rate limit for the reader).
    pub fn facts_due(&self, now: u64) -> bool {
        self.last_facts
            .is_none_or(|(at, _)| now.saturating_sub(at) >= SCREEN_FACTS_EVERY_MS)
    }

    /// Output whose signals the screen thread's parse already found
    /// ([`termic_signal::scanner::SignalTap`]): the engine gets `signals`,
    /// the recording gets `bytes`, from which a replay's scanner finds the
    /// same signals (`tests/runtime/signal_tap.rs`).
    pub fn output_scanned(
        &mut self,
        now: u64,
        bytes: &[u8],
        signals: Vec<Signal>,
    ) -> Vec<Transition> {
        self.rec(|r| r.output(now, bytes));
        self.engine.on_signals(now, signals)
    }

    /// Feed facts only when they changed (a replay then sees the same calls).
    pub fn screen(&mut self, now: u64, facts: ScreenFacts) -> Vec<Transition> {
        let changed = self.last_facts.is_none_or(|(_, last)| last != facts);
        self.last_facts = Some((now, facts));
        if !changed {
            return Vec::new();
        }
        self.rec(|r| r.screen(now, facts));
        self.engine.screen(now, facts)
    }

    /// How many bottom rows the screen rules want (0: none, read nothing).
    pub fn screen_rows_wanted(&self) -> usize {
        self.engine.screen_rows_wanted()
    }

    /// Screen facts, then the screen rules' rows when the profile has rules.
    pub fn screen_and_rows(
        &mut self,
        now: u64,
        facts: ScreenFacts,
        rows: Option<ScreenRows>,
    ) -> Vec<Transition> {
        let mut out = self.screen(now, facts);
        if let Some(rows) = rows {
            out.extend(self.screen_rows(now, rows));
        }
        out
    }

    /// Feed the screen rules only when the rows changed (as facts above).
    pub fn screen_rows(&mut self, now: u64, rows: ScreenRows) -> Vec<Transition> {
        if self.last_rows.as_ref() == Some(&rows) {
            return Vec::new();
        }
        self.rec(|r| r.screen_rows(now, &rows));
        let out = self.engine.screen_rows(now, &rows);
        self.last_rows = Some(rows);
        out
    }

    pub fn input(&mut self, now: u64, bytes: &[u8]) -> Vec<Transition> {
        let mut keys = Key::from_input_bytes(bytes);
        // A run of ordinary keys (typing, an unbracketed paste) means the
        // same to the engine as one of them at the same instant, and a 1 MB
        // paste must not cost a million engine calls.
        keys.dedup_by(|a, b| *a == Key::Other && *b == Key::Other);
        self.rec(|r| r.input(now, bytes, &keys));
        let mut out = Vec::new();
        for key in keys {
            out.extend(self.engine.key(now, key));
        }
        out
    }

    pub fn resize(&mut self, now: u64, cols: u16, rows: u16) {
        self.rec(|r| r.resize(now, cols, rows));
        self.engine.resize(now);
    }

    pub fn focus(&mut self, now: u64, watched: bool) {
        self.rec(|r| r.focus(now, watched));
        self.engine.focus(now, watched);
    }

    /// termic answered this task's OSC 7501 probe (rules/native.rs).
    pub fn probe_answered(&mut self, now: u64) {
        self.rec(|r| r.probe_answered(now));
        self.engine.native_probe_answered(now);
    }

    pub fn hooks_wired(&mut self, now: u64, wired: bool) {
        self.rec(|r| r.hooks_wired(now, wired));
        self.engine.set_hooks_wired(now, wired);
    }

    /// Another program took the task's foreground (see `foreground.rs`).
    pub fn foreground(
        &mut self,
        now: u64,
        change: &super::foreground::ForegroundChange,
    ) -> Vec<Transition> {
        let profile = change.profile.as_deref();
        self.rec(|r| r.foreground(now, profile, change.hooks_wired));
        self.engine.set_foreground(now, profile, change.hooks_wired)
    }

    pub fn exited(&mut self, now: u64, code: Option<i32>) -> Vec<Transition> {
        self.rec(|r| r.exit(now, code));
        let out = self.engine.exited(now, code);
        // Nothing is fed after exit: drop the recorder so its file is flushed.
        self.recorder = None;
        out
    }

    /// Fire due timers. Also a quiet moment to put the recording on disk.
    pub fn tick(&mut self, now: u64) -> Vec<Transition> {
        self.flush_recording();
        self.engine.tick(now)
    }

    pub fn flush_recording(&mut self) {
        self.rec(|r| r.flush());
    }

    /// What the event log writes for these transitions, plus a held
    /// burst's record once due at `now`.
    pub fn log_entries(&mut self, now: u64, transitions: &[Transition]) -> Vec<Entry> {
        let mut out: Vec<Entry> = transitions
            .iter()
            .flat_map(|t| self.log_guard.offer(t.clone()))
            .collect();
        out.extend(self.log_guard.due(now));
        out
    }

    /// A held burst's record now (termic is quitting).
    pub fn flush_log(&mut self) -> Option<Entry> {
        self.log_guard.flush()
    }

    /// The task's next timer: the engine's or the event log's.
    fn next_deadline(&self) -> Option<u64> {
        [self.engine.next_deadline(), self.log_guard.next_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// True when the engine's next deadline is now earlier than the one the
    /// UI was last told about (or there was none): the UI must re-plan.
    pub fn deadline_moved_earlier(&mut self) -> bool {
        let next = self.next_deadline();
        let earlier = match (next, self.announced_deadline) {
            (Some(n), Some(a)) => n < a,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if earlier || next.is_none() {
            self.announced_deadline = next;
        }
        earlier
    }

    /// The UI asked for the deadline: it now plans for this one.
    pub fn announce_deadline(&mut self) -> Option<u64> {
        self.announced_deadline = self.next_deadline();
        self.announced_deadline
    }
}
