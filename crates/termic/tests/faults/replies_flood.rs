//! Issue 27: a task that floods terminal queries and never reads the
//! answers must not grow the server that holds every agent. Measured on the
//! real server through /proc: its RSS while the flood is answered, another
//! task's echo meanwhile, and its RSS once the flooding task is killed.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::harness::{hook, Fixture};
use crate::served::{text, Served};

/// The most the server may grow while one task floods (the bar).
const GROWTH_LIMIT_KB: u64 = 16 * 1024;

/// How close to where it started the server's RSS must come back once the
/// flooding task is gone.
const RETURNED_WITHIN_KB: u64 = 8 * 1024;

/// A kB field (`VmRSS`, `VmHWM`) of /proc/PID/status.
fn status_kb(pid: i32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Samples the server's RSS every few milliseconds until dropped, and
/// keeps the highest.
struct RssPeak {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RssPeak {
    fn start(pid: i32) -> RssPeak {
        let peak = Arc::new(AtomicU64::new(status_kb(pid, "VmRSS")));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (peak, stop) = (Arc::clone(&peak), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    peak.fetch_max(status_kb(pid, "VmRSS"), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        RssPeak {
            peak,
            stop,
            thread: Some(thread),
        }
    }

    /// The highest RSS seen, in kB, the sampler stopped.
    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for RssPeak {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// config.toml with a `fake`-style agent per (name, script).
fn agents(f: &Fixture, scripts: &[(&str, String)]) {
    let toml: String = scripts
        .iter()
        .map(|(name, script)| {
            let escaped = script.replace('\\', "\\\\").replace('"', "\\\"");
            format!(
                "[agents.{name}]\nbase = \"claude\"\ncommand = [\"sh\", \"-c\", \"{escaped}\"]\n"
            )
        })
        .collect();
    f.config(&toml);
}

/// The echo task: each line typed is appended to `echoed.txt`.
fn echo_script() -> String {
    "while read line; do echo \"$line\" >> echoed.txt; done".into()
}

/// How long `termic send` to the echo task takes to come back in its file.
fn echo_round_trip(s: &Served, word: &str) -> Duration {
    let start = Instant::now();
    s.expect(&["send", "echo", word, "--enter"], 0);
    let file = s.f.work.join("echoed.txt");
    loop {
        let got = std::fs::read_to_string(&file).unwrap_or_default();
        if got.lines().any(|l| l == word) {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the echo task never echoed {word}: {got:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Polls until `check` holds or `limit` passes; the last value seen.
fn poll_until(limit: Duration, mut check: impl FnMut() -> (bool, u64)) -> (bool, u64) {
    let start = Instant::now();
    loop {
        let (ok, value) = check();
        if ok || start.elapsed() > limit {
            return (ok, value);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs agent `flood` next to the echo task and checks the server: its RSS
/// while the flood is answered, the echo task meanwhile, and its RSS once
/// the flood task is killed. The flood script ends its flood with a `done`
/// hook and then waits without reading, forever; `raw`: its terminal is in
/// raw mode, so its unread input holds the writer.
fn flood_and_measure(s: &Served, what: &str, raw: bool) {
    s.expect(&["run", "echo", "--name", "echo", "--detach"], 0);
    let first = echo_round_trip(s, "before");
    let pid = s.server_pid();
    let baseline = status_kb(pid, "VmRSS");
    let sampler = RssPeak::start(pid);

    s.expect(&["run", "flood", "--name", "flood", "--detach"], 0);
    // Another task answers while the flood is being answered.
    let mut slowest = Duration::ZERO;
    for i in 0..3 {
        slowest = slowest.max(echo_round_trip(s, &format!("during{i}")));
    }
    let waited = s.termic(&["wait", "flood", "--for", "done", "--timeout", "50"]);
    let peak = sampler.finish();
    let growth = peak.saturating_sub(baseline);
    eprintln!(
        "{what}: server RSS {baseline} kB at start, peak {peak} kB (+{growth} kB); \
         echo {first:?} before, {slowest:?} at worst during"
    );
    assert!(
        growth < GROWTH_LIMIT_KB,
        "{what}: the server grew by {growth} kB (from {baseline} kB) answering a task \
         that never reads its replies"
    );
    assert_eq!(
        text(&waited.stdout).trim(),
        "done",
        "{what}: the flood was not answered within 50 s"
    );
    assert!(
        slowest < Duration::from_secs(5),
        "{what}: another task's echo took {slowest:?} during the flood"
    );

    // The server log says so once, not per reply. In canonical mode the
    // line discipline throws away what does not fit, so the writer may keep
    // up and drop nothing; in raw mode the budget must fill.
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    let told = log.matches("task flood does not read its input").count();
    if raw {
        assert_eq!(told, 1, "{what}: {log}");
    } else {
        assert!(told <= 1, "{what}: {log}");
    }
    // Typed input to the flooding task is still taken: its own budget.
    s.expect(&["send", "flood", "typed"], 0);

    s.expect(&["kill", "flood"], 0);
    let (returned, after) = poll_until(Duration::from_secs(15), || {
        let rss = status_kb(pid, "VmRSS");
        (rss <= baseline + RETURNED_WITHIN_KB, rss)
    });
    eprintln!("{what}: server RSS {after} kB after the kill");
    assert!(
        returned,
        "{what}: the server kept {after} kB after the flooding task was killed \
         ({baseline} kB before it)"
    );
    // And the echo task is still fine.
    echo_round_trip(s, "after");
}

fn fixture(flood: String) -> Served {
    let f = Fixture::new();
    agents(&f, &[("echo", echo_script()), ("flood", flood)]);
    Served { f }
}

fn link_tool(f: &Fixture, tool: &str) {
    let src = Path::new("/usr/bin").join(tool);
    let _ = std::os::unix::fs::symlink(src, f.tools.join(tool));
}

#[test]
fn a_file_of_da1_queries_catted_in_a_task_that_never_reads_leaves_the_server_its_size() {
    let s = fixture(
        [
            hook("working", ""),
            "cat da1.txt".into(),
            hook("done", ""),
            "exec sleep 600".into(),
        ]
        .join("; "),
    );
    // 30 MB of ESC [ c (DA1), as in the issue.
    std::fs::write(s.f.work.join("da1.txt"), b"\x1b[c".repeat(10_000_000)).unwrap();
    flood_and_measure(&s, "DA1 file", false);
}

#[test]
fn a_program_printing_queries_and_never_reading_leaves_the_server_its_size() {
    // DA1, a cursor report and a status report per line, 20 MB of them, and
    // then it waits without ever reading what was answered.
    let s = fixture(
        [
            // A full-screen program's mode: the input buffer fills and holds.
            "stty raw -echo".into(),
            hook("working", ""),
            "yes \"$(printf '\\033[c\\033[6n\\033[5n')\" | head -c 20000000".into(),
            hook("done", ""),
            "exec sleep 600".into(),
        ]
        .join("; "),
    );
    link_tool(&s.f, "yes");
    flood_and_measure(&s, "query printer", true);
}

#[test]
fn typed_input_to_a_task_that_never_reads_is_refused_with_a_message_past_its_budget() {
    // Raw mode: a full input buffer holds the writer (in canonical mode the
    // line discipline would throw away a line past 4 KiB instead).
    let s = fixture("stty raw -echo; exec sleep 600".into());
    s.expect(&["run", "flood", "--name", "flood", "--detach"], 0);
    // 100 KB per send (one argument is at most 128 KiB); the budget is
    // 4 MiB, so about the 42nd is refused.
    let chunk = "x".repeat(100 * 1000);
    let mut refused = None;
    for _ in 0..60 {
        let out = s.termic(&["send", "flood", &chunk]);
        if !out.status.success() {
            refused = Some(text(&out.stderr));
            break;
        }
    }
    let message = refused.expect("6 MB typed into a task that never reads were all taken");
    eprintln!("refused: {message}");
    assert!(
        message.contains("not reading its input") && message.contains("KiB"),
        "{message}"
    );
    assert!(!message.contains("TaskId"), "{message}");
    let pid = s.server_pid();
    assert!(status_kb(pid, "VmRSS") < 64 * 1024);
}

/// Issue 27: the server survives a memory allocation failure of one task's
/// buffers. The scrollback ring is the one a user sizes (up to a million
/// lines); here the server's address space is capped (prlimit, 48 MB above
/// what it uses) while a task prints more than that into a million-line
/// scrollback. The ring keeps what fits; on 0f06027 the failed allocation
/// aborted the server and every task with it.
#[test]
fn a_scrollback_the_system_cannot_hold_keeps_what_fits_and_the_server_lives() {
    let s = fixture(
        [
            "while [ ! -e go ]; do sleep 0.05; done".to_string(),
            hook("working", ""),
            "yes \"$(printf '%078d' 0)\" | head -n 1000000".into(),
            hook("done", ""),
            "exec sleep 600".into(),
        ]
        .join("; "),
    );
    link_tool(&s.f, "yes");
    let config = std::fs::read_to_string(s.f.config_dir.join("config.toml")).unwrap();
    s.f.config(&format!("[terminal]\nscrollback = 1000000\n\n{config}"));
    s.expect(&["run", "echo", "--name", "echo", "--detach"], 0);
    s.expect(&["run", "flood", "--name", "flood", "--detach"], 0);
    echo_round_trip(&s, "before");
    let pid = s.server_pid();
    let cap = (status_kb(pid, "VmSize") + 48 * 1024) * 1024;
    let limit = libc::rlimit {
        rlim_cur: cap,
        rlim_max: cap,
    };
    // SAFETY: prlimit on the server's pid, reading nothing back.
    let set = unsafe { libc::prlimit(pid, libc::RLIMIT_AS, &limit, std::ptr::null_mut()) };
    assert_eq!(set, 0, "prlimit: {}", std::io::Error::last_os_error());
    std::fs::write(s.f.work.join("go"), "").unwrap();

    let waited = s.termic(&["wait", "flood", "--for", "done", "--timeout", "120"]);
    // SAFETY: signal 0 only checks the pid.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap_or_default();
    assert!(alive, "the server died under the memory limit: {log}");
    assert_eq!(text(&waited.stdout).trim(), "done", "{log}");
    eprintln!(
        "server VmSize {} kB, limit {} kB",
        status_kb(pid, "VmSize"),
        cap / 1024
    );
    // Every task is still served.
    echo_round_trip(&s, "after");
    assert_eq!(s.ls().len(), 2);
}
