//! Removing temp files a killed termic left behind.
//!
//! Only names of exactly termic's pattern for the one file being written
//! (`.NAME.termic-PID-N.tmp`, see `commit::temp_name`) are candidates, and
//! only when they are regular files owned by this user whose PID is gone
//! (or is this process, which has no such temp open). Any other file in
//! the directory, the user's included, is never looked at twice.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::commit::is_live;
use super::fault::{self, Op};

/// Removes leftovers of `target`'s temp files in `dir`; returns how many.
pub fn sweep_temps(dir: &Path, target: &Path) -> usize {
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return 0;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let prefix = format!(".{name}.termic-");
    let me = std::process::id();
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|n| owner_pid(n, &prefix)) else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() || meta.uid() != uid {
            continue;
        }
        let gone = if pid == me {
            !is_live(&path)
        } else {
            !process_alive(pid)
        };
        if gone && fault::check(Op::Unlink).is_ok() && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The PID in `.NAME.termic-PID-N.tmp`, when `name` is exactly that.
fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?.strip_suffix(".tmp")?;
    let (pid, n) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n))
        .then(|| pid.parse().ok())
        .flatten()
}

fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::owner_pid;

    #[test]
    fn only_the_exact_pattern_names_an_owner() {
        let p = ".settings.json.termic-";
        assert_eq!(owner_pid(".settings.json.termic-42-7.tmp", p), Some(42));
        for other in [
            "settings.json",
            ".settings.json.termic-42-7.tmp.bak",
            ".settings.json.termic-42.tmp",
            ".settings.json.termic--7.tmp",
            ".settings.json.termic-4x-7.tmp",
            ".other.json.termic-42-7.tmp",
        ] {
            assert_eq!(owner_pid(other, p), None, "{other}");
        }
    }
}
