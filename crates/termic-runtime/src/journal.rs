//! The task journal (issue 28): one small JSON file per live task of the
//! server, in `<data dir>/tasks/`, so that what a server that ended without
//! a word (SIGKILL, the OOM killer, a crash, power loss) was running can be
//! told to the user, and later restored.
//!
//! - Written (temp file, fsync, rename; 0600 in a 0700 dir) when a task
//!   starts; removed when it is closed (kill, close), when it ends while
//!   the server lives, and when the user quits with prefix `q`. A server
//!   that ends every task otherwise (`server stop`, a signal it catches)
//!   keeps them, marked stopped, for a restore (issue 31).
//! - So a record still there when a new server starts, whose server no
//!   longer runs, is a **lost** task: [`claim_lost`] moves it to
//!   `<data dir>/lost/` (renamed with the time it was found, so it is shown
//!   once and kept for a restore) and returns it.
//! - Bounded: at most [`MAX_RECORDS`] records, each at most
//!   [`MAX_RECORD_BYTES`] (a longer command line is cut and marked), and
//!   [`MAX_LOST`] files kept in `lost/`. A record that cannot be written
//!   (a full disk) is skipped with a line in the server log; the task runs.
//!
//! Also the server's own marker ([`ServerMark`], `<data dir>/server.json`):
//! written when a server starts, removed when it ends on purpose, so the
//! next start can log that the previous one ended without a word.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::orphans::Owner;
use super::TaskId;

/// The directory of live tasks' records, in the data dir.
pub const TASKS_DIR: &str = "tasks";
/// Where lost tasks' records go once told, in the data dir.
pub const LOST_DIR: &str = "lost";
/// The server's marker, in the data dir.
pub const SERVER_MARK: &str = "server.json";
/// Records in `tasks/` at most: a server with more tasks keeps no record
/// of the rest (and logs it).
pub const MAX_RECORDS: usize = 256;
/// One record's size at most.
pub const MAX_RECORD_BYTES: usize = 8 * 1024;
/// Files kept in `lost/`; the oldest go first.
pub const MAX_LOST: usize = 256;
/// The record format.
pub const VERSION: u32 = 1;

/// One task as the journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub version: u32,
    pub name: String,
    /// The task's number as `termic ls` showed it, when it had one.
    #[serde(default)]
    pub number: Option<u64>,
    /// The agent id (`command` for a command task).
    pub agent: String,
    /// Program and arguments (non-UTF-8 bytes replaced).
    pub argv: Vec<String>,
    /// Arguments were dropped from the end to keep the record small.
    #[serde(default)]
    pub argv_cut: bool,
    pub cwd: String,
    /// When it started, Unix time in milliseconds.
    pub started_ms: u64,
    /// The server that ran it (`TERMIC_OWNER`'s value).
    pub owner: String,
    /// The agent's arguments as the user gave them (without what termic
    /// adds), so a restore starts it the same way; `None` for a command
    /// task (its `argv` is what it runs) or a record written before
    /// 2026-12-06.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Its detection profile: the built-in it is (a config-defined agent's
    /// base), whose resume option a restore uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The task's worktree, when it ran in one (its `cwd` is inside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// The agent's own conversation id, as its hooks last reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The task's last state (`idle`, `working`, `needs_you`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// How its server ended it: `stopped` (`termic server stop`, a signal
    /// it caught: a reboot's SIGTERM); `None` when the server ended
    /// without a word (killed, crashed, power lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// The review snapshot ref termic took in its repository when it
    /// started (`refs/termic/snapshots/...`): a server start deletes the
    /// snapshot refs no record names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The object its review diff starts at: the commit its worktree was
    /// cut from, or the tree `snapshot` names. A restore keeps it, so the
    /// restored task's diff still counts from its first start (issue 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_base: Option<String>,
}

impl TaskRecord {
    /// A record with no number yet: the runtime numbers a task under its
    /// task list's lock and sets it before the record is written.
    pub fn new(
        name: &str,
        agent: &str,
        argv: &[OsString],
        cwd: &Path,
        started_ms: u64,
        owner: &str,
    ) -> TaskRecord {
        TaskRecord {
            version: VERSION,
            name: name.to_owned(),
            number: None,
            agent: agent.to_owned(),
            argv: argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            argv_cut: false,
            cwd: cwd.to_string_lossy().into_owned(),
            started_ms,
            owner: owner.to_owned(),
            args: None,
            profile: None,
            worktree: None,
            session: None,
            state: None,
            ended: None,
            snapshot: None,
            review_base: None,
        }
    }

    /// The JSON, within [`MAX_RECORD_BYTES`]: arguments are dropped from
    /// the end (`args` first, then `argv`; and `argv_cut` set) until it fits. `None`: even the name
    /// and directory do not fit.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut record = self.clone();
        loop {
            let bytes = serde_json::to_vec(&record).ok()?;
            if bytes.len() <= MAX_RECORD_BYTES {
                return Some(bytes);
            }
            // The arguments as asked go first (a restore then falls back
            // to the command line), then the command line's.
            match &mut record.args {
                Some(args) if !args.is_empty() => {
                    args.pop();
                }
                _ => {
                    record.argv.pop()?;
                }
            }
            record.argv_cut = true;
        }
    }

    /// The command line as a user reads it: a command or shell task's as
    /// the user gave it (a shell's integrated start-up is termic's own).
    pub fn command(&self) -> String {
        let plain = matches!(self.profile.as_deref(), Some("command" | "shell"));
        let argv = match &self.args {
            Some(args) if plain && !args.is_empty() => args,
            _ => &self.argv,
        };
        let words: Vec<String> = argv
            .iter()
            .map(|a| shell_words::quote(a).into_owned())
            .collect();
        let mut line = words.join(" ");
        if self.argv_cut {
            line.push_str(" ...");
        }
        line
    }
}

