//! A task's changes as data (pure): `git diff --numstat -z` and the
//! unified patch of the same diff, parsed into files, hunks and lines.

use serde::{Deserialize, Serialize};

/// `+12 -3, 2 files`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    pub added: u64,
    pub removed: u64,
    pub files: usize,
}

impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.files == 1 { "" } else { "s" };
        write!(
            f,
            "+{} -{}, {} file{s}",
            self.added, self.removed, self.files
        )
    }
}

/// One file of `git diff --numstat -z`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumstatEntry {
    pub path: String,
    /// The name before a rename.
    pub old_path: Option<String>,
    /// `None` for a binary file (git prints `-`).
    pub added: Option<u64>,
    pub removed: Option<u64>,
}

/// Parses `git diff --numstat -z` (pure). A record is
/// `ADDED\tREMOVED\tPATH\0`, or for a rename `ADDED\tREMOVED\t\0OLD\0NEW\0`;
/// a binary file's counts are `-`. A torn last record is left out.
pub fn parse_numstat(bytes: &[u8]) -> Vec<NumstatEntry> {
    // Only whole fields: what follows the last NUL is torn.
    let Some(end) = bytes.iter().rposition(|b| *b == 0) else {
        return Vec::new();
    };
    let mut fields = bytes[..end].split(|b| *b == 0);
    let mut out = Vec::new();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    while let Some(head) = fields.next() {
        if head.is_empty() {
            continue;
        }
        let mut parts = head.splitn(3, |b| *b == b'\t');
        let (Some(a), Some(r), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            break;
        };
        let count = |b: &[u8]| std::str::from_utf8(b).ok().and_then(|s| s.parse().ok());
        let (path, old_path) = if path.is_empty() {
            match (fields.next(), fields.next()) {
                (Some(old), Some(new)) => (text(new), Some(text(old))),
                _ => break,
            }
        } else {
            (text(path), None)
        };
        out.push(NumstatEntry {
            path,
            old_path,
            added: count(a),
            removed: count(r),
        });
    }
    out
}

