//! The browsers' push subscriptions: `<state dir>/web/push-subscriptions.json`,
//! a JSON array written by `termic web` when a paired device subscribes.
//! The server reads it (again when its modification time changes) and
//! removes an entry when its push service says it is gone (404, 410).
//!
//! Every change, termic web's and the push sender's, goes through one
//! function, [`edit`]: a compare-and-swap under a lock file: the lock
//! (`push-subscriptions.json.lock`, `flock`) keeps two termic processes
//! that take it apart, and the file is re-read and its identity (inode,
//! size, modification time) checked again just before the rename, so an
//! edit by a writer that did not take the lock is never overwritten: the
//! change starts over on the new content. Every other entry, and every
//! field of every entry this version does not know, is kept as it was.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Deserialize;

/// The file's name inside `<state dir>/web/`.
pub const SUBSCRIPTIONS_FILE: &str = "push-subscriptions.json";

/// The largest file read: a few thousand subscriptions. A bigger one is
/// refused (not parsed), like any file we cannot parse.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// One browser's subscription, as the server uses it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Subscription {
    /// The paired device it belongs to.
    #[serde(default)]
    pub device: String,
    /// The push service's URL for this browser.
    pub endpoint: String,
    pub keys: Keys,
    /// Task numbers this device hears nothing about.
    #[serde(default)]
    pub muted: Vec<u64>,
    /// Remote hosts' tasks this device hears nothing about, as
    /// `HOST:NUMBER` (2026-12-06).
    #[serde(default)]
    pub muted_remote: Vec<String>,
    /// Only "needs you" reaches this device (no done, no error).
    #[serde(default)]
    pub needs_you_only: bool,
}

/// The browser's keys (RFC 8291): base64url, as `PushSubscription.toJSON()`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Keys {
    pub p256dh: String,
    pub auth: String,
}

impl Subscription {
    /// Why this entry cannot be pushed to, if it cannot: its endpoint is
    /// not https (http only to this machine), or its keys are not a P-256
    /// point and a 16-byte secret.
    pub fn check(&self) -> Result<(), String> {
        crate::deliver::check_url(&self.endpoint, crate::deliver::PlainHttp::LoopbackOnly)?;
        let point = crate::b64::decode(&self.keys.p256dh).ok_or("p256dh is not base64url")?;
        p256::PublicKey::from_sec1_bytes(&point).map_err(|_| "p256dh is not a P-256 point")?;
        let auth = crate::b64::decode(&self.keys.auth).ok_or("auth is not base64url")?;
        if auth.len() != 16 {
            return Err("auth is not 16 bytes".into());
        }
        Ok(())
    }

    /// Whether this device wants a notification about task `task`
    /// (`needs_you`: the task needs the user, rather than done or error).
    pub fn wants(&self, task: u64, needs_you: bool) -> bool {
        !self.muted.contains(&task) && (needs_you || !self.needs_you_only)
    }

    /// Whether this device wants `note`: a task of this machine by its
    /// number in `muted`, a remote host's by `HOST:NUMBER` in
    /// `muted_remote`; needs-you-only either way.
    pub fn wants_note(&self, note: &crate::payload::Notification) -> bool {
        let needs_you = note.why.needs_you();
        match &note.remote {
            None => self.wants(note.task, needs_you),
            Some(host) => {
                let key = format!("{host}:{}", note.task);
                !self.muted_remote.contains(&key) && (needs_you || !self.needs_you_only)
            }
        }
    }
}

/// Why the file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SubscriptionsError {
    #[error("cannot read {path}: {source}", path = path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a list of push subscriptions ({why}); no web push is sent until it is fixed", path = path.display())]
    Invalid { path: PathBuf, why: String },
    #[error("{path} is not a regular file of this user, or is too big; it was not used", path = path.display())]
    Unsafe { path: PathBuf },
    #[error("{path} kept changing while it was being changed; it was left as it is", path = path.display())]
    Busy { path: PathBuf },
}

/// Parses the file's text (pure). Entries are kept in order.
pub fn parse(text: &[u8]) -> Result<Vec<Subscription>, String> {
    serde_json::from_slice(text).map_err(|e| e.to_string())
}

/// The file's identity: what a compare-and-swap compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    ino: u64,
    len: u64,
    modified: Option<SystemTime>,
}

