//! crossterm's terminal events to and from termic's own input events (the
//! protocol's, `server::protocol::input`). The attach client converts what
//! its terminal reads; the server converts what any client sends to the
//! events the workspace app and the encoders of this module's parent take.
//! Pure.

use ratatui::crossterm::event as ct;

use super::{encode_focus, encode_key, encode_mouse, encode_paste, InputModes};
use crate::server::protocol::input::{
    InputEvent, Key, KeyCode, KeyKind, Mods, Mouse, MouseButton, MouseKind, Size,
};

/// The protocol's form of a terminal event, or `None` for a key no client
/// sends (a lock, media or lone modifier key: they send nothing to a task).
pub fn from_crossterm(event: ct::Event) -> Option<InputEvent> {
    Some(match event {
        ct::Event::Key(key) => InputEvent::Key(Key {
            code: key_code(key.code)?,
            mods: mods(key.modifiers),
            kind: match key.kind {
                ct::KeyEventKind::Press => KeyKind::Press,
                ct::KeyEventKind::Repeat => KeyKind::Repeat,
                ct::KeyEventKind::Release => KeyKind::Release,
            },
        }),
        ct::Event::Paste(text) => InputEvent::Paste(text),
        ct::Event::Mouse(mouse) => {
            let (kind, button) = match mouse.kind {
                ct::MouseEventKind::Down(b) => (MouseKind::Down, button(b)),
                ct::MouseEventKind::Up(b) => (MouseKind::Up, button(b)),
                ct::MouseEventKind::Drag(b) => (MouseKind::Drag, button(b)),
                ct::MouseEventKind::Moved => (MouseKind::Moved, MouseButton::Left),
                ct::MouseEventKind::ScrollUp => (MouseKind::ScrollUp, MouseButton::Left),
                ct::MouseEventKind::ScrollDown => (MouseKind::ScrollDown, MouseButton::Left),
                ct::MouseEventKind::ScrollLeft => (MouseKind::ScrollLeft, MouseButton::Left),
                ct::MouseEventKind::ScrollRight => (MouseKind::ScrollRight, MouseButton::Left),
            };
            InputEvent::Mouse(Mouse {
                kind,
                button,
                column: mouse.column,
                row: mouse.row,
                mods: mods(mouse.modifiers),
            })
        }
        ct::Event::FocusGained => InputEvent::Focus(true),
        ct::Event::FocusLost => InputEvent::Focus(false),
        ct::Event::Resize(cols, rows) => InputEvent::Resize(Size { cols, rows }),
    })
}

/// The bytes an event sends to a task that has `modes`, for a client that
/// shows only that task (a view: no prefix, no copy mode; a mouse event's
/// cell is the task's). A resize sends nothing (it resizes the PTY).
pub fn task_bytes(event: &InputEvent, modes: &InputModes) -> Vec<u8> {
    match event {
        InputEvent::Key(_) => match to_crossterm(event.clone()) {
            Some(ct::Event::Key(key)) => encode_key(&key, modes),
            _ => Vec::new(),
        },
        InputEvent::Paste(text) => encode_paste(text, modes),
        InputEvent::Mouse(mouse) => {
            encode_mouse(&ct_mouse(mouse), mouse.column, mouse.row, modes).unwrap_or_default()
        }
        InputEvent::Focus(gained) => encode_focus(*gained, modes).unwrap_or_default().to_vec(),
        InputEvent::Resize(_) | InputEvent::Outer(_) => Vec::new(),
    }
}

