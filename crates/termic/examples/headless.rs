//! Run commands as termic tasks without the TUI, for benchmarks and
//! scripted checks: every byte goes through the runtime (screen model,
//! terminal replies, signal engine), nothing is drawn.
//!
//! ```text
//! headless [--tasks N] [--rows R] [--cols C] [--scrollback L] [--for SECS]
//!          [--event-log FILE] [--record DIR] [--print-screen] -- CMD [ARGS...]
//! ```
//! Exits when every task has exited (or after `--for` seconds, killing
//! them). The main loop sleeps on the event channel until the engines' next
//! deadline, exactly as the UI does: no polling. At the end it prints one
//! JSON line: wall time, peak RSS and the tasks' exit codes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use termic_runtime::clock::{Clock, SystemClock};
use termic_runtime::eventlog::EventLog;
use termic_runtime::{Runtime, RuntimeConfig, RuntimeEvent, TaskSpec, TermSize};

/// The UI's frame cap: 60 redraws a second at most.
const FRAME: Duration = Duration::from_millis(16);

struct Args {
    tasks: usize,
    size: TermSize,
    scrollback: Option<usize>,
    run_for: Option<Duration>,
    event_log: Option<std::path::PathBuf>,
    record: Option<std::path::PathBuf>,
    print_screen: bool,
    argv: Vec<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        tasks: 1,
        size: TermSize {
            rows: 45,
            cols: 160,
        },
        scrollback: None,
        run_for: None,
        event_log: None,
        record: None,
        print_screen: false,
        argv: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    let num = |v: Option<String>, what: &str| -> u64 {
        v.and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{what} needs a number"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--tasks" => args.tasks = num(it.next(), "--tasks") as usize,
            "--rows" => args.size.rows = num(it.next(), "--rows") as u16,
            "--cols" => args.size.cols = num(it.next(), "--cols") as u16,
            "--scrollback" => args.scrollback = Some(num(it.next(), "--scrollback") as usize),
            "--for" => args.run_for = Some(Duration::from_secs(num(it.next(), "--for"))),
            "--event-log" => args.event_log = it.next().map(Into::into),
            "--record" => args.record = it.next().map(Into::into),
            "--print-screen" => args.print_screen = true,
            "--" => {
                args.argv = it.collect();
                break;
            }
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(
        !args.argv.is_empty(),
        "usage: headless [options] -- CMD [ARGS...]"
    );
    args
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args = parse_args();
    let mut config = RuntimeConfig::default();
    if let Some(lines) = args.scrollback {
        config.scrollback = lines;
    }
    let clock: Arc<dyn Clock> = Arc::new(SystemClock::new());
    let (rt, events) = Runtime::new(config, Arc::clone(&clock));
    if let Some(path) = &args.event_log {
        rt.set_event_log(Some(EventLog::open(path).expect("event log")));
    }
    rt.set_record_dir(args.record.clone());
    let started = Instant::now();
    let cwd = std::env::current_dir().expect("cwd");
    let ids: Vec<_> = (0..args.tasks)
        .map(|i| {
            rt.spawn(TaskSpec {
                name: format!("task{i}"),
                agent: "headless".into(),
                argv: args.argv.iter().map(Into::into).collect(),
                cwd: cwd.clone(),
                env: Vec::new(),
                profile: "generic".into(),
                size: args.size,
                container: None,
            })
            .expect("spawn")
        })
        .collect();
    let stop_at = args.run_for.map(|d| started + d);
    let mut codes = Vec::new();
    let mut pending = std::collections::HashSet::new();
    let mut last_frame = Instant::now();
    while codes.len() < ids.len() {
        // Sleep until the next engine deadline or the --for limit.
        let now = clock.now_ms();
        let mut wait = rt
            .next_deadline()
            .map(|d| Duration::from_millis(d.saturating_sub(now)))
            .unwrap_or(Duration::from_secs(3600));
        if let Some(stop) = stop_at {
            wait = wait.min(stop.saturating_duration_since(Instant::now()));
        }
        if !pending.is_empty() {
            let next_frame = last_frame + FRAME;
            if Instant::now() >= next_frame {
                for id in pending.drain() {
                    rt.with_screen(id, |s| s.cursor_position());
                }
                last_frame = Instant::now();
            } else {
                wait = wait.min(next_frame - Instant::now());
            }
        }
        match events.recv_timeout(wait) {
            Ok(RuntimeEvent::Exited(_, code)) => codes.push(code),
            Ok(RuntimeEvent::Dirty(id)) => {
                // What a UI does: redraw at most once per frame, reading
                // the screen (which clears dirty).
                pending.insert(id);
            }
            Ok(_) => {}
            Err(_) => {
                if stop_at.is_some_and(|s| Instant::now() >= s) {
                    for id in &ids {
                        if args.print_screen {
                            let text = rt.with_screen(*id, |s| s.contents()).unwrap_or_default();
                            eprintln!("--- screen of {id:?} ---\n{text}\n---");
                        }
                        let _ = rt.kill(*id);
                    }
                    // Wait for the exits to arrive.
                    while codes.len() < ids.len() {
                        if let Ok(RuntimeEvent::Exited(_, code)) =
                            events.recv_timeout(Duration::from_secs(10))
                        {
                            codes.push(code);
                        }
                    }
                    break;
                }
                rt.tick(clock.now_ms());
            }
        }
    }
    println!(
        "{{\"wall_s\":{:.3},\"peak_rss_kib\":{},\"tasks\":{},\"codes\":{:?}}}",
        started.elapsed().as_secs_f64(),
        peak_rss_kib(),
        ids.len(),
        codes
            .iter()
            .map(|c| c.map_or(-1, |c| c))
            .collect::<Vec<_>>()
    );
}
