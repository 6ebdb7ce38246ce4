use super::*;
use ratatui::crossterm::event::KeyEventState;

fn key(code: KeyCode, m: KeyModifiers) -> KeyEvent {
    KeyEvent {
        code,
        modifiers: m,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn plain(code: KeyCode) -> Vec<u8> {
    encode_key(&key(code, KeyModifiers::NONE), &InputModes::default())
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;

#[test]
fn printable_and_control_keys() {
    assert_eq!(plain(KeyCode::Char('a')), b"a");
    assert_eq!(plain(KeyCode::Char('\u{e9}')), "\u{e9}".as_bytes());
    let m = InputModes::default();
    assert_eq!(encode_key(&key(KeyCode::Char('c'), CTRL), &m), [0x03]);
    assert_eq!(encode_key(&key(KeyCode::Char('x'), ALT), &m), b"\x1bx");
    assert_eq!(
        encode_key(&key(KeyCode::Char('a'), CTRL | ALT), &m),
        [0x1b, 0x01]
    );
    assert_eq!(encode_key(&key(KeyCode::Char(' '), CTRL), &m), [0]);
    assert_eq!(plain(KeyCode::Enter), b"\r");
    assert_eq!(encode_key(&key(KeyCode::Enter, ALT), &m), b"\x1b\r");
    assert_eq!(plain(KeyCode::Tab), b"\t");
    assert_eq!(plain(KeyCode::BackTab), b"\x1b[Z");
    assert_eq!(plain(KeyCode::Backspace), [0x7f]);
    assert_eq!(encode_key(&key(KeyCode::Backspace, CTRL), &m), [0x08]);
    assert_eq!(plain(KeyCode::Esc), [0x1b]);
}

#[test]
fn cursor_keys_follow_application_cursor_mode_and_modifiers() {
    assert_eq!(plain(KeyCode::Up), b"\x1b[A");
    let app = InputModes {
        application_cursor: true,
        ..InputModes::default()
    };
    assert_eq!(encode_key(&key(KeyCode::Up, NONE), &app), b"\x1bOA");
    assert_eq!(encode_key(&key(KeyCode::Left, CTRL), &app), b"\x1b[1;5D");
    assert_eq!(
        encode_key(&key(KeyCode::Right, SHIFT | ALT), &app),
        b"\x1b[1;4C"
    );
    assert_eq!(plain(KeyCode::Home), b"\x1b[H");
    assert_eq!(plain(KeyCode::End), b"\x1b[F");
}

#[test]
fn tilde_and_function_keys() {
    assert_eq!(plain(KeyCode::Delete), b"\x1b[3~");
    assert_eq!(plain(KeyCode::PageUp), b"\x1b[5~");
    assert_eq!(plain(KeyCode::PageDown), b"\x1b[6~");
    assert_eq!(plain(KeyCode::Insert), b"\x1b[2~");
    let m = InputModes::default();
    assert_eq!(encode_key(&key(KeyCode::Delete, CTRL), &m), b"\x1b[3;5~");
    assert_eq!(plain(KeyCode::F(1)), b"\x1bOP");
    assert_eq!(encode_key(&key(KeyCode::F(2), SHIFT), &m), b"\x1b[1;2Q");
    assert_eq!(plain(KeyCode::F(5)), b"\x1b[15~");
    assert_eq!(plain(KeyCode::F(12)), b"\x1b[24~");
}

#[test]
fn releases_send_nothing() {
    let mut k = key(KeyCode::Char('a'), NONE);
    k.kind = KeyEventKind::Release;
    assert!(encode_key(&k, &InputModes::default()).is_empty());
}

#[test]
fn prefix_matches_both_forms_a_terminal_reports() {
    let p = PrefixKey::default_key();
    assert_eq!(p.byte, 0x1d);
    assert_eq!(p.label, "Ctrl-]");
    // Legacy terminals report 0x1d as Ctrl-5 (crossterm's parser).
    assert!(p.matches(&key(KeyCode::Char('5'), CTRL)));
    // Terminals with the kitty protocol report it as Ctrl-].
    assert!(p.matches(&key(KeyCode::Char(']'), CTRL)));
    assert!(!p.matches(&key(KeyCode::Char(']'), NONE)));
    let b = PrefixKey::parse("Ctrl-B").unwrap();
    assert_eq!((b.byte, b.label.as_str()), (0x02, "Ctrl-b"));
    assert_eq!(PrefixKey::parse("ctrl-\\").unwrap().byte, 0x1c);
    assert!(PrefixKey::parse("alt-x").is_none());
    assert!(PrefixKey::parse("ctrl-ab").is_none());
}

#[test]
fn paste_is_bracketed_only_when_the_agent_asked() {
    let m = InputModes::default();
    assert_eq!(encode_paste("a\nb\r\nc", &m), b"a\rb\rc");
    let b = InputModes {
        bracketed_paste: true,
        ..m
    };
    assert_eq!(encode_paste("x\ny", &b), b"\x1b[200~x\ny\x1b[201~");
    assert_eq!(
        encode_paste("evil\x1b[201~rm", &b),
        b"\x1b[200~evilrm\x1b[201~"
    );
    // A marker hidden inside a marker: one pass would rebuild it.
    assert_eq!(
        encode_paste("a\x1b[20\x1b[201~1~\rrm -rf x\r", &b),
        b"\x1b[200~a\rrm -rf x\r\x1b[201~"
    );
}

fn mouse(kind: MouseEventKind, m: KeyModifiers) -> MouseEvent {
    MouseEvent {
        kind,
        column: 99,
        row: 99,
        modifiers: m,
    }
}

#[test]
fn mouse_goes_only_where_asked_in_the_asked_encoding() {
    let down = mouse(MouseEventKind::Down(MouseButton::Left), NONE);
    let none = InputModes::default();
    assert_eq!(encode_mouse(&down, 4, 2, &none), None);
    let sgr = InputModes {
        mouse_mode: MouseProtocolMode::PressRelease,
        mouse_encoding: MouseProtocolEncoding::Sgr,
        ..none
    };
    assert_eq!(encode_mouse(&down, 4, 2, &sgr).unwrap(), b"\x1b[<0;5;3M");
    let up = mouse(MouseEventKind::Up(MouseButton::Right), CTRL);
    assert_eq!(encode_mouse(&up, 0, 0, &sgr).unwrap(), b"\x1b[<18;1;1m");
    assert_eq!(
        encode_mouse(&mouse(MouseEventKind::ScrollDown, NONE), 1, 1, &sgr).unwrap(),
        b"\x1b[<65;2;2M"
    );
    // Motion only in the modes that asked for it.
    let drag = mouse(MouseEventKind::Drag(MouseButton::Left), NONE);
    assert_eq!(encode_mouse(&drag, 0, 0, &sgr), None);
    let motion = InputModes {
        mouse_mode: MouseProtocolMode::ButtonMotion,
        ..sgr
    };
    assert_eq!(
        encode_mouse(&drag, 0, 0, &motion).unwrap(),
        b"\x1b[<32;1;1M"
    );
    assert_eq!(
        encode_mouse(&mouse(MouseEventKind::Moved, NONE), 0, 0, &motion),
        None
    );
    let press_only = InputModes {
        mouse_mode: MouseProtocolMode::Press,
        ..sgr
    };
    assert_eq!(encode_mouse(&up, 0, 0, &press_only), None);
}

#[test]
fn legacy_mouse_encodings() {
    let x10 = InputModes {
        mouse_mode: MouseProtocolMode::AnyMotion,
        ..InputModes::default()
    };
    let down = mouse(MouseEventKind::Down(MouseButton::Middle), SHIFT);
    assert_eq!(
        encode_mouse(&down, 0, 9, &x10).unwrap(),
        [0x1b, b'[', b'M', 32 + 5, 33, 42]
    );
    let up = mouse(MouseEventKind::Up(MouseButton::Left), NONE);
    assert_eq!(
        encode_mouse(&up, 0, 0, &x10).unwrap(),
        [0x1b, b'[', b'M', 35, 33, 33]
    );
    assert_eq!(
        encode_mouse(&down, 300, 0, &x10),
        None,
        "x10 cannot say column 301"
    );
    let utf8 = InputModes {
        mouse_encoding: MouseProtocolEncoding::Utf8,
        ..x10
    };
    let mut want = b"\x1b[M".to_vec();
    want.extend_from_slice("%\u{14d}!".as_bytes());
    assert_eq!(encode_mouse(&down, 300, 0, &utf8).unwrap(), want);
}

#[test]
fn focus_reports_only_when_enabled() {
    let off = InputModes::default();
    assert_eq!(encode_focus(true, &off), None);
    let on = InputModes {
        focus_reporting: true,
        ..off
    };
    assert_eq!(encode_focus(true, &on).unwrap(), b"\x1b[I");
    assert_eq!(encode_focus(false, &on).unwrap(), b"\x1b[O");
}

#[test]
fn modes_come_from_the_screen() {
    let nz = |n| std::num::NonZeroU16::new(n).unwrap();
    let mut p = vt100::Parser::new(nz(5), nz(10), 0);
    p.process(b"\x1b[?1h\x1b[?2004h\x1b[?1002h\x1b[?1006h");
    let m = InputModes::from_screen(p.screen(), true);
    assert!(m.application_cursor && m.bracketed_paste && m.focus_reporting);
    assert_eq!(m.mouse_mode, MouseProtocolMode::ButtonMotion);
    assert_eq!(m.mouse_encoding, MouseProtocolEncoding::Sgr);
}