/// The terminal event the workspace app and the encoders take (`None`
/// for what is no terminal event: the client's word on its terminal).
pub fn to_crossterm(event: InputEvent) -> Option<ct::Event> {
    Some(match event {
        InputEvent::Key(key) => ct::Event::Key(ct::KeyEvent {
            code: ct_key_code(key.code),
            modifiers: ct_mods(key.mods),
            kind: match key.kind {
                KeyKind::Press => ct::KeyEventKind::Press,
                KeyKind::Repeat => ct::KeyEventKind::Repeat,
                KeyKind::Release => ct::KeyEventKind::Release,
            },
            state: ct::KeyEventState::NONE,
        }),
        InputEvent::Paste(text) => ct::Event::Paste(text),
        InputEvent::Mouse(mouse) => ct::Event::Mouse(ct_mouse(&mouse)),
        InputEvent::Focus(true) => ct::Event::FocusGained,
        InputEvent::Focus(false) => ct::Event::FocusLost,
        InputEvent::Resize(Size { cols, rows }) => ct::Event::Resize(cols, rows),
        InputEvent::Outer(_) => return None,
    })
}

/// The mouse event the encoders take.
pub fn ct_mouse(mouse: &Mouse) -> ct::MouseEvent {
    let b = match mouse.button {
        MouseButton::Left => ct::MouseButton::Left,
        MouseButton::Middle => ct::MouseButton::Middle,
        MouseButton::Right => ct::MouseButton::Right,
    };
    ct::MouseEvent {
        kind: match mouse.kind {
            MouseKind::Down => ct::MouseEventKind::Down(b),
            MouseKind::Up => ct::MouseEventKind::Up(b),
            MouseKind::Drag => ct::MouseEventKind::Drag(b),
            MouseKind::Moved => ct::MouseEventKind::Moved,
            MouseKind::ScrollUp => ct::MouseEventKind::ScrollUp,
            MouseKind::ScrollDown => ct::MouseEventKind::ScrollDown,
            MouseKind::ScrollLeft => ct::MouseEventKind::ScrollLeft,
            MouseKind::ScrollRight => ct::MouseEventKind::ScrollRight,
        },
        column: mouse.column,
        row: mouse.row,
        modifiers: ct_mods(mouse.mods),
    }
}

fn button(b: ct::MouseButton) -> MouseButton {
    match b {
        ct::MouseButton::Left => MouseButton::Left,
        ct::MouseButton::Middle => MouseButton::Middle,
        ct::MouseButton::Right => MouseButton::Right,
    }
}

fn mods(m: ct::KeyModifiers) -> Mods {
    Mods {
        shift: m.contains(ct::KeyModifiers::SHIFT),
        ctrl: m.contains(ct::KeyModifiers::CONTROL),
        alt: m.contains(ct::KeyModifiers::ALT),
        super_: m.contains(ct::KeyModifiers::SUPER),
    }
}

fn ct_mods(m: Mods) -> ct::KeyModifiers {
    let mut out = ct::KeyModifiers::NONE;
    for (held, flag) in [
        (m.shift, ct::KeyModifiers::SHIFT),
        (m.ctrl, ct::KeyModifiers::CONTROL),
        (m.alt, ct::KeyModifiers::ALT),
        (m.super_, ct::KeyModifiers::SUPER),
    ] {
        if held {
            out |= flag;
        }
    }
    out
}

/// The pairs of codes, one list for both directions.
const NAMED: [(KeyCode, ct::KeyCode); 16] = [
    (KeyCode::Enter, ct::KeyCode::Enter),
    (KeyCode::Tab, ct::KeyCode::Tab),
    (KeyCode::BackTab, ct::KeyCode::BackTab),
    (KeyCode::Backspace, ct::KeyCode::Backspace),
    (KeyCode::Esc, ct::KeyCode::Esc),
    (KeyCode::Up, ct::KeyCode::Up),
    (KeyCode::Down, ct::KeyCode::Down),
    (KeyCode::Left, ct::KeyCode::Left),
    (KeyCode::Right, ct::KeyCode::Right),
    (KeyCode::Home, ct::KeyCode::Home),
    (KeyCode::End, ct::KeyCode::End),
    (KeyCode::PageUp, ct::KeyCode::PageUp),
    (KeyCode::PageDown, ct::KeyCode::PageDown),
    (KeyCode::Insert, ct::KeyCode::Insert),
    (KeyCode::Delete, ct::KeyCode::Delete),
    (KeyCode::Null, ct::KeyCode::Null),
];

