//! Ending a task's processes: its whole process group and session, not just
//! the child termic spawned.
//!
//! Every task's child is a session leader (portable-pty calls `setsid`), so
//! its pid is also its process group id and session id. Killing only the pid
//! leaves grandchildren behind: measured, Codex 0.171.0 runs its agent in an
//! app-server that outlives the TUI. A shell with job control puts background
//! jobs in their own process groups, still inside the session, so on Linux we
//! also scan `/proc` for every process whose session is the task's.

use std::thread;
use std::time::Duration;

/// How long processes get to exit after SIGHUP/SIGTERM before SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(1500);

/// Pids of processes in the session led by `leader` (the leader included if
/// alive). Linux reads `/proc`; elsewhere only the process group is known,
/// so the list is empty and [`signal_session`] falls back to `killpg`.
pub fn session_members(leader: i32) -> Vec<i32> {
    #[cfg(target_os = "linux")]
    {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .and_then(|stat| parse_stat_ids(&stat))
                    .is_some_and(|ids| !ids.zombie && (ids.session == leader || ids.pgrp == leader))
            })
            .collect()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = leader;
        Vec::new()
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

/// Send `signal` to the process group `leader` and every member of its
/// session. Errors (already gone) are ignored: the goal is absence.
pub fn signal_session(leader: i32, signal: libc::c_int) {
    if leader <= 1 {
        return; // never signal init or "every process"
    }
    // SAFETY: plain syscalls on integers; a stale id yields ESRCH.
    unsafe {
        libc::killpg(leader, signal);
    }
    for pid in session_members(leader) {
        if pid > 1 {
            unsafe {
                libc::kill(pid, signal);
            }
        }
    }
}

/// Hang up the session now (SIGHUP then SIGTERM, SIGCONT so stopped jobs
/// see them) and SIGKILL whatever is left after [`KILL_GRACE`], from a
/// one-shot thread so the caller never waits.
pub fn end_session(leader: i32) {
    for signal in [libc::SIGHUP, libc::SIGTERM, libc::SIGCONT] {
        signal_session(leader, signal);
    }
    let _ = thread::Builder::new()
        .name(format!("termic-reap-{leader}"))
        .spawn(move || {
            thread::sleep(KILL_GRACE);
            signal_session(leader, libc::SIGKILL);
        });
}

/// Whether any process of the session (or process group) is still alive.
pub fn session_alive(leader: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        !session_members(leader).is_empty()
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: signal 0 only checks for existence.
        unsafe { libc::killpg(leader, 0) == 0 }
    }
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
}
