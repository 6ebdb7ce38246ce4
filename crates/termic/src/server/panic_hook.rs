//! The server's panic hook: a panic is written to server.log (the server's
//! stderr) as one line naming the thread, the place and the message, then
//! a backtrace, before the thread unwinds (or the process ends, for the
//! main thread). Clients then see a lost server, and the log says why.

use std::any::Any;
use std::time::{SystemTime, UNIX_EPOCH};

/// Replace the panic hook for this process (the server's).
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        let backtrace = std::backtrace::Backtrace::force_capture().to_string();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        // Through `printed`: a full disk is ignored, never a second panic.
        crate::printed::write_stderr(&panic_text(
            now,
            thread.name(),
            location.as_deref(),
            info.payload(),
            &backtrace,
        ));
    }));
}

/// What the hook writes (pure): `termic server: panic at TIME in thread
/// 'NAME' at FILE:LINE:COL: MESSAGE`, then the backtrace indented.
pub fn panic_text(
    now_ms: u64,
    thread: Option<&str>,
    location: Option<&str>,
    payload: &(dyn Any + Send),
    backtrace: &str,
) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic with no message)");
    let mut text = format!(
        "termic server: panic at {} in thread '{}'",
        termic_runtime::journal::utc(now_ms),
        thread.unwrap_or("unnamed")
    );
    if let Some(location) = location {
        text.push_str(&format!(" at {location}"));
    }
    text.push_str(&format!(": {message}\n"));
    for line in backtrace.lines().filter(|l| !l.trim().is_empty()) {
        text.push_str("    ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_panic_is_one_line_with_thread_place_and_message_then_the_backtrace() {
        let text = panic_text(
            1_796_551_402_000,
            Some("termic-conn"),
            Some("src/server/mod.rs:10:5"),
            &"index out of bounds",
            "   0: termic::server::run\n\n   1: main\n",
        );
        assert_eq!(
            text,
            "termic server: panic at 2026-12-06 10:03:22 UTC in thread 'termic-conn' at \
             src/server/mod.rs:10:5: index out of bounds\n       0: termic::server::run\n       \
             1: main\n"
        );
        let owned = panic_text(0, None, None, &String::from("boom"), "");
        assert_eq!(
            owned,
            "termic server: panic at 1970-01-01 00:00:00 UTC in thread 'unnamed': boom\n"
        );
        let other = panic_text(0, None, None, &42u8, "");
        assert!(other.ends_with(": (a panic with no message)\n"), "{other}");
    }

    /// Run in a child process by the test below (the hook is process-wide,
    /// so it is never installed in this test process).
    #[test]
    fn panicking_child() {
        if std::env::var_os("TERMIC_PANIC_HOOK_CHILD").is_none() {
            return;
        }
        install();
        std::thread::Builder::new()
            .name("termic-test-panic".into())
            .spawn(|| panic!("the child panics on purpose"))
            .unwrap()
            .join()
            .unwrap_err();
        panic!("and its main thread too");
    }

    #[test]
    fn the_installed_hook_writes_the_panic_to_stderr_which_is_the_server_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("server.log");
        let file = std::fs::File::create(&log).unwrap();
        let status = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "server::panic_hook::tests::panicking_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TERMIC_PANIC_HOOK_CHILD", "1")
            .stdout(std::process::Stdio::null())
            .stderr(file)
            .status()
            .unwrap();
        assert!(!status.success(), "the child panicked");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            text.contains("in thread 'termic-test-panic' at ")
                && text.contains(": the child panics on purpose\n"),
            "{text}"
        );
        assert!(text.contains(": and its main thread too\n"), "{text}");
        // The default hook's words are not there: ours replaced it.
        assert!(!text.contains("panicked at"), "{text}");
    }
}
