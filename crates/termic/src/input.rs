//! Outer-terminal input to the bytes the focused agent would get from a real
//! xterm: keys (legacy encodings), paste (bracketed when the agent turned it
//! on), mouse (only when the agent asked, in the encoding it asked for, with
//! pane-relative cells), and focus in/out (only when it enabled `?1004`).
//! Also the prefix key. Pure: events and modes in, bytes out.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use vt100::{MouseProtocolEncoding, MouseProtocolMode};

pub mod probe;
pub mod wire;

/// The input modes the focused agent has set on its terminal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InputModes {
    pub application_cursor: bool,
    pub bracketed_paste: bool,
    pub mouse_mode: MouseProtocolMode,
    pub mouse_encoding: MouseProtocolEncoding,
    /// `CSI ? 1004 h` (vt100 does not track it; the runtime does).
    pub focus_reporting: bool,
}

impl InputModes {
    pub fn from_screen(screen: &vt100::Screen, focus_reporting: bool) -> Self {
        InputModes {
            application_cursor: screen.application_cursor(),
            bracketed_paste: screen.bracketed_paste(),
            mouse_mode: screen.mouse_protocol_mode(),
            mouse_encoding: screen.mouse_protocol_encoding(),
            focus_reporting,
        }
    }

    /// The modes task `id` has set now (the defaults for a task gone).
    pub fn of_task(runtime: &termic_runtime::Runtime, id: termic_runtime::TaskId) -> Self {
        let focus = runtime.wants_focus_events(id);
        runtime
            .with_screen(id, |screen| InputModes::from_screen(screen, focus))
            .unwrap_or_default()
    }
}

/// The key that, pressed first, makes the next key a termic command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixKey {
    /// The byte the key sends; also what "prefix twice" sends to the agent.
    pub byte: u8,
    /// As the user writes it: `Ctrl-]`.
    pub label: String,
}

impl PrefixKey {
    /// `Ctrl-]`: no supported agent binds it (Claude Code, Codex, opencode
    /// and grok all leave it alone), unlike tmux's Ctrl-b (Claude's
    /// "background task") or Ctrl-a (start of line in every prompt).
    pub fn default_key() -> Self {
        PrefixKey::parse("ctrl-]").expect("the default prefix parses")
    }

    /// Parses `ctrl-X` where X is a letter or one of `@[\]^_`.
    pub fn parse(spec: &str) -> Option<Self> {
        let lower = spec.trim().to_ascii_lowercase();
        let rest = lower
            .strip_prefix("ctrl-")
            .or_else(|| lower.strip_prefix("c-"))?;
        let mut chars = rest.chars();
        let c = chars.next()?;
        if chars.next().is_some() {
            return None;
        }
        let byte = ctrl_byte(c)?;
        let shown = c.to_ascii_lowercase();
        Some(PrefixKey {
            byte,
            label: format!("Ctrl-{shown}"),
        })
    }

    /// Why this key cannot be the prefix, or None. Each of these bytes is
    /// also a key every task needs: as the prefix it would never reach the
    /// task on its own (an attached Enter would start a termic command).
    pub fn reserved_as(&self) -> Option<&'static str> {
        match self.byte {
            0x0d => Some("Enter"),
            0x0a => Some("Enter (line feed)"),
            0x1b => Some("Escape"),
            0x09 => Some("Tab"),
            0x08 | 0x7f => Some("Backspace"),
            0x03 => Some("Ctrl-c, which interrupts the task"),
            _ => None,
        }
    }

    /// Whether `key` is this prefix. Compares the bytes the key would send,
    /// because a legacy terminal reports Ctrl-] as Ctrl-5.
    pub fn matches(&self, key: &KeyEvent) -> bool {
        encode_key(key, &InputModes::default()) == [self.byte]
    }
}

/// The C0 byte for Ctrl plus `c`, as xterm sends it.
fn ctrl_byte(c: char) -> Option<u8> {
    match c {
        'a'..='z' => Some(c as u8 - b'a' + 1),
        'A'..='Z' => Some(c as u8 - b'A' + 1),
        '@' | ' ' | '2' => Some(0),
        '[' | '3' => Some(0x1b),
        '\\' | '4' => Some(0x1c),
        ']' | '5' => Some(0x1d),
        '^' | '6' => Some(0x1e),
        '_' | '7' | '/' => Some(0x1f),
        '?' | '8' => Some(0x7f),
        _ => None,
    }
}

