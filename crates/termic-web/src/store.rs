//! The web client's state files under `<state dir>/web/`: paired devices
//! (`devices.json`) and pending pairing links (`pairings.json`). Secrets
//! are stored as their SHA-256 only. Every change is a read-modify-write
//! under an exclusive lock (`.lock`), written atomically (temp file 0600,
//! fsync, rename); a file that does not parse or that another user owns is
//! refused, never overwritten.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How long a pairing link works.
pub const PAIRING_TTL_MS: u64 = 10 * 60 * 1000;

/// A paired browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// Its number, for `termic web devices revoke NUMBER` (never reused).
    pub number: u64,
    /// Browser and system, from its User-Agent at pairing.
    pub name: String,
    /// SHA-256 of its credential, hex.
    pub hash: String,
    /// Unix ms.
    pub created: u64,
    /// Unix ms of its last authenticated request (updated at most once a minute).
    pub last_seen: u64,
    pub read_only: bool,
}

/// A pairing link not yet used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// SHA-256 of its token, hex.
    pub hash: String,
    /// Unix ms after which it no longer pairs.
    pub expires: u64,
    pub read_only: bool,
}

/// A device's credential: the cookie's half (HttpOnly, so no script can
/// read it, but sent to every port of the host: cookies are not isolated
/// by port) and the page's half (kept in the origin's localStorage, which
/// is isolated by port, sent in a header or the WebSocket's protocol
/// list). Only both together authenticate; its SHA-256 is stored.
pub fn credential(cookie: &str, key: &str) -> String {
    format!("{cookie}:{key}")
}

/// A fresh secret: 32 random bytes (256 bits), base64url.
pub fn new_secret() -> Result<String> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b))
}

