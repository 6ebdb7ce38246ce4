//! Turns a timestamped PTY recording into the events termic cares about:
//! OSC sequences (titles, notifications, native status, hook messages) and
//! plain BELs, each with the time of the read that completed it.

use crate::pty::Chunk;

/// One OSC or BEL seen on the PTY.
#[derive(Debug, Clone, PartialEq)]
pub struct TermEvent {
    pub ts_ms: f64,
    /// `osc` or `bel`.
    pub kind: &'static str,
    /// The OSC body (`0;title`, `7501;state=idle:app=codex`), or empty for a BEL.
    pub body: String,
    /// The OSC ended with BEL (true) or ST (false).
    pub bel_terminated: bool,
}

impl TermEvent {
    /// The OSC number (`0`, `777`, `7501`).
    pub fn code(&self) -> &str {
        self.body.split(';').next().unwrap_or("")
    }

    /// The body after the OSC number.
    pub fn payload(&self) -> &str {
        self.body.split_once(';').map_or("", |(_, rest)| rest)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Ground,
    Esc,
    Osc,
    OscEsc,
}

/// Extracts OSCs and BELs from chunks in order. A sequence split across reads
/// is stamped with the read that finished it.
pub fn events(chunks: &[Chunk]) -> Vec<TermEvent> {
    let mut out = Vec::new();
    let mut state = State::Ground;
    let mut body = Vec::new();
    for chunk in chunks {
        for &byte in &chunk.bytes {
            let mut emit = |body: &mut Vec<u8>, bel: bool| {
                out.push(TermEvent {
                    ts_ms: chunk.ts_ms,
                    kind: "osc",
                    body: String::from_utf8_lossy(body).into_owned(),
                    bel_terminated: bel,
                });
                body.clear();
            };
            state = match (state, byte) {
                (State::Ground, 0x1b) => State::Esc,
                (State::Ground, 0x07) => {
                    out.push(TermEvent {
                        ts_ms: chunk.ts_ms,
                        kind: "bel",
                        body: String::new(),
                        bel_terminated: true,
                    });
                    State::Ground
                }
                (State::Ground, _) => State::Ground,
                (State::Esc, b']') => State::Osc,
                (State::Esc, 0x1b) => State::Esc,
                (State::Esc, _) => State::Ground,
                (State::Osc, 0x07) => {
                    emit(&mut body, true);
                    State::Ground
                }
                (State::Osc, 0x1b) => State::OscEsc,
                (State::Osc, b) => {
                    body.push(b);
                    State::Osc
                }
                (State::OscEsc, b'\\') => {
                    emit(&mut body, false);
                    State::Ground
                }
                // An ESC inside an OSC that is not ST aborts it.
                (State::OscEsc, b']') => {
                    body.clear();
                    State::Osc
                }
                (State::OscEsc, _) => {
                    body.clear();
                    State::Ground
                }
            };
        }
    }
    out
}

/// Printable form of bytes: control bytes as `\xNN`, ESC as `\e`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::new();
    for ch in String::from_utf8_lossy(bytes).chars() {
        match ch {
            '\x1b' => out.push_str("\\e"),
            '\x07' => out.push_str("\\a"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(ts: f64, bytes: &[u8]) -> Chunk {
        Chunk {
            ts_ms: ts,
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn finds_titles_status_and_bells_across_reads() {
        let chunks = [
            chunk(1.0, b"text\x1b]0;\xe2\x9c\xb3 Claude"),
            chunk(
                2.0,
                b" Code\x07\x07\x1b[?1004h\x1b]7501;state=idle:app=codex\x1b\\",
            ),
        ];
        let evs = events(&chunks);
        assert_eq!(evs.len(), 3);
        assert_eq!(
            (evs[0].ts_ms, evs[0].code(), evs[0].payload()),
            (2.0, "0", "\u{2733} Claude Code")
        );
        assert_eq!(evs[1].kind, "bel");
        assert_eq!(evs[2].payload(), "state=idle:app=codex");
        assert!(!evs[2].bel_terminated);
    }

    #[test]
    fn escapes_control_bytes() {
        assert_eq!(escape(b"\x1b]0;t\x07\r"), "\\e]0;t\\a\\x0d");
    }
}
