//! Turns the bytes a terminal sends a program (keys, replies to queries,
//! focus reports) into inputs. Pure: the reader thread feeds it and decides
//! when a lone ESC has waited long enough to be the Escape key.

/// A key the simulated agents react to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Enter,
    Escape,
    CtrlC,
    CtrlD,
    Backspace,
    /// The arrow keys (`CSI A`, `CSI B`), which move a select list.
    Up,
    Down,
    Char(char),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Key(Key),
    /// An OSC the terminal sent (e.g. the reply to the OSC 7501 probe),
    /// without `ESC ]` and the terminator.
    Osc(String),
    /// `CSI I` (true) / `CSI O` (false) focus reports.
    Focus(bool),
    /// Any other sequence (DA replies, paste markers): ignored.
    Other,
}

/// Longest OSC or DCS accepted before the parser gives up on it.
const MAX_SEQUENCE: usize = 4096;

#[derive(Debug, Default)]
pub struct InputParser {
    pending: Vec<u8>,
}

enum Parsed {
    /// Bytes consumed and the input they made (if any).
    Done(usize, Option<Input>),
    /// Not enough bytes yet.
    Incomplete,
}

impl InputParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parse what arrived; an incomplete sequence at the end is kept.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Input> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut at = 0;
        while at < self.pending.len() {
            match parse_one(&self.pending[at..]) {
                Parsed::Done(n, input) => {
                    at += n;
                    out.extend(input);
                }
                Parsed::Incomplete => break,
            }
        }
        self.pending.drain(..at);
        out
    }

    /// True while a sequence start (or a lone ESC) waits for more bytes.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Nothing more arrived in time: a lone ESC was the Escape key, and any
    /// unfinished sequence is dropped.
    pub fn flush(&mut self) -> Vec<Input> {
        let out = if self.pending == [0x1b] {
            vec![Input::Key(Key::Escape)]
        } else {
            Vec::new()
        };
        self.pending.clear();
        out
    }
}

fn parse_one(b: &[u8]) -> Parsed {
    let key = |k| Parsed::Done(1, Some(Input::Key(k)));
    match b[0] {
        b'\r' | b'\n' => key(Key::Enter),
        0x03 => key(Key::CtrlC),
        0x04 => key(Key::CtrlD),
        0x7f | 0x08 => key(Key::Backspace),
        0x1b => parse_escape(b),
        c if c < 0x20 => Parsed::Done(1, None),
        _ => parse_utf8(b),
    }
}

fn parse_utf8(b: &[u8]) -> Parsed {
    let len = match b[0] {
        c if c < 0x80 => 1,
        c if c >> 5 == 0b110 => 2,
        c if c >> 4 == 0b1110 => 3,
        c if c >> 3 == 0b11110 => 4,
        _ => return Parsed::Done(1, None),
    };
    if b.len() < len {
        return Parsed::Incomplete;
    }
    match std::str::from_utf8(&b[..len]) {
        Ok(s) => Parsed::Done(len, s.chars().next().map(|c| Input::Key(Key::Char(c)))),
        Err(_) => Parsed::Done(1, None),
    }
}

fn parse_escape(b: &[u8]) -> Parsed {
    let Some(&next) = b.get(1) else {
        return Parsed::Incomplete;
    };
    match next {
        b']' => parse_string(b, true),
        b'P' | b'_' | b'^' => parse_string(b, false),
        b'[' => parse_csi(b),
        b'O' => {
            if b.len() < 3 {
                Parsed::Incomplete
            } else {
                Parsed::Done(3, Some(Input::Other))
            }
        }
        // ESC ESC, or ESC followed by a plain key (Alt+key): the first ESC
        // was the Escape key.
        _ => Parsed::Done(1, Some(Input::Key(Key::Escape))),
    }
}

/// OSC (kept) or DCS/APC/PM (ignored), ended by BEL or ST.
fn parse_string(b: &[u8], is_osc: bool) -> Parsed {
    let mut i = 2;
    while i < b.len() {
        let end = match b[i] {
            0x07 => Some(i + 1),
            0x1b if b.get(i + 1) == Some(&b'\\') => Some(i + 2),
            0x1b if i + 1 == b.len() => return Parsed::Incomplete,
            _ => None,
        };
        if let Some(end) = end {
            let input = if is_osc {
                Input::Osc(String::from_utf8_lossy(&b[2..i]).into_owned())
            } else {
                Input::Other
            };
            return Parsed::Done(end, Some(input));
        }
        if i > MAX_SEQUENCE {
            return Parsed::Done(i, Some(Input::Other));
        }
        i += 1;
    }
    Parsed::Incomplete
}