/// xterm's modifier parameter: 1 + shift + 2 alt + 4 ctrl.
fn modifier_param(m: KeyModifiers) -> u8 {
    let mut p = 1;
    if m.contains(KeyModifiers::SHIFT) {
        p += 1;
    }
    if m.contains(KeyModifiers::ALT) {
        p += 2;
    }
    if m.contains(KeyModifiers::CONTROL) {
        p += 4;
    }
    p
}

/// The bytes a key press sends to the agent. Releases send nothing.
pub fn encode_key(key: &KeyEvent, modes: &InputModes) -> Vec<u8> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let m = key.modifiers;
    let alt = m.contains(KeyModifiers::ALT);
    // Cursor and tilde keys carry Alt in the parameter; the rest use an ESC prefix.
    let param = modifier_param(m);
    let mut out = Vec::new();
    match key.code {
        KeyCode::Char(c) => {
            if alt {
                out.push(0x1b);
            }
            match m
                .contains(KeyModifiers::CONTROL)
                .then(|| ctrl_byte(c))
                .flatten()
            {
                Some(b) => out.push(b),
                None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        KeyCode::Enter => alt_byte(&mut out, alt, b'\r'),
        KeyCode::Tab => alt_byte(&mut out, alt, b'\t'),
        KeyCode::BackTab => out.extend_from_slice(b"\x1b[Z"),
        KeyCode::Backspace => {
            let b = if m.contains(KeyModifiers::CONTROL) {
                0x08
            } else {
                0x7f
            };
            alt_byte(&mut out, alt, b);
        }
        KeyCode::Esc => alt_byte(&mut out, alt, 0x1b),
        KeyCode::Null => out.push(0),
        KeyCode::Up => cursor_key(&mut out, b'A', param, modes),
        KeyCode::Down => cursor_key(&mut out, b'B', param, modes),
        KeyCode::Right => cursor_key(&mut out, b'C', param, modes),
        KeyCode::Left => cursor_key(&mut out, b'D', param, modes),
        KeyCode::Home => cursor_key(&mut out, b'H', param, modes),
        KeyCode::End => cursor_key(&mut out, b'F', param, modes),
        KeyCode::Insert => tilde_key(&mut out, 2, param),
        KeyCode::Delete => tilde_key(&mut out, 3, param),
        KeyCode::PageUp => tilde_key(&mut out, 5, param),
        KeyCode::PageDown => tilde_key(&mut out, 6, param),
        KeyCode::F(n @ 1..=4) => {
            let final_byte = b'P' + (n - 1);
            if param == 1 {
                out.extend_from_slice(&[0x1b, b'O', final_byte]);
            } else {
                out.extend_from_slice(format!("\x1b[1;{param}").as_bytes());
                out.push(final_byte);
            }
        }
        KeyCode::F(n @ 5..=12) => {
            const CODES: [u8; 8] = [15, 17, 18, 19, 20, 21, 23, 24];
            tilde_key(&mut out, CODES[n as usize - 5], param);
        }
        _ => {}
    }
    out
}

fn alt_byte(out: &mut Vec<u8>, alt: bool, b: u8) {
    if alt {
        out.push(0x1b);
    }
    out.push(b);
}

fn cursor_key(out: &mut Vec<u8>, final_byte: u8, param: u8, modes: &InputModes) {
    if param > 1 {
        out.extend_from_slice(format!("\x1b[1;{param}").as_bytes());
    } else if modes.application_cursor {
        out.extend_from_slice(b"\x1bO");
    } else {
        out.extend_from_slice(b"\x1b[");
    }
    out.push(final_byte);
}

fn tilde_key(out: &mut Vec<u8>, code: u8, param: u8) {
    if param > 1 {
        out.extend_from_slice(format!("\x1b[{code};{param}~").as_bytes());
    } else {
        out.extend_from_slice(format!("\x1b[{code}~").as_bytes());
    }
}

/// Pasted text: wrapped in `CSI 200~ .. CSI 201~` when the agent enabled
/// bracketed paste (an end marker inside the text is dropped so a paste
/// cannot end itself early); otherwise typed, with newlines as Enter.
pub fn encode_paste(text: &str, modes: &InputModes) -> Vec<u8> {
    if modes.bracketed_paste {
        // Repeat until none is left: one pass over `ESC[20` + `ESC[201~` +
        // `1~` leaves a fresh end marker, which would end the paste early and
        // type the rest (an Enter included) as keys.
        let mut body = text.to_owned();
        while body.contains("\x1b[201~") {
            body = body.replace("\x1b[201~", "");
        }
        let mut out = b"\x1b[200~".to_vec();
        out.extend_from_slice(body.as_bytes());
        out.extend_from_slice(b"\x1b[201~");
        out
    } else {
        text.replace("\r\n", "\r").replace('\n', "\r").into_bytes()
    }
}

/// A mouse event at pane-relative `(col, row)` (0-based), or `None` when the
/// agent did not ask for this kind of event.
pub fn encode_mouse(ev: &MouseEvent, col: u16, row: u16, modes: &InputModes) -> Option<Vec<u8>> {
    use MouseProtocolMode as Mode;
    let (code, release) = match ev.kind {
        MouseEventKind::Down(b) => (button_code(b), false),
        MouseEventKind::Up(b) => (button_code(b), true),
        MouseEventKind::Drag(b) => (button_code(b) + 32, false),
        MouseEventKind::Moved => (3 + 32, false),
        MouseEventKind::ScrollUp => (64, false),
        MouseEventKind::ScrollDown => (65, false),
        MouseEventKind::ScrollLeft => (66, false),
        MouseEventKind::ScrollRight => (67, false),
    };
    let wanted = match modes.mouse_mode {
        Mode::None => false,
        Mode::Press => {
            !release && !matches!(ev.kind, MouseEventKind::Drag(_) | MouseEventKind::Moved)
        }
        Mode::PressRelease => !matches!(ev.kind, MouseEventKind::Drag(_) | MouseEventKind::Moved),
        Mode::ButtonMotion => !matches!(ev.kind, MouseEventKind::Moved),
        Mode::AnyMotion => true,
    };
    if !wanted {
        return None;
    }
    let mut code = code;
    if ev.modifiers.contains(KeyModifiers::SHIFT) {
        code += 4;
    }
    if ev.modifiers.contains(KeyModifiers::ALT) {
        code += 8;
    }
    if ev.modifiers.contains(KeyModifiers::CONTROL) {
        code += 16;
    }
    let (x, y) = (u32::from(col) + 1, u32::from(row) + 1);
    match modes.mouse_encoding {
        MouseProtocolEncoding::Sgr => {
            let end = if release { 'm' } else { 'M' };
            Some(format!("\x1b[<{code};{x};{y}{end}").into_bytes())
        }
        MouseProtocolEncoding::Default | MouseProtocolEncoding::Utf8 => {
            // Legacy encodings cannot say which button was released.
            let code = if release { 3 | (code & !3) } else { code };
            let utf8 = modes.mouse_encoding == MouseProtocolEncoding::Utf8;
            let limit = if utf8 { 2015 } else { 223 };
            if x > limit || y > limit {
                return None;
            }
            let mut out = b"\x1b[M".to_vec();
            for v in [u32::from(code) + 32, x + 32, y + 32] {
                if utf8 {
                    out.extend_from_slice(char::from_u32(v)?.encode_utf8(&mut [0; 4]).as_bytes());
                } else {
                    out.push(v as u8);
                }
            }
            Some(out)
        }
    }
}

fn button_code(b: MouseButton) -> u8 {
    match b {
        MouseButton::Left => 0,
        MouseButton::Middle => 1,
        MouseButton::Right => 2,
    }
}

/// `CSI I` / `CSI O` when the agent enabled focus reporting.
pub fn encode_focus(gained: bool, modes: &InputModes) -> Option<&'static [u8]> {
    modes
        .focus_reporting
        .then_some(if gained { b"\x1b[I" } else { b"\x1b[O" })
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
