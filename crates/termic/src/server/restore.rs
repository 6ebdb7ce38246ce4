//! `restore` (issue 31): the tasks that ended with a server (killed,
//! crashed, stopped, a reboot) started again from their records in the
//! data dir's `lost/` (see `termic_runtime::journal`), each in its
//! directory, with its name and number where free. An agent is started in
//! its own conversation with its resume option (the built-in's
//! [`crate::agents::builtin::Resume`]); one that cannot resume starts
//! fresh and the answer says so. A command task runs its command again, a
//! shell task a shell.
//!
//! A record leaves `lost/` when its task is started again or forgotten; a
//! task that cannot start (its directory is gone) keeps its record and the
//! answer says why.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use termic_runtime::journal::{self, Restorable, TaskRecord};

use super::protocol::{RestoreAction, RestoreRequest, Restored};
use super::{lock, os_env, task_size, Server};
use crate::agents::builtin::InUse;
use crate::agents::command::{COMMAND_PROFILE, SHELL_PROFILE};
use crate::app::overlays::unique_name;
use crate::app::services::Services;
use crate::printed::errln;
use crate::workspace::services::WorkspaceServices;

impl Server {
    pub(super) fn restore(&self, req: RestoreRequest) -> Result<Vec<Restored>> {
        let mut found = journal::restorable(&self.paths.data_dir);
        if !req.tasks.is_empty() {
            found.retain(|r| {
                req.tasks.iter().any(|t| {
                    *t == r.record.name || r.record.number.is_some_and(|n| t == &n.to_string())
                })
            });
        }
        let mut answer = Vec::new();
        for r in found {
            let mut told = told(&r.record);
            match req.action {
                RestoreAction::List => {}
                RestoreAction::Forget => {
                    journal::take_restorable(&r);
                }
                RestoreAction::Start => self.start_again(&req, &r, &mut told),
            }
            answer.push(told);
        }
        Ok(answer)
    }

    /// Start one task again; a failure is said in `told.error` and its
    /// record stays.
    fn start_again(&self, req: &RestoreRequest, r: &Restorable, told: &mut Restored) {
        let record = &r.record;
        let cwd = PathBuf::from(&record.cwd);
        if record.argv_cut {
            told.error = Some("its command line was too long to keep whole".into());
            return;
        }
        if !cwd.is_dir() {
            told.error = Some(format!("its directory {} is gone", record.cwd));
            return;
        }
        // Taken now, so two clients never start it twice.
        if !journal::take_restorable(r) {
            told.error = Some("another client restored it".into());
            return;
        }
        match self.spawn_restored(req, record, told) {
            Ok(row) => told.row = Some(row),
            Err(e) => {
                told.error = Some(super::limits::with_hint(&e));
                // Back in lost/, to restore later.
                if let Some(bytes) = record.to_bytes() {
                    let _ = journal::write_atomic(&r.path, &bytes);
                }
            }
        }
    }

