//! Where the server's socket lives and who may use it.
//!
//! The directory is `$XDG_RUNTIME_DIR/termic` (a per-user tmpfs the login
//! manager creates and removes), or `<data dir>/run` where that is unset or
//! where `TERMIC_DATA_DIR` is set (an explicitly separate termic gets its
//! own server). It is mode 0700 and ours; the socket in it is mode 0600; and
//! the server still checks every peer's uid with `SO_PEERCRED`.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::paths::TermicPaths;

/// The socket's directory for these paths and this environment (pure).
pub fn socket_dir(
    paths: &TermicPaths,
    runtime_dir: Option<&Path>,
    data_dir_is_explicit: bool,
) -> PathBuf {
    match runtime_dir {
        Some(dir) if !data_dir_is_explicit && dir.is_absolute() => dir.join("termic"),
        _ => paths.data_dir.join("run"),
    }
}

/// Where this process's server listens (and its lock and log files).
#[derive(Debug, Clone)]
pub struct ServerPaths {
    pub dir: PathBuf,
    pub socket: PathBuf,
    /// Held while a client starts the server, so two never start two.
    pub lock: PathBuf,
    pub log: PathBuf,
}

impl ServerPaths {
    pub fn from_env(paths: &TermicPaths) -> ServerPaths {
        let runtime = std::env::var_os("XDG_RUNTIME_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        let explicit = std::env::var_os("TERMIC_DATA_DIR").is_some_and(|v| !v.is_empty());
        let dir = socket_dir(paths, runtime.as_deref(), explicit);
        ServerPaths {
            socket: dir.join("server.sock"),
            lock: dir.join("server.lock"),
            log: paths.data_dir.join("server.log"),
            dir,
        }
    }

    /// Create the directory 0700, or check the existing one is ours and
    /// closed to others (a directory another user can write into could
    /// hold a socket of theirs).
    pub fn prepare_dir(&self) -> Result<()> {
        if !self.dir.exists() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)
                .with_context(|| format!("cannot create {}", self.dir.display()))?;
        }
        let meta = fs::symlink_metadata(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?;
        check_dir(&self.dir, &meta, own_uid())?;
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(&self.dir, fs::Permissions::from_mode(0o700)).with_context(
                || format!("cannot make {} private (chmod 700)", self.dir.display()),
            )?;
        }
        Ok(())
    }
}

/// The socket directory must be a real directory owned by us.
fn check_dir(dir: &Path, meta: &fs::Metadata, uid: u32) -> Result<()> {
    if !meta.file_type().is_dir() {
        bail!(
            "{} is not a directory; remove it so termic can create its socket directory there",
            dir.display()
        );
    }
    if meta.uid() != uid {
        bail!(
            "{} belongs to another user (uid {}); termic will not put its socket there. Remove it or set XDG_RUNTIME_DIR to a directory of yours",
            dir.display(),
            meta.uid()
        );
    }
    Ok(())
}

pub fn own_uid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// The uid and pid on the other end of a Unix socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerCred {
    pub uid: u32,
    pub pid: i32,
}

pub fn peer_cred(stream: &UnixStream) -> io::Result<PeerCred> {
    // SAFETY: ucred is plain data; getsockopt writes at most `len` bytes.
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(PeerCred {
        uid: cred.uid,
        pid: cred.pid,
    })
}

/// Whether a peer may talk to this server: only the same user (pure).
pub fn authorize(peer_uid: u32, own_uid: u32) -> Result<(), String> {
    if peer_uid == own_uid {
        Ok(())
    } else {
        Err(format!(
            "this termic server belongs to another user (uid {own_uid}); start your own termic"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> TermicPaths {
        TermicPaths {
            home: "/h".into(),
            config_dir: "/c".into(),
            data_dir: "/d/termic".into(),
        }
    }

    #[test]
    fn the_runtime_dir_is_used_unless_the_data_dir_was_chosen() {
        let run = Path::new("/run/user/1000");
        assert_eq!(
            socket_dir(&paths(), Some(run), false),
            Path::new("/run/user/1000/termic")
        );
        assert_eq!(
            socket_dir(&paths(), Some(run), true),
            Path::new("/d/termic/run")
        );
        assert_eq!(
            socket_dir(&paths(), None, false),
            Path::new("/d/termic/run")
        );
        // A relative XDG_RUNTIME_DIR is invalid per the spec: ignored.
        assert_eq!(
            socket_dir(&paths(), Some(Path::new("rel")), false),
            Path::new("/d/termic/run")
        );
    }

    #[test]
    fn another_uid_is_refused() {
        assert!(authorize(1000, 1000).is_ok());
        let err = authorize(1001, 1000).unwrap_err();
        assert!(err.contains("another user"), "{err}");
    }
}