pub fn hash(secret: &str) -> String {
    let d = Sha256::digest(secret.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Equal in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The `web` directory of termic's state dir.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
}

impl Store {
    pub fn new(dir: PathBuf) -> Self {
        Store { dir }
    }

    pub fn devices_path(&self) -> PathBuf {
        self.dir.join("devices.json")
    }

    fn pairings_path(&self) -> PathBuf {
        self.dir.join("pairings.json")
    }

    /// Create the directory 0700 if needed; refuse one another user owns.
    pub fn prepare(&self) -> Result<()> {
        if !self.dir.exists() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)
                .with_context(|| format!("cannot create {}", self.dir.display()))?;
        }
        let meta = fs::metadata(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?;
        // SAFETY: getuid has no preconditions.
        if meta.uid() != unsafe { libc::getuid() } {
            bail!(
                "{} belongs to another user: termic will not use it",
                self.dir.display()
            );
        }
        Ok(())
    }

    /// Runs `f` holding the directory's lock.
    fn locked<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.prepare()?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.dir.join(".lock"))
            .context("cannot open the web state lock")?;
        // SAFETY: flock on an fd we own; released when `lock` closes.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
            bail!("cannot lock {}", self.dir.display());
        }
        f()
    }

    pub fn devices(&self) -> Result<Vec<Device>> {
        read_list(&self.devices_path())
    }

    /// Adds a pairing link with `token` valid for 10 minutes from `now`;
    /// expired ones are dropped.
    pub fn add_pairing(&self, token: &str, read_only: bool, now: u64) -> Result<()> {
        self.locked(|| {
            let path = self.pairings_path();
            let mut list: Vec<Pairing> = read_list(&path)?;
            list.retain(|p| p.expires > now);
            list.push(Pairing {
                hash: hash(token),
                expires: now + PAIRING_TTL_MS,
                read_only,
            });
            write_atomic(&path, &list)
        })
    }

    /// Uses pairing `token` (once): a new device named `name` and its
    /// credential's two halves, the cookie's and the page's (see
    /// [`credential`]), or `None` (unknown, used or expired).
    pub fn pair(
        &self,
        token: &str,
        name: &str,
        now: u64,
    ) -> Result<Option<(Device, String, String)>> {
        self.locked(|| {
            let ppath = self.pairings_path();
            let mut list: Vec<Pairing> = read_list(&ppath)?;
            let h = hash(token);
            let found = list
                .iter()
                .find(|p| same(&p.hash, &h) && p.expires > now)
                .cloned();
            let before = list.len();
            list.retain(|p| p.expires > now && !same(&p.hash, &h));
            if list.len() != before {
                write_atomic(&ppath, &list)?;
            }
            let Some(pairing) = found else {
                return Ok(None);
            };
            let (cookie, key) = (new_secret()?, new_secret()?);
            let credential = credential(&cookie, &key);
            let dpath = self.devices_path();
            let mut devices: Vec<Device> = read_list(&dpath)?;
            let number = next_number(&self.dir, &devices)?;
            let device = Device {
                number,
                name: name.to_string(),
                hash: hash(&credential),
                created: now,
                last_seen: now,
                read_only: pairing.read_only,
            };
            devices.push(device.clone());
            write_atomic(&dpath, &devices)?;
            Ok(Some((device, cookie, key)))
        })
    }

    /// The device whose credential is `credential`, if paired.
    pub fn authenticate(&self, credential: &str) -> Result<Option<Device>> {
        let h = hash(credential);
        Ok(self.devices()?.into_iter().find(|d| same(&d.hash, &h)))
    }

    /// Records that device `number` was seen at `now`.
    pub fn touch(&self, number: u64, now: u64) -> Result<()> {
        self.locked(|| {
            let path = self.devices_path();
            let mut devices: Vec<Device> = read_list(&path)?;
            if let Some(d) = devices.iter_mut().find(|d| d.number == number) {
                d.last_seen = now;
                write_atomic(&path, &devices)?;
            }
            Ok(())
        })
    }

    /// Revokes the device numbered or named `which`: it is removed, and
    /// its push subscriptions with it. The revoked device, or `None`.
    /// A name that several devices share is refused.
    pub fn revoke(&self, which: &str) -> Result<Option<Device>> {
        self.locked(|| {
            let path = self.devices_path();
            let mut devices: Vec<Device> = read_list(&path)?;
            let matches: Vec<usize> = devices
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    which.parse::<u64>().is_ok_and(|n| n == d.number) || d.name == which
                })
                .map(|(i, _)| i)
                .collect();
            let i = match matches.as_slice() {
                [] => return Ok(None),
                [i] => *i,
                _ => bail!(
                    "{} devices are named {which}: revoke one by its number",
                    matches.len()
                ),
            };
            let device = devices.remove(i);
            write_atomic(&path, &devices)?;
            remove_subscriptions(&self.dir, device.number)?;
            Ok(Some(device))
        })
    }
}

/// Device numbers are never reused: the highest ever given is kept in
/// `next-device` (a revoked device's number does not come back).
fn next_number(dir: &Path, devices: &[Device]) -> Result<u64> {
    let path = dir.join("next-device");
    let stored: u64 = fs::read_to_string(&path)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(1);
    let n = stored.max(devices.iter().map(|d| d.number + 1).max().unwrap_or(1));
    write_atomic(&path, &(n + 1))?;
    Ok(n)
}

/// Changes `push-subscriptions.json` through the push sender's one writer
/// ([`termic_push::subscriptions::edit`]: under its lock, compare-and-swap,
/// atomic, every other entry and field kept).
fn edit_subscriptions<T>(
    dir: &Path,
    change: impl FnMut(&mut Vec<serde_json::Value>) -> (bool, T),
) -> Result<T> {
    let path = dir.join(termic_push::subscriptions::SUBSCRIPTIONS_FILE);
    Ok(termic_push::subscriptions::edit(&path, change)?)
}

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Clone, Deserialize)]
pub struct PushSubscription {
    pub endpoint: String,
    pub keys: PushKeys,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PushKeys {
    pub p256dh: String,
    pub auth: String,
}

impl PushSubscription {
    /// Err: why it is refused (an endpoint that is not https, keys that
    /// are not a 65-byte P-256 point and a 16-byte secret).
    pub fn check(&self) -> Result<(), &'static str> {
        let b64 = |s: &str| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(s.trim_end_matches('='))
        };
        if !self.endpoint.starts_with("https://") || self.endpoint.len() > 2048 {
            return Err("the endpoint is not an https address");
        }
        if !b64(&self.keys.p256dh).is_ok_and(|k| k.len() == 65 && k[0] == 4) {
            return Err("p256dh is not a P-256 point");
        }
        if !b64(&self.keys.auth).is_ok_and(|k| k.len() == 16) {
            return Err("auth is not 16 bytes");
        }
        Ok(())
    }
}