/// What [`TaskRecord::ended`] says of a task its server ended on purpose.
pub const ENDED_STOPPED: &str = "stopped";

/// The live tasks' records of one server.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    owner: String,
    /// One read-modify-write at a time (a rename from the server, a
    /// session id from a task's screen thread, a removal from its waiter):
    /// none undoes another, and a removed record is never written back.
    edits: std::sync::Mutex<()>,
    /// The server is ending every task on purpose and keeps their records
    /// for a restore: the removals their endings would make are skipped.
    keeping: std::sync::atomic::AtomicBool,
}

impl Journal {
    /// The journal of the server named `owner` (its `TERMIC_OWNER`) in
    /// `data_dir`.
    pub fn new(data_dir: &Path, owner: &str) -> Journal {
        Journal {
            dir: data_dir.join(TASKS_DIR),
            owner: owner.to_owned(),
            edits: std::sync::Mutex::new(()),
            keeping: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn edit_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.edits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// This server's record of task `id`. The owner is in the name, so two
    /// servers' records never collide.
    fn path(&self, id: TaskId) -> PathBuf {
        self.dir.join(format!("{}-{}.json", self.owner, id.0))
    }

    /// Keep `record` as task `id`'s. Errors say why in words (for the log).
    pub fn write(&self, id: TaskId, record: &TaskRecord) -> Result<(), String> {
        make_private_dir(&self.dir).map_err(|e| why(&self.dir, &e))?;
        let count = records_in(&self.dir).len();
        if count >= MAX_RECORDS {
            return Err(format!(
                "{} already holds {MAX_RECORDS} task records",
                self.dir.display()
            ));
        }
        let bytes = record
            .to_bytes()
            .ok_or_else(|| "the record is too large".to_owned())?;
        let path = self.path(id);
        write_atomic(&path, &bytes).map_err(|e| why(&path, &e))
    }

    /// Task `id` was renamed: its record names it so, so a lost task is
    /// told by the name the user last gave it. A task with no record
    /// (none could be kept, or it already ended) stays without one.
    pub fn rename(&self, id: TaskId, name: &str) -> Result<(), String> {
        self.update(id, |record| name.clone_into(&mut record.name))
    }

    /// Change task `id`'s record with `change` (atomically, as every
    /// write). A task with no record stays without one; a change that
    /// changes nothing writes nothing.
    pub fn update(&self, id: TaskId, change: impl FnOnce(&mut TaskRecord)) -> Result<(), String> {
        let _edit = self.edit_lock();
        let path = self.path(id);
        let Ok(Some(bytes)) = read_small(&path, MAX_RECORD_BYTES) else {
            return Ok(());
        };
        let mut record: TaskRecord =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let before = record.clone();
        change(&mut record);
        if record == before {
            return Ok(());
        }
        let bytes = record
            .to_bytes()
            .ok_or_else(|| "the record is too large".to_owned())?;
        write_atomic(&path, &bytes).map_err(|e| why(&path, &e))
    }

    /// Forget task `id` (closed, or ended while the server lives), unless
    /// the server is keeping every record for a restore ([`Self::keep_all`]).
    pub fn remove(&self, id: TaskId) {
        let _edit = self.edit_lock();
        if !self.keeping.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = std::fs::remove_file(self.path(id));
        }
    }

    /// This server's records.
    fn ours(&self) -> Vec<PathBuf> {
        let prefix = format!("{}-", self.owner);
        records_in(&self.dir)
            .into_iter()
            .filter(|path| {
                path.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix))
            })
            .collect()
    }

    /// Forget every task of this server.
    pub fn remove_all(&self) {
        let _edit = self.edit_lock();
        for path in self.ours() {
            let _ = std::fs::remove_file(path);
        }
    }

    /// The server ends every task on purpose (`server stop`, a signal it
    /// caught): each record is kept, marked [`ENDED_STOPPED`], for the next
    /// start to offer a restore; the endings remove none of them.
    pub fn keep_all(&self) {
        self.keeping
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let _edit = self.edit_lock();
        for path in self.ours() {
            let Ok(Some(bytes)) = read_small(&path, MAX_RECORD_BYTES) else {
                continue;
            };
            let Ok(mut record) = serde_json::from_slice::<TaskRecord>(&bytes) else {
                continue;
            };
            record.ended = Some(ENDED_STOPPED.to_owned());
            if let Some(bytes) = record.to_bytes() {
                let _ = write_atomic(&path, &bytes);
            }
        }
    }
}

fn why(path: &Path, e: &io::Error) -> String {
    format!(
        "{}: {}",
        path.display(),
        crate::record_file::why_write_failed(e)
    )
}

