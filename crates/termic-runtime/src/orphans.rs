//! Processes left behind by a termic that is gone (issue 27).
//!
//! A server killed with SIGKILL (or by the OOM killer) cannot end its
//! tasks: their processes live on with parent 1. Every task therefore
//! carries, besides its `TERMIC_TASK_ID`, `TERMIC_OWNER`: the process that
//! owns it (a server or the in-process demo), named so it can be proved
//! gone later: its pid namespace, pid and start time (a pid alone may be
//! reused; pid and start time may not), and a hash of its data dir. At
//! start-up the server ends, the way `kill` ends a task (SIGHUP, SIGTERM,
//! SIGCONT, then SIGKILL after the grace), every process that:
//!
//! - belongs to this user (real uid in `/proc/<pid>/status`),
//! - carries a `TERMIC_TASK_ID` and a `TERMIC_OWNER` of this data dir and
//!   this pid namespace, whose owner no longer runs (no live process with
//!   that pid and start time),
//!
//! and the processes in such a process's session or group or below it,
//! unless they name a live owner of their own. Anything else is never
//! touched: a process without the pair (a shell that only inherited a
//! task id, a task of a termic older than this), a task of a live termic,
//! a termic of another data dir (its next start sweeps its own), another
//! user's process. Choosing is pure ([`orphans`]); [`snapshot`] and
//! [`sweep`] are the I/O.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::thread;
use std::time::Instant;

use super::session::{self, parse_stat_ids, StatIds};

/// The variable naming a task's owner.
pub const OWNER_VAR: &str = "TERMIC_OWNER";

/// The owner of tasks: who it is, and which data dir it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// The inode of its pid namespace (`/proc/self/ns/pid`): a pid means
    /// nothing outside its namespace.
    pub pidns: u64,
    pub pid: i32,
    /// Start time, clock ticks after boot (`/proc/<pid>/stat` field 22).
    pub start: u64,
    /// [`scope_of`] its data dir.
    pub scope: u64,
}

impl Owner {
    /// The variable's value: `pidns.pid.start.scope` (scope in hex).
    pub fn env_value(&self) -> String {
        format!(
            "{}.{}.{}.{:016x}",
            self.pidns, self.pid, self.start, self.scope
        )
    }

    /// Read [`Owner::env_value`] back; `None` for anything else.
    pub fn parse(text: &str) -> Option<Owner> {
        let mut parts = text.split('.');
        let owner = Owner {
            pidns: parts.next()?.parse().ok()?,
            pid: parts.next()?.parse().ok()?,
            start: parts.next()?.parse().ok()?,
            scope: u64::from_str_radix(parts.next()?, 16).ok()?,
        };
        parts.next().is_none().then_some(owner)
    }

    /// This process as the owner of tasks for `data_dir` (`None` where
    /// `/proc` does not say: then no task is named and none is swept).
    pub fn of_this_process(data_dir: &Path) -> Option<Owner> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
        Some(Owner {
            pidns: parse_ns_inode(&ns.to_string_lossy())?,
            pid: i32::try_from(std::process::id()).ok()?,
            start: parse_start_time(&stat)?,
            scope: scope_of(
                &std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_owned()),
            ),
        })
    }
}

