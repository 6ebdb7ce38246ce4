//! The event log under a flood (issue 10 item 5): a task that prints a
//! hundred thousand tiny status OSCs through a real PTY must not write a
//! hundred thousand log lines. The runtime is driven like the UI drives it
//! (ticks at its announced deadlines), so the burst's final record is
//! written by its deadline, with nothing following.
//!
//! `cargo test -p termic --test runtime -- --ignored --nocapture eventlog_flood::`
//! prints the figures for bench/README.md.

use crate::runtime_support;

use std::path::Path;
use std::time::{Duration, Instant};

use runtime_support::*;
use termic_runtime::eventlog::EventLog;
use termic_runtime::{Runtime, RuntimeEvent, TaskId, TaskStatus};

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

/// What the UI was told: the transitions it got, and whether the runtime's
/// bounded event channel dropped some (its reader fell 4,096 behind, as a
/// loaded machine can between two turns: the UI would then re-read every
/// task, `RuntimeEvent::Resync`).
struct Seen {
    transitions: u64,
    lagged: bool,
}

/// Drive the runtime as the UI does (tick at each announced deadline)
/// until `stop` holds.
fn run_like_the_ui(
    rt: &Runtime,
    events: &crossbeam_channel::Receiver<RuntimeEvent>,
    id: TaskId,
    stop: impl Fn(&Runtime) -> bool,
) -> Seen {
    let start = Instant::now();
    let mut transitions = 0;
    let mut lagged = false;
    let ours = |e: &RuntimeEvent| matches!(e, RuntimeEvent::Transition(got, _) if *got == id);
    loop {
        lagged |= rt.take_lagged();
        if stop(rt) {
            // What was sent before the stop held is still in the channel
            // (a loaded machine sent thousands between two turns).
            let transitions = transitions + events.try_iter().filter(ours).count() as u64;
            lagged |= rt.take_lagged();
            return Seen {
                transitions,
                lagged,
            };
        }
        assert!(start.elapsed() < T, "the flood did not end within {T:?}");
        let now = rt.clock().now_ms();
        let wait = rt
            .next_deadline()
            .map_or(50, |d| d.saturating_sub(now).min(50));
        if let Ok(RuntimeEvent::Transition(got, _)) =
            events.recv_timeout(Duration::from_millis(wait))
        {
            transitions += u64::from(got == id);
        }
        transitions += events.try_iter().filter(ours).count() as u64;
        rt.tick(rt.clock().now_ms());
    }
}

fn exited_and_quiet(id: TaskId) -> impl Fn(&Runtime) -> bool {
    move |rt| {
        matches!(rt.info(id).map(|i| i.status), Some(TaskStatus::Exited(_)))
            && rt.next_deadline().is_none()
    }
}

fn log_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every line starts where the one before it ended, and every transition
/// the UI saw is a line or counted in a `repeated` record. When the event
/// channel dropped some, the log (written by the engine, not from the
/// channel) stands for more than the UI saw, never fewer.
fn assert_whole_chain(lines: &[serde_json::Value], seen: &Seen) {
    for pair in lines.windows(2) {
        assert_eq!(pair[1]["from"], pair[0]["to"], "{pair:?}");
    }
    if seen.lagged {
        eprintln!(
            "the event channel lagged: the UI saw {} transitions, the log stands for {}",
            seen.transitions,
            counted(lines)
        );
        assert!(counted(lines) > seen.transitions);
    } else {
        assert_eq!(counted(lines), seen.transitions);
    }
}

/// Transitions the log stands for: a line each, or a record's count.
fn counted(lines: &[serde_json::Value]) -> u64 {
    lines
        .iter()
        .map(|l| l["repeated"].as_u64().unwrap_or(1))
        .sum()
}

struct Figures {
    input_bytes: u64,
    lines: usize,
    log_bytes: u64,
    seconds: f64,
    transitions: u64,
    lagged: bool,
    last: serde_json::Value,
    all: Vec<serde_json::Value>,
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
    let seen = run_like_the_ui(&rt, &events, id, exited_and_quiet(id));
    let seconds = started.elapsed().as_secs_f64();
    let lines = log_lines(&log_path);
    Figures {
        input_bytes,
        lines: lines.len(),
        log_bytes: std::fs::metadata(&log_path).unwrap().len(),
        seconds,
        transitions: seen.transitions,
        lagged: seen.lagged,
        last: lines.last().cloned().unwrap_or(serde_json::Value::Null),
        all: lines,
    }
}

/// The bound the log keeps under any flood (eventlog/coalesce.rs): the
/// allowance, then at most a line and a record per second, and the exit.
fn bound(seconds: f64) -> usize {
    16 + 2 * (seconds.ceil() as usize + 1) + 1
}