    fn spawn_restored(
        &self,
        req: &RestoreRequest,
        record: &TaskRecord,
        told: &mut Restored,
    ) -> Result<super::protocol::TaskRow> {
        let cwd = PathBuf::from(&record.cwd);
        let mut services =
            WorkspaceServices::new(self.paths.clone(), cwd, req.path_var.clone().into())?;
        services.set_client_env(os_env(req.env.clone()));
        let size = task_size(req.cols, req.rows);
        let taken: Vec<String> = self
            .runtime
            .tasks()
            .into_iter()
            .map(|t| t.meta.name)
            .collect();
        let name = if taken.contains(&record.name) {
            unique_name(&record.name, taken.iter().map(String::as_str))
        } else {
            record.name.clone()
        };
        let profile = record.profile.as_deref();
        let (launch, args) = if is_plain(record) {
            // The command as the user gave it (a shell's integrated argv is
            // made again by the launch).
            let argv = match &record.args {
                Some(args) => args.clone(),
                None if profile == Some(SHELL_PROFILE) => {
                    record.argv[..1.min(record.argv.len())].to_vec()
                }
                None => record.argv.clone(),
            };
            (services.launch_command(&argv, &name, false, size)?, argv)
        } else {
            let user_args = record.args.clone().unwrap_or_default();
            let base = record.profile.as_deref().unwrap_or(&record.agent);
            let mut args = match crate::agents::builtin::resume_args(
                base,
                record.session.as_deref(),
                &saved_at_home,
            ) {
                Ok(resume) => {
                    told.resumed = true;
                    resume
                }
                Err(why) => {
                    told.note = Some(why);
                    Vec::new()
                }
            };
            if told.resumed {
                if let Some(left) = record
                    .session
                    .as_deref()
                    .and_then(|id| crate::agents::builtin::in_use_of(base, id))
                    .and_then(|(dir, lock)| {
                        let home = PathBuf::from(std::env::var_os("HOME")?);
                        wait_for_lock_owners(&home.join(dir), lock, LOCK_OWNER_WAIT)
                    })
                {
                    told.note = Some(format!(
                        "its previous process (pid {left}) still held the conversation: \
                         {base} may ask whether to resume it anyway"
                    ));
                }
            }
            args.extend(user_args.iter().cloned());
            let launch = services.launch(&record.agent, &name, false, size, &args)?;
            self.runtime
                .set_hooks_wired(&launch.spec.agent, launch.hooks_wired);
            (launch, user_args)
        };
        let spec = launch.spec.clone();
        // The base it had: its diff still counts from its first start
        // (a record that kept none gets a new one, as `run` does).
        let base = crate::review::base_again(
            &spec.cwd,
            record.worktree.as_deref().map(Path::new),
            (record.snapshot.as_deref(), record.review_base.as_deref()),
            &crate::review::snapshot_key(&spec.name),
        )
        .map_err(|e| e.to_string());
        let wanted = record.number.and_then(|n| u32::try_from(n).ok());
        let id = self
            .runtime
            .spawn_numbered(launch.spec, &req.outputs, wanted)?;
        lock(&self.specs).insert(
            id.0,
            crate::app::Launched {
                spec,
                worktree: record.worktree.as_ref().map(PathBuf::from),
                outputs: req.outputs.clone(),
                base,
            },
        );
        // The restored task's record: what it was started from (not the
        // resume arguments: the next restore asks again), its worktree,
        // and the conversation it continues until a hook says another.
        let (worktree, session) = (record.worktree.clone(), record.session.clone());
        let (snapshot, review_base) = lock(&self.specs)
            .get(&id.0)
            .map(|l| crate::review::kept_of(&l.base))
            .unwrap_or_default();
        let _ = self.runtime.journal_update(id, |r| {
            r.args = Some(args);
            r.worktree = worktree;
            r.session = session;
            r.snapshot = snapshot;
            r.review_base = review_base;
        });
        self.changed();
        self.row(id)
            .ok_or_else(|| anyhow::anyhow!("the task vanished as it started"))
    }
}

/// Whether `record` is a command or shell task's.
fn is_plain(record: &TaskRecord) -> bool {
    matches!(
        record.profile.as_deref(),
        Some(COMMAND_PROFILE | SHELL_PROFILE)
    )
}

/// Whether `path` (relative to the user's home) exists: where an agent
/// keeps a conversation it saved.
fn saved_at_home(path: &str) -> bool {
    std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .is_some_and(|home| home.join(path).exists())
}

/// How long a restore waits for the processes that hold a conversation
/// to end and be reaped (Copilot's exits within ms of losing its terminal
/// when the machine is idle; an orphan's zombie was reaped 1.3 to 1.6 s
/// after its exit here; measured 2026-12-06).
const LOCK_OWNER_WAIT: Duration = Duration::from_secs(10);

