//! Recognising our hook commands. A command is a shell string and the
//! script path in it may be quoted, because `$HOME` can hold spaces or
//! quotes: `'/home/o'\''brien/.claude/termic-hooks/stop.sh'`.

/// Whether the command's first shell word (unquoted) starts with `prefix`.
/// Give a directory prefix ending in `/` so `termic-hooks-old/` is not ours.
pub fn command_has_prefix(command: &str, prefix: &str) -> bool {
    first_shell_word(command).is_some_and(|word| word.starts_with(prefix))
}

/// The first word of a POSIX shell command with its quoting removed
/// (single quotes, double quotes with `\` escapes, bare `\` escapes).
/// `None` for an empty command or an unterminated quote.
pub fn first_shell_word(command: &str) -> Option<String> {
    let mut chars = command.trim_start_matches([' ', '\t', '\n']).chars();
    let mut word = String::new();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | ';' | '&' | '|' => break,
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        c @ ('"' | '\\' | '$' | '`') => word.push(c),
                        '\n' => {}
                        c => {
                            word.push('\\');
                            word.push(c);
                        }
                    },
                    c => word.push(c),
                }
            },
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(c) => word.push(c),
            },
            c => word.push(c),
        }
    }
    (!word.is_empty()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFIX: &str = "/home/o'brien x/.claude/termic-hooks/";

    #[test]
    fn plain_single_and_double_quoted_paths_are_recognised() {
        assert!(command_has_prefix(
            "/h/.claude/termic-hooks/stop.sh",
            "/h/.claude/termic-hooks/"
        ));
        assert!(command_has_prefix(
            r"'/home/o'\''brien x/.claude/termic-hooks/stop.sh'",
            PREFIX
        ));
        assert!(command_has_prefix(
            r#""/home/o'brien x/.claude/termic-hooks/stop.sh" --flag"#,
            PREFIX
        ));
        assert!(command_has_prefix(
            r"/home/o\'brien\ x/.claude/termic-hooks/stop.sh",
            PREFIX
        ));
    }

    #[test]
    fn other_commands_are_not_ours() {
        assert!(!command_has_prefix(
            "/h/.claude/termic-hooks-old/stop.sh",
            "/h/.claude/termic-hooks/"
        ));
        assert!(!command_has_prefix(
            "echo /h/.claude/termic-hooks/stop.sh",
            "/h/.claude/termic-hooks/"
        ));
        assert!(!command_has_prefix(
            "'/h/.claude/termic-hooks/unterminated",
            "/h/.claude/termic-hooks/"
        ));
        assert!(!command_has_prefix("", "/h/"));
    }

    #[test]
    fn first_word_stops_at_blanks_and_operators() {
        assert_eq!(first_shell_word("  a\\ b c").as_deref(), Some("a b"));
        assert_eq!(first_shell_word("x;y").as_deref(), Some("x"));
        assert_eq!(first_shell_word(r#""a\"b\$""#).as_deref(), Some("a\"b$"));
    }
}
