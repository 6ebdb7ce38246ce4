//! The state-truth matrix's simulated rows (issue 12 item 8): agy and grok
//! 1.0.5 are not installed here, so `termic-sim` plays them as measured
//! (crates/termic-sim), as termic tasks in real PTYs, by scenario and by
//! channel (termic's hooks installed and wired, or neither), scored like
//! the real agents' cells (tests/matrix_score). `bench/state-matrix.sh`
//! runs it after the real agents; `TERMIC_MATRIX_CELLS=agy:plain:neither`
//! picks cells.

use std::time::{Duration, Instant};

use termic_hooks::agents::AgentSchema;
use termic_runtime::{RuntimeConfig, TaskId};

use super::support::{log_lines, trace, Fixture, Session, SEC};
use crate::matrix_score::{print_header, selected, signal_to_badge, Channel, Row, Scenario, Step};

/// A simulated agent: its row name, termic-sim's agent and arguments, its
/// hooks, the key that approves its prompts.
#[derive(Clone, Copy)]
struct Sim {
    row: &'static str,
    agent: &'static str,
    args: &'static [&'static str],
    schema: AgentSchema,
    approve: &'static [u8],
}

const SIMS: [Sim; 2] = [
    Sim {
        row: "agy (sim)",
        agent: "agy",
        args: &[],
        schema: AgentSchema::AGY,
        approve: b"1",
    },
    Sim {
        row: "grok 1.0.5 (sim)",
        agent: "grok",
        args: &["--grok-version", "1.0.5"],
        schema: AgentSchema::GROK,
        approve: b"1",
    },
];

/// termic-sim's scenario for a matrix scenario (`None`: not simulated).
/// grok 1.0.5's question is its plan approval (its title freezes on a busy
/// spinner while it waits, measured in the plan); agy has neither.
fn script(sim: &Sim, scenario: Scenario) -> Option<&'static str> {
    match scenario {
        Scenario::Plain => Some("simple"),
        Scenario::Permission => Some("permission"),
        Scenario::Question if sim.agent == "grok" => Some("plan"),
        Scenario::Question => None,
        Scenario::Escape => Some("interrupt"),
        Scenario::ToolCalls => Some("tool-calls"),
        Scenario::ApiError
        | Scenario::Background
        | Scenario::Subagent
        | Scenario::PlanApproval
        | Scenario::QuestionMany
        | Scenario::Compaction
        | Scenario::CompactionInTurn
        | Scenario::Clear
        | Scenario::Resume
        | Scenario::UsageLimit => None,
    }
}

fn wait_state(s: &Session, state: &str, since: usize, timeout: Duration) -> bool {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if s.events("t").iter().skip(since).any(|v| v["to"] == state) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn run_cell(sim: &Sim, scenario: Scenario, channel: Channel, script: &str) -> Row {
    let fx = Fixture::new();
    let s = Session::start(&fx, RuntimeConfig::default());
    if channel == Channel::Hooks {
        fx.install(&[sim.schema]);
        s.rt.set_hooks_wired(sim.agent, true);
    }
    let id: TaskId = s.spawn(&fx, "t", sim.agent, script, sim.args);
    s.rt.set_watched(Some(id));
    std::thread::sleep(2 * SEC); // the simulator paints its prompt
    s.send(id, b"\r");
    let mut timeline: Vec<String> = Vec::new();
    let mut drain =
        |s: &Session| timeline.extend(s.rt.drain_log(id).into_iter().map(|e| e.to_string()));
    let mut latency = None;
    match scenario {
        Scenario::Permission | Scenario::Question => {
            if wait_state(&s, "needs_you", 0, 40 * SEC) {
                drain(&s);
                latency = signal_to_badge(&timeline, "needs_you");
                // Paced like a person: the answer a second after the prompt shows, as the real
                // agents' matrix does.
                std::thread::sleep(SEC);
                let after = s.events("t").len();
                s.send(id, sim.approve);
                wait_state(&s, "done", after, 40 * SEC);
            }
        }
        Scenario::Escape => {
            if wait_state(&s, "working", 0, 20 * SEC) {
                // The Escape must land mid-answer, 3 s in, as in the real agents' matrix.
                std::thread::sleep(3 * SEC);
                s.send(id, b"\x1b");
                wait_state(&s, "interrupted", 0, 30 * SEC);
                drain(&s);
                latency = signal_to_badge(&timeline, "interrupted");
            }
        }
        _ => {
            wait_state(&s, "done", 0, 60 * SEC);
            drain(&s);
            latency = signal_to_badge(&timeline, "done");
        }
    }
    std::thread::sleep(Duration::from_secs(6)); // a late done or a settle shows up here
    let steps: Vec<Step> = log_lines(&s.log)
        .into_iter()
        .filter(|v| v["task"] == "t")
        .map(|v| Step {
            ts: v["ts"].as_u64().unwrap_or(0),
            to: v["to"].as_str().unwrap_or("").to_string(),
            rule: v["rule"].as_str().unwrap_or("").to_string(),
        })
        .collect();
    // The work ends where the simulator starts its `stop` step.
    let work_ended = trace(&fx.trace_path("t"))
        .iter()
        .find(|v| v["ev"] == "step" && v["action"].as_str().is_some_and(|a| a.starts_with("Stop")))
        .and_then(|v| v["ts"].as_f64())
        .map(|ts| ts as u64);
    Row::new(scenario, &steps, work_ended, latency)
}

#[test]
#[ignore = "measurement: the simulated rows of docs/state-truth.md (bench/state-matrix.sh)"]
fn simulated_state_truth_matrix() {
    let mut cells = Vec::new();
    for sim in &SIMS {
        for scenario in Scenario::ALL {
            let Some(script) = script(sim, scenario) else {
                continue;
            };
            for channel in [Channel::Hooks, Channel::Neither] {
                let id = format!("{}:{}:{}", sim.agent, scenario.name(), channel.name());
                cells.push((id, (sim, scenario, channel, script)));
            }
        }
    }
    print_header();
    for (sim, scenario, channel, script) in selected(cells) {
        run_cell(sim, scenario, channel, script).print(sim.row, scenario, channel);
    }
}
