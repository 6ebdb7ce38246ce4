//! Putting a filled temp file in place without losing a concurrent edit.
//!
//! Linux: `renameat2(RENAME_EXCHANGE)` swaps the temp file and the target
//! in one step and leaves the file it replaced under the temp name, so the
//! comparison happens AFTER the swap, on the very inode that was replaced:
//! a rename-writer that got in before the swap, or an in-place writer that
//! truncated or wrote the old inode, shows up as bytes that differ from
//! what the edit was based on, and the exchange is undone (their file goes
//! back) and the caller re-reads and re-merges. A new file goes in with
//! `RENAME_NOREPLACE`, so a file someone created meanwhile is never
//! replaced. Where the file system has neither (`EINVAL`), the old way:
//! re-read, compare, rename, with the window measured in docs/gotchas.md.

use std::collections::HashSet;
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Seek};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::fault::{self, Op};
use super::snapshot::{read_target, Snapshot};
use super::FsError;

/// `renameat2` flags (linux/fs.h), the same on every architecture.
const RENAME_NOREPLACE: u32 = 1;
const RENAME_EXCHANGE: u32 = 2;

/// Temp files this process has open right now: the sweep never takes them.
static LIVE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

pub(crate) fn is_live(path: &Path) -> bool {
    LIVE.lock()
        .map(|l| l.as_ref().is_some_and(|s| s.contains(path)))
        .unwrap_or(true)
}

fn set_live(path: &Path, live: bool) {
    if let Ok(mut l) = LIVE.lock() {
        let set = l.get_or_insert_with(HashSet::new);
        if live {
            set.insert(path.to_path_buf());
        } else {
            set.remove(path);
        }
    }
}

/// The temp name for `target`: `.NAME.termic-PID-N.tmp` (the sweep's pattern).
pub(crate) fn temp_name(target_name: &str, pid: u32, n: u64) -> String {
    format!(".{target_name}.termic-{pid}-{n}.tmp")
}

/// A temp file (0600, unique name) next to the target, removed unless
/// committed.
pub(crate) struct TempFile {
    path: PathBuf,
    file: Option<File>,
}

impl TempFile {
    pub(crate) fn create(dir: &Path, target: &Path) -> Result<Self, FsError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .map_or_else(|| "file".into(), |n| n.to_string_lossy());
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(temp_name(&name, std::process::id(), n));
            fault::check(Op::Create).map_err(|e| FsError::write(target, e))?;
            // Live before it exists: another thread's sweep must never see
            // it unclaimed.
            set_live(&path, true);
            let opened = OpenOptions::new()
                .write(true)
                .read(true)
                .create_new(true)
                .mode(0o600)
                .open(&path);
            if opened.is_err() {
                set_live(&path, false);
            }
            match opened {
                Ok(file) => {
                    return Ok(TempFile {
                        path,
                        file: Some(file),
                    });
                }
                Err(err) if err.kind() == ErrorKind::AlreadyExists => continue,
                Err(err) => return Err(FsError::write(target, err)),
            }
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn file(&self) -> &File {
        self.file.as_ref().expect("open until commit")
    }

    /// Writes the bytes and syncs, keeping the private 0600 mode.
    pub(crate) fn write_synced(&self, bytes: &[u8]) -> std::io::Result<()> {
        let file = self.file();
        fault::write_all(file, bytes)?;
        fault::sync(file)
    }

    /// Writes the bytes, gives the target's mode and owner, syncs.
    pub(crate) fn fill(
        &self,
        bytes: &[u8],
        snapshot: &Snapshot,
        new_file_mode: u32,
    ) -> std::io::Result<()> {
        let file = self.file();
        fault::write_all(file, bytes)?;
        let mode = snapshot.meta.map_or(new_file_mode, |m| m.mode);
        fault::check(Op::Chmod)?;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        if let Some(meta) = snapshot.meta {
            // Root (or a member of the group) may keep the owner; anyone
            // else becomes the owner of the replacement, as with any editor.
            match std::os::unix::fs::fchown(file, Some(meta.uid), Some(meta.gid)) {
                Err(err) if err.kind() == ErrorKind::PermissionDenied => {
                    let _ = std::os::unix::fs::fchown(file, None, Some(meta.gid));
                }
                other => other?,
            }
        }
        fault::sync(file)
    }

    /// Hands the name over: the file is in place (or swapped back and
    /// dealt with), so dropping must not unlink whatever now has it.
    fn disarm(&mut self) {
        drop(self.file.take());
        set_live(&self.path, false);
        self.path = PathBuf::new();
    }