/// The totals of a numstat (a binary file counts as a file, no lines).
pub fn stat_of(entries: &[NumstatEntry]) -> Stat {
    Stat {
        added: entries.iter().filter_map(|e| e.added).sum(),
        removed: entries.iter().filter_map(|e| e.removed).sum(),
        files: entries.len(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Deleted,
    Modified,
    Renamed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Added,
    Removed,
    /// `\ No newline at end of file`.
    NoNewline,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub kind: LineKind,
    /// The line's number in the old file (context and removed lines).
    pub old: Option<u32>,
    /// The line's number in the new file (context and added lines).
    pub new: Option<u32>,
    /// The text without its `+`, `-` or ` ` (raw: clean it to draw it).
    /// Bytes that are not UTF-8 are replaced here; `bytes` keeps them.
    pub text: String,
    /// The line's bytes as git wrote them, when they are not UTF-8 (a
    /// Latin-1 file): what a revert writes back. `None` when `text` is
    /// the line exactly.
    #[serde(skip)]
    pub bytes: Option<Vec<u8>>,
}

impl Line {
    /// The line's bytes as the file has them (`text` unless it was not
    /// UTF-8).
    pub fn raw(&self) -> &[u8] {
        self.bytes.as_deref().unwrap_or(self.text.as_bytes())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    /// `@@ -1,3 +1,4 @@ fn main` as git wrote it.
    pub header: String,
    pub old_start: u32,
    pub new_start: u32,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    pub path: String,
    pub old_path: Option<String>,
    pub status: FileStatus,
    /// The mode of an added or deleted file (`100644`, `100755`, `120000`
    /// for a symlink), as git wrote it; `None` for other files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub binary: bool,
    pub added: u64,
    pub removed: u64,
    pub hunks: Vec<Hunk>,
}

/// A task's changes: every file with its hunks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    pub files: Vec<FileDiff>,
    /// The patch was longer than termic reads: the last files or hunks
    /// are missing.
    pub cut: bool,
}

impl Changes {
    pub fn stat(&self) -> Stat {
        Stat {
            added: self.files.iter().map(|f| f.added).sum(),
            removed: self.files.iter().map(|f| f.removed).sum(),
            files: self.files.len(),
        }
    }
}

/// `@@ -OLD[,N] +NEW[,N] @@`: the two starts.
fn hunk_starts(header: &str) -> Option<(u32, u32)> {
    let rest = header.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let new = rest.split_once(' ').map_or(rest, |(n, _)| n);
    let start = |s: &str| s.split(',').next()?.parse().ok();
    Some((start(old)?, start(new)?))
}

/// Joins the numstat's files (exact names, counts) with the patch's
/// sections (hunks), in order: git writes both from one diff queue
/// (pure). A patch section is what follows a `diff --git ` line.
pub fn parse_patch(entries: &[NumstatEntry], patch: &[u8], cut: bool) -> Changes {
    let mut sections: Vec<Vec<&[u8]>> = Vec::new();
    for line in patch.split(|b| *b == b'\n') {
        if line.starts_with(b"diff --git ") {
            sections.push(Vec::new());
        } else if let Some(s) = sections.last_mut() {
            s.push(line);
        }
    }
    let files = entries
        .iter()
        .enumerate()
        .map(|(i, e)| file_of(e, sections.get(i).map_or(&[][..], Vec::as_slice)))
        .collect();
    Changes { files, cut }
}

/// A header line's value after `key` (`new file mode 100755`).
fn header_value(line: &str, key: &str) -> Option<String> {
    let v = line.strip_prefix(key)?.trim();
    (!v.is_empty()).then(|| v.to_owned())
}

fn file_of(entry: &NumstatEntry, section: &[&[u8]]) -> FileDiff {
    let mut status = if entry.old_path.is_some() {
        FileStatus::Renamed
    } else {
        FileStatus::Modified
    };
    let mut mode = None;
    let mut hunks: Vec<Hunk> = Vec::new();
    let (mut old, mut new) = (0u32, 0u32);
    for raw in section {
        let line = String::from_utf8_lossy(raw);
        if hunks.is_empty() {
            if let Some(m) = header_value(&line, "new file mode") {
                status = FileStatus::Added;
                mode = Some(m);
            } else if let Some(m) = header_value(&line, "deleted file mode") {
                status = FileStatus::Deleted;
                mode = Some(m);
            }
        }
        if line.starts_with("@@ ") {
            if let Some((o, n)) = hunk_starts(&line) {
                (old, new) = (o, n);
                hunks.push(Hunk {
                    header: line.into_owned(),
                    old_start: o,
                    new_start: n,
                    lines: Vec::new(),
                });
                continue;
            }
        }
        let Some(hunk) = hunks.last_mut() else {
            continue;
        };
        let kind = match raw.first() {
            Some(b'+') => LineKind::Added,
            Some(b'-') => LineKind::Removed,
            Some(b' ') => LineKind::Context,
            Some(b'\\') => LineKind::NoNewline,
            // The empty string after the patch's last newline.
            _ => continue,
        };
        let (o, n) = match kind {
            LineKind::Added => (None, Some(new)),
            LineKind::Removed => (Some(old), None),
            LineKind::Context => (Some(old), Some(new)),
            LineKind::NoNewline => (None, None),
        };
        if o.is_some() {
            old += 1;
        }
        if n.is_some() {
            new += 1;
        }
        // The `\` line's text is git's note; keep it as written.
        let rest = if kind == LineKind::NoNewline {
            &raw[..]
        } else {
            &raw[1..]
        };
        let (text, bytes) = match std::str::from_utf8(rest) {
            Ok(t) => (t.to_owned(), None),
            Err(_) => (
                String::from_utf8_lossy(rest).into_owned(),
                Some(rest.to_vec()),
            ),
        };
        hunk.lines.push(Line {
            kind,
            old: o,
            new: n,
            text,
            bytes,
        });
    }
    FileDiff {
        path: entry.path.clone(),
        old_path: entry.old_path.clone(),
        status,
        mode,
        binary: entry.added.is_none(),
        added: entry.added.unwrap_or(0),
        removed: entry.removed.unwrap_or(0),
        hunks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_reads_plain_renamed_and_binary_files() {
        let raw = b"3\t1\tsrc/a.rs\x001\t0\t\x00old name\x00new\tname\x00-\t-\timg.png\x00";
        let e = parse_numstat(raw);
        assert_eq!(e.len(), 3, "{e:?}");
        assert_eq!(e[0].path, "src/a.rs");
        assert_eq!((e[0].added, e[0].removed), (Some(3), Some(1)));
        assert_eq!(e[1].path, "new\tname");
        assert_eq!(e[1].old_path.as_deref(), Some("old name"));
        assert_eq!(e[2].added, None);
        let s = stat_of(&e);
        assert_eq!(s.to_string(), "+4 -1, 3 files");
        assert_eq!(
            Stat {
                added: 12,
                removed: 3,
                files: 1
            }
            .to_string(),
            "+12 -3, 1 file"
        );
    }

    #[test]
    fn a_torn_numstat_record_is_left_out() {
        assert!(parse_numstat(b"3\t1").is_empty());
        assert_eq!(parse_numstat(b"1\t0\t\x00old\x00").len(), 0);
    }

    #[test]
    fn the_patch_gives_hunks_with_line_numbers() {
        let entries = parse_numstat(b"2\t1\ta.txt\x001\t0\tnew.txt\x00");
        let patch = b"diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n\
@@ -1,3 +1,4 @@ head\n one\n-two\n+TWO\n+2.5\n three\n\\ No newline at end of file\n\
diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n";
        let c = parse_patch(&entries, patch, false);
        assert_eq!(c.files.len(), 2);
        let a = &c.files[0];
        assert_eq!(a.status, FileStatus::Modified);
        assert_eq!(a.hunks.len(), 1);
        let h = &a.hunks[0];
        assert_eq!((h.old_start, h.new_start), (1, 1));
        let kinds: Vec<_> = h.lines.iter().map(|l| (l.kind, l.old, l.new)).collect();
        assert_eq!(
            kinds,
            vec![
                (LineKind::Context, Some(1), Some(1)),
                (LineKind::Removed, Some(2), None),
                (LineKind::Added, None, Some(2)),
                (LineKind::Added, None, Some(3)),
                (LineKind::Context, Some(3), Some(4)),
                (LineKind::NoNewline, None, None),
            ]
        );
        assert_eq!(h.lines[2].text, "TWO");
        assert_eq!(c.files[1].status, FileStatus::Added);
        assert_eq!(c.files[1].hunks[0].lines[0].text, "hi");
        assert_eq!(c.stat().to_string(), "+3 -1, 2 files");
    }
}