/// A data dir's scope: FNV-1a of its path, so the variable does not show
/// the path and two data dirs differ.
pub fn scope_of(data_dir: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    data_dir
        .as_os_str()
        .as_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
            (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// `pid:[4026531836]` to 4026531836.
fn parse_ns_inode(link: &str) -> Option<u64> {
    link.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// Field 22 of `/proc/<pid>/stat`, counted after the comm's last `)`.
pub fn parse_start_time(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
}

/// The owner a task's process names: only a process that also carries a
/// `TERMIC_TASK_ID` is a task's.
pub fn owner_in_environ(environ: &[u8]) -> Option<Owner> {
    let mut task = false;
    let mut owner = None;
    for entry in environ.split(|&b| b == 0) {
        if let Some(id) = entry.strip_prefix(b"TERMIC_TASK_ID=") {
            task = !id.is_empty();
        } else if let Some(value) = entry.strip_prefix(format!("{OWNER_VAR}=").as_bytes()) {
            owner = std::str::from_utf8(value).ok().and_then(Owner::parse);
        }
    }
    owner.filter(|_| task)
}

/// What the sweep knows of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessFacts {
    pub pid: i32,
    /// Real uid (`None`: unreadable).
    pub uid: Option<u32>,
    pub ids: StatIds,
    pub start: u64,
    /// The owner its environment names (read only for our own processes).
    pub owner: Option<Owner>,
}

/// The processes to end: see the module's rules. Pure; sorted.
pub fn orphans(procs: &[ProcessFacts], me: &Owner, uid: u32) -> Vec<i32> {
    let live: HashSet<(i32, u64)> = procs
        .iter()
        .filter(|p| !p.ids.zombie)
        .map(|p| (p.pid, p.start))
        .collect();
    let gone = |o: &Owner| !live.contains(&(o.pid, o.start));
    let ours =
        |p: &&ProcessFacts| p.uid == Some(uid) && !p.ids.zombie && p.pid > 1 && p.pid != me.pid;
    let abandoned = |p: &&ProcessFacts| {
        p.owner.is_some_and(|o| {
            o.scope == me.scope
                && o.pidns == me.pidns
                && (o.pid, o.start) != (me.pid, me.start)
                && gone(&o)
        })
    };
    let seeds: HashSet<i32> = procs
        .iter()
        .filter(ours)
        .filter(abandoned)
        .map(|p| p.pid)
        .collect();
    if seeds.is_empty() {
        return Vec::new();
    }
    let parent: HashMap<i32, i32> = procs.iter().map(|p| (p.pid, p.ids.ppid)).collect();
    let below_a_seed = |mut pid: i32| {
        for _ in 0..64 {
            if seeds.contains(&pid) {
                return true;
            }
            match parent.get(&pid) {
                Some(&ppid) if ppid > 1 => pid = ppid,
                _ => return false,
            }
        }
        false
    };
    let mut found: Vec<i32> = procs
        .iter()
        .filter(ours)
        // A termic started inside an orphaned task ends its own tasks.
        .filter(|p| p.owner.is_none_or(|o| gone(&o)))
        .filter(|p| {
            seeds.contains(&p.pid)
                || seeds.contains(&p.ids.session)
                || seeds.contains(&p.ids.pgrp)
                || below_a_seed(p.ids.ppid)
        })
        .map(|p| p.pid)
        .collect();
    found.sort_unstable();
    found
}

/// Every process in `/proc`, the environment read only for `uid`'s.
pub fn snapshot(uid: u32) -> Vec<ProcessFacts> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ids = parse_stat_ids(&stat)?;
            let start = parse_start_time(&stat)?;
            let uid_of = std::fs::read_to_string(format!("/proc/{pid}/status"))
                .ok()
                .and_then(|s| parse_real_uid(&s));
            let owner = (uid_of == Some(uid))
                .then(|| std::fs::read(format!("/proc/{pid}/environ")).ok())
                .flatten()
                .and_then(|env| owner_in_environ(&env));
            Some(ProcessFacts {
                pid,
                uid: uid_of,
                ids,
                start,
                owner,
            })
        })
        .collect()
}

/// The real uid from `/proc/<pid>/status` (`Uid:\treal\teffective...`).
pub fn parse_real_uid(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_ascii_whitespace()
        .next()?
        .parse()
        .ok()
}

