//! The event log under a flood (issue 10 item 5): a task that prints a
//! hundred thousand tiny status OSCs through a real PTY must not write a
//! hundred thousand log lines. The runtime is driven like the UI drives it
//! (ticks at its announced deadlines), so the burst's final record is
//! written by its deadline, with nothing following.
//!
//! `cargo test -p termic --test eventlog_flood -- --ignored --nocapture`
//! prints the figures for bench/README.md.

mod runtime_support;

use std::path::Path;
use std::time::{Duration, Instant};

use runtime_support::*;
use termic::eventlog::EventLog;
use termic::runtime::{Runtime, RuntimeEvent, TaskId, TaskStatus};

const T: Duration = Duration::from_secs(240);

/// What a flood file repeats.
#[derive(Debug, Clone, Copy)]
enum Flood {
    /// Codex speaks OSC 7501: each report is obeyed (working, needs you).
    CodexWorkingBlocked,
    /// The same, with a different attention message each time.
    CodexVaryingMessages,
}

fn write_flood(path: &Path, flood: Flood, n: usize) -> u64 {
    let mut bytes = Vec::new();
    for i in 0..n {
        match flood {
            Flood::CodexWorkingBlocked => {
                bytes.extend_from_slice(if i % 2 == 0 {
                    b"\x1b]7501;state=working:app=codex\x07"
                } else {
                    b"\x1b]7501;state=blocked:app=codex:kind=permission\x07"
                });
            }
            Flood::CodexVaryingMessages => {
                if i % 2 == 0 {
                    bytes.extend_from_slice(b"\x1b]7501;state=working:app=codex\x07");
                } else {
                    let msg = base64_digits(i);
                    bytes.extend_from_slice(
                        format!("\x1b]7501;state=blocked:app=codex:kind=permission:msg={msg}\x07")
                            .as_bytes(),
                    );
                }
            }
        }
    }
    std::fs::write(path, &bytes).unwrap();
    bytes.len() as u64
}

/// A distinct, valid base64 text per `i` (digits only decode to bytes).
fn base64_digits(i: usize) -> String {
    let mut s = format!("{i:08}");
    while s.len() % 4 != 0 {
        s.push('0');
    }
    s
}

/// Drive the runtime as the UI does until the task has exited and every
/// deadline it announced has passed: tick at each deadline.
fn run_like_the_ui(rt: &Runtime, events: &crossbeam_channel::Receiver<RuntimeEvent>, id: TaskId) {
    let start = Instant::now();
    loop {
        let exited = matches!(rt.info(id).map(|i| i.status), Some(TaskStatus::Exited(_)));
        let now = rt.clock().now_ms();
        let deadline = rt.next_deadline();
        if exited && deadline.is_none() {
            return;
        }
        assert!(start.elapsed() < T, "the flood did not end within {T:?}");
        let wait = deadline.map_or(50, |d| d.saturating_sub(now).min(50));
        let _ = events.recv_timeout(Duration::from_millis(wait));
        rt.tick(rt.clock().now_ms());
    }
}

struct Figures {
    input_bytes: u64,
    lines: usize,
    log_bytes: u64,
    seconds: f64,
    last: serde_json::Value,
}

fn flood_through_a_task(flood: Flood, n: usize) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flood.bin");
    let input_bytes = write_flood(&file, flood, n);
    let log_path = dir.path().join("events.jsonl");
    let (rt, events) = runtime();
    rt.set_event_log(Some(EventLog::open(&log_path).unwrap()));
    let mut spec = sh("flood", &format!("cat '{}'", file.display()));
    spec.agent = "codex".into();
    spec.profile = "codex".into();
    let started = Instant::now();
    let id = rt.spawn(spec).unwrap();
    run_like_the_ui(&rt, &events, id);
    let seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&log_path).unwrap();
    let last = text
        .lines()
        .last()
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap_or(serde_json::Value::Null);
    Figures {
        input_bytes,
        lines: text.lines().count(),
        log_bytes: text.len() as u64,
        seconds,
        last,
    }
}

fn uptime() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default()
}

#[test]
#[ignore = "measurement: prints the flood figures for bench/README.md"]
fn measure_the_event_log_under_floods() {
    for (flood, n) in [
        (Flood::CodexWorkingBlocked, 100_000),
        (Flood::CodexVaryingMessages, 100_000),
        (Flood::CodexWorkingBlocked, 1_500_000),
    ] {
        let load_before = uptime();
        let f = flood_through_a_task(flood, n);
        println!(
            "{flood:?} x{n}: {} input bytes -> {} lines, {} log bytes in {:.1} s; load before {} after {}",
            f.input_bytes,
            f.lines,
            f.log_bytes,
            f.seconds,
            load_before.trim(),
            uptime().trim()
        );
    }
}
