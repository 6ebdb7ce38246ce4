//! Reverting one hunk of a task's changes (issue 32): the hunk turned
//! around as a patch of its own ([`hunk_patch`], pure), then the user's
//! `git apply` on the working tree, or on the index and the working tree
//! when the file's change is staged. `--check` runs first, so a hunk that no
//! longer applies (the file changed since the view read it) changes
//! nothing.

use std::path::Path;
use std::time::Duration;

use super::git::{self, GitError};
use super::model::{FileDiff, FileStatus, LineKind};

/// How long one `git apply` may take.
const APPLY_LIMIT: Duration = Duration::from_secs(10);

/// Where a revert was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reverted {
    /// The working tree only.
    WorkTree,
    /// The index and the working tree (the change was staged).
    IndexAndWorkTree,
}

#[derive(Debug, thiserror::Error)]
pub enum RevertError {
    #[error("that file has no hunk to revert (binary, or only renamed)")]
    NoHunk,
    #[error("the hunk no longer applies (the file changed since the view read it); nothing was changed. Press R to read the changes again")]
    Stale,
    #[error("cannot write the hunk to a temporary file: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Git(#[from] GitError),
}

/// The revert of hunk `h` of `file`: the hunk turned around (its `+`
/// and `-` lines and its two ranges swapped) as a patch `git apply`
/// reads forward (pure). The same path on both sides, so a renamed file
/// is not renamed back; an added file's hunk becomes the removal of the
/// file, a deleted file's the file written again with the mode it had
/// (`git apply -R` of a deletion writes 0644 whatever the mode, so
/// termic turns the hunk itself). Lines are written as the file has them
/// (a Latin-1 line stays Latin-1). `None` when there is no such hunk.
pub fn hunk_patch(file: &FileDiff, h: usize) -> Option<Vec<u8>> {
    let hunk = file.hunks.get(h)?;
    let path = &file.path;
    let mode = file.mode.as_deref().unwrap_or("100644");
    let mut out = format!("diff --git a/{path} b/{path}\n");
    // Turned around: an added file is removed, a deleted one is added.
    let (old, new) = match file.status {
        FileStatus::Added => {
            out.push_str(&format!("deleted file mode {mode}\n"));
            (format!("a/{path}"), "/dev/null".to_owned())
        }
        FileStatus::Deleted => {
            out.push_str(&format!("new file mode {mode}\n"));
            ("/dev/null".to_owned(), format!("b/{path}"))
        }
        _ => (format!("a/{path}"), format!("b/{path}")),
    };
    out.push_str(&format!(
        "--- {old}\n+++ {new}\n{}\n",
        turned_header(&hunk.header)?
    ));
    let mut out = out.into_bytes();
    for line in &hunk.lines {
        let mark: &[u8] = match line.kind {
            LineKind::Added => b"-",
            LineKind::Removed => b"+",
            LineKind::Context => b" ",
            // The model keeps the `\` of git's note in the text; the note
            // stays after its line.
            LineKind::NoNewline => b"",
        };
        out.extend_from_slice(mark);
        out.extend_from_slice(line.raw());
        out.push(b'\n');
    }
    Some(out)
}

/// `@@ -OLD +NEW @@ REST` as `@@ -NEW +OLD @@ REST` (pure).
fn turned_header(header: &str) -> Option<String> {
    let rest = header.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, rest) = rest.split_once(" @@")?;
    Some(format!("@@ -{new} +{old} @@{rest}"))
}

/// The patch in a file of its own (mode 0600): `git::run` gives git no
/// stdin.
fn patch_file(patch: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let mut tmp = tempfile::Builder::new()
        .prefix("termic-hunk-")
        .suffix(".patch")
        .tempfile()?;
    std::io::Write::write_all(&mut tmp, patch)?;
    Ok(tmp)
}

fn apply(dir: &Path, patch: &Path, extra: &[&str]) -> Result<(), GitError> {
    let path = patch.to_string_lossy();
    let mut args = vec!["apply", "--whitespace=nowarn"];
    args.extend_from_slice(extra);
    args.push(&path);
    git::run(dir, &args, &[], APPLY_LIMIT, 64 * 1024).map(|_| ())
}

