//! Writing recordings (used by the task runtime's `--record`).
//!
//! asciicast stores text, so bytes are written as UTF-8 with invalid bytes
//! replaced; a character split across two reads is held back until the rest
//! arrives, so the split never turns into replacement characters. The
//! scanner only cares about ASCII escape sequences, which survive exactly.

use std::io::{self, Write};

use serde_json::json;

use super::format::{Marker, RecordingHeader};

/// Appends one asciicast v2 line per event to `out`, each with one
/// `write_all` (give it a [`super::WholeRecords`] for a file that must
/// never end in a torn line).
pub struct RecordingWriter<W: Write> {
    out: W,
    /// Caller's clock at the start of the recording (ms).
    start: u64,
    output_carry: Vec<u8>,
    input_carry: Vec<u8>,
}

impl<W: Write> RecordingWriter<W> {
    /// Write the header. `start` is the caller's clock (ms) at time zero.
    pub fn new(mut out: W, header: &RecordingHeader, start: u64) -> io::Result<Self> {
        let mut value = json!({
            "version": 2,
            "width": header.width,
            "height": header.height,
            "termic": header.termic,
        });
        if let Some(ts) = header.timestamp {
            value["timestamp"] = json!(ts);
        }
        out.write_all(format!("{value}\n").as_bytes())?;
        Ok(RecordingWriter {
            out,
            start,
            output_carry: Vec::new(),
            input_carry: Vec::new(),
        })
    }

    pub fn output(&mut self, now: u64, bytes: &[u8]) -> io::Result<()> {
        let text = take_text(&mut self.output_carry, bytes);
        self.event(now, "o", &text)
    }

    pub fn input(&mut self, now: u64, bytes: &[u8]) -> io::Result<()> {
        let text = take_text(&mut self.input_carry, bytes);
        self.event(now, "i", &text)
    }

    pub fn resize(&mut self, now: u64, cols: u16, rows: u16) -> io::Result<()> {
        self.event(now, "r", &format!("{cols}x{rows}"))
    }

    pub fn marker(&mut self, now: u64, marker: &Marker) -> io::Result<()> {
        self.event(now, "m", &marker.label())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_ref(&self) -> &W {
        &self.out
    }

    fn event(&mut self, now: u64, code: &str, data: &str) -> io::Result<()> {
        if data.is_empty() && code != "m" {
            return Ok(());
        }
        let secs = now.saturating_sub(self.start) as f64 / 1000.0;
        // One `write_all` per line: a [`super::WholeRecords`] sink sees
        // whole records.
        let line = format!("{}\n", json!([secs, code, data]));
        self.out.write_all(line.as_bytes())
    }
}

/// `carry` + `bytes` as text, keeping an incomplete trailing UTF-8 sequence
/// in `carry` for the next call.
fn take_text(carry: &mut Vec<u8>, bytes: &[u8]) -> String {
    carry.extend_from_slice(bytes);
    let keep = incomplete_tail(carry);
    let tail = carry.split_off(carry.len() - keep);
    let text = String::from_utf8_lossy(carry).into_owned();
    *carry = tail;
    text
}

/// Length of a trailing UTF-8 sequence that is valid so far but unfinished.
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let b = bytes[bytes.len() - back];
        if b & 0xc0 == 0x80 {
            continue; // continuation byte: look further back for the lead
        }
        let need = match b {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => return 0,
        };
        return if need > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_reads_is_kept_whole() {
        let mut carry = Vec::new();
        let check = "✳".as_bytes();
        assert_eq!(take_text(&mut carry, &[b'a', check[0]]), "a");
        assert_eq!(take_text(&mut carry, &check[1..2]), "");
        assert_eq!(take_text(&mut carry, &check[2..]), "✳");
        assert!(carry.is_empty());
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        let mut carry = Vec::new();
        assert_eq!(take_text(&mut carry, b"a\xffb"), "a\u{fffd}b");
    }
}