/// `dir` and its parents, the last one 0700.
fn make_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// The `*.json` files in `dir` (none when it cannot be read).
fn records_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect()
}

/// Write `bytes` to `path` so that a crash at any instant leaves the old
/// file or the new one, never a part: a temp file beside it (0600),
/// written, synced, renamed over. A failure removes the temp file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_data()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Read at most `limit` bytes of a regular file (not a link, a FIFO, a
/// device): `None` for anything else or a longer file.
fn read_small(path: &Path, limit: usize) -> io::Result<Option<Vec<u8>>> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    (&file).take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() <= limit).then_some(bytes))
}

/// Whether `owner` (a `TERMIC_OWNER` value) names a process that still
/// runs. `None`: it cannot be told (not a value, another pid namespace).
pub fn owner_running(owner: &str) -> Option<bool> {
    let owner = Owner::parse(owner)?;
    let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    if ns.to_string_lossy() != format!("pid:[{}]", owner.pidns) {
        return None;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", owner.pid)) else {
        return Some(false);
    };
    let zombie = super::session::parse_stat_ids(&stat).is_none_or(|ids| ids.zombie);
    Some(!zombie && super::orphans::parse_start_time(&stat) == Some(owner.start))
}

/// What [`claim_lost`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Claimed {
    /// The lost tasks, oldest first.
    pub lost: Vec<TaskRecord>,
    /// Files in `tasks/` that are no record of ours (unreadable, corrupt,
    /// foreign): left where they are, each with why.
    pub skipped: Vec<String>,
}

/// Take the records of tasks whose server is gone: each is moved to
/// `lost/` (renamed `<now_ms>-<name>`, so a second claimant finds it gone
/// and it is told once) and returned. Records of a server that runs, or of
/// one this process cannot tell about, stay.
pub fn claim_lost(data_dir: &Path, now_ms: u64) -> Claimed {
    claim_with(data_dir, now_ms, &|owner| {
        owner_running(owner) == Some(false)
    })
}

/// [`claim_lost`] with the question "is this server gone" given.
pub fn claim_with(data_dir: &Path, now_ms: u64, gone: &dyn Fn(&str) -> bool) -> Claimed {
    let dir = data_dir.join(TASKS_DIR);
    let lost_dir = data_dir.join(LOST_DIR);
    let mut claimed = Claimed::default();
    let mut paths = records_in(&dir);
    paths.sort();
    for path in paths {
        let shown = path.display();
        let record = match read_small(&path, MAX_RECORD_BYTES) {
            // Claimed by another process meanwhile.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                claimed
                    .skipped
                    .push(format!("{shown}: cannot read it: {e}"));
                continue;
            }
            Ok(None) => {
                claimed.skipped.push(format!(
                    "{shown}: not a task record (not a small regular file)"
                ));
                continue;
            }
            Ok(Some(bytes)) => match serde_json::from_slice::<TaskRecord>(&bytes) {
                Ok(r) if r.version == VERSION => r,
                Ok(r) => {
                    claimed.skipped.push(format!(
                        "{shown}: a task record of another format (version {})",
                        r.version
                    ));
                    continue;
                }
                Err(e) => {
                    claimed
                        .skipped
                        .push(format!("{shown}: not a task record ({e})"));
                    continue;
                }
            },
        };
        if !gone(&record.owner) {
            continue;
        }
        let Some(name) = path.file_name() else {
            continue;
        };
        let target = lost_dir.join(format!("{now_ms:015}-{}", name.to_string_lossy()));
        let moved = make_private_dir(&lost_dir).and_then(|()| std::fs::rename(&path, &target));
        match moved {
            Ok(()) => claimed.lost.push(record),
            Err(e) if e.kind() == io::ErrorKind::NotFound && !path.exists() => {}
            // Not kept (a full disk refused the directory): still told
            // once, so removed.
            Err(_) => {
                if std::fs::remove_file(&path).is_ok() {
                    claimed.lost.push(record);
                }
            }
        }
    }
    prune(&lost_dir, MAX_LOST);
    claimed.lost.sort_by_key(|r| r.started_ms);
    claimed
}

/// Keep the newest `keep` files of `dir` (their names start with the time
/// they were found, so the name's order is their age).
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    if names.len() <= keep {
        return;
    }
    names.sort();
    for old in &names[..names.len() - keep] {
        let _ = std::fs::remove_file(old);
    }
}

/// What the user is told about lost tasks: a sentence naming them, then
/// one indented line per task (name, command, directory). `None`: none.
pub fn lost_notice(lost: &[TaskRecord]) -> Option<String> {
    let first = lost.first()?;
    let names: Vec<&str> = lost.iter().map(|r| r.name.as_str()).collect();
    let stopped = lost
        .iter()
        .all(|r| r.ended.as_deref() == Some(ENDED_STOPPED));
    let mut text = if stopped {
        match lost.len() {
            1 => format!(
                "The termic server was stopped with its task {}.",
                first.name
            ),
            n => format!(
                "The termic server was stopped with its {n} tasks: {}.",
                names.join(", ")
            ),
        }
    } else {
        let what = match lost.len() {
            1 => format!("its task {} was lost", first.name),
            n => format!("its {n} tasks were lost: {}", names.join(", ")),
        };
        format!(
            "The termic server before this one ended without a word (killed or crashed), and {what}."
        )
    };
    for r in lost {
        text.push_str(&format!("\n  {}: {} (in {})", r.name, r.command(), r.cwd));
    }
    text.push_str("\n`termic restore` starts them again.");
    Some(text)
}

