//! Recognising the keys that matter in recorded input bytes.
//!
//! Agents switch the terminal to the kitty keyboard protocol (Claude Code
//! pushes `CSI > 5 u`, Codex `CSI > 7 u`), so Enter, Escape and Ctrl-C arrive
//! either as legacy bytes (`\r`, a lone ESC, 0x03) or as CSI-u sequences
//! (`CSI 13 u`, `CSI 27 u`, `CSI 99 ; 5 u`). Key releases and text inside a
//! bracketed paste are not keystrokes.

use super::types::Key;

const ESC: u8 = 0x1b;
const PASTE_END: &[u8] = b"\x1b[201~";

impl Key {
    /// Every key in `bytes`, in order. `Other` stands for any key that is not
    /// Enter, Escape or Ctrl-C (one per key or escape sequence).
    pub fn from_input_bytes(bytes: &[u8]) -> Vec<Key> {
        let mut keys = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'\r' => {
                    keys.push(Key::Submit);
                    i += 1;
                }
                0x03 => {
                    keys.push(Key::CtrlC);
                    i += 1;
                }
                ESC => i = escape(bytes, i, &mut keys),
                _ => {
                    keys.push(Key::Other);
                    i += utf8_len(b);
                }
            }
        }
        keys
    }
}

/// Handles an ESC at `start`; returns the index after what it consumed.
fn escape(bytes: &[u8], start: usize, keys: &mut Vec<Key>) -> usize {
    match bytes.get(start + 1) {
        // A lone ESC at the end of a read, or ESC ESC: the Escape key.
        None | Some(&ESC) => {
            keys.push(Key::Escape);
            start + 1
        }
        Some(b'[') => csi(bytes, start, keys),
        Some(b'O') => {
            // SS3: F1-F4 and application-mode arrows.
            keys.push(Key::Other);
            (start + 3).min(bytes.len())
        }
        // ESC then a character: Alt+key.
        Some(_) => {
            keys.push(Key::Other);
            start + 2
        }
    }
}

fn csi(bytes: &[u8], start: usize, keys: &mut Vec<Key>) -> usize {
    let params_start = start + 2;
    let Some(final_at) = bytes[params_start..]
        .iter()
        .position(|b| (0x40..=0x7e).contains(b))
        .map(|p| params_start + p)
    else {
        // Unterminated: count it as one key and stop.
        keys.push(Key::Other);
        return bytes.len();
    };
    let params = &bytes[params_start..final_at];
    let next = final_at + 1;
    match bytes[final_at] {
        b'u' => {
            if let Some(key) = kitty_key(params) {
                keys.push(key);
            }
            next
        }
        b'~' if params == b"200" => {
            keys.push(Key::Other);
            skip_paste(bytes, next)
        }
        _ => {
            keys.push(Key::Other);
            next
        }
    }
}

/// `CSI code[:alt] ; mods[:event] u`. Returns None for a key release.
fn kitty_key(params: &[u8]) -> Option<Key> {
    let text = std::str::from_utf8(params).ok()?;
    let mut fields = text.split(';');
    let code: u32 = fields.next()?.split(':').next()?.parse().ok()?;
    let mut mods_field = fields.next().unwrap_or("1").split(':');
    let mods: u32 = mods_field.next().unwrap_or("1").parse().unwrap_or(1);
    let event: u32 = mods_field.next().unwrap_or("1").parse().unwrap_or(1);
    if event == 3 {
        return None;
    }
    // Modifier value is 1 + bit flags; 1 means none, 5 means Ctrl alone.
    // Lock keys (caps 64, num 128) do not change what a key means.
    let mods = (mods.max(1) - 1) & !(64 | 128);
    Some(match (code, mods) {
        (13, 0) => Key::Submit,
        (27, 0) => Key::Escape,
        (99, 4) => Key::CtrlC,
        _ => Key::Other,
    })
}

/// Bracketed paste: the pasted text is not typed keys. Counts as one key.
fn skip_paste(bytes: &[u8], from: usize) -> usize {
    match bytes[from..]
        .windows(PASTE_END.len())
        .position(|w| w == PASTE_END)
    {
        Some(p) => from + p + PASTE_END.len(),
        None => bytes.len(),
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xf7 => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(b: &[u8]) -> Vec<Key> {
        Key::from_input_bytes(b)
    }

    #[test]
    fn legacy_bytes() {
        assert_eq!(keys(b"hi\r"), vec![Key::Other, Key::Other, Key::Submit]);
        assert_eq!(keys(b"\x1b"), vec![Key::Escape]);
        assert_eq!(keys(b"\x1b\x1b"), vec![Key::Escape, Key::Escape]);
        assert_eq!(keys(b"\x03"), vec![Key::CtrlC]);
        assert_eq!(keys("é".as_bytes()), vec![Key::Other]);
    }

    #[test]
    fn kitty_csi_u() {
        assert_eq!(keys(b"\x1b[13u"), vec![Key::Submit]);
        assert_eq!(keys(b"\x1b[13;1u"), vec![Key::Submit]);
        assert_eq!(keys(b"\x1b[27u"), vec![Key::Escape]);
        assert_eq!(keys(b"\x1b[99;5u"), vec![Key::CtrlC]);
        assert_eq!(keys(b"\x1b[99;69u"), vec![Key::CtrlC], "caps lock on");
        // Shift+Enter inserts a newline in Claude Code: not a submit.
        assert_eq!(keys(b"\x1b[13;2u"), vec![Key::Other]);
        // Release events (report-event-types flag) are not presses.
        assert_eq!(keys(b"\x1b[13;1:3u"), vec![]);
        assert_eq!(keys(b"\x1b[13;1:1u"), vec![Key::Submit]);
    }

    #[test]
    fn other_sequences_and_paste() {
        assert_eq!(keys(b"\x1b[A\x1bOB"), vec![Key::Other, Key::Other]);
        assert_eq!(keys(b"\x1bx"), vec![Key::Other]);
        assert_eq!(
            keys(b"\x1b[200~line\r\x03\x1b[201~\r"),
            vec![Key::Other, Key::Submit],
            "a pasted CR or 0x03 is text, the Enter after it is a key"
        );
        assert_eq!(keys(b"\x1b[12"), vec![Key::Other]);
    }
}
