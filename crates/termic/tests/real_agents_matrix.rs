//! The state-truth matrix (issue 12 item 8): real agents as termic tasks, by
//! scenario and by channel, each cell scored on termic's event log: the
//! transitions, false dones (a done before the needs-you of a permission
//! turn, or any done in an interrupt or an API-error turn), missed needs-you
//! (a permission turn with no needs-you), and how long after the agent's own
//! signal reached termic the badge moved (Inspector timeline, termic's side
//! only). Prints one markdown row per cell; docs/state-truth.md holds a run.
//!
//! `TERMIC_MATRIX_CELLS=claude:permission:hooks,grok:error:neither` picks
//! cells (default: all). Opt-in like the rest of the real-agent suite.

mod real_agents_support;

use std::thread;
use std::time::Duration;

use real_agents_support::*;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::{ApiFailure, ScenarioName};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Scenario {
    Plain,
    Permission,
    Escape,
    ApiError,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Channel {
    Hooks,
    Native,
    Both,
    Neither,
}

impl Scenario {
    const ALL: [Scenario; 4] = [
        Scenario::Plain,
        Scenario::Permission,
        Scenario::Escape,
        Scenario::ApiError,
    ];
    fn name(self) -> &'static str {
        match self {
            Scenario::Plain => "plain",
            Scenario::Permission => "permission",
            Scenario::Escape => "escape",
            Scenario::ApiError => "error",
        }
    }
}

impl Channel {
    const ALL: [Channel; 4] = [
        Channel::Hooks,
        Channel::Native,
        Channel::Both,
        Channel::Neither,
    ];
    fn name(self) -> &'static str {
        match self {
            Channel::Hooks => "hooks",
            Channel::Native => "native",
            Channel::Both => "both",
            Channel::Neither => "neither",
        }
    }
}

/// The channels an agent can be run with here: native status is Claude's
/// (after the probe) and Codex's (always, so Codex has no other cell);
/// Codex's hooks need a trust modal and are not installed by termic.
fn channels(agent: Agent) -> &'static [Channel] {
    match agent {
        Agent::Claude => &Channel::ALL,
        Agent::Codex => &[Channel::Native],
        Agent::Grok | Agent::Opencode => &[Channel::Hooks, Channel::Neither],
        // No cells until termic wires their hooks (issue 15).
        Agent::Gemini | Agent::Qwen | Agent::Copilot => &[],
    }
}

fn approve_key(agent: Agent) -> &'static [u8] {
    match agent {
        Agent::Claude | Agent::Opencode | Agent::Gemini | Agent::Qwen | Agent::Copilot => b"\r",
        Agent::Grok => b"3",
        Agent::Codex => b"y",
    }
}

struct Row {
    transitions: Vec<String>,
    false_dones: usize,
    missed_needs_you: usize,
    latency_ms: Option<f64>,
}

/// Inspector timeline: ms from the last signal line before the first
/// transition to `to` after `after_ms`, to that transition.
fn signal_to_badge(task: &TermicTask, to: &str) -> Option<f64> {
    let timeline = task.timeline();
    let time = |e: &String| e.split(' ').next()?.parse::<f64>().ok();
    let at = timeline
        .iter()
        .position(|e| e.contains(" transition ") && e.contains(&format!("-> {to}")))?;
    let t_transition = time(&timeline[at])?;
    let t_signal = timeline[..=at]
        .iter()
        .rev()
        .filter(|e| e.contains(" signal "))
        .find_map(time)?;
    Some(t_transition - t_signal)
}