/// One task a restore can start again: its record in `lost/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restorable {
    pub path: PathBuf,
    pub record: TaskRecord,
}

/// The tasks that ended with their server and were not restored or
/// dismissed yet (the records in `lost/`), oldest first. Unreadable files
/// are left out.
pub fn restorable(data_dir: &Path) -> Vec<Restorable> {
    let mut found: Vec<Restorable> = records_in(&data_dir.join(LOST_DIR))
        .into_iter()
        .filter_map(|path| {
            let bytes = read_small(&path, MAX_RECORD_BYTES).ok().flatten()?;
            let record: TaskRecord = serde_json::from_slice(&bytes).ok()?;
            (record.version == VERSION).then_some(Restorable { path, record })
        })
        .collect();
    found.sort_by(|a, b| {
        (a.record.number, a.record.started_ms).cmp(&(b.record.number, b.record.started_ms))
    });
    found
}

/// Every readable record of this data dir, live (`tasks/`) and lost
/// (`lost/`), whatever its owner: what a start must not forget.
pub fn all_records(data_dir: &Path) -> Vec<TaskRecord> {
    [TASKS_DIR, LOST_DIR]
        .iter()
        .flat_map(|dir| records_in(&data_dir.join(dir)))
        .filter_map(|path| {
            let bytes = read_small(&path, MAX_RECORD_BYTES).ok().flatten()?;
            serde_json::from_slice(&bytes).ok()
        })
        .collect()
}

/// Take one restorable task: its record leaves `lost/`. `false`: another
/// client took it first (it is restored once).
pub fn take_restorable(r: &Restorable) -> bool {
    std::fs::remove_file(&r.path).is_ok()
}

/// A temp file of [`write_atomic`] younger than this may be a live
/// writer's (a write takes milliseconds): a start leaves it alone.
pub const STALE_TEMP_MS: u64 = 60_000;

/// Whether `name` is one of [`write_atomic`]'s temp files for a journal
/// file: `.<name>.json.<pid>.tmp` (a record, or the server's marker).
/// Pure: a name, no I/O.
pub fn is_journal_temp_name(name: &str) -> bool {
    let Some(inner) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((file, pid)) = inner.rsplit_once('.') else {
        return false;
    };
    !pid.is_empty()
        && pid.len() <= 10
        && pid.bytes().all(|b| b.is_ascii_digit())
        && file.len() > ".json".len()
        && file.ends_with(".json")
        && !file.contains('/')
}

/// At a server start: remove the temp files a writer killed mid-write
/// (SIGKILL, a crash, power loss) left in `tasks/`, `lost/` and the data
/// dir itself (the server marker's), so they do not pile up. Only
/// termic's own ([`is_journal_temp_name`]), regular files (not a link)
/// of this user, last changed [`STALE_TEMP_MS`] or more before `now_ms`.
/// Returns what was removed, for the log.
pub fn sweep_temp_files(data_dir: &Path, now_ms: u64) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut removed = Vec::new();
    for dir in [
        data_dir.join(TASKS_DIR),
        data_dir.join(LOST_DIR),
        data_dir.to_path_buf(),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !name.to_str().is_some_and(is_journal_temp_name) {
                continue;
            }
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let changed_ms = u64::try_from(meta.mtime())
                .unwrap_or(0)
                .saturating_mul(1000);
            let stale = now_ms.saturating_sub(changed_ms) >= STALE_TEMP_MS;
            if meta.is_file() && meta.uid() == me && stale && std::fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed.sort();
    removed
}

/// The server's marker: which server runs for this data dir, so the next
/// one can tell that it ended without a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerMark {
    pub pid: u32,
    pub owner: String,
    pub version: String,
    pub started_ms: u64,
}

impl ServerMark {
    pub fn write(&self, data_dir: &Path) -> Result<(), String> {
        let path = data_dir.join(SERVER_MARK);
        let bytes = serde_json::to_vec(self).map_err(|e| e.to_string())?;
        write_atomic(&path, &bytes).map_err(|e| why(&path, &e))
    }

    pub fn remove(data_dir: &Path) {
        let _ = std::fs::remove_file(data_dir.join(SERVER_MARK));
    }

    /// The marker a server left that ended without removing it (a server
    /// that runs, or one that cannot be told about, is not returned).
    pub fn left_behind(data_dir: &Path) -> Option<ServerMark> {
        let bytes = read_small(&data_dir.join(SERVER_MARK), MAX_RECORD_BYTES)
            .ok()
            .flatten()?;
        let mark: ServerMark = serde_json::from_slice(&bytes).ok()?;
        (owner_running(&mark.owner) == Some(false)).then_some(mark)
    }

