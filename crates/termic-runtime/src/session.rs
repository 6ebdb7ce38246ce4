//! Ending a task's processes: everything the task started, not just the
//! child termic spawned.
//!
//! Every task's child is a session leader (portable-pty calls `setsid`), so
//! its pid is also its process group id and session id. That is not enough:
//! a shell with job control puts background jobs in their own process groups
//! (same session), and, measured on Codex 0.171.0, the TUI starts
//! `codex app-server` daemons that call `setsid` themselves and outlive the
//! TUI, reparented to init, in sessions of their own. What they keep is the
//! environment, so on Linux a process belongs to a task when, in `/proc`:
//! it is in the task's session or process group, or descends from the task's
//! child, or carries the task's own `TERMIC_TASK_ID` (unique per spawn).
//! Elsewhere only the process group is signalled.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use crate::container::ContainerTask;

/// How long processes get to exit after SIGHUP/SIGTERM before SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(1500);

/// What identifies a task's processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskProcesses {
    /// The spawned child: session leader and process group id.
    pub leader: i32,
    /// The task's `TERMIC_TASK_ID`.
    pub task_id: String,
    /// A Docker task's container: its processes may not be ours to signal
    /// (root's, in another PID namespace), so the engine stops it.
    pub container: Option<ContainerTask>,
}

impl TaskProcesses {
    /// The exact `TERMIC_TASK_ID=<id>` entry a member's environment holds.
    fn env_entry(&self) -> Vec<u8> {
        format!("TERMIC_TASK_ID={}", self.task_id).into_bytes()
    }

    /// Whether a process with these ids (and, when read, this environment)
    /// is one of the task's. `descends` says whether its ancestry reaches
    /// the leader. Pure, for tests.
    pub fn owns(&self, ids: &StatIds, descends: bool, environ: Option<&[u8]>) -> bool {
        if ids.zombie {
            return false;
        }
        if ids.session == self.leader || ids.pgrp == self.leader || descends {
            return true;
        }
        let entry = self.env_entry();
        environ.is_some_and(|env| env.split(|&b| b == 0).any(|e| e == entry.as_slice()))
    }

    /// Live members, found in `/proc` (empty where there is no `/proc`).
    pub fn members(&self) -> Vec<i32> {
        let own = std::process::id() as i32;
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let procs: HashMap<i32, StatIds> = dir
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|&pid| pid > 1 && pid != own)
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                Some((pid, parse_stat_ids(&stat)?))
            })
            .collect();
        let descends = |mut pid: i32| {
            for _ in 0..64 {
                if pid == self.leader {
                    return true;
                }
                match procs.get(&pid) {
                    Some(ids) if ids.ppid > 1 => pid = ids.ppid,
                    _ => return false,
                }
            }
            false
        };
        // A zombie is already dead: it only waits for its parent (for an
        // orphan, PID 1, which in a container may never reap it).
        procs
            .iter()
            .filter(|(_, ids)| !ids.zombie)
            .filter(|(&pid, ids)| {
                self.owns(ids, descends(pid), None)
                    || std::fs::read(format!("/proc/{pid}/environ"))
                        .is_ok_and(|env| self.owns(ids, false, Some(&env)))
            })
            .map(|(&pid, _)| pid)
            .collect()
    }
}

/// Process ids read from `/proc/<pid>/stat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatIds {
    /// State `Z`: exited, waiting to be reaped; nothing left to signal.
    pub zombie: bool,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
}

/// Parse `pid (comm) state ppid pgrp session ...`. The comm may contain
/// spaces and parentheses, so fields are counted after the LAST `)`.
pub fn parse_stat_ids(stat: &str) -> Option<StatIds> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let zombie = fields.next()? == "Z";
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    Some(StatIds {
        zombie,
        ppid,
        pgrp,
        session,
    })
}

