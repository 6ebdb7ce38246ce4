//! What a task name may be (pure). A name is the runtime's: typed after
//! prefix `,` in any client or sent by `termic rename`, it is shown in
//! every sidebar, in `termic ls` and in the event log, and taken by every
//! verb's TASK. So it is checked in one place, whoever renames.

/// The longest name, in characters (the rename dialog's limit too).
pub const NAME_LIMIT: usize = 60;

/// Why a name was refused. The texts are for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a task name cannot be empty")]
    Empty,
    #[error(
        "a task name cannot hold control characters (escape sequences, tabs, newlines, \
         bidirectional controls)"
    )]
    Control,
    #[error("a task name is at most {NAME_LIMIT} characters; this one has {0}")]
    TooLong(usize),
}

/// `name` as the task will carry it (spaces around it trimmed), or why it
/// cannot be one. Control characters (C0, DEL, C1) and bidirectional
/// controls are refused, not cleaned away: a script that sent them would
/// otherwise find its task under a name it never gave.
pub fn task_name(name: &str) -> Result<String, NameError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.chars().any(termic_signal::text::is_unprintable) {
        return Err(NameError::Control);
    }
    let count = name.chars().count();
    if count > NAME_LIMIT {
        return Err(NameError::TooLong(count));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_trimmed_and_kept_as_typed() {
        assert_eq!(task_name("  build server "), Ok("build server".into()));
        assert_eq!(task_name("é-日本"), Ok("é-日本".into()));
        assert_eq!(task_name("42"), Ok("42".into()));
    }

    #[test]
    fn empty_control_and_overlong_names_are_refused() {
        assert_eq!(task_name(""), Err(NameError::Empty));
        assert_eq!(task_name(" \t "), Err(NameError::Empty));
        for bad in [
            "a\u{1b}[2Jb",
            "a\tb",
            "a\nb",
            "a\u{7f}",
            "a\u{9b}2J",
            "a\u{202e}b",
        ] {
            assert_eq!(task_name(bad), Err(NameError::Control), "{bad:?}");
        }
        let long = "x".repeat(NAME_LIMIT + 1);
        assert_eq!(task_name(&long), Err(NameError::TooLong(NAME_LIMIT + 1)));
        assert!(task_name(&"x".repeat(NAME_LIMIT)).is_ok());
        // The messages name no internals.
        assert!(!NameError::Control.to_string().contains("Control"));
    }
}
