//! Helpers for the unit tests of this crate.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes an executable script (mode 755) at `path`, through a child
/// process, never through a descriptor of this one: another test thread's
/// fork can hold such a descriptor open for writing until it execs, and
/// running the script meanwhile fails with "Text file busy" (ETXTBSY; a
/// CI run of 2026-12-07 failed on it in termic-fakemodel).
pub fn write_script(path: &Path, text: &str) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("cat > \"$1\" && chmod 755 \"$1\"")
        .arg("sh")
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert!(
        child.wait().unwrap().success(),
        "cannot write {}",
        path.display()
    );
}
