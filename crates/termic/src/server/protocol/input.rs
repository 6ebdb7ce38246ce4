//! termic's own input events, as every client sends them: a terminal
//! client (`termic attach`), a per-task view (a web page's xterm.js, a
//! remote host's bridge). No terminal library's type is on the wire, so a
//! client needs only JSON to type into a task.
//!
//! Shapes (serde's externally tagged form, fields in snake_case):
//!
//! ```json
//! {"key":{"code":{"char":"a"}}}
//! {"key":{"code":"enter","mods":{"ctrl":true,"shift":true},"kind":"repeat"}}
//! {"key":{"code":{"f":5}}}
//! {"paste":"some text\n"}
//! {"mouse":{"kind":"down","button":"left","column":3,"row":4}}
//! {"mouse":{"kind":"scroll_up","column":0,"row":0,"mods":{"alt":true}}}
//! {"focus":true}
//! {"resize":{"cols":100,"rows":30}}
//! {"outer":{"osc7501":true}}
//! ```
//!
//! `mods` is absent when no modifier is held, `kind` when it is a press,
//! `button` when it is the left one (and it is ignored by `moved` and the
//! scrolls). Unknown fields are ignored, so a later version may add some.
//! Columns and rows of a mouse event are 0-based cells of what the client
//! shows (the workspace for an attached client, the task's screen for a
//! view).

use serde::{Deserialize, Serialize};

/// One input event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputEvent {
    Key(Key),
    /// Pasted text, delivered as a paste (bracketed when the task asked).
    Paste(String),
    Mouse(Mouse),
    /// The client's window gained (`true`) or lost focus.
    Focus(bool),
    /// The client's size changed.
    Resize(Size),
    /// What the attach client learnt of its own terminal (protocol 6): the
    /// server reports the workspace's state to it accordingly
    /// (`crate::outer`). A view ignores it.
    Outer(Outer),
}

/// The attach client's outer terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outer {
    /// It answered termic's `OSC 7501 ; ?` probe.
    pub osc7501: bool,
}

/// A size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    pub cols: u16,
    pub rows: u16,
}

/// A key, with the modifiers held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    pub code: KeyCode,
    #[serde(default, skip_serializing_if = "Mods::is_empty")]
    pub mods: Mods,
    #[serde(default, skip_serializing_if = "KeyKind::is_press")]
    pub kind: KeyKind,
}

impl Key {
    /// A press of `code` with no modifier.
    pub fn press(code: KeyCode) -> Self {
        Key {
            code,
            mods: Mods::default(),
            kind: KeyKind::Press,
        }
    }
}

/// Which key. The keys a terminal sends something for; a client does not
/// send the others (lock keys, media keys, a modifier alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyCode {
    /// A character, as typed (with Shift applied: `A`, not `a` with shift).
    Char(char),
    /// A function key, `F1` as 1.
    F(u8),
    Enter,
    Tab,
    /// Shift-Tab, as terminals report it.
    BackTab,
    Backspace,
    Esc,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    /// Ctrl-Space on some terminals (the NUL byte).
    Null,
}

/// The modifiers held. Absent ones are false.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mods {
    #[serde(default, skip_serializing_if = "is_false")]
    pub shift: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub ctrl: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub alt: bool,
    /// The Super, Windows or Command key.
    #[serde(default, skip_serializing_if = "is_false", rename = "super")]
    pub super_: bool,
}

impl Mods {
    pub fn is_empty(&self) -> bool {
        *self == Mods::default()
    }
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Press, auto-repeat or release. Only a terminal with the kitty keyboard
/// protocol tells them apart; a release sends nothing to a task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    #[default]
    Press,
    Repeat,
    Release,
}

impl KeyKind {
    fn is_press(&self) -> bool {
        *self == KeyKind::Press
    }
}

/// A mouse event at a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mouse {
    pub kind: MouseKind,
    #[serde(default, skip_serializing_if = "MouseButton::is_left")]
    pub button: MouseButton,
    pub column: u16,
    pub row: u16,
    #[serde(default, skip_serializing_if = "Mods::is_empty")]
    pub mods: Mods,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MouseKind {
    Down,
    Up,
    Drag,
    /// Moved with no button held.
    Moved,
    ScrollUp,
    ScrollDown,
    ScrollLeft,
    ScrollRight,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    #[default]
    Left,
    Middle,
    Right,
}

impl MouseButton {
    fn is_left(&self) -> bool {
        *self == MouseButton::Left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(event: &InputEvent) -> String {
        serde_json::to_string(event).unwrap()
    }

    fn parse(text: &str) -> InputEvent {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_documented_shapes_are_the_wire_shapes() {
        let a = InputEvent::Key(Key::press(KeyCode::Char('a')));
        assert_eq!(json(&a), r#"{"key":{"code":{"char":"a"}}}"#);
        let enter = InputEvent::Key(Key {
            code: KeyCode::Enter,
            mods: Mods {
                ctrl: true,
                shift: true,
                ..Mods::default()
            },
            kind: KeyKind::Repeat,
        });
        assert_eq!(
            json(&enter),
            r#"{"key":{"code":"enter","mods":{"shift":true,"ctrl":true},"kind":"repeat"}}"#
        );
        assert_eq!(
            parse(r#"{"key":{"code":"enter","mods":{"ctrl":true,"shift":true},"kind":"repeat"}}"#),
            enter
        );
        assert_eq!(
            json(&InputEvent::Key(Key::press(KeyCode::F(5)))),
            r#"{"key":{"code":{"f":5}}}"#
        );
        assert_eq!(
            json(&InputEvent::Key(Key::press(KeyCode::PageUp))),
            r#"{"key":{"code":"page_up"}}"#
        );
        assert_eq!(
            json(&InputEvent::Paste("some text\n".into())),
            r#"{"paste":"some text\n"}"#
        );
        let down = InputEvent::Mouse(Mouse {
            kind: MouseKind::Down,
            button: MouseButton::Left,
            column: 3,
            row: 4,
            mods: Mods::default(),
        });
        assert_eq!(
            json(&down),
            r#"{"mouse":{"kind":"down","column":3,"row":4}}"#
        );
        assert_eq!(
            parse(r#"{"mouse":{"kind":"down","button":"left","column":3,"row":4}}"#),
            down
        );
        assert_eq!(json(&InputEvent::Focus(true)), r#"{"focus":true}"#);
        assert_eq!(
            json(&InputEvent::Resize(Size {
                cols: 100,
                rows: 30
            })),
            r#"{"resize":{"cols":100,"rows":30}}"#
        );
        assert_eq!(
            json(&InputEvent::Outer(Outer { osc7501: true })),
            r#"{"outer":{"osc7501":true}}"#
        );
    }

    #[test]
    fn hostile_shapes_are_errors() {
        for bad in [
            r#"{"key":{"code":{"char":"ab"}}}"#,
            r#"{"key":{"code":{"f":300}}}"#,
            r#"{"key":{"code":"caps_lock"}}"#,
            r#"{"mouse":{"kind":"down","column":-1,"row":0}}"#,
            r#"{"resize":{"cols":70000,"rows":1}}"#,
            r#"{"focus":"yes"}"#,
            r#"{"outer":{}}"#,
            r#"{"outer":{"osc7501":"yes"}}"#,
            r#"{"key":{}}"#,
        ] {
            assert!(
                serde_json::from_str::<InputEvent>(bad).is_err(),
                "{bad} decoded"
            );
        }
        // A field a later version adds is ignored.
        assert_eq!(
            parse(r#"{"key":{"code":"esc","at":12}}"#),
            InputEvent::Key(Key::press(KeyCode::Esc))
        );
    }
}
