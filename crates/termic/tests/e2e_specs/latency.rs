//! The latency bench (run by `bench/latency.sh`, ignored in the normal
//! suite): over at least `LATENCY_RUNS` hook reports per transport, the time
//! from the simulator's hook to termic's state change as the UI loop
//! receives it. Transports: Claude's `terminalSequence` (the simulated
//! Claude writes it 15 ms after the hook exits, as measured), and a hook
//! writing `$TERMIC_PTY` by name (grok, agy).
//!
//! Two columns per transport. From the bytes: Claude's sequence being
//! written (termic's own latency), or for grok/agy the hook's exit, which
//! comes just AFTER its write (so this can be negative: termic acted before
//! the hook process was gone). From the hook's start: an upper bound that
//! adds the agent's share (Claude's 15 ms) and the shell's start-up.

use std::path::Path;
use std::time::{Duration, Instant};

use termic_hooks::agents::AgentSchema;
use termic_runtime::{RuntimeConfig, TaskId};

use super::support::{trace, Fixture, Session};

pub struct Probe {
    pub task: &'static str,
    pub agent: &'static str,
    pub transport: &'static str,
    pub args: &'static [&'static str],
    /// Engine rule -> the agent hook event that reports it.
    pub edges: &'static [(&'static str, &'static str)],
    /// The trace record that marks the bytes on the PTY.
    pub bytes_at: &'static str,
}

pub const PROBES: [Probe; 3] = [
    Probe {
        task: "claude",
        agent: "claude",
        transport: "terminalSequence",
        args: &["--auto", "--no-native"],
        edges: &[("hook_working", "UserPromptSubmit"), ("hook_done", "Stop")],
        bytes_at: "seq_written",
    },
    Probe {
        task: "grok",
        agent: "grok",
        transport: "TERMIC_PTY",
        args: &["--auto"],
        edges: &[("hook_working", "UserPromptSubmit"), ("hook_done", "Stop")],
        bytes_at: "hook_exit",
    },
    Probe {
        task: "agy",
        agent: "agy",
        transport: "TERMIC_PTY",
        args: &["--auto"],
        edges: &[("hook_working", "PreInvocation"), ("hook_done", "Stop")],
        bytes_at: "hook_exit",
    },
];

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// (from bytes on the PTY, from hook start) latencies for one task, whose
/// simulator wrote `trace_file`.
pub fn samples(s: &Session, trace_file: &Path, probe: &Probe, id: TaskId) -> (Vec<f64>, Vec<f64>) {
    let t = trace(trace_file);
    let received = s.transitions.lock().unwrap().clone();
    let (mut from_bytes, mut from_start) = (Vec::new(), Vec::new());
    for r in received.iter().filter(|r| r.id == id) {
        let Some((_, event)) = probe.edges.iter().find(|(rule, _)| *rule == r.rule) else {
            continue;
        };
        let stamps = |ev: &str| -> Vec<f64> {
            t.iter()
                .filter(|v| v["ev"] == ev && v["event"] == *event)
                .filter_map(|v| v["ts"].as_f64())
                .collect()
        };
        // The run that reported it: the latest hook start before the change.
        let Some(start) = stamps("hook_spawn")
            .into_iter()
            .filter(|ts| *ts <= r.wall_ms && r.wall_ms - ts < 1000.0)
            .reduce(f64::max)
        else {
            continue;
        };
        // Its bytes: the first marker at or after that start. A hook's exit
        // can come after termic already acted on its write (negative).
        if let Some(bytes) = stamps(probe.bytes_at)
            .into_iter()
            .filter(|ts| *ts >= start)
            .reduce(f64::min)
        {
            from_bytes.push(r.wall_ms - bytes);
            from_start.push(r.wall_ms - start);
        }
    }
    (from_bytes, from_start)
}

/// [`samples`], at least `runs` of them (else the test fails naming the
/// task's transitions), each column sorted.
pub fn sorted_samples(
    s: &Session,
    trace_file: &Path,
    probe: &Probe,
    id: TaskId,
    runs: usize,
) -> (Vec<f64>, Vec<f64>) {
    let (mut bytes, mut start) = samples(s, trace_file, probe, id);
    assert!(
        bytes.len() >= runs,
        "{}: only {} samples; transitions {:?}",
        probe.task,
        bytes.len(),
        s.steps(probe.task).iter().take(12).collect::<Vec<_>>()
    );
    bytes.sort_by(f64::total_cmp);
    start.sort_by(f64::total_cmp);
    (bytes, start)
}

/// `p50 p99 max` of sorted samples, for the table.
pub fn row(sorted: &[f64]) -> String {
    format!(
        "{:6.2} {:6.2} {:6.2}",
        percentile(sorted, 0.5),
        percentile(sorted, 0.99),
        sorted[sorted.len() - 1]
    )
}

#[test]
#[ignore = "a benchmark: run bench/latency.sh"]
fn hook_to_state_change_latency() {
    let runs: usize = std::env::var("LATENCY_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let fx = Fixture::new();
    fx.install(&[AgentSchema::CLAUDE, AgentSchema::GROK, AgentSchema::AGY]);
    let mut config = RuntimeConfig::default();
    config.replies.native_probe = false;
    let s = Session::start(&fx, config);
    let ids: Vec<TaskId> = PROBES
        .iter()
        .map(|p| {
            s.rt.set_hooks_wired(p.agent, true);
            s.spawn(&fx, p.task, p.agent, "bench", p.args)
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(40);
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(2));
        let enough = PROBES
            .iter()
            .zip(&ids)
            .all(|(p, id)| samples(&s, &fx.trace_path(p.task), p, *id).0.len() >= runs);
        if enough {
            break;
        }
    }
    println!("transport          agent    n    from bytes / hook exit (ms)  from hook start (ms)");
    println!("                                 p50    p99    max          p50    p99    max");
    let (mut worst_bytes, mut worst_start) = (0.0f64, 0.0f64);
    for (p, id) in PROBES.iter().zip(&ids) {
        let (bytes, start) = sorted_samples(&s, &fx.trace_path(p.task), p, *id, runs);
        println!(
            "{:<18} {:<8} {:<4} {}       {}",
            p.transport,
            p.agent,
            bytes.len(),
            row(&bytes),
            row(&start)
        );
        worst_bytes = worst_bytes.max(percentile(&bytes, 0.99));
        worst_start = worst_start.max(percentile(&start, 0.99));
    }
    println!("worst p99: {worst_bytes:.2} ms from the bytes (termic's share; goal under 15 ms), {worst_start:.2} ms from hook start");
}