/// Waits, at most `wait`, until no process that owns a lock file of `dir`
/// is left in the process table; returns a pid still there then. Removes
/// nothing: a lock is the agent's to clean up.
fn wait_for_lock_owners(dir: &Path, lock: InUse, wait: Duration) -> Option<u32> {
    log_lock_owners(dir, lock);
    let deadline = Instant::now() + wait;
    loop {
        let alive = lock_owners(dir, lock)?
            .into_iter()
            .find(|pid| process_exists(*pid));
        match alive {
            None => return None,
            Some(pid) if Instant::now() >= deadline => return Some(pid),
            Some(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// A line in server.log for each lock file of `dir`: its pid, and whether
/// that process runs (and what), has exited but is not reaped yet, or is
/// gone (so a restore that comes back "in use" can be read afterwards).
fn log_lock_owners(dir: &Path, lock: InUse) {
    for pid in lock_owners(dir, lock).unwrap_or_default() {
        let what = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => "gone".to_owned(),
            Ok(stat) if is_zombie(&stat) => "exited, not yet reaped".to_owned(),
            Ok(_) => {
                let cmdline = termic_runtime::foreground::read_cmdline(pid as libc::pid_t);
                String::from_utf8_lossy(&cmdline)
                    .replace('\0', " ")
                    .trim()
                    .to_owned()
            }
        };
        errln!(
            "termic server: restore: {} holds a lock of pid {pid}: {}",
            dir.display(),
            crate::printed::clean_line(&what)
        );
    }
}

/// The pids named by the lock files of `dir` (`None`: it cannot be read).
fn lock_owners(dir: &Path, lock: InUse) -> Option<Vec<u32>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .filter_map(|e| lock.owner(e.ok()?.file_name().to_str()?))
            .collect(),
    )
}

/// Whether `pid` is still in the process table, a zombie included:
/// Copilot CLI 1.0.102's in-use check counts a lock whose process exited
/// but was not reaped yet as held, and opens on its "Session in use"
/// dialog (measured 2026-12-06, docs/gotchas.md).
fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether a `/proc/PID/stat` line is a zombie's.
fn is_zombie(stat: &str) -> bool {
    stat.rsplit(") ").next().is_some_and(|r| r.starts_with('Z'))
}

/// An agent's resume arguments, or why it starts fresh.
fn resume_of(record: &TaskRecord) -> Result<Vec<String>, String> {
    let base = record.profile.as_deref().unwrap_or(&record.agent);
    crate::agents::builtin::resume_args(base, record.session.as_deref(), &saved_at_home)
}

/// A record as the answer tells it, before anything is done: an agent
/// says whether it will continue its conversation, or why not.
fn told(record: &TaskRecord) -> Restored {
    let (resumed, note) = if is_plain(record) {
        (false, None)
    } else {
        match resume_of(record) {
            Ok(_) => (true, None),
            Err(why) => (false, Some(why)),
        }
    };
    Restored {
        name: record.name.clone(),
        number: record.number,
        agent: record.agent.clone(),
        cwd: record.cwd.clone(),
        command: record.command(),
        session: record.session.clone(),
        resumed,
        note,
        error: None,
        row: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: InUse = InUse {
        dir: "",
        prefix: "inuse.",
        suffix: ".lock",
    };

    /// A real child process as the lock's owner: the wait ends once it
    /// exited AND was reaped (a zombie still holds it, as Copilot's own
    /// check counts it), gives its pid back when it outlives the wait, and
    /// a dead pid's lock (the child reaped) does not hold it; the lock
    /// files stay.
    #[test]
    fn the_wait_ends_when_the_locks_owner_exits_and_removes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let lock = dir.path().join(format!("inuse.{pid}.lock"));
        std::fs::write(&lock, pid.to_string()).unwrap();
        std::fs::write(dir.path().join(format!("inuse.{pid}.hold")), "").unwrap();
        let short = Duration::from_millis(150);
        assert_eq!(wait_for_lock_owners(dir.path(), LOCK, short), Some(pid));
        // SAFETY: a signal to this test's own child.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        let stat = || std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !is_zombie(&stat()) {
            assert!(Instant::now() < deadline, "the killed child never exited");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            wait_for_lock_owners(dir.path(), LOCK, short),
            Some(pid),
            "exited but not reaped: Copilot still counts it"
        );
        let reaper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            child.wait().unwrap();
        });
        let started = Instant::now();
        assert_eq!(
            wait_for_lock_owners(dir.path(), LOCK, Duration::from_secs(20)),
            None
        );
        assert!(started.elapsed() >= Duration::from_millis(250));
        reaper.join().unwrap();
        let started = Instant::now();
        assert_eq!(
            wait_for_lock_owners(dir.path(), LOCK, Duration::from_secs(20)),
            None
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(lock.exists(), "the lock is the agent's to remove");
        assert_eq!(
            wait_for_lock_owners(&dir.path().join("gone"), LOCK, short),
            None,
            "no directory, no lock"
        );
    }
}