/// Reads the file: `Ok(None)` when it does not exist (nobody subscribed).
pub fn read(path: &Path) -> Result<Option<(Vec<u8>, Stamp)>, SubscriptionsError> {
    let io = |source| SubscriptionsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.len() > MAX_FILE_BYTES {
        return Err(SubscriptionsError::Unsafe {
            path: path.to_path_buf(),
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(&file, MAX_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(io)?;
    Ok(Some((bytes, stamp(&meta))))
}

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    Stamp {
        ino: meta.ino(),
        len: meta.len(),
        modified: meta.modified().ok(),
    }
}

/// The file's identity now, `None` when it is gone.
pub fn stamp_of(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path).ok().map(|m| stamp(&m))
}

/// Loads and parses the file (none: an empty list).
pub fn load(path: &Path) -> Result<(Vec<Subscription>, Option<Stamp>), SubscriptionsError> {
    match read(path)? {
        None => Ok((Vec::new(), None)),
        Some((bytes, stamp)) => parse(&bytes)
            .map(|subs| (subs, Some(stamp)))
            .map_err(|why| SubscriptionsError::Invalid {
                path: path.to_path_buf(),
                why,
            }),
    }
}

/// Removes every entry whose endpoint is `endpoint` (its push service said
/// it is gone), keeping every other entry as written. Returns how many
/// were removed. Nothing is written when none matches.
pub fn remove_endpoint(path: &Path, endpoint: &str) -> Result<usize, SubscriptionsError> {
    edit(path, |entries| {
        let count = entries.len();
        entries.retain(|e| e.get("endpoint").and_then(|v| v.as_str()) != Some(endpoint));
        let removed = count - entries.len();
        (removed > 0, removed)
    })
}

/// The one writer of the file, for every change: termic web's subscribe,
/// unsubscribe, notification choices and revoke, and the push sender's
/// removal of a gone endpoint. Under the lock, `change` gets every entry
/// as JSON (each field kept, known or not; none when the file does not
/// exist) and says whether it changed them, and what to return. When it
/// did, the list is written atomically (a temp file fsynced, renamed, the
/// directory fsynced), keeping the file's mode (0600 for a new file), but
/// only if the file is still the one read: a writer that did not take the
/// lock wins, and `change` runs again on what it wrote (8 times at most).
/// A file that is not a list, not this user's, or too big is refused and
/// left as it is.
pub fn edit<T>(
    path: &Path,
    mut change: impl FnMut(&mut Vec<serde_json::Value>) -> (bool, T),
) -> Result<T, SubscriptionsError> {
    let io = |source| SubscriptionsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let lock_path = lock_path(path);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&lock_path)
        .map_err(io)?;
    let _held = Flock::take(&lock).map_err(io)?;
    for _ in 0..8 {
        let (mut entries, before): (Vec<serde_json::Value>, Option<Stamp>) = match read(path)? {
            None => (Vec::new(), None),
            // serde_json::Value keeps every field, known or not; the
            // entries are re-serialized, the shape (an array of objects)
            // is the same.
            Some((bytes, stamp)) => (
                serde_json::from_slice(&bytes).map_err(|e| SubscriptionsError::Invalid {
                    path: path.to_path_buf(),
                    why: e.to_string(),
                })?,
                Some(stamp),
            ),
        };
        let (changed, out) = change(&mut entries);
        if !changed {
            return Ok(out);
        }
        let mut text = serde_json::to_vec_pretty(&entries).expect("JSON values serialize");
        text.push(b'\n');
        let mode = std::fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o600);
        let temp = write_temp(dir, &text, mode).map_err(io)?;
        // Compare, then swap: a writer that changed the file since we read
        // it wins, and we start over on what it wrote.
        if stamp_of(path) != before {
            let _ = std::fs::remove_file(&temp);
            continue;
        }
        if let Err(e) = std::fs::rename(&temp, path) {
            let _ = std::fs::remove_file(&temp);
            return Err(io(e));
        }
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        return Ok(out);
    }
    Err(SubscriptionsError::Busy {
        path: path.to_path_buf(),
    })
}

/// The lock file writers of `path` take (`flock`, exclusive).
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// A new file in `dir` holding `text`, fsynced, mode `mode`.
fn write_temp(dir: &Path, text: &[u8], mode: u32) -> std::io::Result<PathBuf> {
    for _ in 0..16 {
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).map_err(|e| std::io::Error::other(e.to_string()))?;
        let name = format!(
            ".{SUBSCRIPTIONS_FILE}.{}.tmp",
            suffix
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        let temp = dir.join(name);
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = file
            .write_all(text)
            .and_then(|()| file.set_permissions(std::fs::Permissions::from_mode(mode)))
            .and_then(|()| file.sync_all());
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(e);
        }
        return Ok(temp);
    }
    Err(std::io::Error::other("no free temporary name"))
}

/// An exclusive `flock`, released on drop.
struct Flock<'a>(&'a File);

