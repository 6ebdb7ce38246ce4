//! A line diff of a file's bytes before and after a plan, in unified
//! style, for the user to read before termic writes anything. Pure: bytes
//! in, lines of text out.
//!
//! The common head and tail are trimmed first (an install adds one block
//! to a settings file), then the middle is a longest common subsequence
//! over lines. A middle too large for that table is shown as all removed,
//! then all added: still exact, only less tidy.

/// What a line of the diff does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Keep,
    Remove,
    Add,
}

/// Cells of the LCS table beyond which the middle is shown as replaced.
const MAX_TABLE: usize = 4_000_000;

/// The lines of `text`, each with its `\n` (the last may have none).
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The edit script turning `old` into `new`, line by line.
pub fn line_ops<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<(Op, &'a str)> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let mut ops: Vec<(Op, &str)> = old[..head].iter().map(|l| (Op::Keep, *l)).collect();
    if a.len().saturating_mul(b.len()) > MAX_TABLE {
        ops.extend(a.iter().map(|l| (Op::Remove, *l)));
        ops.extend(b.iter().map(|l| (Op::Add, *l)));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let w = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * w];
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
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                ops.push((Op::Keep, a[i]));
                i += 1;
                j += 1;
            } else if i < a.len() && (j == b.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                // Removals before additions, as diff(1) shows them.
                ops.push((Op::Remove, a[i]));
                i += 1;
            } else {
                ops.push((Op::Add, b[j]));
                j += 1;
            }
        }
    }
    ops.extend(old[old.len() - tail..].iter().map(|l| (Op::Keep, *l)));
    ops
}