/// Send `signal` to the task's process group and every member.
/// Errors (already gone) are ignored: the goal is absence.
pub fn signal_task(task: &TaskProcesses, signal: libc::c_int) {
    if task.leader <= 1 {
        return; // never signal init or "every process"
    }
    // Find the members first: once the leader dies its children are
    // reparented and no longer descend from it.
    let members = task.members();
    // SAFETY: plain syscalls on integers; a stale id yields ESRCH.
    unsafe {
        libc::killpg(task.leader, signal);
    }
    for pid in members {
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

/// SIGKILL rounds after the grace period: Codex's daemons can start one
/// another, so a member may appear while the others are being killed.
pub const KILL_ROUNDS: u32 = 10;
pub const KILL_ROUND_GAP: Duration = Duration::from_millis(200);

/// Start `cmd` in a session of its own (`setsid` in the child), so a hang-up
/// of this process's terminal does not reach it: the detached server and
/// the Docker watchdog.
pub fn spawn_in_new_session(
    cmd: &mut std::process::Command,
) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe and touches no memory.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// Hang the task up now (SIGHUP then SIGTERM, SIGCONT so stopped jobs see
/// them) and SIGKILL whatever is left after [`KILL_GRACE`], repeating until
/// no member is left (at most [`KILL_ROUNDS`] rounds), from a one-shot
/// thread so the caller never waits. The thread is tracked: a process that
/// is about to exit calls [`wait_for_reapers`] so a task that ignores
/// SIGHUP and SIGTERM is not left behind with ppid 1. A Docker task's
/// container hears the hang-up through its client (`--init` passes it on)
/// and is killed through the engine after the same grace.
pub fn end_task(task: &TaskProcesses) {
    for signal in [libc::SIGHUP, libc::SIGTERM, libc::SIGCONT] {
        signal_task(task, signal);
    }
    let owned = task.clone();
    let name = format!("termic-reap-{}", task.leader);
    if !spawn_reaper(name, move || reap(&owned)) {
        // No thread to wait with: SIGKILL now rather than leave it behind.
        signal_task(task, libc::SIGKILL);
    }
}

/// Run `reap` on a thread that [`wait_for_reapers`] waits for. False when
/// no thread could be started (out of threads): the caller must do what
/// it can at once.
pub fn spawn_reaper(name: String, reap: impl FnOnce() + Send + 'static) -> bool {
    *lock_reapers() += 1;
    let started = thread::Builder::new().name(name).spawn(move || {
        reap();
        reaper_done();
    });
    if started.is_err() {
        reaper_done();
    }
    started.is_ok()
}

/// How often the grace period checks whether the task is already gone.
pub const GRACE_POLL: Duration = Duration::from_millis(50);

/// Wait out the grace period (less when the task is gone sooner), then
/// SIGKILL what is left.
fn reap(task: &TaskProcesses) {
    let start = Instant::now();
    while start.elapsed() < KILL_GRACE && task_alive(task) {
        thread::sleep(GRACE_POLL);
    }
    // The docker client may be gone while its container still runs: kill
    // the container whether or not the client outlived the grace.
    if let Some(container) = &task.container {
        crate::container::kill(container);
    }
    for _ in 0..KILL_ROUNDS {
        if !task_alive(task) {
            break;
        }
        signal_task(task, libc::SIGKILL);
        thread::sleep(KILL_ROUND_GAP);
    }
}

/// Reaper threads still running, and a signal when that count drops.
static REAPERS: Mutex<usize> = Mutex::new(0);
static REAPERS_DONE: Condvar = Condvar::new();

fn lock_reapers() -> MutexGuard<'static, usize> {
    REAPERS.lock().unwrap_or_else(|e| e.into_inner())
}

fn reaper_done() {
    let mut running = lock_reapers();
    *running = running.saturating_sub(1);
    REAPERS_DONE.notify_all();
}

/// Block until every task [`end_task`] was asked to end is gone (or was
/// SIGKILLed [`KILL_ROUNDS`] times). Called on every way out of a process
/// that owns tasks: quitting, a fatal signal, `termic server stop`. Any
/// number of threads may wait at once.
pub fn wait_for_reapers() {
    let mut running = lock_reapers();
    while *running > 0 {
        running = REAPERS_DONE
            .wait(running)
            .unwrap_or_else(|e| e.into_inner());
    }
}

/// Every running task of this process, by `TERMIC_TASK_ID`, so a fatal
/// signal can end them without reaching into a runtime.
static LIVE: Mutex<BTreeMap<String, TaskProcesses>> = Mutex::new(BTreeMap::new());

fn lock_live() -> MutexGuard<'static, BTreeMap<String, TaskProcesses>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A task started: [`end_every_task`] will end it.
pub fn register(task: &TaskProcesses) {
    lock_live().insert(task.task_id.clone(), task.clone());
}

/// A task's processes are all gone (its exit waiter finished).
pub fn unregister(task: &TaskProcesses) {
    lock_live().remove(&task.task_id);
}

/// End every registered task and wait until their processes are gone:
/// the last thing a process that owns tasks does before it exits.
pub fn end_every_task() {
    let live: Vec<TaskProcesses> = std::mem::take(&mut *lock_live()).into_values().collect();
    for task in &live {
        end_task(task);
    }
    wait_for_reapers();
}

/// Whether process `pid` is gone (absent, or a zombie nobody reaped yet).
pub fn process_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => parse_stat_ids(&stat).is_none_or(|ids| ids.zombie),
        // SAFETY: signal 0 only checks for existence (no /proc: not Linux).
        Err(_) => (unsafe { libc::kill(pid, 0) }) != 0,
    }
}