/// End the orphans of `me`'s data dir: hang them up now, SIGKILL what is
/// left after the grace from a reaper thread (counted, so a server that
/// exits first still waits for it). Returns how many processes were found.
pub fn sweep(me: &Owner) -> usize {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let found = orphans(&snapshot(uid), me, uid);
    if found.is_empty() {
        return 0;
    }
    for signal in [libc::SIGHUP, libc::SIGTERM, libc::SIGCONT] {
        signal_all(&found, signal);
    }
    let me = *me;
    let reap = move || {
        let start = Instant::now();
        // Re-read each time: a pid that ended may be reused, and a member
        // may start another while the others end.
        let left = || orphans(&snapshot(uid), &me, uid);
        while start.elapsed() < session::KILL_GRACE {
            if left().is_empty() {
                return;
            }
            thread::sleep(session::GRACE_POLL * 2);
        }
        for _ in 0..session::KILL_ROUNDS {
            let now = left();
            if now.is_empty() {
                return;
            }
            signal_all(&now, libc::SIGKILL);
            thread::sleep(session::KILL_ROUND_GAP);
        }
    };
    if !session::spawn_reaper("termic-orphans".into(), reap) {
        // No thread to wait with: SIGKILL now rather than leave them.
        signal_all(&orphans(&snapshot(uid), &me, uid), libc::SIGKILL);
    }
    found.len()
}