impl Store {
    /// Adds (or replaces, by endpoint) device `number`'s subscription in
    /// `push-subscriptions.json`; a new one hears about every task.
    pub fn subscribe(&self, number: u64, sub: &PushSubscription) -> Result<()> {
        self.prepare()?;
        let device = number.to_string();
        let keys = serde_json::json!({"p256dh": sub.keys.p256dh, "auth": sub.keys.auth});
        edit_subscriptions(&self.dir, |list| {
            match list
                .iter_mut()
                .find(|s| s.get("endpoint").and_then(|e| e.as_str()) == Some(sub.endpoint.as_str()))
            {
                Some(old) => {
                    old["device"] = device.clone().into();
                    old["keys"] = keys.clone();
                }
                None => list.push(serde_json::json!({
                    "device": device,
                    "endpoint": sub.endpoint,
                    "keys": keys,
                    "muted": [],
                    "needs_you_only": false,
                })),
            }
            (true, ())
        })
    }

    /// Removes device `number`'s subscription with `endpoint`.
    pub fn unsubscribe(&self, number: u64, endpoint: &str) -> Result<()> {
        self.prepare()?;
        let device = number.to_string();
        edit_subscriptions(&self.dir, |list| {
            let before = list.len();
            list.retain(|s| {
                !(s.get("endpoint").and_then(|e| e.as_str()) == Some(endpoint)
                    && s.get("device").and_then(|d| d.as_str()) == Some(device.as_str()))
            });
            (list.len() != before, ())
        })
    }
}

/// The most tasks one subscription mutes (task numbers are not reused,
/// so an old mute is the least useful one to keep).
pub const MAX_MUTED: usize = 1024;

/// A task a device mutes: this machine's by its number (`muted`), a
/// remote host's as `HOST:NUMBER` (`muted_remote`, 2026-12-06).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Muted {
    Task(u64),
    Remote { host: String, task: u64 },
}

impl Muted {
    /// The subscription's field and the value it holds for this task.
    fn entry(&self) -> (&'static str, serde_json::Value) {
        match self {
            Muted::Task(n) => ("muted", (*n).into()),
            Muted::Remote { host, task } => ("muted_remote", format!("{host}:{task}").into()),
        }
    }

    /// A value of that field as it should be (a number, a string).
    fn same_kind(&self, v: &serde_json::Value) -> bool {
        match self {
            Muted::Task(_) => v.is_u64(),
            Muted::Remote { .. } => v.is_string(),
        }
    }
}

