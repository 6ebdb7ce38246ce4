//! Syntax colours for the diff view (issue 32), pure: a file's name and
//! lines in, for each line the byte ranges of its keywords, strings,
//! comments and so on out. syntect's parser with the syntaxes it ships
//! (docs/decisions.md says why); the view maps each [`Class`] to a colour
//! and cleans every piece of text before it draws it (the ranges are over
//! the raw text, hostile bytes and all).
//!
//! A hunk is parsed twice from its first line: its old side (context and
//! removed lines) and its new side (context and added lines), so a string
//! opened in a removed line does not colour the added ones after it.

use std::ops::Range;
use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use super::model::{Hunk, LineKind};

/// Lines longer than this are not coloured (a minified file's one line,
/// and fancy-regex's backtracking, cost too much for a view).
pub const MAX_LINE: usize = 1_000;
/// Hunks longer than this are not coloured.
pub const MAX_HUNK_LINES: usize = 2_000;

/// What a piece of code is; the view picks its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Keyword,
    String,
    Comment,
    Number,
    /// `true`, `None`, a character literal.
    Constant,
    Function,
    Type,
}

/// One coloured piece of a line: a byte range of its raw text.
pub type Spans = Vec<(Range<usize>, Class)>;

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The scopes each class is found by, innermost scope first.
fn classes() -> &'static [(Scope, Class)] {
    static CLASSES: OnceLock<Vec<(Scope, Class)>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        [
            ("comment", Class::Comment),
            ("string", Class::String),
            ("constant.numeric", Class::Number),
            ("constant.language", Class::Constant),
            ("constant.character", Class::Constant),
            ("keyword.operator", Class::Keyword),
            ("keyword", Class::Keyword),
            ("storage", Class::Keyword),
            ("entity.name.function", Class::Function),
            ("support.function", Class::Function),
            ("entity.name.type", Class::Type),
            ("entity.name.struct", Class::Type),
            ("entity.name.enum", Class::Type),
            ("entity.name.class", Class::Type),
            ("support.type", Class::Type),
            ("support.class", Class::Type),
        ]
        .iter()
        .filter_map(|(s, c)| Scope::new(s).ok().map(|s| (s, *c)))
        .collect()
    })
}

fn class_of(stack: &ScopeStack) -> Option<Class> {
    for scope in stack.as_slice().iter().rev() {
        if let Some((_, class)) = classes().iter().find(|(s, _)| s.is_prefix_of(*scope)) {
            // An operator is drawn plain (`keyword.operator` comes before
            // `keyword` so it is not taken for a keyword).
            return (!Scope::new("keyword.operator").is_ok_and(|op| op.is_prefix_of(*scope)))
                .then_some(*class);
        }
    }
    None
}

/// The syntax of a file by its name's extension (or its whole name, for
/// `Makefile` and the like); `None`: not coloured.
fn syntax_for(path: &str) -> Option<&'static SyntaxReference> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let set = syntaxes();
    name.rsplit_once('.')
        .and_then(|(_, ext)| set.find_syntax_by_extension(ext))
        .or_else(|| set.find_syntax_by_extension(name))
        .filter(|s| s.name != "Plain Text")
}

/// Whether a file of this name gets colours.
pub fn knows(path: &str) -> bool {
    syntax_for(path).is_some()
}

/// The spans of consecutive lines of one file, parsed from the first
/// (pure). A line too long, or one the parser fails on, gets none and the
/// parse goes on from a fresh state.
pub fn lines(path: &str, lines: &[&str]) -> Vec<Spans> {
    let Some(syntax) = syntax_for(path) else {
        return vec![Vec::new(); lines.len()];
    };
    let set = syntaxes();
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = Vec::with_capacity(lines.len());
    let mut buf = String::new();
    for line in lines {
        if line.len() > MAX_LINE || lines.len() > MAX_HUNK_LINES {
            out.push(Vec::new());
            continue;
        }
        buf.clear();
        buf.push_str(line);
        buf.push('\n');
        let Ok(ops) = state.parse_line(&buf, set) else {
            state = ParseState::new(syntax);
            stack = ScopeStack::new();
            out.push(Vec::new());
            continue;
        };
        let mut spans: Spans = Vec::new();
        let mut at = 0;
        let mut push = |range: Range<usize>, stack: &ScopeStack| {
            let range = range.start.min(line.len())..range.end.min(line.len());
            if range.is_empty() {
                return;
            }
            if let Some(class) = class_of(stack) {
                match spans.last_mut() {
                    Some((r, c)) if *c == class && r.end == range.start => r.end = range.end,
                    _ => spans.push((range, class)),
                }
            }
        };
        for (pos, op) in ops {
            push(at..pos, &stack);
            at = pos;
            if stack.apply(&op).is_err() {
                stack = ScopeStack::new();
            }
        }
        push(at..buf.len(), &stack);
        out.push(spans);
    }
    out
}

