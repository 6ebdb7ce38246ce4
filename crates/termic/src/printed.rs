//! Everything termic's commands write to a terminal goes through here:
//! [`outln!`] and [`out!`] for stdout, [`errln!`] for stderr, and
//! [`json_text`] for JSON. Text termic prints carries names from outside
//! (a task's name, a program, a directory a repository was cloned into, a
//! config path, a recording's contents, a server's error), so the whole
//! text is cleaned where it is written with termic-signal's one rule
//! ([`termic_signal::text`], also the TUI's): no ESC, BEL, other C0
//! control, DEL, C1 control or bidirectional control reaches the terminal;
//! newlines stay. A test below keeps every other `println!`, `eprintln!`
//! and raw stdout/stderr out of the crate, so a new command cannot forget.

use std::io::{self, Write};

use serde::Serialize;
pub use termic_signal::text::{clean_line, clean_lines, is_unprintable};

/// Writes `text` to stdout, cleaned ([`clean_lines`]), and flushes. A
/// closed pipe (`termic ls | head`) is not an error.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out
        .write_all(clean_lines(text).as_bytes())
        .and_then(|()| out.flush())
    {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes `text` to stderr, cleaned ([`clean_lines`]). Errors are ignored:
/// there is nowhere left to report them, and the server's stderr is
/// server.log, which a full disk must not turn into a panic (as
/// `eprintln!` would).
pub fn write_stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(clean_lines(text).as_bytes());
    let _ = err.flush();
}

/// `print!` for termic: the formatted text, cleaned, to stdout. Returns
/// `io::Result<()>`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::printed::write_stdout(&format!($($arg)*))
    };
}

/// `println!` for termic: the formatted line, cleaned, to stdout. Returns
/// `io::Result<()>`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::printed::write_stdout(&(format!($($arg)*) + "\n"))
    };
}

/// `eprintln!` for termic: the formatted line, cleaned, to stderr.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::printed::write_stderr(&(format!($($arg)*) + "\n"))
    };
}

pub(crate) use {errln, out, outln};

/// `err` and its causes on one line, as `{:#}` prints them, without a
/// cause the text before it already quotes. Most of termic's errors name
/// their cause in their own text ("cannot read X: Permission denied") and
/// keep it as their source too, so `{:#}` said it twice.
pub fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.is_empty() {
            text = part;
        } else if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}

/// `value` as pretty JSON whose strings cannot drive a terminal either:
/// serde_json escapes C0 controls, and the other characters
/// [`is_unprintable`] holds (DEL, C1, bidirectional controls) are written
/// as `\uXXXX` too. The JSON means the same (a consumer decodes the same
/// strings); only what a terminal shows of it changes.
pub fn json_text(value: &impl Serialize) -> serde_json::Result<String> {
    serde_json::to_string_pretty(value).map(|json| escape_json(&json))
}

/// [`json_text`] on one line (JSON Lines).
pub fn json_line(value: &impl Serialize) -> serde_json::Result<String> {
    serde_json::to_string(value).map(|json| escape_json(&json))
}

/// Outside its strings JSON holds only ASCII punctuation, letters, digits
/// and whitespace, so every unprintable character of serde_json's output
/// other than its own line breaks is inside a string, where `\uXXXX` means
/// the character itself. All of them are in the Basic Multilingual Plane.
fn escape_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if is_unprintable(c) && c != '\n' {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_says_its_cause_once_whether_or_not_its_text_quotes_it() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot run git: {0} (install git or put it on PATH)")]
        struct Quotes(#[source] std::io::Error);
        let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let quoted = anyhow::Error::from(Quotes(missing())).context("cannot open the diff");
        assert_eq!(
            error_text(&quoted),
            format!(
                "cannot open the diff: cannot run git: {} (install git or put it on PATH)",
                missing()
            )
        );
        assert_eq!(
            format!("{quoted:#}")
                .matches(&missing().to_string())
                .count(),
            2
        );
        let plain = anyhow::Error::from(missing()).context("cannot read a.toml");
        assert_eq!(error_text(&plain), format!("{plain:#}"));
    }

    #[test]
    fn json_escapes_c1_del_and_bidi_and_still_means_the_same() {
        let name = "a\u{9b}2J\u{7f}\u{202e}b\x1b]52;c;x\x07\n";
        let json = json_text(&serde_json::json!([{ "name": name }])).unwrap();
        assert!(
            !json.chars().any(|c| is_unprintable(c) && c != '\n'),
            "{json}"
        );
        assert!(
            json.contains(r"a\u009b2J\u007f\u202eb\u001b]52;c;x\u0007\n"),
            "{json}"
        );
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0]["name"], name);
        let line = json_line(&name).unwrap();
        assert!(
            !line.contains('\n') && !line.chars().any(is_unprintable),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<String>(&line).unwrap(), name);
    }

    /// Every write to the terminal in this crate goes through this module:
    /// no `println!`, `print!`, `eprintln!`, `eprint!` or raw stdout or
    /// stderr elsewhere, outside the TUI's terminal (app/terminal.rs, which
    /// writes screen frames and restores the terminal) and
    /// clap's completion scripts (generated from termic's own arguments)
    /// and `termic server bridge` (protocol bytes to ssh's pipe, never a
    /// terminal, which cleaning would corrupt).
    /// termic-runtime writes nothing at all: what it has to say is an event
    /// (`RuntimeEvent::Log`, `Notice`) or an error the binary prints.
    #[test]
    fn no_command_writes_to_the_terminal_around_the_cleaner() {
        let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let ours = [
            "printed.rs",
            "app/terminal.rs",
            "commands/completions.rs",
            "server/bridge.rs",
        ];
        let mut found = Vec::new();
        for (src, allowed) in [
            (crate_dir.join("src"), &ours[..]),
            (crate_dir.join("../termic-runtime/src"), &[][..]),
        ] {
            found.extend(terminal_writes(&src, allowed));
        }
        assert!(
            found.is_empty(),
            "write through crate::printed (outln!, errln!, json_text):\n{}",
            found.join("\n")
        );
    }

    /// The lines of `src`'s files (but `allowed`) that write to the terminal.
    fn terminal_writes(src: &std::path::Path, allowed: &[&str]) -> Vec<String> {
        let forbidden = [
            "print!(",
            "println!(",
            "eprint!(",
            "eprintln!(",
            "io::stdout()",
            "io::stderr()",
        ];
        let mut found = Vec::new();
        let mut dirs = vec![src.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let rel = path.strip_prefix(src).unwrap().to_string_lossy();
                if !rel.ends_with(".rs") || allowed.contains(&rel.as_ref()) {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    if forbidden.iter().any(|f| code.contains(f)) {
                        found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                }
            }
        }
        found
    }
}