fn parse_csi(b: &[u8]) -> Parsed {
    let mut i = 2;
    while i < b.len() {
        let c = b[i];
        if (0x40..=0x7e).contains(&c) {
            let params = String::from_utf8_lossy(&b[2..i]);
            return Parsed::Done(i + 1, Some(csi_input(&params, c)));
        }
        if !(0x20..=0x3f).contains(&c) || i > 64 {
            return Parsed::Done(i, Some(Input::Other));
        }
        i += 1;
    }
    Parsed::Incomplete
}

/// Focus reports and the kitty keyboard protocol's forms of the keys we use
/// (Claude pushes kitty flags at start-up, so a terminal may answer in it).
fn csi_input(params: &str, fin: u8) -> Input {
    match (params, fin) {
        ("" | "1", b'A') => Input::Key(Key::Up),
        ("" | "1", b'B') => Input::Key(Key::Down),
        ("", b'I') => Input::Focus(true),
        ("", b'O') => Input::Focus(false),
        (p, b'u') => {
            let mut parts = p.split(';');
            let code = parts.next().unwrap_or("");
            let mods = parts.next().unwrap_or("1");
            match (code, mods.split(':').next().unwrap_or("1")) {
                ("27", "1") => Input::Key(Key::Escape),
                ("13", "1") => Input::Key(Key::Enter),
                ("99", "5") => Input::Key(Key::CtrlC),
                ("100", "5") => Input::Key(Key::CtrlD),
                (c, "1") => c
                    .parse::<u32>()
                    .ok()
                    .and_then(char::from_u32)
                    .map(|ch| Input::Key(Key::Char(ch)))
                    .unwrap_or(Input::Other),
                _ => Input::Other,
            }
        }
        _ => Input::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(bytes: &[u8]) -> Vec<Input> {
        let mut p = InputParser::new();
        let mut v = p.feed(bytes);
        v.extend(p.flush());
        v
    }

    #[test]
    fn plain_keys() {
        assert_eq!(
            keys(b"y1\r\x03\x04\x7f"),
            vec![
                Input::Key(Key::Char('y')),
                Input::Key(Key::Char('1')),
                Input::Key(Key::Enter),
                Input::Key(Key::CtrlC),
                Input::Key(Key::CtrlD),
                Input::Key(Key::Backspace),
            ]
        );
        assert_eq!(keys("é".as_bytes()), vec![Input::Key(Key::Char('é'))]);
    }

    #[test]
    fn lone_escape_waits_for_the_flush() {
        let mut p = InputParser::new();
        assert_eq!(p.feed(b"\x1b"), vec![]);
        assert!(p.has_pending());
        assert_eq!(p.flush(), vec![Input::Key(Key::Escape)]);
        assert!(!p.has_pending());
    }

    #[test]
    fn probe_reply_split_across_reads() {
        let mut p = InputParser::new();
        assert_eq!(p.feed(b"\x1b]7501;"), vec![]);
        assert_eq!(p.feed(b"?\x1b"), vec![]);
        assert_eq!(
            p.feed(b"\\x"),
            vec![Input::Osc("7501;?".into()), Input::Key(Key::Char('x'))]
        );
        assert_eq!(keys(b"\x1b]7501;?\x07"), vec![Input::Osc("7501;?".into())]);
    }

    #[test]
    fn focus_kitty_and_other_sequences() {
        assert_eq!(
            keys(b"\x1b[I\x1b[O\x1b[27u\x1b[99;5u\x1b[13u\x1b[?62c\x1bP>|xterm\x1b\\\x1bOA"),
            vec![
                Input::Focus(true),
                Input::Focus(false),
                Input::Key(Key::Escape),
                Input::Key(Key::CtrlC),
                Input::Key(Key::Enter),
                Input::Other,
                Input::Other,
                Input::Other,
            ]
        );
    }

    #[test]
    fn double_escape_is_two_presses() {
        assert_eq!(
            keys(b"\x1b\x1b"),
            vec![Input::Key(Key::Escape), Input::Key(Key::Escape)]
        );
    }
}
