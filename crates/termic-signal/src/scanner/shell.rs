//! OSC 133 shell-integration marks (FinalTerm's protocol, as kitty, WezTerm,
//! Ghostty, iTerm2 and VS Code read it): `133;A` prompt start, `133;B` prompt
//! end (the user types the command), `133;C` the command's output starts,
//! `133;D[;status]` the command ended with that exit status.
//!
//! Options after the letter (`A;aid=..`, `D;0;err=..`, kitty's `C;cmdline=..`)
//! are tolerated and dropped: termic uses the letter and D's status only. A D
//! whose status is not a number still ends the command, status unknown.

use crate::signal::{ShellMark, Signal};

/// Parse the parameters after `133`.
pub(super) fn parse(rest: &[&[u8]]) -> Option<Signal> {
    let (&letter, options) = rest.split_first()?;
    let mark = match letter {
        b"A" => ShellMark::PromptStart,
        b"B" => ShellMark::PromptEnd,
        b"C" => ShellMark::CommandStart,
        b"D" => ShellMark::CommandEnd {
            status: options
                .first()
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.parse().ok()),
        },
        // `133;P` (prompt kind), `133;L` and unknown letters: not marks termic uses.
        _ => return None,
    };
    Some(Signal::ShellMark(mark))
}

#[cfg(test)]
mod tests {
    use crate::scanner::Scanner;
    use crate::signal::{ShellMark, Signal};

    fn scan(bytes: &[u8]) -> Vec<Signal> {
        let mut out = Vec::new();
        Scanner::new().feed(bytes, &mut out);
        out
    }

    #[test]
    fn every_mark_with_either_terminator() {
        assert_eq!(
            scan(b"\x1b]133;A\x07\x1b]133;B\x1b\\\x1b]133;C\x07\x1b]133;D;1\x07"),
            [
                Signal::ShellMark(ShellMark::PromptStart),
                Signal::ShellMark(ShellMark::PromptEnd),
                Signal::ShellMark(ShellMark::CommandStart),
                Signal::ShellMark(ShellMark::CommandEnd { status: Some(1) }),
            ]
        );
    }

    #[test]
    fn options_are_dropped_and_a_bad_status_is_unknown() {
        assert_eq!(
            scan(b"\x1b]133;D;x\x07\x1b]133;D\x07\x1b]133;A;aid=7\x07\x1b]133;Q\x07"),
            [
                Signal::ShellMark(ShellMark::CommandEnd { status: None }),
                Signal::ShellMark(ShellMark::CommandEnd { status: None }),
                Signal::ShellMark(ShellMark::PromptStart),
            ]
        );
    }

    #[test]
    fn a_mark_split_across_reads_is_seen_once() {
        let mut scanner = Scanner::new();
        let mut out = Vec::new();
        scanner.feed(b"\x1b]13", &mut out);
        scanner.feed(b"3;D;130\x07", &mut out);
        assert_eq!(
            out,
            [Signal::ShellMark(ShellMark::CommandEnd {
                status: Some(130)
            })]
        );
    }
}