fn run_cell(agent: Agent, scenario: Scenario, channel: Channel) -> Row {
    let (cache, _one) = begin();
    let mut setup = Setup {
        probe_reply: matches!(channel, Channel::Native | Channel::Both),
        hooks: if matches!(channel, Channel::Hooks | Channel::Both) {
            vec![schema(agent)]
        } else {
            Vec::new()
        },
        ..Setup::default()
    };
    let script = match scenario {
        Scenario::Plain => ScenarioName::Plain,
        Scenario::Permission => ScenarioName::Write,
        Scenario::Escape => {
            setup.slow_for = Some(20 * SEC);
            ScenarioName::Slow
        }
        Scenario::ApiError => {
            setup.env = vec![("CLAUDE_CODE_MAX_RETRIES".into(), "0".into())];
            // Grok and opencode give up at once on a 529 / 401 (measured).
            ScenarioName::Fail(match agent {
                Agent::Opencode => ApiFailure::AuthFailed,
                _ => ApiFailure::Overloaded,
            })
        }
    };
    let task = TermicTask::start(&cache, agent, script, setup);
    let t0 = match scenario {
        Scenario::Escape => task.prompt("count slowly"),
        Scenario::Permission => task.prompt("create the file out.txt please"),
        _ => task.prompt("say hello"),
    };
    let mut latency = None;
    match scenario {
        Scenario::Plain => {
            task.wait_state("done", t0, 90 * SEC);
            latency = signal_to_badge(&task, "done");
        }
        Scenario::Permission => {
            if task.wait_state("needs_you", t0, 90 * SEC).is_some() {
                latency = signal_to_badge(&task, "needs_you");
                thread::sleep(SEC);
                let t_key = task.keys(approve_key(agent));
                task.wait_state("done", t_key, 90 * SEC);
            }
        }
        Scenario::Escape => {
            if task.wait_state("working", t0, 30 * SEC).is_some() {
                thread::sleep(3 * SEC);
                let t_esc = task.keys(b"\x1b");
                task.wait_state("interrupted", t_esc, 20 * SEC);
                latency = signal_to_badge(&task, "interrupted");
            }
        }
        Scenario::ApiError => {
            task.wait_state("error", t0, 90 * SEC);
            latency = signal_to_badge(&task, "error");
        }
    }
    thread::sleep(Duration::from_secs(6)); // a late done or a settle shows up here
    let lines: Vec<_> = task.lines().into_iter().filter(|l| l.ts >= t0).collect();
    let transitions: Vec<String> = lines
        .iter()
        .map(|l| format!("{} ({})", l.to, l.rule))
        .collect();
    let first_needs = lines.iter().position(|l| l.to == "needs_you");
    let dones = |upto: usize| lines[..upto].iter().filter(|l| l.to == "done").count();
    let (false_dones, missed_needs_you) = match scenario {
        Scenario::Plain => (0, 0),
        Scenario::Permission => match first_needs {
            Some(at) => (dones(at), 0),
            None => (dones(lines.len()), 1),
        },
        Scenario::Escape | Scenario::ApiError => (dones(lines.len()), 0),
    };
    Row {
        transitions,
        false_dones,
        missed_needs_you,
        latency_ms: latency,
    }
}

fn selected() -> Vec<(Agent, Scenario, Channel)> {
    let filter = std::env::var("TERMIC_MATRIX_CELLS").ok();
    let mut cells = Vec::new();
    for agent in Agent::ALL {
        for scenario in Scenario::ALL {
            for &channel in channels(agent) {
                let id = format!("{}:{}:{}", agent.name(), scenario.name(), channel.name());
                if filter
                    .as_ref()
                    .is_none_or(|f| f.split(',').any(|c| c == id))
                {
                    cells.push((agent, scenario, channel));
                }
            }
        }
    }
    cells
}

#[test]
#[ignore = "measurement: the state-truth matrix (docs/state-truth.md)"]
fn state_truth_matrix() {
    eprintln!("| agent | scenario | channel | transitions | false dones | missed needs-you | signal to badge (ms) |");
    eprintln!("|---|---|---|---|---|---|---|");
    for (agent, scenario, channel) in selected() {
        let row = run_cell(agent, scenario, channel);
        eprintln!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            agent.name(),
            scenario.name(),
            channel.name(),
            row.transitions.join(" > "),
            row.false_dones,
            row.missed_needs_you,
            row.latency_ms
                .map_or("-".to_string(), |l| format!("{l:.0}")),
        );
    }
}