impl Store {
    /// Sets device `number`'s notification choices on every subscription
    /// entry of that device: `mute` (task, muted) adds or removes a task
    /// from `muted`, `needs_you_only` sets that switch. Other devices'
    /// entries and unknown fields are kept as they are. Returns how many
    /// entries were changed and the device's choices now (the first
    /// entry's; none when this device has no subscription).
    pub fn set_push_choices(
        &self,
        number: u64,
        mute: Option<(Muted, bool)>,
        needs_you_only: Option<bool>,
    ) -> Result<(usize, Option<serde_json::Value>)> {
        self.prepare()?;
        let device = number.to_string();
        edit_subscriptions(&self.dir, |list| {
            let mut changed = 0;
            for entry in list
                .iter_mut()
                .filter(|s| s.get("device").and_then(|d| d.as_str()) == Some(device.as_str()))
            {
                let before = entry.clone();
                if let Some((task, on)) = &mute {
                    let (field, value) = task.entry();
                    let mut muted: Vec<serde_json::Value> = entry
                        .get(field)
                        .and_then(|m| m.as_array())
                        .map(|m| m.iter().filter(|t| task.same_kind(t)).cloned().collect())
                        .unwrap_or_default();
                    muted.retain(|t| *t != value);
                    if *on {
                        // Bounded: the oldest mute goes first.
                        if muted.len() >= MAX_MUTED {
                            muted.remove(0);
                        }
                        muted.push(value);
                    }
                    entry[field] = muted.into();
                }
                if let Some(only) = needs_you_only {
                    entry["needs_you_only"] = only.into();
                }
                if *entry != before {
                    changed += 1;
                }
            }
            let now = list
                .iter()
                .find(|s| s.get("device").and_then(|d| d.as_str()) == Some(device.as_str()))
                .map(|s| {
                    serde_json::json!({
                        "muted": s.get("muted").cloned().unwrap_or_else(|| serde_json::json!([])),
                        "muted_remote": s.get("muted_remote").cloned().unwrap_or_else(|| serde_json::json!([])),
                        "needs_you_only": s.get("needs_you_only").and_then(|v| v.as_bool()).unwrap_or(false),
                    })
                });
            (changed > 0, (changed, now))
        })
    }
}

/// Removes device `number`'s entries from `push-subscriptions.json` (the
/// push sender's file), keeping every other entry and field as it is.
fn remove_subscriptions(dir: &Path, number: u64) -> Result<()> {
    let id = number.to_string();
    edit_subscriptions(dir, |list| {
        let before = list.len();
        list.retain(|s| s.get("device").and_then(|d| d.as_str()) != Some(id.as_str()));
        (list.len() != before, ())
    })
}

fn read_list<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let meta = fs::metadata(path)?;
    // SAFETY: getuid has no preconditions.
    if meta.uid() != unsafe { libc::getuid() } {
        bail!(
            "{} belongs to another user: termic will not use it",
            path.display()
        );
    }
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} does not parse: termic leaves it as it is (fix or remove it)",
            path.display()
        )
    })
}

/// A temp file older than this (seconds) is a killed writer's: a live one
/// holds its temp file for one write and one rename.
pub const STALE_TEMP_SECS: u64 = 60;

/// Whether `name` is one of our writers' temp files in the web state
/// directory: `write_atomic`'s `.NAME.tmpPID` for our own files, and
/// termic-push's `.push-subscriptions.json.HEX.tmp`.
fn is_state_temp_name(name: &str) -> bool {
    let ours = ["devices.json", "pairings.json", "next-device"]
        .iter()
        .any(|file| {
            name.strip_prefix('.')
                .and_then(|n| n.strip_prefix(file))
                .and_then(|n| n.strip_prefix(".tmp"))
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        });
    let push = name
        .strip_prefix('.')
        .and_then(|n| n.strip_prefix(termic_push::subscriptions::SUBSCRIPTIONS_FILE))
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(".tmp"))
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
    ours || push
}

/// Removes the temp files a writer killed between its write and its
/// rename left in `dir`: only our names (regular files, not links), only
/// those written [`STALE_TEMP_SECS`] or more before `now` (seconds since
/// the epoch). Returns what it removed. Errors are ignored: a temp file
/// left is a few bytes, never a wrong state.
pub fn sweep_stale_temps(dir: &Path, now: u64) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_state_temp_name) {
            continue;
        }
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        let old = (meta.mtime().max(0) as u64).saturating_add(STALE_TEMP_SECS) <= now;
        if meta.file_type().is_file() && old && fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
}

