//! Printed text is data: the one rule for making text that came from
//! outside termic (a task's output or name, a program name, a file or
//! directory name, a config value) safe to show on a terminal, in the TUI,
//! in the CLI's output and errors, and in a notification.
//!
//! What a terminal would act on instead of showing is dropped: C0 controls
//! (ESC, BEL, ...), DEL, C1 controls (U+0080..U+009F, which some terminals
//! run as 8-bit CSI/OSC even in UTF-8) and the bidirectional controls (they
//! reorder what the user reads: `txt.exe` shown as `exe.txt`). Line breaks
//! and tabs become spaces in a one-line field ([`clean_line`]); text of
//! several lines keeps its newlines ([`clean_lines`]).

use std::borrow::Cow;

/// The bidirectional controls: embeddings and overrides (U+202A..U+202E),
/// isolates (U+2066..U+2069), and the marks (LRM, RLM, ALM).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A character that never reaches a terminal as is: C0, DEL, C1
/// (`char::is_control`) and the bidirectional controls.
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// One-line text: CR, LF and tab become a space, every other
/// [`is_unprintable`] character is removed. Borrowed when nothing changes.
pub fn clean_line(raw: &str) -> Cow<'_, str> {
    clean(raw, false)
}

/// Text of several lines: as [`clean_line`], but LF stays a line break
/// (tabs and CRs still become spaces: a CR would let a line overwrite
/// itself).
pub fn clean_lines(raw: &str) -> Cow<'_, str> {
    clean(raw, true)
}

fn clean(raw: &str, keep_newlines: bool) -> Cow<'_, str> {
    let changed = |c: char| is_unprintable(c) && !(keep_newlines && c == '\n');
    if !raw.chars().any(changed) {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(
        raw.chars()
            .filter_map(|c| match c {
                '\n' if keep_newlines => Some('\n'),
                '\n' | '\r' | '\t' => Some(' '),
                c if is_unprintable(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_lose_their_escape_and_bel() {
        // The clipboard write and the screen clear of issue 27's directory.
        let raw = "dir\x1b]52;c;aGk=\x07\x1b[2J";
        assert_eq!(clean_line(raw), "dir]52;c;aGk=[2J");
    }

    #[test]
    fn a_lone_escape_and_del_are_removed() {
        assert_eq!(clean_line("a\x1b"), "a");
        assert_eq!(clean_line("\x1bb"), "b");
        assert_eq!(clean_line("c\x7fd"), "cd");
    }

    #[test]
    fn c1_controls_are_removed() {
        // U+009B is an 8-bit CSI, U+009D an 8-bit OSC, U+0085 NEL.
        assert_eq!(clean_line("a\u{9b}2Jb\u{9d}0;x\u{9c}c\u{85}d"), "a2Jb0;xcd");
        assert_eq!(clean_line("\u{80}\u{9f}"), "");
        // Their neighbours are ordinary letters.
        assert_eq!(clean_line("\u{7e}\u{a0}\u{e9}"), "\u{7e}\u{a0}\u{e9}");
    }

    #[test]
    fn bidirectional_controls_are_removed() {
        let raw = "approve \u{202E}txt.exe\u{202C} \u{2066}x\u{2069}\u{200E}\u{200F}\u{061C}y";
        assert_eq!(clean_line(raw), "approve txt.exe xy");
        assert_eq!(clean_lines(raw), "approve txt.exe xy");
    }

    #[test]
    fn a_one_line_field_turns_breaks_and_tabs_into_spaces() {
        assert_eq!(clean_line("a\nb\r\nc\td"), "a b  c d");
    }

    #[test]
    fn several_lines_keep_their_newlines_only() {
        assert_eq!(clean_lines("a\nb\r\nc\td\x1b[Ke"), "a\nb \nc d[Ke");
    }

    #[test]
    fn clean_text_is_borrowed_unchanged() {
        let text = "review (claude) needs you: approve Write: src/main.rs \u{2026} \u{1f600}";
        assert!(matches!(clean_line(text), Cow::Borrowed(t) if t == text));
        assert!(matches!(clean_lines("a\nb"), Cow::Borrowed("a\nb")));
    }
}
