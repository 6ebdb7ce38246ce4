//! Out of threads (the user's process limit, `ulimit -u`) or out of file
//! descriptors (`ulimit -n`, the system's table): what a server that must
//! neither die nor spin does about it (issue 27 for the termic server,
//! issue 30 for termic web, which both use this). A connection it cannot
//! serve is refused with a message, a failed `accept` waits a little
//! longer each time, and the log hears about it at most once per
//! [`REPORT_EVERY`].
//!
//! The choices are pure ([`AcceptBackoff`], [`RateLimit`],
//! [`shortage_of_errno`]); the reserved descriptor is the only I/O.

use std::fs::File;
use std::time::{Duration, Instant};

/// At most one log line (and one message to attached clients) this often.
pub const REPORT_EVERY: Duration = Duration::from_secs(10);

/// The first wait after a failed `accept`, and the longest one.
pub const BACKOFF_FIRST: Duration = Duration::from_millis(5);
pub const BACKOFF_MAX: Duration = Duration::from_millis(500);

/// What a server ran short of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortage {
    /// No thread or process could be started (EAGAIN from clone/fork).
    Threads,
    /// This process's descriptor limit (EMFILE).
    Descriptors,
    /// The system's descriptor table (ENFILE).
    SystemDescriptors,
    /// Memory or kernel buffers (ENOMEM, ENOBUFS).
    Memory,
}

impl Shortage {
    /// What the user reads: the cause and what to do (no errno numbers),
    /// for the termic server.
    pub fn explain(self) -> String {
        self.explain_for("the termic server", "clients or tasks")
    }

    /// [`Shortage::explain`] for `who` ("termic web"), whose connections
    /// or tasks are `what` (what to close when out of descriptors).
    pub fn explain_for(self, who: &str, what: &str) -> String {
        match self {
            Shortage::Threads => format!(
                "{who} cannot start a thread or process: this user has reached the process \
                 limit (ulimit -u); end some programs and try again"
            ),
            Shortage::Descriptors => format!(
                "{who} has too many open files (ulimit -n); close some {what} and try again"
            ),
            Shortage::SystemDescriptors => {
                "the system is out of open files; close some programs and try again".into()
            }
            Shortage::Memory => {
                "the system is out of memory; end some programs and try again".into()
            }
        }
    }

    /// [`Shortage::explain`] as a sentence of its own.
    pub fn sentence(self) -> String {
        sentence(&self.explain())
    }
}

