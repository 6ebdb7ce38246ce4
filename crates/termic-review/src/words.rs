//! Changed words within a changed line pair (pure): a token-level LCS,
//! bounded in size, so the diff view can highlight what differs in a
//! line that was replaced. Text is raw here; the view cleans each piece
//! before it draws it.

use crate::model::{Line, LineKind};

/// The most tokens on each side of a pair; past it the whole line is
/// highlighted (the LCS table is `a * b` cells).
pub const MAX_TOKENS: usize = 200;

/// A piece of a line, and whether it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub text: String,
    pub changed: bool,
}

/// Words (letters, digits, `_`), runs of spaces, and any other single
/// character each make a token.
fn tokens(s: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c == ' ' || c == '\t' {
            1
        } else {
            2
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut last: Option<u8> = None;
    for (i, c) in s.char_indices() {
        let k = class(c);
        if last.is_some_and(|l| l != k || k == 2) {
            out.push(&s[start..i]);
            start = i;
        }
        last = Some(k);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

fn merge(pieces: &mut Vec<Piece>, text: &str, changed: bool) {
    match pieces.last_mut() {
        Some(p) if p.changed == changed => p.text.push_str(text),
        _ => pieces.push(Piece {
            text: text.to_owned(),
            changed,
        }),
    }
}

/// The old and the new line as pieces, changed or not; `None` when a
/// line has more than [`MAX_TOKENS`] tokens (highlight the whole line).
pub fn word_diff(old: &str, new: &str) -> Option<(Vec<Piece>, Vec<Piece>)> {
    let a = tokens(old);
    let b = tokens(new);
    if a.len() > MAX_TOKENS || b.len() > MAX_TOKENS {
        return None;
    }
    // lcs[i][j]: the LCS length of a[i..] and b[j..].
    let w = b.len() + 1;
    let mut lcs = vec![0u16; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let (mut left, mut right) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            merge(&mut left, a[i], false);
            merge(&mut right, b[j], false);
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]) {
            merge(&mut right, b[j], true);
            j += 1;
        } else {
            merge(&mut left, a[i], true);
            i += 1;
        }
    }
    Some((left, right))
}

/// For each line of a hunk, the line it pairs with: in a run of removed
/// lines followed by a run of added lines of the same length, the n-th
/// removed line pairs with the n-th added line.
pub fn pairs(lines: &[Line]) -> Vec<Option<usize>> {
    let mut out = vec![None; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind != LineKind::Removed {
            i += 1;
            continue;
        }
        let removed = i;
        while i < lines.len() && lines[i].kind == LineKind::Removed {
            i += 1;
        }
        let added = i;
        while i < lines.len() && lines[i].kind == LineKind::Added {
            i += 1;
        }
        if added - removed == i - added {
            for k in 0..added - removed {
                out[removed + k] = Some(added + k);
                out[added + k] = Some(removed + k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(pieces: &[Piece]) -> Vec<&str> {
        pieces
            .iter()
            .filter(|p| p.changed)
            .map(|p| p.text.as_str())
            .collect()
    }

    fn joined(pieces: &[Piece]) -> String {
        pieces.iter().map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn only_the_changed_words_are_marked_and_the_lines_are_whole() {
        let (l, r) = word_diff("let x = foo(1);", "let y = foo(2);").unwrap();
        assert_eq!(changed(&l), ["x", "1"]);
        assert_eq!(changed(&r), ["y", "2"]);
        assert_eq!(joined(&l), "let x = foo(1);");
        assert_eq!(joined(&r), "let y = foo(2);");
    }

    #[test]
    fn equal_lines_have_no_change_and_an_insertion_marks_only_the_new_words() {
        let (l, r) = word_diff("a b", "a b").unwrap();
        assert!(changed(&l).is_empty() && changed(&r).is_empty());
        let (l, r) = word_diff("call(a)", "call(a, b)").unwrap();
        assert!(changed(&l).is_empty());
        assert_eq!(changed(&r), [", b"]);
    }

    #[test]
    fn wide_characters_split_on_char_boundaries() {
        let (l, r) = word_diff("名前 = 値", "名前 = 新しい値").unwrap();
        assert!(changed(&l).contains(&"値"));
        assert_eq!(changed(&r), ["新しい値"]);
        assert_eq!(joined(&r), "名前 = 新しい値");
        let (_, r) = word_diff("a 🎉 b", "a 🎊 b").unwrap();
        assert_eq!(changed(&r), ["🎊"]);
    }

    #[test]
    fn control_bytes_are_tokens_kept_raw_for_the_view_to_clean() {
        let (l, r) = word_diff("x\x1b[2Jy", "x\x1b[31my").unwrap();
        assert_eq!(joined(&l), "x\x1b[2Jy");
        assert!(changed(&l).concat().contains("2J"));
        assert!(changed(&r).concat().contains("31m"));
    }

    #[test]
    fn long_lines_fall_back_to_the_whole_line() {
        let long = "a ".repeat(MAX_TOKENS);
        assert!(word_diff(&long, "a").is_none());
        assert!(word_diff("a", &long).is_none());
        let fits = "a ".repeat(MAX_TOKENS / 2);
        assert!(word_diff(&fits, &fits).is_some());
    }

    fn line(kind: LineKind) -> Line {
        Line {
            kind,
            old: None,
            new: None,
            text: String::new(),
            bytes: None,
        }
    }

    #[test]
    fn removed_and_added_runs_of_one_length_pair_line_by_line() {
        use LineKind::*;
        let lines: Vec<Line> = [
            Context, Removed, Removed, Added, Added, Context, Removed, Added, Added,
        ]
        .into_iter()
        .map(line)
        .collect();
        let p = pairs(&lines);
        assert_eq!(
            p,
            [
                None,
                Some(3),
                Some(4),
                Some(1),
                Some(2),
                None,
                None,
                None,
                None
            ]
        );
    }
}