/// The spans of every line of a hunk: removed lines from its old side,
/// added and context lines from its new side (pure).
pub fn hunk(path: &str, hunk: &Hunk) -> Vec<Spans> {
    let mut out = vec![Vec::new(); hunk.lines.len()];
    if !knows(path) {
        return out;
    }
    for keep in [LineKind::Removed, LineKind::Added] {
        let picked: Vec<usize> = (0..hunk.lines.len())
            .filter(|&i| matches!(hunk.lines[i].kind, k if k == keep || k == LineKind::Context))
            .collect();
        let texts: Vec<&str> = picked
            .iter()
            .map(|&i| hunk.lines[i].text.as_str())
            .collect();
        for (i, spans) in picked.into_iter().zip(lines(path, &texts)) {
            // Context lines: the new side's spans (written last).
            out[i] = spans;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::model::{parse_numstat, parse_patch};

    fn classes_in(line: &str, spans: &Spans) -> Vec<(String, Class)> {
        spans
            .iter()
            .map(|(r, c)| (line[r.clone()].to_owned(), *c))
            .collect()
    }

    #[test]
    fn a_rust_and_a_python_hunk_get_keyword_string_and_comment_classes() {
        let entries = parse_numstat(b"1\t1\tsrc/a.rs\x001\t0\tb.py\x00");
        let patch = b"diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
@@ -1,2 +1,2 @@\n fn main() {\n-    let s = \"old\"; // gone\n+    let s = \"new\"; // here\n\
diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1,2 @@\n import os\n+def run(): return None  # x\n";
        let c = parse_patch(&entries, patch, false);
        let rs = &c.files[0].hunks[0];
        let spans = hunk("src/a.rs", rs);
        let added = classes_in(&rs.lines[2].text, &spans[2]);
        assert!(added.contains(&("let".into(), Class::Keyword)), "{added:?}");
        assert!(
            added
                .iter()
                .any(|(t, c)| t.contains("new") && *c == Class::String),
            "{added:?}"
        );
        assert!(
            added
                .iter()
                .any(|(t, c)| t.contains("// here") && *c == Class::Comment),
            "{added:?}"
        );
        let removed = classes_in(&rs.lines[1].text, &spans[1]);
        assert!(
            removed.contains(&("let".into(), Class::Keyword)),
            "{removed:?}"
        );
        let context = classes_in(&rs.lines[0].text, &spans[0]);
        assert!(
            context.contains(&("fn".into(), Class::Keyword)),
            "{context:?}"
        );
        let py = &c.files[1].hunks[0];
        let spans = hunk("b.py", py);
        let import = classes_in(&py.lines[0].text, &spans[0]);
        assert!(
            import.contains(&("import".into(), Class::Keyword)),
            "{import:?}"
        );
        let def = classes_in(&py.lines[1].text, &spans[1]);
        assert!(def.contains(&("def".into(), Class::Keyword)), "{def:?}");
        assert!(def.contains(&("return".into(), Class::Keyword)), "{def:?}");
        assert!(def.contains(&("None".into(), Class::Constant)), "{def:?}");
        assert!(def.contains(&("run".into(), Class::Function)), "{def:?}");
    }

    #[test]
    fn a_string_opened_in_a_removed_line_does_not_colour_the_added_ones() {
        let entries = parse_numstat(b"1\t1\ta.py\x00");
        let patch = b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = \"\"\"open\n+x = 1\n";
        let c = parse_patch(&entries, patch, false);
        let h = &c.files[0].hunks[0];
        let spans = hunk("a.py", h);
        let added = classes_in(&h.lines[1].text, &spans[1]);
        assert_eq!(added, vec![("1".to_owned(), Class::Number)], "{added:?}");
    }

    #[test]
    fn unknown_files_long_lines_and_hostile_bytes_are_safe() {
        assert!(!knows("notes.unknownext"));
        assert_eq!(lines("x.unknownext", &["fn a"]), vec![Vec::new()]);
        let long = "a".repeat(MAX_LINE + 1);
        assert_eq!(lines("a.rs", &[&long]), vec![Vec::new()]);
        // Ranges stay on char boundaries of the raw text, escapes and all.
        let hostile = "let s = \"\u{1b}]0;pwned\u{7}\u{202e}é\"; \u{1b}[2J";
        let spans = lines("a.rs", &[hostile]);
        for (r, _) in &spans[0] {
            assert!(hostile.get(r.clone()).is_some(), "{r:?}");
        }
        assert!(
            spans[0].iter().any(|(_, c)| *c == Class::String),
            "{spans:?}"
        );
    }
}
