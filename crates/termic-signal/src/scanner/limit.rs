//! Keeps vte's OSC buffer bounded, whatever vte's features.
//!
//! With vte's `std` feature its OSC buffer is a `Vec` that grows without
//! limit, and cargo turns that feature on for the whole build as soon as any
//! dependency asks for it (vt100's default features do). So the scanner does
//! not rely on it: [`OscLimiter`] mirrors the one piece of vte's state that
//! matters, "inside an OSC string, and how long is it", and cuts an OSC off
//! before vte has stored more than [`MAX_OSC_BYTES`] of it.
//!
//! The mirror follows vte 0.15 exactly: every state goes to Escape on ESC;
//! Escape stays on C0 (but CAN/SUB), DEL and bytes >= 0x80, enters the OSC
//! string on `]` and leaves for something else on any other byte; the OSC
//! string ends on BEL, CAN, SUB or ESC. Outside an OSC it only looks at `]`
//! bytes, so it costs one `memchr` per chunk on most output.

use super::MAX_OSC_BYTES;

const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;
const ESC: u8 = 0x1b;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mirror {
    /// Ground, CSI, DCS or any state that only ESC can leave for an OSC.
    #[default]
    Other,
    /// Right after ESC.
    Escape,
    /// Inside an OSC string, with this many body bytes so far.
    Osc(usize),
    /// Inside an OSC that was cut off: its bytes are skipped, not parsed.
    Discard,
}

/// What to do with the next bytes of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Give this many bytes to vte.
    Parse(usize),
    /// Give this many bytes to vte, then abort the OSC it is in (with CAN,
    /// and drop what that dispatches): the OSC is over the limit.
    ParseThenAbort(usize),
    /// Skip this many bytes: they belong to an aborted OSC.
    Skip(usize),
}

#[derive(Debug, Default)]
pub(super) struct OscLimiter {
    state: Mirror,
}

impl OscLimiter {
    /// Decide what to do with a prefix of `bytes` (non-empty). The caller
    /// acts on the step and calls again with the rest.
    pub(super) fn next(&mut self, bytes: &[u8]) -> Step {
        if self.state == Mirror::Discard {
            return self.skip_discarded(bytes);
        }
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                Mirror::Other | Mirror::Escape => {
                    // Only `]` can open an OSC, so jump from one to the next
                    // (rare in output outside OSCs) instead of visiting every
                    // escape sequence.
                    let before = self.state;
                    let Some(k) = memchr::memchr(b']', &bytes[i..]) else {
                        self.state = escape_state_at(bytes, i, bytes.len(), before);
                        return Step::Parse(bytes.len());
                    };
                    let at = i + k;
                    self.state = if escape_state_at(bytes, i, at, before) == Mirror::Escape {
                        Mirror::Osc(0)
                    } else {
                        Mirror::Other
                    };
                    i = at + 1;
                }
                Mirror::Osc(len) => {
                    let rest = &bytes[i..];
                    let end = rest
                        .iter()
                        .position(|b| matches!(*b, BEL | CAN | SUB | ESC));
                    let body = end.unwrap_or(rest.len());
                    if len + body > MAX_OSC_BYTES {
                        self.state = Mirror::Discard;
                        return Step::ParseThenAbort(i + (MAX_OSC_BYTES - len));
                    }
                    match end {
                        Some(k) => {
                            i += k + 1;
                            self.state = if rest[k] == ESC {
                                Mirror::Escape
                            } else {
                                Mirror::Other
                            };
                        }
                        None => {
                            i = bytes.len();
                            self.state = Mirror::Osc(len + body);
                        }
                    }
                }
                Mirror::Discard => unreachable!("handled above"),
            }
        }
        Step::Parse(bytes.len())
    }

    /// Skip the rest of an aborted OSC. Its BEL, CAN or SUB terminator is
    /// skipped too (vte would not report it); an ESC is left to be parsed,
    /// since it starts the next sequence.
    fn skip_discarded(&mut self, bytes: &[u8]) -> Step {
        match bytes
            .iter()
            .position(|b| matches!(*b, BEL | CAN | SUB | ESC))
        {
            None => Step::Skip(bytes.len()),
            Some(k) => {
                self.state = Mirror::Other;
                Step::Skip(if bytes[k] == ESC { k } else { k + 1 })
            }
        }
    }
}

/// Bytes that leave vte's Escape state where it is: C0 controls but CAN and
/// SUB, ESC itself, DEL and everything from 0x80.
fn stays_in_escape(byte: u8) -> bool {
    matches!(byte, 0x00..=0x17 | 0x19 | 0x1b..=0x1f | 0x7f..=0xff)
}

/// Is vte in its Escape state just before `bytes[at]`, given its state at
/// `bytes[from]` (Escape or Other, no OSC in between)? Every state goes to
/// Escape on ESC, and only [`stays_in_escape`] bytes keep it there, so it is
/// decided by walking back to the nearest byte that is not one of those.
fn escape_state_at(bytes: &[u8], from: usize, at: usize, state_at_from: Mirror) -> Mirror {
    for &byte in bytes[from..at].iter().rev() {
        if byte == ESC {
            return Mirror::Escape;
        }
        if !stays_in_escape(byte) {
            return Mirror::Other;
        }
    }
    state_at_from
}