#[test]
fn a_flood_of_status_oscs_writes_a_bounded_log_and_loses_no_state() {
    let f = flood_through_a_task(Flood::CodexWorkingBlocked, 20_000);
    // The log counts every transition the engine made, also those a lagged
    // event channel did not carry to the UI.
    assert!(
        counted(&f.all) >= 10_000,
        "the flood must move the task: {} transitions",
        counted(&f.all)
    );
    assert!(
        f.lines <= bound(f.seconds),
        "{} lines for {} transitions in {:.1} s",
        f.lines,
        f.transitions,
        f.seconds
    );
    assert_whole_chain(
        &f.all,
        &Seen {
            transitions: f.transitions,
            lagged: f.lagged,
        },
    );
    assert_eq!(f.last["to"], "exited");
    let records: Vec<_> = f
        .all
        .iter()
        .filter(|l| l.get("repeated").is_some())
        .collect();
    assert!(!records.is_empty());
    assert!(records
        .iter()
        .all(|r| r["reason"].as_str().unwrap().starts_with("repeated ")
            && r["since"].as_u64() <= r["ts"].as_u64()));
}

#[test]
fn a_burst_with_nothing_after_it_is_written_by_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flood.bin");
    write_flood(&file, Flood::CodexVaryingMessages, 2_001);
    let log_path = dir.path().join("events.jsonl");
    let (rt, events) = runtime();
    rt.set_event_log(Some(EventLog::open(&log_path).unwrap()));
    // The task floods, then stays silent and alive.
    let mut spec = sh("burst", &format!("cat '{}'; read x", file.display()));
    spec.agent = "codex".into();
    spec.profile = "codex".into();
    let id = rt.spawn(spec).unwrap();
    let state = |rt: &Runtime| rt.with_engine(id, |e| e.state().as_str()).unwrap();
    let log = log_path.clone();
    let mut seen = run_like_the_ui(&rt, &events, id, move |rt| {
        let lines = log_lines(&log);
        lines.iter().any(|l| l.get("repeated").is_some())
            && lines.last().is_some_and(|l| l["to"] == state(rt))
            && rt.next_deadline().is_none()
    });
    let lines = log_lines(&log_path);
    // The log is written before the UI is told: take the last events too.
    while !seen.lagged && seen.transitions < counted(&lines) {
        match events.recv_timeout(T) {
            Ok(RuntimeEvent::Transition(got, _)) => seen.transitions += u64::from(got == id),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert_whole_chain(&lines, &seen);
    // 2,001 reports end on a `working`: the record's final state says so.
    assert_eq!(lines.last().unwrap()["to"], "working");
    assert_eq!(state(&rt), "working");
    rt.kill(id).unwrap();
    wait_exit(&rt, &events, id, T);
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
            "{flood:?} x{n}: {} input bytes, {} transitions -> {} lines, {} log bytes in {:.1} s (last: {}); load before {} after {}",
            f.input_bytes,
            f.transitions,
            f.lines,
            f.log_bytes,
            f.seconds,
            f.last,
            load_before.trim(),
            uptime().trim()
        );
    }
}

#[test]
fn quitting_writes_a_held_burst() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flood.bin");
    write_flood(&file, Flood::CodexWorkingBlocked, 1_000);
    let log_path = dir.path().join("events.jsonl");
    let (rt, events) = runtime();
    rt.set_event_log(Some(EventLog::open(&log_path).unwrap()));
    let mut spec = sh("quit", &format!("cat '{}'; read x", file.display()));
    spec.agent = "codex".into();
    spec.profile = "codex".into();
    let id = rt.spawn(spec).unwrap();
    // Never ticked: the burst is held until termic quits (the runtime drops).
    let mut seen = 0;
    while seen < 1_000 {
        match events.recv_timeout(T) {
            Ok(RuntimeEvent::Transition(got, _)) => seen += u64::from(got == id),
            Ok(_) => {}
            Err(_) => panic!("only {seen} transitions"),
        }
    }
    assert!(log_lines(&log_path)
        .iter()
        .all(|l| l.get("repeated").is_none()));
    drop(rt);
    // The task's exit (quitting ends it) may follow the record; the record
    // is there, first, with the burst's final state.
    let lines = log_lines(&log_path);
    let record = lines
        .iter()
        .position(|l| l.get("repeated").is_some())
        .unwrap_or_else(|| panic!("no record: {lines:?}"));
    assert_eq!(
        lines[record]["to"], "needs_you",
        "the 1,000th report is a blocked"
    );
    assert!(lines[record + 1..].iter().all(|l| l["to"] == "exited"));
}
