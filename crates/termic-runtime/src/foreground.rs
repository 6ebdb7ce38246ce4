//! Watching which program is in a command or shell task's foreground, so an
//! agent started at the prompt (`claude`) gets its own profile, hooks and
//! native status while it runs (engine `set_foreground`).
//!
//! The check is `tcgetpgrp` on the PTY master, then the group leader's
//! `/proc/PID/exe` and `/proc/PID/cmdline` (one readlink and one read of at
//! most 4 KiB). It runs from the reader thread only when output arrives:
//! at once for a chunk holding an OSC 133 mark or the first chunk after an
//! Enter, else at most every [`CHECK_EVERY_MS`], and once more when output
//! has been quiet for [`CHECK_EVERY_MS`] since the last check (an agent that
//! prints its banner within that time and then waits for you is still
//! seen). A task that prints nothing costs nothing: no timer, no poll.

use std::collections::HashMap;
use std::os::unix::io::RawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::agents::foreground::ForegroundAgents;

/// While output flows, the foreground is looked at no more often than this.
pub const CHECK_EVERY_MS: u64 = 250;

/// Longest cmdline read (argv[0] and the script name are at its start).
const CMDLINE_LIMIT: usize = 4096;

/// A new foreground program for the engine: its profile (`None`: the
/// task's own) and whether its hooks are wired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForegroundChange {
    pub profile: Option<String>,
    pub hooks_wired: bool,
}

/// One task's watch (lives in its reader thread).
pub struct ForegroundWatch {
    agents: Arc<ForegroundAgents>,
    hooks_wired: Arc<Mutex<HashMap<String, bool>>>,
    /// Set by `write_input` on Enter: check the next output at once.
    pub(super) entered: Arc<AtomicBool>,
    /// The agent id applied now (`None`: the task's own profile).
    current: Option<String>,
    last_check: Option<u64>,
    /// Output arrived since the last quiet check: one more check is owed
    /// once output goes quiet.
    owed: bool,
}

/// `ESC ] 133 ;`: a shell mark is in the chunk.
fn has_shell_mark(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\x1b]133;").is_some()
}

impl ForegroundWatch {
    pub fn new(
        agents: Arc<ForegroundAgents>,
        hooks_wired: Arc<Mutex<HashMap<String, bool>>>,
        entered: Arc<AtomicBool>,
    ) -> Self {
        ForegroundWatch {
            agents,
            hooks_wired,
            entered,
            current: None,
            last_check: None,
            owed: false,
        }
    }

    /// Whether this output chunk should trigger a check.
    pub fn due(&mut self, now: u64, bytes: &[u8]) -> bool {
        let entered = self.entered.swap(false, Ordering::Relaxed);
        self.owed = true;
        // Cheapest first: the byte scan only when nothing else made it due.
        let due = entered
            || self
                .last_check
                .is_none_or(|at| now.saturating_sub(at) >= CHECK_EVERY_MS)
            || has_shell_mark(bytes);
        if due {
            self.last_check = Some(now);
        }
        due
    }

    /// How long the reader may wait for output before it owes the quiet
    /// check: `None` when none is owed (block as long as it takes).
    pub fn quiet_wait_ms(&self, now: u64) -> Option<u64> {
        self.owed.then(|| {
            let at = self.last_check.unwrap_or(now) + CHECK_EVERY_MS;
            at.saturating_sub(now)
        })
    }

    /// The check owed after output went quiet.
    pub fn quiet_check(&mut self, now: u64, fd: RawFd) -> Option<ForegroundChange> {
        self.owed = false;
        self.last_check = Some(now);
        self.check(fd)
    }

    /// Looks at the foreground; a change when its agent differs from the
    /// one applied.
    pub fn check(&mut self, fd: RawFd) -> Option<ForegroundChange> {
        // SAFETY: tcgetpgrp only reads the fd's foreground group.
        let pgid = unsafe { libc::tcgetpgrp(fd) };
        if pgid <= 0 {
            return None;
        }
        let exe: Option<PathBuf> = std::fs::read_link(format!("/proc/{pgid}/exe")).ok();
        let cmdline = read_cmdline(pgid);
        let found = self.agents.identify(exe.as_deref(), &cmdline);
        let agent = found.map(|a| a.agent.clone());
        if agent == self.current {
            return None;
        }
        self.current = agent;
        Some(match found {
            Some(a) => ForegroundChange {
                profile: Some(a.profile.clone()),
                hooks_wired: super::lock(&self.hooks_wired)
                    .get(&a.agent)
                    .copied()
                    .unwrap_or(false),
            },
            None => ForegroundChange {
                profile: None,
                hooks_wired: false,
            },
        })
    }
}

/// `/proc/PID/cmdline` (NUL-separated), at most [`CMDLINE_LIMIT`] bytes;
/// empty when it cannot be read.
pub fn read_cmdline(pid: libc::pid_t) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    if let Ok(f) = std::fs::File::open(format!("/proc/{pid}/cmdline")) {
        let _ = f.take(CMDLINE_LIMIT as u64).read_to_end(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch() -> ForegroundWatch {
        ForegroundWatch::new(
            Arc::new(ForegroundAgents::default()),
            Arc::new(Mutex::new(HashMap::new())),
            Arc::new(AtomicBool::new(false)),
        )
    }

    #[test]
    fn checks_are_rate_limited_except_on_a_mark_or_after_enter() {
        let mut w = watch();
        assert!(w.due(0, b"x"));
        assert!(!w.due(100, b"x"));
        assert!(w.due(120, b"\x1b]133;D;0\x07"));
        w.entered.store(true, Ordering::Relaxed);
        assert!(w.due(130, b"x"));
        assert!(!w.due(200, b"x"));
        assert!(w.due(130 + CHECK_EVERY_MS, b"x"));
    }

    #[test]
    fn output_owes_one_check_once_it_goes_quiet() {
        let mut w = watch();
        assert_eq!(w.quiet_wait_ms(0), None, "no output, nothing owed");
        assert!(w.due(1000, b"x"));
        assert!(!w.due(1100, b"banner"));
        assert_eq!(w.quiet_wait_ms(1100), Some(CHECK_EVERY_MS - 100));
        assert_eq!(w.quiet_wait_ms(1000 + CHECK_EVERY_MS + 5), Some(0));
        // /dev/null is no terminal: tcgetpgrp fails, no change, debt paid.
        let null = std::fs::File::open("/dev/null").unwrap();
        use std::os::unix::io::AsRawFd;
        assert_eq!(w.quiet_check(1300, null.as_raw_fd()), None);
        assert_eq!(w.quiet_wait_ms(1300), None);
    }
}