    /// Puts the temp file at `target`, which must still hold `expected`
    /// (`None`: must not exist). `Err(ConcurrentChange)` leaves the
    /// other writer's file in place and ours gone.
    pub(crate) fn commit(
        mut self,
        snapshot: &Snapshot,
        after_swap: Option<&dyn Fn(&Path)>,
    ) -> Result<(), FsError> {
        let target = &snapshot.target;
        let werr = |e| FsError::write(target, e);
        if fault::no_exchange() {
            return self.commit_by_reread(snapshot);
        }
        match &snapshot.bytes {
            None => {
                fault::check(Op::Rename).map_err(werr)?;
                match renameat2(&self.path, target, RENAME_NOREPLACE) {
                    Ok(()) => {
                        self.disarm();
                        Ok(())
                    }
                    Err(e) if e.raw_os_error() == Some(libc::EEXIST) => Err(concurrent(snapshot)),
                    Err(e) if unsupported(&e) => self.commit_by_reread(snapshot),
                    Err(e) => Err(werr(e)),
                }
            }
            Some(expected) => {
                let ours = self.file().metadata().map_err(werr)?.ino();
                // Look before the swap too: the swap makes our file visible
                // for the microseconds until it is undone, and a writer that
                // reads it then bases its edit on ours. Swapping only when
                // the file was still unchanged an instant ago keeps that to
                // a writer landing in this very instant.
                if read_target(target)?.0.as_deref() != Some(expected.as_slice()) {
                    return Err(concurrent(snapshot));
                }
                fault::check(Op::Rename).map_err(werr)?;
                match renameat2(&self.path, target, RENAME_EXCHANGE) {
                    Ok(()) => {}
                    // The target was deleted meanwhile: that is a change too.
                    Err(e) if e.kind() == ErrorKind::NotFound => return Err(concurrent(snapshot)),
                    Err(e) if unsupported(&e) => return self.commit_by_reread(snapshot),
                    Err(e) => return Err(werr(e)),
                }
                // From here the temp name holds the user's previous file:
                // never unlink it by accident.
                // The name stays claimed (no sweep takes it) until decided.
                let held = std::mem::take(&mut self.path);
                drop(self.file.take());
                if let Some(hook) = after_swap {
                    hook(&held);
                }
                let verdict = if replaced_holds(&held, expected) {
                    // Best effort: a leftover old file is swept by the next run.
                    if fault::check(Op::Unlink).is_ok() {
                        let _ = std::fs::remove_file(&held);
                    }
                    Ok(())
                } else {
                    swap_back(&held, target, ours).and(Err(concurrent(snapshot)))
                };
                set_live(&held, false);
                verdict
            }
        }
    }

    /// No exchange on this file system: compare, then rename. The window
    /// between the two is not closed (docs/gotchas.md has the figures).
    fn commit_by_reread(mut self, snapshot: &Snapshot) -> Result<(), FsError> {
        let target = &snapshot.target;
        let (now, _) = read_target(target)?;
        if now != snapshot.bytes {
            return Err(concurrent(snapshot));
        }
        std::fs::rename(&self.path, target).map_err(|e| FsError::write(target, e))?;
        self.disarm();
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.path.as_os_str().is_empty() {
            return;
        }
        drop(self.file.take());
        // A failed unlink leaves a temp the next run's sweep removes.
        if fault::check(Op::Unlink).is_ok() {
            let _ = std::fs::remove_file(&self.path);
        }
        set_live(&self.path, false);
    }
}

fn concurrent(snapshot: &Snapshot) -> FsError {
    FsError::ConcurrentChange {
        path: snapshot.path.clone(),
    }
}

/// The file system has no `renameat2` flags (EINVAL), or the kernel no
/// `renameat2` (ENOSYS).
fn unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP)
    )
}

/// True when the file swapped out (now at `held`) is a regular file with
/// exactly `expected`, and stays so across a second look: an in-place
/// writer that had it open and writes it right after the swap changes its
/// size, mtime or ctime, or its bytes, between the two looks.
/// Size, mtime and ctime (s, ns): what any write to an inode changes.
type Stamp = (u64, i64, i64, i64, i64);

fn replaced_holds(held: &Path, expected: &[u8]) -> bool {
    let Ok(mut file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(held)
    else {
        return false;
    };
    let look = |file: &mut File| -> Option<(Vec<u8>, Stamp)> {
        let meta = file.metadata().ok().filter(|m| m.is_file())?;
        file.rewind().ok()?;
        let mut bytes = Vec::with_capacity(expected.len());
        file.read_to_end(&mut bytes).ok()?;
        let stamp = (
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        );
        Some((bytes, stamp))
    };
    let Some((first, stamp)) = look(&mut file) else {
        return false;
    };
    if first != expected {
        return false;
    }
    look(&mut file).is_some_and(|(again, stamp2)| again == expected && stamp2 == stamp)
}

/// Undoes the exchange: the other writer's file (at `held`) goes back to
/// `target`. If a third writer replaced our file at `target` in between,
/// what comes back is theirs (not inode `ours`): it is swapped in again,
/// the newest writer's file wins, and ours is never left in place.
fn swap_back(held: &Path, target: &Path, ours: u64) -> Result<(), FsError> {
    let werr = |e| FsError::write(target, e);
    let mut last = None;
    // An exchange that fails (EIO) is retried: leaving our file in place
    // would hide the other writer's edit under the temp name.
    for _ in 0..3 {
        let tried =
            fault::check(Op::Rename).and_then(|()| renameat2(held, target, RENAME_EXCHANGE));
        match tried {
            Ok(()) => {
                last = None;
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    if let Some(e) = last {
        return Err(werr(e));
    }
    let back = std::fs::symlink_metadata(held).map(|m| m.ino());
    if back.is_ok_and(|ino| ino != ours) {
        renameat2(held, target, RENAME_EXCHANGE).map_err(werr)?;
    }
    if fault::check(Op::Unlink).is_ok() {
        let _ = std::fs::remove_file(held);
    }
    Ok(())
}

/// `renameat2(2)` through the raw syscall (every Linux libc has the number,
/// not every libc the wrapper).
#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: u32) -> std::io::Result<()> {
    let from = CString::new(from.as_os_str().as_bytes())?;
    let to = CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: two valid NUL-terminated paths; the call only reads them.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            flags,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn renameat2(_: &Path, _: &Path, _: u32) -> std::io::Result<()> {
    Err(std::io::Error::from_raw_os_error(libc::ENOSYS))
}
