//! Stand-in for `crate::fsio` until it lands: compare-then-rename atomic
//! write that keeps a symlink a symlink and keeps the target's mode.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub enum WriteError {
    /// The file no longer holds the expected bytes.
    Changed,
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Writes `after` to `path` if it still holds `before` (`None`: absent).
pub fn write_if_unchanged(
    path: &Path,
    before: Option<&[u8]>,
    after: &[u8],
    mode: Option<u32>,
) -> Result<(), WriteError> {
    let real = resolve_link(path)?;
    let now = match fs::read(&real) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    if now.as_deref() != before {
        return Err(WriteError::Changed);
    }
    let keep_mode = fs::metadata(&real)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let mode = keep_mode.or(mode).unwrap_or(0o644);
    let dir = real.parent().unwrap_or(Path::new("/"));
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.termic-tmp.{}", std::process::id()));
    let result = (|| -> Result<(), WriteError> {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(after)?;
        f.set_permissions(fs::Permissions::from_mode(mode))?;
        f.sync_all()?;
        let again = match fs::read(&real) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        if again.as_deref() != before {
            return Err(WriteError::Changed);
        }
        fs::rename(&tmp, &real)?;
        File::open(dir)?.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = fs::read_link(&p)?;
                p = p.parent().unwrap_or(Path::new("/")).join(t);
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}