fn signal_all(pids: &[i32], signal: libc::c_int) {
    for &pid in pids.iter().filter(|&&p| p > 1) {
        // SAFETY: a plain syscall; a pid already gone yields ESRCH.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

/// What the user is told after a sweep that found `count` processes.
pub fn notice(count: usize) -> Option<String> {
    let what = match count {
        0 => return None,
        1 => "1 process".to_owned(),
        n => format!("{n} processes"),
    };
    Some(format!(
        "Ended {what} left by a termic server that stopped without ending its tasks."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: u64 = 4026531836;
    const UID: u32 = 1000;

    fn me() -> Owner {
        Owner {
            pidns: NS,
            pid: 500,
            start: 9000,
            scope: 0xabc,
        }
    }

    fn dead_server() -> Owner {
        Owner {
            pid: 400,
            start: 100,
            ..me()
        }
    }

    fn process(pid: i32, ppid: i32, session: i32, owner: Option<Owner>) -> ProcessFacts {
        ProcessFacts {
            pid,
            uid: Some(UID),
            ids: StatIds {
                zombie: false,
                ppid,
                pgrp: session,
                session,
            },
            start: 1000 + pid as u64,
            owner,
        }
    }

    #[test]
    fn the_owner_value_round_trips_and_junk_is_no_owner() {
        let o = me();
        assert_eq!(Owner::parse(&o.env_value()), Some(o));
        for junk in ["", "1.2.3", "1.2.3.zz", "1.2.3.4.5", "a.b.c.d"] {
            assert_eq!(Owner::parse(junk), None, "{junk}");
        }
        assert_eq!(parse_ns_inode("pid:[4026531836]"), Some(NS));
        assert_eq!(parse_ns_inode("net:[1]"), None);
        assert_ne!(
            scope_of(Path::new("/a/data")),
            scope_of(Path::new("/b/data"))
        );
    }

    #[test]
    fn the_start_time_and_uid_are_read_from_proc_text() {
        let stat = "4242 (my (odd) prog) S 1 4240 4239 34817 4240 4194304 0 0 0 0 \
                    5 6 0 0 20 0 1 0 777123 1000 10";
        assert_eq!(parse_start_time(stat), Some(777123));
        assert_eq!(parse_start_time("garbage"), None);
        let status = "Name:\tsh\nUid:\t1001\t0\t0\t0\nGid:\t1\n";
        assert_eq!(parse_real_uid(status), Some(1001));
        let own = std::fs::read_to_string("/proc/self/stat").unwrap();
        assert!(parse_start_time(&own).is_some());
        assert!(Owner::of_this_process(Path::new("/")).is_some());
    }

    #[test]
    fn only_a_task_process_names_an_owner() {
        let value = dead_server().env_value();
        let env = format!("HOME=/h\0TERMIC_TASK_ID=abc\0TERMIC_OWNER={value}\0");
        assert_eq!(owner_in_environ(env.as_bytes()), Some(dead_server()));
        // Inherited owner without a task id: not a task's process.
        let env = format!("HOME=/h\0TERMIC_OWNER={value}\0");
        assert_eq!(owner_in_environ(env.as_bytes()), None);
        // A task of a termic older than the owner variable.
        assert_eq!(owner_in_environ(b"TERMIC_TASK_ID=abc\0"), None);
        assert_eq!(
            owner_in_environ(b"TERMIC_TASK_ID=abc\0TERMIC_OWNER=junk\0"),
            None
        );
    }

    #[test]
    fn the_processes_of_a_gone_owner_and_what_they_started_are_orphans() {
        let dead = Some(dead_server());
        let live_other = Owner {
            pid: 600,
            start: 1600,
            ..me()
        };
        let procs = vec![
            // The live server and our own process table entry.
            process(600, 1, 600, None),
            process(500, 1, 500, None),
            // A task of the dead server (session leader 10) and a child that
            // cleared its environment but stayed in the session.
            process(10, 1, 10, dead),
            process(11, 10, 10, None),
            // A daemon that called setsid: found by its environment.
            process(20, 1, 20, dead),
            // A child below the daemon, in a session of its own, no env.
            process(21, 20, 21, None),
            // A task of a live server of the same data dir.
            process(30, 1, 30, Some(live_other)),
            // Our own task.
            process(40, 1, 40, Some(me())),
            // A shell that only inherited the variables: no owner read.
            process(50, 1, 50, None),
        ];
        assert_eq!(orphans(&procs, &me(), UID), [10, 11, 20, 21]);
    }

    #[test]
    fn nothing_is_judged_unless_the_owner_is_provably_gone_here_and_ours() {
        let base = dead_server();
        let alive_again = process(400, 1, 400, None); // pid 400, start 1400
        let cases = [
            // The owner runs (same pid and start time).
            Owner {
                start: 1400,
                ..base
            },
            // Another data dir's termic.
            Owner {
                scope: 0xdef,
                ..base
            },
            // Another pid namespace (a termic in a container).
            Owner { pidns: 1, ..base },
        ];
        for owner in cases {
            let procs = vec![alive_again.clone(), process(10, 1, 10, Some(owner))];
            assert!(orphans(&procs, &me(), UID).is_empty(), "{owner:?}");
        }
        // The same pid with another start time is a reused pid: gone.
        let procs = vec![alive_again, process(10, 1, 10, Some(base))];
        assert_eq!(orphans(&procs, &me(), UID), [10]);
        // Another user's process, or a zombie, is never one.
        let mut theirs = process(10, 1, 10, Some(base));
        theirs.uid = Some(UID + 1);
        assert!(orphans(&[theirs], &me(), UID).is_empty());
        let mut zombie = process(10, 1, 10, Some(base));
        zombie.ids.zombie = true;
        assert!(orphans(&[zombie], &me(), UID).is_empty());
        // A zombie owner is gone.
        let mut dead_owner = process(400, 1, 400, None);
        dead_owner.start = 100;
        dead_owner.ids.zombie = true;
        let procs = vec![dead_owner, process(10, 1, 10, Some(base))];
        assert_eq!(orphans(&procs, &me(), UID), [10]);
    }

    #[test]
    fn a_termic_started_inside_an_orphaned_task_is_ended_but_its_tasks_are_its_own() {
        let nested = Owner {
            pid: 70,
            start: 1070,
            scope: 0x999,
            ..me()
        };
        let procs = vec![
            process(60, 1, 60, Some(dead_server())),
            // The nested server: in the orphan's session, names the dead one.
            process(70, 60, 60, Some(dead_server())),
            // Its task, below it but owned by the live nested server.
            process(71, 70, 71, Some(nested)),
        ];
        assert_eq!(orphans(&procs, &me(), UID), [60, 70]);
    }

    #[test]
    fn the_notice_counts_what_was_ended() {
        assert_eq!(notice(0), None);
        assert_eq!(
            notice(1).unwrap(),
            "Ended 1 process left by a termic server that stopped without ending its tasks."
        );
        assert!(notice(5).unwrap().starts_with("Ended 5 processes "));
    }
}
