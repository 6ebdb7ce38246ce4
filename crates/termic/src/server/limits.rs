//! The server under resource limits (issue 27): out of threads (the user's
//! process limit, `ulimit -u`), out of file descriptors (`ulimit -n`, or the
//! system's table), out of memory. None of these may end the server or
//! leave it spinning: a connection it cannot serve is refused with a
//! message, a failed `accept` waits a little longer each time, and the log
//! and the attached clients hear about it at most once per
//! [`REPORT_EVERY`]. The pure parts are termic-web's (`termic web` runs
//! under the same limits); what reads an `anyhow` error is here.

use std::io;

pub use termic_web::limits::{
    on_accept_failure, shortage_of_errno, AcceptBackoff, RateLimit, ReservedFd, Shortage,
    REPORT_EVERY,
};

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
    let text = crate::printed::error_text(err);
    match shortage(err) {
        Some(s) => format!("{text}. {}", s.sentence()),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