/// Whether any process of the task is still alive.
pub fn task_alive(task: &TaskProcesses) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let group = unsafe { libc::killpg(task.leader, 0) } == 0;
    if !std::path::Path::new("/proc/self/stat").exists() {
        return group;
    }
    // The group answers killpg while it holds zombies too: a task's child
    // orphaned by the hang-up stays a zombie for as long as PID 1 leaves it
    // (in a container, PID 1 is often no init and never reaps), and every
    // close and quit waited out the whole grace for it (measured: quit 1.2
    // to 1.9 s instead of 11 ms with `sh -c 'sleep 600; true'` as the task).
    !task.members().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_parsing_survives_parentheses_and_spaces_in_comm() {
        let stat = "4242 (my (odd) prog) S 1 4240 4239 34817 4240 4194304 0 0";
        assert_eq!(
            parse_stat_ids(stat),
            Some(StatIds {
                zombie: false,
                ppid: 1,
                pgrp: 4240,
                session: 4239
            })
        );
        assert_eq!(parse_stat_ids("garbage"), None);
    }

    fn ids(ppid: i32, pgrp: i32, session: i32) -> StatIds {
        StatIds {
            zombie: false,
            ppid,
            pgrp,
            session,
        }
    }

    #[test]
    fn membership_by_session_group_ancestry_or_task_id() {
        let task = TaskProcesses {
            leader: 100,
            task_id: "abc".into(),
            container: None,
        };
        assert!(task.owns(&ids(100, 100, 100), false, None));
        // A job-control background job: own group, same session.
        assert!(task.owns(&ids(100, 150, 100), false, None));
        // A child that called setsid, still under the task.
        assert!(task.owns(&ids(120, 130, 130), true, None));
        // Codex's app-server daemon: own session, reparented to init, but it
        // kept the task's env.
        let env = b"HOME=/h\0TERMIC_TASK_ID=abc\0TERM=xterm-256color\0";
        assert!(task.owns(&ids(1, 300, 300), false, Some(env)));
        // Another task's id, or a prefix of ours, is not ours.
        assert!(!task.owns(&ids(1, 300, 300), false, Some(b"TERMIC_TASK_ID=abcd\0")));
        assert!(!task.owns(&ids(1, 300, 300), false, Some(b"X=TERMIC_TASK_ID=abc\0")));
        assert!(!task.owns(&ids(1, 300, 300), false, None));
        let zombie = StatIds {
            zombie: true,
            ..ids(100, 100, 100)
        };
        assert!(!task.owns(&zombie, true, None));
    }
}