/// The hunks of a unified diff of `old` against `new` (no file header):
/// `@@ -1,3 +1,5 @@` lines, then lines prefixed ` `, `-` or `+`, with
/// `context` unchanged lines around each change. At most `max_lines`
/// lines are returned; the rest become one `... N more lines` line.
/// Identical bytes give no lines. Bytes that are not UTF-8 are shown
/// lossily; a last line without a newline is followed by
/// `\ No newline at end of file`.
pub fn unified(old: &[u8], new: &[u8], context: usize, max_lines: usize) -> Vec<String> {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let ops = line_ops(&lines(&old), &lines(&new));
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != Op::Keep).collect();
    let mut out = Vec::new();
    // Each hunk: the range of ops it shows, changes plus context, with
    // hunks whose context would touch merged into one.
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(context);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * context + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + context + 1).min(ops.len());
        let before = |op: Op| ops[..start].iter().filter(|(o, _)| *o != op).count();
        let (old_start, new_start) = (before(Op::Add), before(Op::Remove));
        let count = |op: Op| ops[start..end].iter().filter(|(o, _)| *o != op).count();
        let (old_n, new_n) = (count(Op::Add), count(Op::Remove));
        // Unified diff numbers an empty side by the line before it.
        let from = |s: usize, n: usize| if n == 0 { s } else { s + 1 };
        out.push(format!(
            "@@ -{},{old_n} +{},{new_n} @@",
            from(old_start, old_n),
            from(new_start, new_n)
        ));
        for (op, line) in &ops[start..end] {
            let mark = match op {
                Op::Keep => ' ',
                Op::Remove => '-',
                Op::Add => '+',
            };
            let text = line.strip_suffix('\n').unwrap_or(line);
            out.push(format!("{mark}{}", text.strip_suffix('\r').unwrap_or(text)));
            if !line.ends_with('\n') {
                out.push("\\ No newline at end of file".to_string());
            }
        }
    }
    if out.len() > max_lines {
        let more = out.len() - max_lines;
        out.truncate(max_lines);
        out.push(format!(
            "... {more} more line{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(old: &str, new: &str) -> Vec<String> {
        unified(old.as_bytes(), new.as_bytes(), 3, 1000)
    }

    #[test]
    fn an_unchanged_file_has_no_diff() {
        assert!(diff("", "").is_empty());
        assert!(diff("a\nb\n", "a\nb\n").is_empty());
    }

    #[test]
    fn an_insertion_is_shown_with_its_context() {
        let old = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let new = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"hooks\": {}\n}\n";
        assert_eq!(
            diff(old, new),
            [
                "@@ -1,4 +1,5 @@",
                " {",
                "   \"a\": 1,",
                "-  \"b\": 2",
                "+  \"b\": 2,",
                "+  \"hooks\": {}",
                " }",
            ]
        );
    }

    #[test]
    fn a_deletion_far_from_the_start_gets_three_lines_of_context() {
        let old: String = (1..=10).map(|n| format!("{n}\n")).collect();
        let new = old.replace("6\n", "");
        assert_eq!(
            diff(&old, &new),
            ["@@ -3,7 +3,6 @@", " 3", " 4", " 5", "-6", " 7", " 8", " 9"]
        );
    }

    #[test]
    fn distant_changes_make_two_hunks_and_near_ones_one() {
        let numbers = |changed: &[u32]| -> String {
            (1..=20)
                .map(|n| match changed.contains(&n) {
                    true => format!("changed {n}\n"),
                    false => format!("{n}\n"),
                })
                .collect()
        };
        let old = numbers(&[]);
        let two = numbers(&[2, 18]);
        let d = diff(&old, &two);
        let hunks: Vec<&String> = d.iter().filter(|l| l.starts_with("@@")).collect();
        assert_eq!(hunks, ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"], "{d:?}");
        // Six unchanged lines between two changes: one hunk.
        let one = numbers(&[2, 9]);
        let d = diff(&old, &one);
        assert_eq!(d.iter().filter(|l| l.starts_with("@@")).count(), 1, "{d:?}");
    }

    #[test]
    fn empty_to_content_is_all_added_and_back_all_removed() {
        assert_eq!(diff("", "x\ny\n"), ["@@ -0,0 +1,2 @@", "+x", "+y"]);
        assert_eq!(diff("x\ny\n", ""), ["@@ -1,2 +0,0 @@", "-x", "-y"]);
    }

    #[test]
    fn a_missing_final_newline_is_said() {
        assert_eq!(
            diff("a\nb", "a\nb\n"),
            [
                "@@ -1,2 +1,2 @@",
                " a",
                "-b",
                "\\ No newline at end of file",
                "+b"
            ]
        );
    }

    #[test]
    fn a_long_diff_is_cut_and_says_how_many_lines_are_left_out() {
        let new: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        let d = unified(b"", new.as_bytes(), 3, 10);
        assert_eq!(d.len(), 11);
        assert_eq!(d[0], "@@ -0,0 +1,100 @@");
        assert_eq!(d[9], "+line 9");
        assert_eq!(d[10], "... 91 more lines");
        let d = unified(b"", b"a\nb\n", 3, 2);
        assert_eq!(d, ["@@ -0,0 +1,2 @@", "+a", "... 1 more line"]);
    }

    #[test]
    fn a_middle_too_large_for_the_table_is_replaced_whole() {
        let old: String = (0..2100).map(|n| format!("o{n}\n")).collect();
        let new: String = (0..2100).map(|n| format!("n{n}\n")).collect();
        let ops = line_ops(&lines(&old), &lines(&new));
        assert_eq!(ops.len(), 4200);
        assert!(ops[..2100].iter().all(|(o, _)| *o == Op::Remove));
        assert!(ops[2100..].iter().all(|(o, _)| *o == Op::Add));
    }

    #[test]
    fn the_ops_rebuild_both_sides() {
        let old = "a\nb\nc\nd\ne\nf\n";
        let new = "a\nx\nc\ne\ny\nf\nz\n";
        let ops = line_ops(&lines(old), &lines(new));
        let side = |skip: Op| -> String {
            ops.iter()
                .filter(|(o, _)| *o != skip)
                .map(|(_, l)| *l)
                .collect()
        };
        assert_eq!(side(Op::Add), old);
        assert_eq!(side(Op::Remove), new);
        // Minimal: a, c, e, f are kept.
        assert_eq!(ops.iter().filter(|(o, _)| *o == Op::Keep).count(), 4);
    }
}