/// Writes `value` as JSON to `path` atomically, mode 0600.
pub fn write_atomic<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let dir = path.parent().context("a state file has a directory")?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("state"),
        std::process::id()
    ));
    let mut body = serde_json::to_vec_pretty(value)?;
    body.push(b'\n');
    // A write that fails (a full disk) leaves the old file as it was and
    // no temp file behind, and says which file it could not write.
    let written = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(&body)?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        bail!("cannot write {}: {e}", path.display());
    }
    File::open(dir)?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in the child of the kill test: the web state directory it
    /// writes to until it is killed.
    const KILL_WRITER: &str = "TERMIC_WEB_KILL_WRITER";

    /// Issue 30: `termic web` killed (SIGKILL) at any instant of a write
    /// of devices.json or push-subscriptions.json leaves each file whole.
    /// The test's own binary, as a child, records a device's visits and
    /// rewrites its push subscription and mutes as fast as it can, and is
    /// killed ten times at whatever point it reached; each time both files
    /// parse, and the device still authenticates. Temp files a kill left
    /// are swept once they are old.
    #[test]
    fn a_writer_killed_at_any_instant_leaves_devices_and_subscriptions_whole() {
        if let Some(dir) = std::env::var_os(KILL_WRITER) {
            let store = Store::new(PathBuf::from(dir));
            for n in 1u64.. {
                let _ = store.touch(1, n);
                let sub = PushSubscription {
                    endpoint: format!("https://push.example/{}", n % 3),
                    keys: PushKeys {
                        p256dh: "k".repeat(87),
                        auth: "a".repeat(22),
                    },
                };
                let _ = store.subscribe(1, &sub);
                let _ = store.set_push_choices(1, Some((Muted::Task(n % 5), n % 2 == 0)), None);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("web"));
        store.add_pairing("token", false, 0).unwrap();
        let (device, cookie, key) = store.pair("token", "phone", 0).unwrap().unwrap();
        let subs = store
            .dir
            .join(termic_push::subscriptions::SUBSCRIPTIONS_FILE);
        let seen = || -> u64 { store.devices().unwrap().first().map_or(0, |d| d.last_seen) };
        for round in 0..10u64 {
            let before = seen();
            let mut child = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "store::tests::a_writer_killed_at_any_instant_leaves_devices_and_subscriptions_whole",
                    "--exact",
                    "--test-threads",
                    "1",
                ])
                .env(KILL_WRITER, &store.dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            // Killed once it is writing, a few more writes each round, so
            // the kill lands at a different point of a write.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while seen() < before + 2 + round * 5 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the writer never wrote"
                );
                std::thread::yield_now();
            }
            child.kill().unwrap();
            child.wait().unwrap();
            let devices = store.devices();
            assert!(
                devices.is_ok(),
                "round {round}: devices.json is torn: {devices:?}"
            );
            if subs.exists() {
                let list: Result<Vec<serde_json::Value>, _> =
                    serde_json::from_slice(&fs::read(&subs).unwrap());
                assert!(
                    list.is_ok(),
                    "round {round}: push-subscriptions.json is torn"
                );
            }
        }
        let found = store.authenticate(&credential(&cookie, &key)).unwrap();
        assert_eq!(found.map(|d| d.number), Some(device.number));
        assert!(store.set_push_choices(1, None, None).is_ok());
        // What the kills left (and one of each kind a kill between the
        // write and the rename leaves), swept when old, not before.
        fs::write(store.dir.join(".devices.json.tmp99999"), "[{\"numb").unwrap();
        fs::write(
            store
                .dir
                .join(".push-subscriptions.json.00112233445566ff.tmp"),
            "[",
        )
        .unwrap();
        let temps = || {
            fs::read_dir(&store.dir)
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_str().is_some_and(is_state_temp_name))
                .count()
        };
        let left = temps();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(left >= 2, "{left}");
        assert!(
            sweep_stale_temps(&store.dir, now).is_empty(),
            "young: a live writer's"
        );
        assert_eq!(
            sweep_stale_temps(&store.dir, now + STALE_TEMP_SECS + 1).len(),
            left
        );
        assert_eq!(temps(), 0);
        assert!(store.dir.join("devices.json").exists());
        assert!(
            store.dir.join(".lock").exists(),
            "only temp files are swept"
        );
    }

    #[test]
    fn only_our_temp_file_names_are_swept() {
        for ours in [
            ".devices.json.tmp4242",
            ".pairings.json.tmp1",
            ".next-device.tmp77",
            ".push-subscriptions.json.0123456789abcdef.tmp",
        ] {
            assert!(is_state_temp_name(ours), "{ours}");
        }
        for theirs in [
            "devices.json",
            ".devices.json.tmp",
            ".devices.json.tmp12a",
            ".notes.json.tmp1",
            ".push-subscriptions.json.0123.tmp",
            ".push-subscriptions.json.0123456789abcdeg.tmp",
            ".lock",
            "push-subscriptions.json.lock",
        ] {
            assert!(!is_state_temp_name(theirs), "{theirs}");
        }
    }

    #[test]
    fn muting_keeps_at_most_max_muted_tasks_dropping_the_oldest_and_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("web"));
        store.prepare().unwrap();
        let path = store.dir.join("push-subscriptions.json");
        fs::write(
            &path,
            r#"[{"device":"1","endpoint":"https://p.example/1","keys":{"p256dh":"x","auth":"y"},"muted":[],"needs_you_only":false,"later":{"kept":true}}]"#,
        )
        .unwrap();
        for task in 0..(MAX_MUTED as u64 + 3) {
            store
                .set_push_choices(1, Some((Muted::Task(task), true)), None)
                .unwrap();
        }
        let (changed, now) = store.set_push_choices(1, None, None).unwrap();
        assert_eq!(changed, 0);
        let muted = now.unwrap()["muted"].as_array().unwrap().clone();
        assert_eq!(muted.len(), MAX_MUTED);
        assert_eq!(muted[0], 3, "the oldest mutes went");
        let list: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(list[0]["later"], serde_json::json!({"kept": true}));
        // A remote host's task: by HOST:NUMBER in muted_remote, apart
        // from this machine's task of the same number.
        let far = |task| Muted::Remote {
            host: "far".into(),
            task,
        };
        store
            .set_push_choices(1, Some((far(5), true)), None)
            .unwrap();
        let (_, now) = store
            .set_push_choices(1, Some((far(6), true)), None)
            .unwrap();
        assert_eq!(
            now.as_ref().unwrap()["muted_remote"],
            serde_json::json!(["far:5", "far:6"])
        );
        let (_, now) = store
            .set_push_choices(1, Some((far(5), false)), None)
            .unwrap();
        let now = now.unwrap();
        assert_eq!(now["muted_remote"], serde_json::json!(["far:6"]));
        assert_eq!(now["muted"].as_array().unwrap().len(), MAX_MUTED);
        assert_eq!(
            store.set_push_choices(2, None, Some(true)).unwrap(),
            (0, None)
        );
    }

    /// termic web's subscriptions and the push sender's removals of gone
    /// endpoints, at the same time, go through one writer: nothing either
    /// wrote is lost, and an unparsable file is refused and left alone.
    #[test]
    fn subscribing_while_the_push_sender_removes_endpoints_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("web"));
        store.prepare().unwrap();
        let path = store.dir.join("push-subscriptions.json");
        let gone: Vec<serde_json::Value> = (0..20)
            .map(|i| {
                serde_json::json!({"device": "9", "endpoint": format!("https://p.example/gone{i}"),
                "keys": {"p256dh": "x", "auth": "y"}, "later": i})
            })
            .collect();
        write_atomic(&path, &gone).unwrap();
        let point = format!("BA{}", "A".repeat(85));
        let remover = {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..20 {
                    let url = format!("https://p.example/gone{i}");
                    assert_eq!(
                        termic_push::subscriptions::remove_endpoint(&path, &url).unwrap(),
                        1
                    );
                }
            })
        };
        for i in 0..20 {
            let sub = PushSubscription {
                endpoint: format!("https://p.example/new{i}"),
                keys: PushKeys {
                    p256dh: point.clone(),
                    auth: "AAAAAAAAAAAAAAAAAAAAAA".into(),
                },
            };
            store.subscribe(1, &sub).unwrap();
        }
        remover.join().unwrap();
        let list: Vec<serde_json::Value> = read_list(&path).unwrap();
        let endpoints: Vec<&str> = list
            .iter()
            .map(|e| e["endpoint"].as_str().unwrap())
            .collect();
        let want: Vec<String> = (0..20)
            .map(|i| format!("https://p.example/new{i}"))
            .collect();
        assert_eq!(endpoints, want);
        fs::write(&path, "not json").unwrap();
        assert!(store.unsubscribe(1, "https://p.example/new1").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"not json");
    }

    #[test]
    fn a_link_pairs_once_and_only_before_it_expires() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("web"));
        let token = new_secret().unwrap();
        store.add_pairing(&token, true, 1_000).unwrap();
        assert!(store.pair("wrong", "x", 1_001).unwrap().is_none());
        let (device, cookie, key) = store
            .pair(&token, "Chrome on Linux", 1_002)
            .unwrap()
            .unwrap();
        let cred = credential(&cookie, &key);
        assert!(
            store.authenticate(&cookie).unwrap().is_none(),
            "the cookie alone is not enough"
        );
        assert!(device.read_only);
        assert!(store.pair(&token, "again", 1_003).unwrap().is_none());
        assert_eq!(
            store.authenticate(&cred).unwrap().unwrap().number,
            device.number
        );
        let text = fs::read_to_string(store.devices_path()).unwrap();
        assert!(
            !text.contains(&cred),
            "the credential itself is never stored"
        );
        let late = new_secret().unwrap();
        store.add_pairing(&late, false, 0).unwrap();
        assert!(store.pair(&late, "x", PAIRING_TTL_MS).unwrap().is_none());
        let mode = fs::metadata(store.devices_path()).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn revoke_removes_the_device_and_its_subscriptions_and_numbers_are_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("web"));
        let mut creds = Vec::new();
        for _ in 0..2 {
            let t = new_secret().unwrap();
            store.add_pairing(&t, false, 0).unwrap();
            let (d, c, k) = store.pair(&t, "Firefox on Linux", 1).unwrap().unwrap();
            creds.push((d, credential(&c, &k)));
        }
        let subs = serde_json::json!([
            {"device": creds[0].0.number.to_string(), "endpoint": "https://a", "extra": 1},
            {"device": creds[1].0.number.to_string(), "endpoint": "https://b"}
        ]);
        write_atomic(&store.dir.join("push-subscriptions.json"), &subs).unwrap();
        assert!(
            store.revoke("Firefox on Linux").is_err(),
            "an ambiguous name"
        );
        let gone = store
            .revoke(&creds[0].0.number.to_string())
            .unwrap()
            .unwrap();
        assert_eq!(gone.number, creds[0].0.number);
        assert!(store.authenticate(&creds[0].1).unwrap().is_none());
        assert!(store.authenticate(&creds[1].1).unwrap().is_some());
        let left: Vec<serde_json::Value> =
            read_list(&store.dir.join("push-subscriptions.json")).unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0]["endpoint"], "https://b");
        let t = new_secret().unwrap();
        store.add_pairing(&t, false, 0).unwrap();
        let (third, _, _) = store.pair(&t, "x", 1).unwrap().unwrap();
        assert!(third.number > creds[1].0.number);
    }

    #[test]
    fn a_file_that_does_not_parse_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        fs::write(store.devices_path(), "not json").unwrap();
        assert!(store.devices().is_err());
        assert!(store.revoke("1").is_err());
        assert_eq!(
            fs::read_to_string(store.devices_path()).unwrap(),
            "not json"
        );
    }
}
