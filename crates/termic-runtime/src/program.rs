//! Where a task's program is: `$PATH` lookup as the shell does it, so a
//! program that is not there is "command not found" before a PTY is opened,
//! not portable-pty's text with the whole PATH in it. Pure over a PATH value
//! and an injected executable check.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Where `program` resolves on `path_var`, or `None`. A program containing
/// `/` is checked as given (relative to nothing: it must be absolute to count).
pub fn find_on_path(
    program: &str,
    path_var: &OsStr,
    is_executable: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = PathBuf::from(program);
        return (p.is_absolute() && is_executable(&p)).then_some(p);
    }
    std::env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

/// The real check: a regular file with an execute bit.
pub fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