fn key_code(code: ct::KeyCode) -> Option<KeyCode> {
    match code {
        ct::KeyCode::Char(c) => Some(KeyCode::Char(c)),
        ct::KeyCode::F(n) => Some(KeyCode::F(n)),
        other => NAMED.iter().find(|(_, c)| *c == other).map(|(k, _)| *k),
    }
}

fn ct_key_code(code: KeyCode) -> ct::KeyCode {
    match code {
        KeyCode::Char(c) => ct::KeyCode::Char(c),
        KeyCode::F(n) => ct::KeyCode::F(n),
        named => NAMED
            .iter()
            .find(|(k, _)| *k == named)
            .map_or(ct::KeyCode::Null, |(_, c)| *c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_key_goes_both_ways() {
        for (code, ct_code) in NAMED {
            assert_eq!(key_code(ct_code), Some(code));
            assert_eq!(ct_key_code(code), ct_code);
        }
    }

    #[test]
    fn a_view_sends_the_bytes_a_terminal_would() {
        let modes = InputModes {
            bracketed_paste: true,
            mouse_mode: vt100::MouseProtocolMode::PressRelease,
            mouse_encoding: vt100::MouseProtocolEncoding::Sgr,
            ..InputModes::default()
        };
        let key = |code, ctrl| {
            InputEvent::Key(Key {
                code,
                mods: Mods {
                    ctrl,
                    ..Mods::default()
                },
                kind: KeyKind::Press,
            })
        };
        assert_eq!(task_bytes(&key(KeyCode::Char('c'), true), &modes), b"\x03");
        // The prefix is only the workspace's: a view sends it to the task.
        assert_eq!(task_bytes(&key(KeyCode::Char(']'), true), &modes), b"\x1d");
        assert_eq!(task_bytes(&key(KeyCode::Up, false), &modes), b"\x1b[A");
        assert_eq!(
            task_bytes(&InputEvent::Paste("x\n".into()), &modes),
            b"\x1b[200~x\n\x1b[201~"
        );
        let click = InputEvent::Mouse(Mouse {
            kind: MouseKind::Down,
            button: MouseButton::Left,
            column: 4,
            row: 2,
            mods: Mods::default(),
        });
        assert_eq!(task_bytes(&click, &modes), b"\x1b[<0;5;3M");
        // Focus reports only when the task asked.
        assert!(task_bytes(&InputEvent::Focus(true), &modes).is_empty());
        assert!(task_bytes(&InputEvent::Resize(Size { cols: 1, rows: 1 }), &modes).is_empty());
        let release = InputEvent::Key(Key {
            kind: KeyKind::Release,
            ..Key::press(KeyCode::Enter)
        });
        assert!(task_bytes(&release, &modes).is_empty());
    }

    #[test]
    fn keys_no_client_sends_are_not_converted() {
        let lock = ct::Event::Key(ct::KeyEvent::new(
            ct::KeyCode::CapsLock,
            ct::KeyModifiers::NONE,
        ));
        assert_eq!(from_crossterm(lock), None);
    }

    #[test]
    fn a_terminal_event_comes_back_as_it_was() {
        let events = [
            ct::Event::Key(ct::KeyEvent::new(
                ct::KeyCode::Char(']'),
                ct::KeyModifiers::CONTROL | ct::KeyModifiers::ALT,
            )),
            ct::Event::Paste("a\nb".into()),
            ct::Event::Mouse(ct::MouseEvent {
                kind: ct::MouseEventKind::Drag(ct::MouseButton::Right),
                column: 7,
                row: 9,
                modifiers: ct::KeyModifiers::SHIFT,
            }),
            ct::Event::FocusLost,
            ct::Event::Resize(80, 24),
        ];
        for event in events {
            let wire = from_crossterm(event.clone()).unwrap();
            assert_eq!(to_crossterm(wire), Some(event));
        }
    }
}
