//! The attach client's watch for the outer terminal's answer to termic's
//! `OSC 7501 ; ?` probe (`crate::outer::PROBE`). crossterm reads stdin and
//! has no OSC: it turns `ESC ] 7501 ; ? ESC \` into Alt+`]`, `7`, `5`, `0`,
//! `1`, `;`, `?`, Alt+`\`. This sees those events again as bytes, holds
//! them while they can still be the answer, and swallows a whole answer
//! (it never reaches a task); anything else is let through as it came.
//!
//! Pure: events and the time (ms since the probe) in, [`Action`]s out.
//! The client calls [`ProbeWatch::tick`] at [`ProbeWatch::next_deadline`].

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What the client does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send this event to the server, as if no watch were here.
    Forward(Event),
    /// Tell the server whether the outer terminal speaks OSC 7501.
    Outer(bool),
}

/// With no answer by then, the outer terminal is taken as silent.
pub const ANSWER_WITHIN_MS: u64 = 300;

/// A late answer (a slow link) still counts until then; after it, nothing
/// is held and every event goes through at once.
pub const LISTEN_MS: u64 = 10_000;

/// Events held as a possible answer are let through after this long with
/// no more of it (a terminal writes its answer in one go; a user's Alt+`]`
/// is late by this much at most).
pub const HOLD_MS: u64 = 30;

/// The longest answer taken (after `ESC ] 7501 ;`, before the end).
const MAX_BODY: usize = 64;

const HEAD: &[u8] = b"\x1b]7501;";

/// Watches a client's events for the probe's answer.
#[derive(Debug, Default)]
pub struct ProbeWatch {
    /// The silent verdict is still to be sent.
    verdict_due: bool,
    /// Watching (the probe was sent and no answer seen yet).
    listening: bool,
    /// Events that may be the answer, and their bytes.
    held: Vec<Event>,
    bytes: Vec<u8>,
    /// When the last held event came.
    held_at: u64,
}

impl ProbeWatch {
    /// A watch for a probe just sent (time 0).
    pub fn probing() -> ProbeWatch {
        ProbeWatch {
            verdict_due: true,
            listening: true,
            ..ProbeWatch::default()
        }
    }

    /// No probe sent (inside tmux, or turned off): every event goes through.
    pub fn off() -> ProbeWatch {
        ProbeWatch::default()
    }

    /// When [`ProbeWatch::tick`] has something to do.
    pub fn next_deadline(&self) -> Option<u64> {
        let held = (!self.held.is_empty()).then_some(self.held_at + HOLD_MS);
        let verdict = self.verdict_due.then_some(ANSWER_WITHIN_MS);
        let listen = self.listening.then_some(LISTEN_MS);
        [held, verdict, listen].into_iter().flatten().min()
    }

    /// What time alone does at `now`: held events go through, the silent
    /// verdict is given, the watch ends.
    pub fn tick(&mut self, now: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if !self.held.is_empty() && now >= self.held_at + HOLD_MS {
            self.release(&mut out);
        }
        if self.verdict_due && now >= ANSWER_WITHIN_MS {
            self.verdict_due = false;
            out.push(Action::Outer(false));
        }
        if self.listening && now >= LISTEN_MS && self.held.is_empty() {
            self.listening = false;
        }
        out
    }

    /// One event read from the terminal at `now`.
    pub fn feed(&mut self, event: Event, now: u64) -> Vec<Action> {
        let mut out = self.tick(now);
        if !self.listening {
            self.release(&mut out);
            out.push(Action::Forward(event));
            return out;
        }
        match bytes_of(&event) {
            Some(bytes) if self.fits(&bytes) => {
                self.bytes.extend_from_slice(&bytes);
                self.held.push(event);
                self.held_at = now;
                if self.complete() {
                    self.held.clear();
                    self.bytes.clear();
                    self.listening = false;
                    self.verdict_due = false;
                    out.push(Action::Outer(true));
                }
            }
            other => {
                self.release(&mut out);
                // The event that broke a match may start one.
                match other {
                    Some(bytes) if self.fits(&bytes) => {
                        self.bytes = bytes;
                        self.held.push(event);
                        self.held_at = now;
                    }
                    _ => out.push(Action::Forward(event)),
                }
            }
        }
        out
    }

    fn release(&mut self, out: &mut Vec<Action>) {
        out.extend(self.held.drain(..).map(Action::Forward));
        self.bytes.clear();
    }

    /// Whether the held bytes plus `more` can still be (part of) an answer:
    /// `ESC ] 7501 ;`, then printable ASCII, then BEL or `ESC \`.
    fn fits(&self, more: &[u8]) -> bool {
        let mut all = self.bytes.clone();
        all.extend_from_slice(more);
        answer_prefix(&all)
    }

    fn complete(&self) -> bool {
        let b = &self.bytes;
        b.len() > HEAD.len() && (b.ends_with(b"\x07") || b.ends_with(b"\x1b\\"))
    }
}

/// Whether `b` is the start of (or a whole) answer.
fn answer_prefix(b: &[u8]) -> bool {
    let head = b.len().min(HEAD.len());
    if b[..head] != HEAD[..head] {
        return false;
    }
    let body = &b[head..];
    for (i, &c) in body.iter().enumerate() {
        let last = i + 1 == body.len();
        match c {
            0x20..=0x7e if i < MAX_BODY => {}
            0x07 if last => {}
            0x1b if last || (i + 2 == body.len() && body[i + 1] == b'\\') => {}
            b'\\' if i > 0 && body[i - 1] == 0x1b && last => {}
            _ => return false,
        }
    }
    true
}

/// The bytes crossterm read for `event`, when it can be part of an answer.
fn bytes_of(event: &Event) -> Option<Vec<u8>> {
    let Event::Key(KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        ..
    }) = event
    else {
        return None;
    };
    let printable = |c: char| (c.is_ascii_graphic() || c == ' ').then_some(c as u8);
    match (code, *modifiers) {
        (KeyCode::Esc, KeyModifiers::NONE) => Some(vec![0x1b]),
        (KeyCode::Char('g'), KeyModifiers::CONTROL) => Some(vec![0x07]),
        (KeyCode::Char(c), KeyModifiers::NONE | KeyModifiers::SHIFT) => {
            printable(*c).map(|b| vec![b])
        }
        (KeyCode::Char(c), m)
            if m == KeyModifiers::ALT || m == KeyModifiers::ALT | KeyModifiers::SHIFT =>
        {
            printable(*c).map(|b| vec![0x1b, b])
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
