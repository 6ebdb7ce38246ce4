//! The workspace's prefix commands: one table that the key handler
//! (`app::keys::route_key`), the help overlay, the prefix hint bar and the
//! README's key table are all read from, so no hint can teach a key the
//! handler does not have (the bar once said `d details` while `d` detached).
//! Pure data and lookups.

use ratatui::crossterm::event::KeyCode;

/// A command typed after the prefix key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixCommand {
    NewTask,
    Next,
    Previous,
    /// Jump to the task with this number, wherever it is shown.
    Jump(u32),
    /// `'`: the next key is a letter naming task 10 (`a`) to 35 (`z`).
    JumpLetter,
    Close,
    Settings,
    Inspector,
    Help,
    Quit,
    /// Leave the workspace, the tasks keep running in the server.
    Detach,
    /// Copy mode over the focused task's history (`page_up`: start a page up).
    CopyMode {
        page_up: bool,
    },
    /// Show the tasks that need you first, or in start order again.
    AttentionFirst,
    /// Make the sidebar wider (`true`) or narrower, down to badges only.
    SidebarWidth {
        wider: bool,
    },
    Rename,
    Restart,
    Details,
    /// The focused task's changes (issue 32).
    Diff,
    /// What the tasks did while no client was attached, again (issue 31).
    Away,
    /// Show the next task beside (`|`) or under (`-`) the focused one.
    Split {
        stacked: bool,
    },
}

/// What a binding runs: one command, or a jump whose index is the digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Run(PrefixCommand),
    /// `1` to `9`: jump to the task with that number.
    JumpToDigit,
}

/// The key that, after the prefix, runs a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// A character, typed with or without shift.
    Char(char),
    /// A key with no character (Tab, Shift-Tab, PgUp).
    Key(KeyCode),
}

/// One prefix command: its keys, what it does, and how each place names it.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub triggers: &'static [Trigger],
    /// The characters `1` to `9` (for [`Action::JumpToDigit`]), else empty.
    pub digits: bool,
    pub action: Action,
    /// The keys as the help overlay lists them.
    pub keys: &'static str,
    /// The help overlay's words.
    pub help: &'static str,
    /// The word in the prefix hint bar (after the first key), if it is shown there.
    pub hint: Option<&'static str>,
    /// The first cell of the README's key table row for it.
    pub readme_keys: &'static str,
}

use Trigger::{Char, Key};

/// Every prefix command, in the order the help lists them.
pub const BINDINGS: &[Binding] = &[
    Binding {
        triggers: &[Char('n')],
        digits: false,
        action: Action::Run(PrefixCommand::NewTask),
        keys: "n",
        help: "new task",
        hint: Some("new"),
        readme_keys: "`n`",
    },
    Binding {
        triggers: &[Char('x')],
        digits: false,
        action: Action::Run(PrefixCommand::Close),
        keys: "x",
        help: "close task",
        hint: Some("close"),
        readme_keys: "`x`",
    },
    Binding {
        triggers: &[Key(KeyCode::Tab), Char(']'), Char(')')],
        digits: false,
        action: Action::Run(PrefixCommand::Next),
        keys: "Tab ] )",
        help: "next task",
        hint: None,
        readme_keys: "`Tab`, `]` or `)`",
    },
    Binding {
        triggers: &[Key(KeyCode::BackTab), Char('p'), Char('(')],
        digits: false,
        action: Action::Run(PrefixCommand::Previous),
        keys: "S-Tab p (",
        help: "previous task",
        hint: None,
        readme_keys: "`Shift-Tab`, `p` or `(`",
    },
    Binding {
        triggers: &[],
        digits: true,
        action: Action::JumpToDigit,
        keys: "1-9",
        help: "jump to task 1-9",
        hint: None,
        readme_keys: "`1`-`9`",
    },
    Binding {
        triggers: &[Char('\'')],
        digits: false,
        action: Action::Run(PrefixCommand::JumpLetter),
        keys: "' a-z",
        help: "jump to task 10-35",
        hint: None,
        readme_keys: "`'` then `a`-`z`",
    },
    Binding {
        triggers: &[Char('!')],
        digits: false,
        action: Action::Run(PrefixCommand::AttentionFirst),
        keys: "!",
        help: "needs you first, or not",
        hint: None,
        readme_keys: "`!`",
    },
    Binding {
        triggers: &[Char('<')],
        digits: false,
        action: Action::Run(PrefixCommand::SidebarWidth { wider: false }),
        keys: "<",
        help: "sidebar narrower",
        hint: None,
        readme_keys: "`<`",
    },
    Binding {
        triggers: &[Char('>')],
        digits: false,
        action: Action::Run(PrefixCommand::SidebarWidth { wider: true }),
        keys: ">",
        help: "sidebar wider",
        hint: None,
        readme_keys: "`>`",
    },
    Binding {
        triggers: &[Char('['), Key(KeyCode::PageUp)],
        digits: false,
        action: Action::Run(PrefixCommand::CopyMode { page_up: false }),
        keys: "[ or PgUp",
        help: "copy mode: scroll, search",
        hint: Some("copy"),
        readme_keys: "`[` or `PgUp`",
    },
    Binding {
        triggers: &[Char(',')],
        digits: false,
        action: Action::Run(PrefixCommand::Rename),
        keys: ",",
        help: "rename task",
        hint: Some("rename"),
        readme_keys: "`,`",
    },
    Binding {
        triggers: &[Char('r')],
        digits: false,
        action: Action::Run(PrefixCommand::Restart),
        keys: "r",
        help: "restart exited task",
        hint: None,
        readme_keys: "`r`",
    },
    Binding {
        triggers: &[Char('t')],
        digits: false,
        action: Action::Run(PrefixCommand::Details),
        keys: "t",
        help: "task details",
        hint: Some("details"),
        readme_keys: "`t`",
    },
    Binding {
        triggers: &[Char('v')],
        digits: false,
        action: Action::Run(PrefixCommand::Diff),
        keys: "v",
        help: "view changes (diff)",
        hint: Some("diff"),
        readme_keys: "`v`",
    },
    Binding {
        triggers: &[Char('a')],
        digits: false,
        action: Action::Run(PrefixCommand::Away),
        keys: "a",
        help: "while you were away",
        hint: None,
        readme_keys: "`a`",
    },
    Binding {
        triggers: &[Char('|')],
        digits: false,
        action: Action::Run(PrefixCommand::Split { stacked: false }),
        keys: "|",
        help: "split beside",
        hint: None,
        readme_keys: "`\\|`",
    },
    Binding {
        triggers: &[Char('-')],
        digits: false,
        action: Action::Run(PrefixCommand::Split { stacked: true }),
        keys: "-",
        help: "split under",
        hint: None,
        readme_keys: "`-`",
    },
    Binding {
        triggers: &[Char('s')],
        digits: false,
        action: Action::Run(PrefixCommand::Settings),
        keys: "s",
        help: "Settings",
        hint: None,
        readme_keys: "`s`",
    },
    Binding {
        triggers: &[Char('i')],
        digits: false,
        action: Action::Run(PrefixCommand::Inspector),
        keys: "i",
        help: "Inspector",
        hint: None,
        readme_keys: "`i`",
    },
    Binding {
        triggers: &[Char('?')],
        digits: false,
        action: Action::Run(PrefixCommand::Help),
        keys: "?",
        help: "this help",
        hint: Some("help"),
        readme_keys: "`?`",
    },
    Binding {
        triggers: &[Char('d')],
        digits: false,
        action: Action::Run(PrefixCommand::Detach),
        keys: "d",
        help: "detach, tasks keep running",
        hint: Some("detach"),
        readme_keys: "`d`",
    },
    Binding {
        triggers: &[Char('q')],
        digits: false,
        action: Action::Run(PrefixCommand::Quit),
        keys: "q",
        help: "quit, ending every task",
        hint: Some("quit"),
        readme_keys: "`q`",
    },
];

