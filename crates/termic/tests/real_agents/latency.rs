//! Hook fired to termic state change, measured on the real agents: one
//! termic task per agent, N permission-prompt turns, each hook's start time
//! from termic_fakemodel's recorder (registered beside termic's own hook for
//! the same event, so both start together) against the event-log line.
//!
//! Doubly opt-in (it takes minutes): TERMIC_REAL_AGENTS=<cache> and
//! TERMIC_REAL_AGENTS_LATENCY_RUNS=<turns per agent>.

use crate::real_agents_support;

use std::thread;

use real_agents_support::*;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::recorder;
use termic_fakemodel::ScenarioName;
use termic_hooks::agents::AgentSchema;

/// Turns per agent, from TERMIC_REAL_AGENTS_LATENCY_RUNS.
fn turns() -> usize {
    std::env::var("TERMIC_REAL_AGENTS_LATENCY_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .expect("set TERMIC_REAL_AGENTS_LATENCY_RUNS=<turns>, e.g. 20")
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn summary(label: &str, mut values: Vec<f64>) -> String {
    values.sort_by(f64::total_cmp);
    if values.is_empty() {
        return format!("{label}: no samples");
    }
    format!(
        "{label}: n={} p50={:.0} ms p99={:.0} ms min={:.0} max={:.0}",
        values.len(),
        percentile(&values, 50.0),
        percentile(&values, 99.0),
        values[0],
        values[values.len() - 1]
    )
}

/// Runs `turns` permission turns and returns (attention, done) latencies.
fn measure(
    agent: Agent,
    schema: AgentSchema,
    approve: &[u8],
    events: (&str, &str),
) -> (Vec<f64>, Vec<f64>) {
    let (cache, _one) = begin();
    let turns = turns();
    let setup = Setup {
        hooks: vec![schema],
        recorder: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, agent, ScenarioName::Write, setup);
    let (mut attention, mut done) = (Vec::new(), Vec::new());
    for turn in 0..turns {
        let t0 = task.prompt(&format!("create the file out.txt please ({turn})"));
        let needs = task.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
        thread::sleep(SEC);
        let t_key = task.keys(approve);
        let end = task.expect_state("done", t_key, 90 * SEC, "no done after approval");
        thread::sleep(SEC);
        let hooks = recorder::read(&task.home);
        let fired = |name: &str, since: u64| {
            hooks
                .iter()
                .find(|h| h.event == name && h.ts_ms >= since as f64)
                .map(|h| h.ts_ms)
        };
        if let Some(ts) = fired(events.0, t0) {
            attention.push(needs.ts as f64 - ts);
        }
        if let Some(ts) = fired(events.1, t_key) {
            done.push(end.ts as f64 - ts);
        }
    }
    (attention, done)
}

fn report(agent: &str, events: (&str, &str), (attention, done): (Vec<f64>, Vec<f64>)) {
    let text = format!(
        "{}\n{}",
        summary(&format!("{agent} {} -> needs_you", events.0), attention),
        summary(&format!("{agent} {} -> done", events.1), done)
    );
    eprintln!("LATENCY {text}");
}

#[test]
#[ignore = "real agent latency bench: set TERMIC_REAL_AGENTS and TERMIC_REAL_AGENTS_LATENCY_RUNS"]
fn real_latency_claude_hooks() {
    let events = ("PermissionRequest", "Stop");
    report(
        "claude 2.1.332",
        events,
        measure(Agent::Claude, AgentSchema::CLAUDE, b"\r", events),
    );
}

#[test]
#[ignore = "real agent latency bench: set TERMIC_REAL_AGENTS and TERMIC_REAL_AGENTS_LATENCY_RUNS"]
fn real_latency_grok_hooks() {
    let events = ("Notification", "Stop");
    report(
        "grok 0.2.111",
        events,
        measure(Agent::Grok, AgentSchema::GROK, b"3", events),
    );
}

#[test]
#[ignore = "real agent latency bench: set TERMIC_REAL_AGENTS and TERMIC_REAL_AGENTS_LATENCY_RUNS"]
fn real_latency_opencode_plugin() {
    let events = ("permission.asked", "session.idle");
    report(
        "opencode 1.18.33",
        events,
        measure(Agent::Opencode, AgentSchema::OPENCODE, b"\r", events),
    );
}

#[test]
fn percentiles_are_nearest_rank() {
    let v: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!((percentile(&v, 50.0), percentile(&v, 99.0)), (10.0, 20.0));
    assert_eq!(percentile(&[7.0], 99.0), 7.0);
}
