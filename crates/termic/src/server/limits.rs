//! The server under resource limits (issue 27): out of threads (the user's
//! process limit, `ulimit -u`), out of file descriptors (`ulimit -n`, or the
//! system's table), out of memory. None of these may end the server or
//! leave it spinning: a connection it cannot serve is refused with a
//! message, a failed `accept` waits a little longer each time, and the log
//! and the attached clients hear about it at most once per
//! [`REPORT_EVERY`].
//!
//! The choices are pure ([`AcceptBackoff`], [`RateLimit`], [`shortage`],
//! [`with_hint`]); the reserved descriptor is the only I/O.

use std::fs::File;
use std::io;
use std::time::{Duration, Instant};

/// At most one log line and one message to attached clients this often.
pub const REPORT_EVERY: Duration = Duration::from_secs(10);

/// The first wait after a failed `accept`, and the longest one.
pub const BACKOFF_FIRST: Duration = Duration::from_millis(5);
pub const BACKOFF_MAX: Duration = Duration::from_millis(500);

/// What the server ran short of.
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
    /// What the user reads: the cause and what to do (no errno numbers).
    pub fn explain(self) -> &'static str {
        match self {
            Shortage::Threads => {
                "the termic server cannot start a thread or process: this user has reached \
                 the process limit (ulimit -u); end some programs and try again"
            }
            Shortage::Descriptors => {
                "the termic server has too many open files (ulimit -n); close some clients \
                 or tasks and try again"
            }
            Shortage::SystemDescriptors => {
                "the system is out of open files; close some programs and try again"
            }
            Shortage::Memory => "the system is out of memory; end some programs and try again",
        }
    }

    /// [`Shortage::explain`] as a sentence of its own.
    pub fn sentence(self) -> String {
        format!("{}.", upper_first(self.explain()))
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

/// The shortage behind an error, looking through its causes: an
/// `io::Error`'s number, or the "(os error N)" a wrapped message kept
/// (portable-pty's errors are text by the time they reach us).
pub fn shortage(err: &anyhow::Error) -> Option<Shortage> {
    err.chain().find_map(|cause| {
        if let Some(errno) = cause
            .downcast_ref::<io::Error>()
            .and_then(io::Error::raw_os_error)
        {
            return shortage_of_errno(errno);
        }
        errno_in_text(&cause.to_string()).and_then(shortage_of_errno)
    })
}

/// The N of the last "(os error N)" in a message.
fn errno_in_text(text: &str) -> Option<i32> {
    let start = text.rfind("(os error ")? + "(os error ".len();
    let rest = &text[start..];
    rest[..rest.find(')')?].parse().ok()
}

/// `err`'s text, followed by what to do when a shortage caused it.
pub fn with_hint(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    match shortage(err) {
        Some(s) => format!("{text}. {}", s.sentence()),
        None => text,
    }
}

fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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
    fn shortages_are_found_by_number_or_in_a_wrapped_message() {
        let eagain = anyhow::Error::from(io::Error::from_raw_os_error(libc::EAGAIN))
            .context("cannot start a thread");
        assert_eq!(shortage(&eagain), Some(Shortage::Threads));
        let text = anyhow::anyhow!("cannot open a PTY: Too many open files (os error 24)");
        assert_eq!(shortage(&text), Some(Shortage::Descriptors));
        assert_eq!(
            shortage(&anyhow::anyhow!("x (os error 23)")),
            Some(Shortage::SystemDescriptors)
        );
        assert_eq!(
            shortage(&anyhow::anyhow!("no such file (os error 2)")),
            None
        );
        assert_eq!(shortage(&anyhow::anyhow!("(os error nope)")), None);
        let hinted = with_hint(&eagain);
        assert!(hinted.starts_with("cannot start a thread: "), "{hinted}");
        assert!(hinted.contains("ulimit -u"), "{hinted}");
        assert!(!hinted.contains('\u{2014}'), "{hinted}");
        assert_eq!(with_hint(&anyhow::anyhow!("plain")), "plain");
    }
}