/// Reverts hunk `h` of `file` in the repository at `dir` (where the
/// view's diff ran). Checks first: a hunk that does not apply any more
/// changes nothing and is [`RevertError::Stale`].
pub fn revert_hunk(dir: &Path, file: &FileDiff, h: usize) -> Result<Reverted, RevertError> {
    let tmp = patch_file(&hunk_patch(file, h).ok_or(RevertError::NoHunk)?)?;
    let patch = tmp.path();
    // Staged: the index holds the change and the working tree matches
    // it, so both go back (else the next commit would keep the change).
    let staged = apply(dir, patch, &["--check", "--index"]).is_ok() && staged(dir, &file.path);
    if staged {
        apply(dir, patch, &["--index"])?;
        return Ok(Reverted::IndexAndWorkTree);
    }
    match apply(dir, patch, &["--check"]) {
        Ok(()) => {}
        Err(GitError::Failed { .. }) => return Err(RevertError::Stale),
        Err(e) => return Err(e.into()),
    }
    apply(dir, patch, &[])?;
    Ok(Reverted::WorkTree)
}

/// The index entry of `path` differs from HEAD (or there is no HEAD).
fn staged(dir: &Path, path: &str) -> bool {
    let limit = APPLY_LIMIT;
    match git::run(
        dir,
        &["diff", "--cached", "--quiet", "--", path],
        &[],
        limit,
        1024,
    ) {
        Ok(_) => false,
        Err(GitError::Failed { .. }) => true,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::{changes, take_base};

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = git::run(dir, args, &[], APPLY_LIMIT, 1 << 20).unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        git(d, &["config", "user.email", "t@example.com"]);
        git(d, &["config", "user.name", "t"]);
        let body: String = (1..=30).map(|i| format!("line {i}\r\n")).collect();
        std::fs::write(d.join("a.txt"), body).unwrap();
        std::fs::write(d.join("keep.txt"), "keep\n").unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "one"]);
        dir
    }

    fn edit(d: &Path) -> String {
        let before = std::fs::read_to_string(d.join("a.txt")).unwrap();
        let after = before
            .replace("line 2\r\n", "line two\r\n")
            .replace("line 25\r\n", "line 25\r\nnew\r\n");
        std::fs::write(d.join("a.txt"), &after).unwrap();
        after
    }

    #[test]
    fn one_hunk_goes_back_and_the_rest_of_the_file_stays_byte_for_byte() {
        let dir = repo();
        let d = dir.path();
        let base = take_base(d, None, "1-aa-t").unwrap();
        let original = std::fs::read(d.join("a.txt")).unwrap();
        edit(d);
        std::fs::write(d.join("b.txt"), "new file\n").unwrap();
        let c = changes(&base).unwrap();
        let a = c.files.iter().find(|f| f.path == "a.txt").unwrap();
        assert_eq!(a.hunks.len(), 2, "{a:?}");
        assert_eq!(revert_hunk(&base.dir, a, 1).unwrap(), Reverted::WorkTree);
        let now = std::fs::read(d.join("a.txt")).unwrap();
        let want = String::from_utf8(original)
            .unwrap()
            .replace("line 2\r\n", "line two\r\n");
        assert_eq!(now, want.as_bytes(), "only the second hunk went back");
        // An added file's hunk: the file goes.
        let c = changes(&base).unwrap();
        let b = c.files.iter().find(|f| f.path == "b.txt").unwrap();
        revert_hunk(&base.dir, b, 0).unwrap();
        assert!(!d.join("b.txt").exists());
        assert_eq!(
            std::fs::read_to_string(d.join("keep.txt")).unwrap(),
            "keep\n"
        );
    }

    #[test]
    fn a_renamed_files_hunk_names_its_new_path_on_both_sides_and_keeps_the_no_newline_note() {
        use crate::review::model::{parse_numstat, parse_patch};
        let entries = parse_numstat(b"1\t1\t\x00old.txt\x00new.txt\x00");
        let patch = b"diff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\n\
rename to new.txt\n--- a/old.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@ ctx\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
        let c = parse_patch(&entries, patch, false);
        let got = String::from_utf8(hunk_patch(&c.files[0], 0).unwrap()).unwrap();
        assert_eq!(
            got,
            "diff --git a/new.txt b/new.txt\n--- a/new.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@ ctx\n a\n+b\n\
\\ No newline at end of file\n-c\n\\ No newline at end of file\n"
        );
        assert_eq!(
            turned_header("@@ -3,7 +4,9 @@ fn x() {"),
            Some("@@ -4,9 +3,7 @@ fn x() {".into())
        );
        assert_eq!(turned_header("@@ -0,0 +1 @@"), Some("@@ -1 +0,0 @@".into()));
        assert_eq!(hunk_patch(&c.files[0], 1), None);
    }

    #[test]
    fn a_hunk_that_no_longer_applies_changes_nothing() {
        let dir = repo();
        let d = dir.path();
        let base = take_base(d, None, "1-aa-t").unwrap();
        edit(d);
        let c = changes(&base).unwrap();
        // The agent edits the same lines after the view read them.
        let later = std::fs::read_to_string(d.join("a.txt"))
            .unwrap()
            .replace("line two\r\n", "line 2b\r\n");
        std::fs::write(d.join("a.txt"), &later).unwrap();
        let a = c.files.iter().find(|f| f.path == "a.txt").unwrap();
        let err = revert_hunk(&base.dir, a, 0).unwrap_err();
        assert!(matches!(err, RevertError::Stale), "{err:?}");
        assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), later);
    }

    #[test]
    fn a_staged_hunk_goes_back_in_the_index_too() {
        let dir = repo();
        let d = dir.path();
        let base = take_base(d, None, "1-aa-t").unwrap();
        edit(d);
        git(d, &["add", "a.txt"]);
        let c = changes(&base).unwrap();
        let a = c.files.iter().find(|f| f.path == "a.txt").unwrap();
        assert_eq!(
            revert_hunk(&base.dir, a, 0).unwrap(),
            Reverted::IndexAndWorkTree
        );
        let staged = git(d, &["diff", "--cached", "--", "a.txt"]);
        assert!(!staged.contains("line two"), "{staged}");
        assert!(staged.contains("+new"), "{staged}");
        assert_eq!(git(d, &["diff", "--", "a.txt"]), "", "index and tree agree");
    }

    #[test]
    fn a_deleted_executable_comes_back_executable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = repo();
        let d = dir.path();
        std::fs::write(d.join("run.sh"), "#!/bin/sh\necho hi\n").unwrap();
        std::fs::set_permissions(d.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        git(d, &["add", "run.sh"]);
        git(d, &["commit", "-q", "-m", "script"]);
        let base = take_base(d, None, "1-aa-t").unwrap();
        std::fs::remove_file(d.join("run.sh")).unwrap();
        let c = changes(&base).unwrap();
        let f = c.files.iter().find(|f| f.path == "run.sh").unwrap();
        assert_eq!(f.status, FileStatus::Deleted);
        assert_eq!(f.mode.as_deref(), Some("100755"));
        assert_eq!(revert_hunk(&base.dir, f, 0).unwrap(), Reverted::WorkTree);
        let meta = std::fs::metadata(d.join("run.sh")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777 & !0o022, 0o755);
        assert_eq!(
            std::fs::read_to_string(d.join("run.sh")).unwrap(),
            "#!/bin/sh\necho hi\n"
        );
        assert!(changes(&base).unwrap().files.is_empty(), "nothing left");
    }

    #[test]
    fn a_latin1_hunk_goes_back_byte_for_byte() {
        let dir = repo();
        let d = dir.path();
        // "caf\xe9" and "na\xefve" in Latin-1: not UTF-8.
        let original: Vec<u8> =
            b"one\ncaf\xe9\ntwo\nthree\nfour\nfive\nsix\nseven\nna\xefve\nend\n".to_vec();
        std::fs::write(d.join("latin1.txt"), &original).unwrap();
        git(d, &["add", "latin1.txt"]);
        git(d, &["commit", "-q", "-m", "latin1"]);
        let base = take_base(d, None, "1-aa-t").unwrap();
        let edited: Vec<u8> = b"one\ncaf\xe9 cr\xe8me\ntwo\nthree\nfour\nfive\nsix\nseven\nna\xefve\nend\n\xe0 la fin\n".to_vec();
        std::fs::write(d.join("latin1.txt"), &edited).unwrap();
        let c = changes(&base).unwrap();
        let f = c.files.iter().find(|f| f.path == "latin1.txt").unwrap();
        assert_eq!(f.hunks.len(), 2, "{f:?}");
        let removed = f.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Removed)
            .unwrap();
        assert_eq!(removed.raw(), b"caf\xe9", "the bytes are kept");
        assert_eq!(removed.text, "caf\u{fffd}", "the text is cleaned");
        // The second hunk (the added last line) goes back.
        assert_eq!(revert_hunk(&base.dir, f, 1).unwrap(), Reverted::WorkTree);
        let want: Vec<u8> =
            b"one\ncaf\xe9 cr\xe8me\ntwo\nthree\nfour\nfive\nsix\nseven\nna\xefve\nend\n".to_vec();
        assert_eq!(std::fs::read(d.join("latin1.txt")).unwrap(), want);
        // Then the first: the file is as it was.
        let c = changes(&base).unwrap();
        let f = c.files.iter().find(|f| f.path == "latin1.txt").unwrap();
        assert_eq!(f.hunks.len(), 1, "{f:?}");
        revert_hunk(&base.dir, f, 0).unwrap();
        assert_eq!(std::fs::read(d.join("latin1.txt")).unwrap(), original);
    }
}