/// The command a key runs after the prefix: a character (typed with or
/// without shift) or a key with no character.
pub fn command_for(key: Trigger) -> Option<PrefixCommand> {
    if let Char(c @ '1'..='9') = key {
        return Some(PrefixCommand::Jump(c as u32 - '0' as u32));
    }
    let binding = BINDINGS.iter().find(|b| b.triggers.contains(&key))?;
    match binding.action {
        Action::Run(command) => Some(command),
        Action::JumpToDigit => None,
    }
}

/// PgUp starts copy mode a page up; `[` at the bottom. Same binding, one
/// detail the table's single action cannot say.
pub fn adjust_for_key(command: PrefixCommand, key: Trigger) -> PrefixCommand {
    match (command, key) {
        (PrefixCommand::CopyMode { .. }, Key(KeyCode::PageUp)) => {
            PrefixCommand::CopyMode { page_up: true }
        }
        _ => command,
    }
}

/// The prefix hint bar: each shown binding's first key and its word.
pub fn hint_bar() -> String {
    let mut bar = String::from(" ");
    for b in BINDINGS {
        if let Some(word) = b.hint {
            let first = b.keys.split(' ').next().unwrap_or(b.keys);
            bar.push_str(&format!("{first} {word}  "));
        }
    }
    bar.truncate(bar.trim_end().len());
    bar.push(' ');
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_bar_names_only_keys_that_run_what_it_says() {
        let bar = hint_bar();
        assert_eq!(
            bar,
            " n new  x close  [ copy  , rename  t details  v diff  ? help  d detach  q quit "
        );
        // It fits an 80-column terminal.
        assert!(bar.chars().count() <= 80, "{}", bar.chars().count());
        // Each "key word" pair runs the command the help gives that word to.
        let pairs: Vec<&str> = bar.split("  ").map(str::trim).collect();
        for pair in pairs {
            let (key, word) = pair.split_once(' ').unwrap();
            let c = key.chars().next().unwrap();
            let command = command_for(Char(c)).unwrap_or_else(|| panic!("{key} runs nothing"));
            let binding = BINDINGS
                .iter()
                .find(|b| b.hint == Some(word))
                .expect("the word is a binding's");
            assert_eq!(binding.action, Action::Run(command), "{key} {word}");
        }
    }

    #[test]
    fn no_key_runs_two_bindings() {
        let mut seen = Vec::new();
        for b in BINDINGS {
            for t in b.triggers {
                assert!(!seen.contains(t), "{t:?} is bound twice");
                seen.push(*t);
            }
        }
        assert!(!seen.iter().any(|t| matches!(t, Char('1'..='9'))));
    }

    /// README's prefix key table has one row per binding, in the same
    /// order, and nothing else.
    #[test]
    fn the_readme_key_table_is_the_binding_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let table = readme
            .split("| key | does |\n|---|---|\n")
            .nth(1)
            .expect("README has the prefix key table");
        let firsts: Vec<&str> = table
            .lines()
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.trim_start_matches("| ").split(" | ").next().unwrap())
            .collect();
        let mut want: Vec<&str> = BINDINGS.iter().map(|b| b.readme_keys).collect();
        want.push("`Ctrl-]`"); // the prefix twice, which is no command
        assert_eq!(
            firsts, want,
            "README.md's key table and keymap::BINDINGS differ"
        );
    }
}