impl<'a> Flock<'a> {
    fn take(file: &'a File) -> std::io::Result<Flock<'a>> {
        // Bounded: a writer holds it for one read and one write; one that
        // holds it for 2 s is stuck, and the removal is tried at the next
        // push instead.
        for _ in 0..200 {
            // SAFETY: a valid descriptor for the call's duration.
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if r == 0 {
                return Ok(Flock(file));
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(e);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "another process holds the lock",
        ))
    }
}

impl Drop for Flock<'_> {
    fn drop(&mut self) {
        // SAFETY: a valid descriptor.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Creates `dir` mode 0700 when missing; an existing one must be a
/// directory of this user.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) => {
            // SAFETY: geteuid has no preconditions.
            let me = unsafe { libc::geteuid() };
            if !meta.is_dir() || meta.uid() != me {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "not a directory of this user",
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"[
  {"device":"phone","endpoint":"https://push.example/a","keys":{"p256dh":"AA","auth":"BB"},"muted":[3],"needs_you_only":false,"label":"my phone"},
  {"device":"laptop","endpoint":"https://push.example/b","keys":{"p256dh":"CC","auth":"DD"},"muted":[],"needs_you_only":true}
]"#;

    #[test]
    fn parses_the_web_clients_file_and_applies_mute_and_needs_you_only() {
        let subs = parse(TWO.as_bytes()).unwrap();
        assert_eq!(subs.len(), 2);
        assert_eq!(subs[0].device, "phone");
        assert!(!subs[0].wants(3, true), "muted task: nothing");
        assert!(subs[0].wants(4, false));
        assert!(subs[1].wants(3, true));
        assert!(!subs[1].wants(3, false), "needs you only: no done");
        // A remote host's task: muted by HOST:NUMBER, not by its number.
        let remote = |host: &str, task: u64, why| crate::payload::Notification {
            task,
            name: "t".into(),
            host: host.into(),
            remote: Some(host.into()),
            why,
            actions: Vec::new(),
        };
        let mut far = subs[1].clone();
        far.muted_remote = vec!["far:3".into()];
        far.needs_you_only = false;
        let needs = || crate::payload::Why::NeedsYou {
            kind: None,
            detail: None,
        };
        assert!(!far.wants_note(&remote("far", 3, needs())));
        assert!(far.wants_note(&remote("near", 3, needs())));
        assert!(far.wants_note(&remote("far", 4, crate::payload::Why::Done)));
        assert!(!subs[1].wants_note(&remote("far", 4, crate::payload::Why::Done)));
        assert!(!subs[0].wants_note(&crate::payload::Notification {
            remote: None,
            ..remote("x", 3, needs())
        }));
        assert!(parse(b"{}").is_err());
        // The keys "AA"/"BB" are no keys; a real pair and https pass.
        assert!(subs[0].check().unwrap_err().contains("p256dh"));
        let ua = crate::ece::random_secret().unwrap();
        let mut good = subs[0].clone();
        good.keys.p256dh = crate::b64::encode(
            p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(&ua.public_key(), false)
                .as_bytes(),
        );
        good.keys.auth = crate::b64::encode(&[1; 16]);
        assert_eq!(good.check(), Ok(()));
        good.endpoint = "http://push.example/a".into();
        assert!(good.check().unwrap_err().contains("https"));
        assert!(parse(b"[{\"endpoint\":1}]").is_err());
    }

    #[test]
    fn removing_a_gone_endpoint_keeps_every_other_entry_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SUBSCRIPTIONS_FILE);
        std::fs::write(&path, TWO).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(remove_endpoint(&path, "https://push.example/b").unwrap(), 1);
        let left: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(left.as_array().unwrap().len(), 1);
        assert_eq!(left[0]["endpoint"], "https://push.example/a");
        assert_eq!(
            left[0]["label"], "my phone",
            "a field we do not know is kept"
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640, "its mode is kept");
        // Not there: nothing written.
        let before = stamp_of(&path);
        assert_eq!(
            remove_endpoint(&path, "https://push.example/zzz").unwrap(),
            0
        );
        assert_eq!(stamp_of(&path), before);
        // No temporary file left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn a_file_that_is_not_a_list_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SUBSCRIPTIONS_FILE);
        std::fs::write(&path, "{oops").unwrap();
        assert!(matches!(
            load(&path),
            Err(SubscriptionsError::Invalid { .. })
        ));
        assert!(remove_endpoint(&path, "x").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"{oops");
        assert!(load(&dir.path().join("none.json")).unwrap().0.is_empty());
        // A link is not followed.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(load(&link).is_err());
    }

    #[test]
    fn concurrent_removals_and_writes_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SUBSCRIPTIONS_FILE);
        let entries: Vec<serde_json::Value> = (0..20)
            .map(|i| {
                serde_json::json!({"device": format!("d{i}"), "endpoint": format!("https://p/{i}"),
                    "keys": {"p256dh": "AA", "auth": "BB"}})
            })
            .collect();
        std::fs::write(&path, serde_json::to_vec(&entries).unwrap()).unwrap();
        std::thread::scope(|s| {
            for i in 0..10 {
                let path = &path;
                s.spawn(move || remove_endpoint(path, &format!("https://p/{i}")).unwrap());
            }
        });
        let left = load(&path).unwrap().0;
        let ends: Vec<_> = left.iter().map(|s| s.endpoint.clone()).collect();
        let want: Vec<_> = (10..20).map(|i| format!("https://p/{i}")).collect();
        assert_eq!(ends, want);
    }
}