/// `text` as a sentence: its first letter upper case, a full stop.
pub fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => format!("{}{}.", c.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

/// The shortage an OS error number means, if any (pure).
pub fn shortage_of_errno(errno: i32) -> Option<Shortage> {
    match errno {
        libc::EAGAIN => Some(Shortage::Threads),
        libc::EMFILE => Some(Shortage::Descriptors),
        libc::ENFILE => Some(Shortage::SystemDescriptors),
        libc::ENOMEM | libc::ENOBUFS => Some(Shortage::Memory),
        _ => None,
    }
}

/// What a failed `accept` means (pure): `None` for the queued
/// connection's own trouble (it hung up while queued: take the next one at
/// once), else the shortage behind it, if any, and whether it is one of
/// descriptors (the reserved one then lets the waiting client hear why).
pub fn accept_failure(err: &std::io::Error) -> Option<(Option<Shortage>, bool)> {
    let errno = err.raw_os_error();
    if matches!(
        errno,
        Some(libc::EINTR | libc::ECONNABORTED | libc::EPROTO | libc::EPERM)
    ) {
        return None;
    }
    let shortage = errno.and_then(shortage_of_errno);
    let out_of_fds = matches!(
        shortage,
        Some(Shortage::Descriptors | Shortage::SystemDescriptors)
    );
    Some((shortage, out_of_fds))
}

/// One failed `accept`, the part every listener shares: the reserved
/// descriptor is taken back if one was freed since; when descriptors ran
/// out it is given up for a moment and `refuse` accepts the waiting
/// connection to tell it why (true when it did). `None` is the
/// connection's own trouble (take the next one at once); else the
/// shortage behind it, if any, and whether a connection was refused.
pub fn on_accept_failure(
    err: &std::io::Error,
    reserve: &mut ReservedFd,
    refuse: impl FnOnce(Shortage) -> bool,
) -> Option<(Option<Shortage>, bool)> {
    let (shortage, out_of_fds) = accept_failure(err)?;
    reserve.restore();
    let mut refused = false;
    if let (true, Some(shortage)) = (out_of_fds, shortage) {
        if reserve.release() {
            refused = refuse(shortage);
            reserve.restore();
        }
    }
    Some((shortage, refused))
}

/// The wait after each failed `accept` in a row: doubles from
/// [`BACKOFF_FIRST`] up to [`BACKOFF_MAX`], and starts over after a
/// success. A shortage lasts until something else lets go, so trying again
/// at once only burns the CPU the rest of the machine needs.
#[derive(Debug, Clone)]
pub struct AcceptBackoff {
    next: Duration,
}

impl Default for AcceptBackoff {
    fn default() -> Self {
        AcceptBackoff {
            next: BACKOFF_FIRST,
        }
    }
}

impl AcceptBackoff {
    /// How long to wait now; the next failure waits longer.
    pub fn failed(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(BACKOFF_MAX);
        wait
    }

    pub fn succeeded(&mut self) {
        self.next = BACKOFF_FIRST;
    }
}

/// Once per `every`: the first event reports, the ones after it are
/// counted until the next report says how many there were (pure: the time
/// is given).
#[derive(Debug, Clone)]
pub struct RateLimit {
    every: Duration,
    last: Option<Instant>,
    held: u64,
}

impl RateLimit {
    pub fn new(every: Duration) -> RateLimit {
        RateLimit {
            every,
            last: None,
            held: 0,
        }
    }

    /// `Some(n)`: report now, `n` events were held back since the last
    /// report. `None`: held back.
    pub fn hit(&mut self, now: Instant) -> Option<u64> {
        let due = self
            .last
            .is_none_or(|last| now.saturating_duration_since(last) >= self.every);
        if due {
            self.last = Some(now);
            Some(std::mem::take(&mut self.held))
        } else {
            self.held += 1;
            None
        }
    }
}

/// One descriptor kept open on `/dev/null` so that, when the server is out
/// of descriptors, closing it lets `accept` take one more connection: the
/// one waiting is told why it is refused instead of hanging until the
/// shortage ends (the classic trick of servers such as nginx and libuv).
pub struct ReservedFd {
    file: Option<File>,
}

impl ReservedFd {
    pub fn open() -> ReservedFd {
        ReservedFd {
            file: File::open("/dev/null").ok(),
        }
    }

    /// Close the reserve; false when there was none to close.
    pub fn release(&mut self) -> bool {
        self.file.take().is_some()
    }

    /// Open it again (fails quietly while the shortage lasts; tried again
    /// at the next release).
    pub fn restore(&mut self) {
        if self.file.is_none() {
            self.file = File::open("/dev/null").ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_bound_and_starts_over_after_a_success() {
        let mut b = AcceptBackoff::default();
        let waits: Vec<Duration> = (0..10).map(|_| b.failed()).collect();
        assert_eq!(waits[0], BACKOFF_FIRST);
        assert_eq!(waits[1], BACKOFF_FIRST * 2);
        assert!(waits.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*waits.last().unwrap(), BACKOFF_MAX);
        b.succeeded();
        assert_eq!(b.failed(), BACKOFF_FIRST);
    }

    #[test]
    fn a_rate_limit_reports_once_per_period_with_the_count_held_back() {
        let t0 = Instant::now();
        let mut r = RateLimit::new(Duration::from_secs(10));
        assert_eq!(r.hit(t0), Some(0));
        assert_eq!(r.hit(t0 + Duration::from_secs(1)), None);
        assert_eq!(r.hit(t0 + Duration::from_secs(9)), None);
        assert_eq!(r.hit(t0 + Duration::from_secs(10)), Some(2));
        assert_eq!(r.hit(t0 + Duration::from_secs(11)), None);
    }

    #[test]
    fn a_shortage_is_told_for_who_ran_short() {
        let web = Shortage::Descriptors.explain_for("termic web", "pages");
        assert_eq!(
            web,
            "termic web has too many open files (ulimit -n); close some pages and try again"
        );
        assert!(Shortage::Threads
            .sentence()
            .starts_with("The termic server cannot start"));
        assert!(Shortage::Threads.sentence().ends_with("try again."));
        assert_eq!(shortage_of_errno(libc::EMFILE), Some(Shortage::Descriptors));
        assert_eq!(shortage_of_errno(libc::ENOENT), None);
        let err = |n| std::io::Error::from_raw_os_error(n);
        assert_eq!(accept_failure(&err(libc::ECONNABORTED)), None);
        assert_eq!(
            accept_failure(&err(libc::EMFILE)),
            Some((Some(Shortage::Descriptors), true))
        );
        assert_eq!(
            accept_failure(&err(libc::EAGAIN)),
            Some((Some(Shortage::Threads), false))
        );
    }
}
