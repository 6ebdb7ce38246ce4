//! What a key press means in the workspace: bytes for the focused agent, or
//! (after the prefix key) a termic command. Pure, so every binding is tested.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::input::{encode_key, InputModes, PrefixKey};
use crate::keymap::{self, Trigger};

pub use crate::keymap::PrefixCommand;

/// Where a key goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRoute {
    /// Send these bytes to the focused agent.
    Agent(Vec<u8>),
    /// The prefix was pressed; wait for the command key.
    PrefixStarted,
    Command(PrefixCommand),
    /// Not a command after the prefix, or a key that sends nothing.
    Ignored,
}

/// Routes one key. `prefix_pending` is true when the previous key was the prefix.
pub fn route_key(
    key: &KeyEvent,
    prefix: &PrefixKey,
    prefix_pending: bool,
    modes: &InputModes,
) -> KeyRoute {
    if key.kind == KeyEventKind::Release {
        return KeyRoute::Ignored;
    }
    if !prefix_pending {
        if prefix.matches(key) {
            return KeyRoute::PrefixStarted;
        }
        let bytes = encode_key(key, modes);
        return if bytes.is_empty() {
            KeyRoute::Ignored
        } else {
            KeyRoute::Agent(bytes)
        };
    }
    if prefix.matches(key) {
        // Prefix twice: the agent gets the prefix byte itself.
        return KeyRoute::Agent(vec![prefix.byte]);
    }
    let shift_only = key.modifiers - KeyModifiers::SHIFT == KeyModifiers::NONE;
    let trigger = match key.code {
        KeyCode::Char(c) if shift_only => Trigger::Char(c),
        KeyCode::Char(_) => return KeyRoute::Ignored,
        code => Trigger::Key(code),
    };
    let command = keymap::command_for(trigger).map(|c| keymap::adjust_for_key(c, trigger));
    command.map_or(KeyRoute::Ignored, KeyRoute::Command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    fn route(code: KeyCode, m: KeyModifiers, pending: bool) -> KeyRoute {
        route_key(
            &key(code, m),
            &PrefixKey::default_key(),
            pending,
            &InputModes::default(),
        )
    }

    const NONE: KeyModifiers = KeyModifiers::NONE;

    #[test]
    fn keys_go_to_the_agent_unchanged() {
        assert_eq!(
            route(KeyCode::Char('n'), NONE, false),
            KeyRoute::Agent(b"n".to_vec())
        );
        assert_eq!(
            route(KeyCode::Char('c'), KeyModifiers::CONTROL, false),
            KeyRoute::Agent(vec![3])
        );
        assert_eq!(
            route(KeyCode::Esc, NONE, false),
            KeyRoute::Agent(vec![0x1b])
        );
    }

    #[test]
    fn prefix_then_command() {
        assert_eq!(
            route(KeyCode::Char('5'), KeyModifiers::CONTROL, false),
            KeyRoute::PrefixStarted
        );
        let cases = [
            (KeyCode::Char('n'), PrefixCommand::NewTask),
            (KeyCode::Tab, PrefixCommand::Next),
            (KeyCode::BackTab, PrefixCommand::Previous),
            (KeyCode::Char(']'), PrefixCommand::Next),
            (KeyCode::Char(')'), PrefixCommand::Next),
            (KeyCode::Char('p'), PrefixCommand::Previous),
            (KeyCode::Char('('), PrefixCommand::Previous),
            (
                KeyCode::Char('['),
                PrefixCommand::CopyMode { page_up: false },
            ),
            (KeyCode::Char('\''), PrefixCommand::JumpLetter),
            (KeyCode::Char('!'), PrefixCommand::AttentionFirst),
            (
                KeyCode::Char('<'),
                PrefixCommand::SidebarWidth { wider: false },
            ),
            (
                KeyCode::Char('>'),
                PrefixCommand::SidebarWidth { wider: true },
            ),
            (KeyCode::Char(','), PrefixCommand::Rename),
            (KeyCode::Char('r'), PrefixCommand::Restart),
            (KeyCode::Char('t'), PrefixCommand::Details),
            (KeyCode::Char('v'), PrefixCommand::Diff),
            (KeyCode::Char('|'), PrefixCommand::Split { stacked: false }),
            (KeyCode::Char('-'), PrefixCommand::Split { stacked: true }),
            (KeyCode::Char('1'), PrefixCommand::Jump(1)),
            (KeyCode::Char('9'), PrefixCommand::Jump(9)),
            (KeyCode::Char('x'), PrefixCommand::Close),
            (KeyCode::Char('s'), PrefixCommand::Settings),
            (KeyCode::Char('i'), PrefixCommand::Inspector),
            (KeyCode::Char('?'), PrefixCommand::Help),
            (KeyCode::Char('q'), PrefixCommand::Quit),
            (KeyCode::Char('d'), PrefixCommand::Detach),
            (KeyCode::PageUp, PrefixCommand::CopyMode { page_up: true }),
        ];
        for (code, want) in cases {
            assert_eq!(route(code, NONE, true), KeyRoute::Command(want), "{code:?}");
        }
        assert_eq!(
            route(KeyCode::Char('?'), KeyModifiers::SHIFT, true),
            KeyRoute::Command(PrefixCommand::Help)
        );
    }

    #[test]
    fn prefix_twice_sends_the_prefix_byte() {
        assert_eq!(
            route(KeyCode::Char(']'), KeyModifiers::CONTROL, true),
            KeyRoute::Agent(vec![0x1d])
        );
    }

    #[test]
    fn unknown_command_is_ignored_not_sent() {
        assert_eq!(route(KeyCode::Char('z'), NONE, true), KeyRoute::Ignored);
        assert_eq!(
            route(KeyCode::Char('n'), KeyModifiers::CONTROL, true),
            KeyRoute::Ignored
        );
    }
}