    /// The log line for a server that ended without a word.
    pub fn ended_silently(&self) -> String {
        format!(
            "the previous server (pid {}, version {}, started {}) ended without a word: \
             killed (SIGKILL, the OOM killer), crashed, or the machine went down",
            self.pid,
            self.version,
            utc(self.started_ms)
        )
    }
}

/// Unix milliseconds as `2026-12-06 14:03:22 UTC`.
pub fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const DEAD: &str = "1.2.3.00000000000000ab";
    const LIVE: &str = "1.9.9.00000000000000ab";

    fn record(name: &str, started_ms: u64, owner: &str) -> TaskRecord {
        TaskRecord::new(
            name,
            "claude",
            &["claude".into(), "--resume".into(), "two words".into()],
            Path::new("/home/u/app"),
            started_ms,
            owner,
        )
    }

    fn gone(owner: &str) -> bool {
        owner == DEAD
    }

    #[test]
    fn a_record_is_written_0600_read_back_and_removed() {
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        let r = record("review", 7, DEAD);
        journal.write(TaskId(7), &r).unwrap();
        let path = data.path().join("tasks").join(format!("{DEAD}-7.json"));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(journal.dir())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        let back: TaskRecord = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, r);
        // No temp file is left beside it.
        assert_eq!(std::fs::read_dir(journal.dir()).unwrap().count(), 1);
        journal.remove(TaskId(7));
        assert!(!path.exists());
    }

    /// A renamed task's record names it so (a lost task is told by the
    /// name the user last gave it); a task with no record gets none.
    #[test]
    fn a_rename_rewrites_the_record_and_makes_none() {
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        let r = record("review", 7, DEAD);
        journal.write(TaskId(7), &r).unwrap();
        journal.rename(TaskId(7), "build server").unwrap();
        let path = data.path().join("tasks").join(format!("{DEAD}-7.json"));
        let back: TaskRecord = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back.name, "build server");
        assert_eq!(back.argv, r.argv);
        journal.rename(TaskId(8), "x").unwrap();
        assert_eq!(std::fs::read_dir(journal.dir()).unwrap().count(), 1);
    }

    /// The session id a hook reports is kept at once, again when it
    /// changes (`/clear`), with the state; each write is whole (read back
    /// as a record at every step, no temp file left), and a removed record
    /// is never written back by a late update.
    #[test]
    fn updates_keep_the_session_id_and_state_atomically_and_never_revive_a_record() {
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        journal
            .write(TaskId(3), &record("review", 1, DEAD))
            .unwrap();
        let path = data.path().join(TASKS_DIR).join(format!("{DEAD}-3.json"));
        let read =
            || -> TaskRecord { serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap() };
        assert_eq!(read().session, None);
        for (session, state) in [("s-1", "working"), ("s-1", "done"), ("s-2", "idle")] {
            journal
                .update(TaskId(3), |r| {
                    r.session = Some(session.into());
                    r.state = Some(state.into());
                })
                .unwrap();
            let back = read();
            assert_eq!(back.session.as_deref(), Some(session));
            assert_eq!(back.state.as_deref(), Some(state));
            assert_eq!(back.name, "review");
            assert_eq!(std::fs::read_dir(journal.dir()).unwrap().count(), 1);
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // A change that changes nothing does not write (the file is the
        // same inode).
        let ino = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let before = ino(&path);
        journal
            .update(TaskId(3), |r| r.state = Some("idle".into()))
            .unwrap();
        assert_eq!(ino(&path), before);
        // Closed: gone, and a late update makes no record.
        journal.remove(TaskId(3));
        journal
            .update(TaskId(3), |r| r.session = Some("s-3".into()))
            .unwrap();
        assert!(!path.exists());
        // Bounded: a record stays within its size whatever is kept.
        journal.write(TaskId(4), &record("t", 1, DEAD)).unwrap();
        journal
            .update(TaskId(4), |r| r.args = Some(vec!["y".repeat(100); 500]))
            .unwrap();
        let len = std::fs::metadata(data.path().join(TASKS_DIR).join(format!("{DEAD}-4.json")))
            .unwrap()
            .len();
        assert!(len as usize <= MAX_RECORD_BYTES, "{len}");
    }

    /// A server that ends its tasks on purpose keeps their records, marked
    /// stopped, and the endings that follow remove none; the next start
    /// claims them, tells them as stopped, and a restore takes each once.
    #[test]
    fn a_stop_keeps_the_records_for_a_restore_which_takes_each_once() {
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        journal.write(TaskId(1), &record("a", 1, DEAD)).unwrap();
        journal.write(TaskId(2), &record("b", 2, DEAD)).unwrap();
        journal.keep_all();
        journal.remove(TaskId(1));
        assert_eq!(records_in(journal.dir()).len(), 2);
        let claimed = claim_with(data.path(), 5, &gone);
        assert!(claimed
            .lost
            .iter()
            .all(|r| r.ended.as_deref() == Some(ENDED_STOPPED)));
        let notice = lost_notice(&claimed.lost).unwrap();
        assert!(
            notice.starts_with("The termic server was stopped with its 2 tasks: a, b."),
            "{notice}"
        );
        let found = restorable(data.path());
        let names: Vec<&str> = found.iter().map(|r| r.record.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(take_restorable(&found[0]));
        assert!(!take_restorable(&found[0]), "taken once");
        assert_eq!(restorable(data.path()).len(), 1);
    }

    /// Set in the child of the kill test: it writes records until killed.
    const KILL_WRITER: &str = "TERMIC_JOURNAL_KILL_WRITER";

    /// A server killed (SIGKILL) at any instant of a journal write leaves
    /// every record whole: the test's own binary, as a child, rewrites
    /// records as fast as it can (an agent's session id and state, whole
    /// records) and is killed ten times at whatever point it reached; each
    /// time, every record parses, and at the end the next start claims
    /// them all and a restore lists them.
    #[test]
    fn a_writer_killed_at_any_instant_leaves_only_whole_records() {
        if let Some(dir) = std::env::var_os(KILL_WRITER) {
            let journal = Journal::new(Path::new(&dir), DEAD);
            for n in 1u64.. {
                let _ = journal.update(TaskId(1), |r| {
                    r.session = Some(format!("s-{n}"));
                    r.state = Some(if n % 2 == 0 { "working" } else { "done" }.into());
                });
                let _ = journal.write(TaskId(2 + n % 3), &record("t", n, DEAD));
            }
        }
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        journal.write(TaskId(1), &record("agent", 1, DEAD)).unwrap();
        let path = data.path().join(TASKS_DIR).join(format!("{DEAD}-1.json"));
        let written = || -> u64 {
            let r: TaskRecord = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            r.session
                .and_then(|s| s.trim_start_matches("s-").parse().ok())
                .unwrap_or(0)
        };
        for round in 0..10u64 {
            let before = written();
            let mut child = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "journal::tests::a_writer_killed_at_any_instant_leaves_only_whole_records",
                    "--exact",
                    "--test-threads",
                    "1",
                ])
                .env(KILL_WRITER, data.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            // Killed once it is writing (a few more writes each round, so
            // the kill lands at a different point of a write).
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while written() < before + 3 + round * 7 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the writer never wrote"
                );
                std::thread::yield_now();
            }
            child.kill().unwrap();
            child.wait().unwrap();
            for file in records_in(journal.dir()) {
                let bytes = std::fs::read(&file).unwrap();
                let parsed = serde_json::from_slice::<TaskRecord>(&bytes);
                assert!(parsed.is_ok(), "round {round}: {} is torn", file.display());
            }
        }
        let claimed = claim_with(data.path(), 7, &gone);
        assert!(claimed.skipped.is_empty(), "{:?}", claimed.skipped);
        assert_eq!(
            claimed.lost.len(),
            records_in(&data.path().join(LOST_DIR)).len()
        );
        let found = restorable(data.path());
        assert!(found
            .iter()
            .any(|r| r.record.name == "agent" && r.record.session.is_some()));
    }

    #[test]
    fn only_journal_temp_file_names_are_ours() {
        for ours in [
            ".4026531836.27991.2535465.bd4f-1.json.27991.tmp",
            ".server.json.1.tmp",
            ".000000000001000-x-2.json.4242.tmp",
        ] {
            assert!(is_journal_temp_name(ours), "{ours}");
        }
        for theirs in [
            "server.json",
            ".server.json.tmp",
            ".server.json.12a.tmp",
            ".json.1.tmp",
            ".notes.txt.1.tmp",
            "x.json.1.tmp",
            ".server.json.1.tmp.bak",
            ".server.json.12345678901.tmp",
        ] {
            assert!(!is_journal_temp_name(theirs), "{theirs}");
        }
    }

    /// A writer killed between its temp file and the rename leaves the
    /// temp file: the next start removes those a minute old or more, in
    /// `tasks/`, `lost/` and the data dir; a younger one (a live writer's),
    /// a file that only looks alike, a link and the records stay.
    #[test]
    fn a_start_sweeps_stale_journal_temp_files_and_nothing_else() {
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        journal.write(TaskId(1), &record("a", 1, DEAD)).unwrap();
        let tasks = data.path().join(TASKS_DIR);
        let lost = data.path().join(LOST_DIR);
        std::fs::create_dir_all(&lost).unwrap();
        let stale = [
            tasks.join(format!(".{DEAD}-2.json.77.tmp")),
            lost.join(".000000000001000-x-3.json.78.tmp"),
            data.path().join(".server.json.79.tmp"),
        ];
        for path in &stale {
            std::fs::write(path, "{\"version\":1,\"na").unwrap();
        }
        let kept = [
            tasks.join("notes.tmp"),
            tasks.join(".notes.txt.80.tmp"),
            data.path().join(".config.toml.81.tmp"),
        ];
        for path in &kept {
            std::fs::write(path, "x").unwrap();
        }
        let link = tasks.join(format!(".{DEAD}-9.json.82.tmp"));
        std::os::unix::fs::symlink(&stale[0], &link).unwrap();
        let written_ms = |p: &Path| {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(p).unwrap().mtime() as u64 * 1000
        };
        let at = written_ms(&stale[0]);
        // Younger than a minute: a live writer's, kept.
        assert!(sweep_temp_files(data.path(), at + STALE_TEMP_MS - 2_000).is_empty());
        assert!(stale.iter().all(|p| p.exists()));
        let mut want: Vec<PathBuf> = stale.to_vec();
        want.sort();
        assert_eq!(
            sweep_temp_files(data.path(), at + STALE_TEMP_MS + 2_000),
            want
        );
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(kept.iter().all(|p| p.exists()));
        assert!(std::fs::symlink_metadata(&link).is_ok(), "a link stays");
        assert_eq!(records_in(journal.dir()).len(), 1, "the record stays");
    }

    #[test]
    fn all_records_reads_live_and_lost_records_with_their_snapshot_refs() {
        let data = tempfile::tempdir().unwrap();
        let dead = Journal::new(data.path(), DEAD);
        let live = Journal::new(data.path(), LIVE);
        let mut a = record("a", 1, DEAD);
        a.snapshot = Some("refs/termic/snapshots/1-aa-a".into());
        dead.write(TaskId(1), &a).unwrap();
        let mut b = record("b", 2, LIVE);
        b.snapshot = Some("refs/termic/snapshots/2-bb-b".into());
        live.write(TaskId(1), &b).unwrap();
        live.write(TaskId(2), &record("c", 3, LIVE)).unwrap();
        std::fs::write(dead.dir().join("junk.json"), "not json").unwrap();
        claim_with(data.path(), 10, &|owner| owner == DEAD);
        assert_eq!(restorable(data.path()).len(), 1, "a is lost now");
        let mut named: Vec<String> = all_records(data.path())
            .into_iter()
            .map(|r| format!("{}:{}", r.name, r.snapshot.unwrap_or_default()))
            .collect();
        named.sort();
        assert_eq!(
            named,
            [
                "a:refs/termic/snapshots/1-aa-a",
                "b:refs/termic/snapshots/2-bb-b",
                "c:"
            ]
        );
    }

    #[test]
    fn remove_all_takes_only_this_servers_records() {
        let data = tempfile::tempdir().unwrap();
        let mine = Journal::new(data.path(), DEAD);
        let theirs = Journal::new(data.path(), LIVE);
        mine.write(TaskId(1), &record("a", 1, DEAD)).unwrap();
        mine.write(TaskId(2), &record("b", 2, DEAD)).unwrap();
        theirs.write(TaskId(1), &record("c", 3, LIVE)).unwrap();
        mine.remove_all();
        let left: Vec<_> = records_in(mine.dir());
        assert_eq!(left.len(), 1, "{left:?}");
        assert!(left[0].to_string_lossy().contains(LIVE));
    }

    #[test]
    fn the_journal_is_bounded_in_records_and_in_size() {
        let data = tempfile::tempdir().unwrap();
        let journal = Journal::new(data.path(), DEAD);
        for i in 0..MAX_RECORDS as u64 {
            journal.write(TaskId(i), &record("t", i, DEAD)).unwrap();
        }
        let refused = journal
            .write(TaskId(9999), &record("one too many", 1, DEAD))
            .unwrap_err();
        assert!(refused.contains("already holds 256"), "{refused}");
        assert_eq!(records_in(journal.dir()).len(), MAX_RECORDS);

        // A huge command line is cut to fit, and says so.
        let mut long = record("long", 1, DEAD);
        long.argv = vec!["x".repeat(100); 500];
        let bytes = long.to_bytes().unwrap();
        assert!(bytes.len() <= MAX_RECORD_BYTES);
        let cut: TaskRecord = serde_json::from_slice(&bytes).unwrap();
        assert!(cut.argv_cut && cut.argv.len() < 500 && !cut.argv.is_empty());
        assert!(cut.command().ends_with(" ..."));
        // A name alone past the bound keeps no record.
        let mut huge = record(&"n".repeat(MAX_RECORD_BYTES), 1, DEAD);
        huge.argv.clear();
        assert_eq!(huge.to_bytes(), None);
    }

    #[test]
    fn a_full_disk_is_an_error_in_words_not_a_panic() {
        // /dev/full takes no byte: the temp file's write fails.
        let e = write_atomic(Path::new("/dev/full/x.json"), b"{}").unwrap_err();
        assert!(!e.to_string().is_empty());
        let data = tempfile::tempdir().unwrap();
        // The data dir is a file: the tasks dir cannot be made.
        let file = data.path().join("file");
        std::fs::write(&file, "").unwrap();
        let journal = Journal::new(&file, DEAD);
        assert!(journal.write(TaskId(1), &record("t", 1, DEAD)).is_err());
    }

    #[test]
    fn lost_records_are_claimed_once_moved_to_lost_and_the_rest_stay() {
        let data = tempfile::tempdir().unwrap();
        let dead = Journal::new(data.path(), DEAD);
        let live = Journal::new(data.path(), LIVE);
        dead.write(TaskId(2), &record("build", 20, DEAD)).unwrap();
        dead.write(TaskId(1), &record("review", 10, DEAD)).unwrap();
        live.write(TaskId(1), &record("running", 30, LIVE)).unwrap();

        let claimed = claim_with(data.path(), 1_000, &gone);
        let names: Vec<&str> = claimed.lost.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["review", "build"], "oldest first");
        assert!(claimed.skipped.is_empty(), "{:?}", claimed.skipped);
        // Moved, with the time they were found in the name.
        let mut kept: Vec<String> = std::fs::read_dir(data.path().join(LOST_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        kept.sort();
        assert_eq!(
            kept,
            [
                format!("000000000001000-{DEAD}-1.json"),
                format!("000000000001000-{DEAD}-2.json")
            ]
        );
        // The live server's record stays; told once.
        assert_eq!(records_in(live.dir()).len(), 1);
        assert_eq!(claim_with(data.path(), 2_000, &gone), Claimed::default());
    }

    #[test]
    fn a_corrupt_or_foreign_file_is_skipped_with_a_reason_and_left_alone() {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join(TASKS_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("torn.json"), "{\"version\":1,\"na").unwrap();
        std::fs::write(dir.join("other.json"), "[1,2,3]").unwrap();
        let mut newer = record("future", 1, DEAD);
        newer.version = 99;
        std::fs::write(dir.join("future.json"), serde_json::to_vec(&newer).unwrap()).unwrap();
        std::fs::write(dir.join("big.json"), vec![b' '; MAX_RECORD_BYTES + 1]).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.join("link.json")).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a record").unwrap();
        let claimed = claim_with(data.path(), 1, &|_| true);
        assert!(claimed.lost.is_empty());
        let mut skipped = claimed.skipped.clone();
        skipped.sort();
        assert_eq!(skipped.len(), 5, "{skipped:?}");
        assert!(
            skipped[0].contains("big.json: not a task record"),
            "{skipped:?}"
        );
        assert!(skipped[1].contains("future.json: a task record of another format (version 99)"));
        assert!(
            skipped[2].contains("link.json: cannot read it"),
            "{skipped:?}"
        );
        assert!(skipped[3].contains("other.json: not a task record"));
        assert!(skipped[4].contains("torn.json: not a task record"));
        // Left where they were.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 6);
    }

    #[test]
    fn lost_keeps_at_most_its_bound_the_newest() {
        let data = tempfile::tempdir().unwrap();
        let lost = data.path().join(LOST_DIR);
        std::fs::create_dir_all(&lost).unwrap();
        for i in 0..MAX_LOST + 5 {
            std::fs::write(lost.join(format!("{i:015}-x.json")), "{}").unwrap();
        }
        let journal = Journal::new(data.path(), DEAD);
        journal.write(TaskId(1), &record("t", 1, DEAD)).unwrap();
        let claimed = claim_with(data.path(), 999_999, &gone);
        assert_eq!(claimed.lost.len(), 1);
        let mut names: Vec<String> = std::fs::read_dir(&lost)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), MAX_LOST);
        assert_eq!(names[0], format!("{:015}-x.json", 6));
        assert!(names.last().unwrap().starts_with("000000000999999-"));
    }

    #[test]
    fn the_notice_names_each_lost_task_its_command_and_directory() {
        assert_eq!(lost_notice(&[]), None);
        let one = lost_notice(&[record("review", 1, DEAD)]).unwrap();
        assert_eq!(
            one,
            "The termic server before this one ended without a word (killed or crashed), \
             and its task review was lost.\n  review: claude --resume 'two words' (in /home/u/app)\n\
             `termic restore` starts them again."
        );
        let two = lost_notice(&[record("a", 1, DEAD), record("b", 2, DEAD)]).unwrap();
        assert!(two.contains("its 2 tasks were lost: a, b."), "{two}");
        assert_eq!(two.lines().count(), 4);
    }

    #[test]
    fn the_owner_of_this_process_runs_and_a_made_up_one_does_not() {
        let me = Owner::of_this_process(Path::new("/tmp")).unwrap();
        assert_eq!(owner_running(&me.env_value()), Some(true));
        let dead = Owner {
            start: me.start + 1,
            ..me
        };
        assert_eq!(owner_running(&dead.env_value()), Some(false));
        let elsewhere = Owner {
            pidns: me.pidns ^ 1,
            ..me
        };
        assert_eq!(owner_running(&elsewhere.env_value()), None);
        assert_eq!(owner_running("not an owner"), None);
    }

    #[test]
    fn a_server_mark_left_by_a_gone_server_is_found_and_described() {
        let data = tempfile::tempdir().unwrap();
        let me = Owner::of_this_process(data.path()).unwrap();
        let mut mark = ServerMark {
            pid: 4242,
            owner: me.env_value(),
            version: "0.1.0".into(),
            started_ms: 0,
        };
        mark.write(data.path()).unwrap();
        assert_eq!(ServerMark::left_behind(data.path()), None, "it runs");
        mark.owner = Owner {
            start: me.start + 1,
            ..me
        }
        .env_value();
        mark.write(data.path()).unwrap();
        let found = ServerMark::left_behind(data.path()).unwrap();
        assert_eq!(
            found.ended_silently(),
            "the previous server (pid 4242, version 0.1.0, started 1970-01-01 00:00:00 UTC) \
             ended without a word: killed (SIGKILL, the OOM killer), crashed, or the machine \
             went down"
        );
        ServerMark::remove(data.path());
        assert_eq!(ServerMark::left_behind(data.path()), None);
    }

    #[test]
    fn utc_formats_a_unix_time() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_825_600_000), "2000-02-29 12:00:00 UTC");
        assert_eq!(utc(1_796_551_402_000), "2026-12-06 10:03:22 UTC");
    }
}
