//! The keys Claude Code's question (AskUserQuestion) and plan approval
//! (ExitPlanMode) dialogs take, measured on the real binary against the
//! fake model (issue 30's one-tap answers): the dialog's screen as termic
//! reads it, then the keys termic's profile would send for a choice, and
//! what the model got back as the tool's result. Opt-in like
//! real_agents/tasks.rs: TERMIC_REAL_AGENTS and --ignored.

use crate::real_agents_support;

use std::thread;
use std::time::Duration;

use real_agents_support::*;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::ScenarioName;
use termic_signal::profile::{profile_for, ScreenRows};

/// The task's screen rows now.
fn rows(task: &TermicTask) -> Vec<String> {
    task.rt
        .with_screen(task.id, |s| {
            let (_, cols) = s.size();
            s.rows(0, cols.get())
                .map(|r| r.trim_end().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Claude blocked on a dialog of `kind` after `prompt`; its screen then.
fn blocked(task: &TermicTask, prompt: &str, kind: &str) -> Vec<String> {
    let t0 = task.prompt(prompt);
    blocked_since(task, t0, kind)
}

/// Claude blocked on a dialog of `kind` since `t0`; its screen then.
fn blocked_since(task: &TermicTask, t0: u64, kind: &str) -> Vec<String> {
    if task.wait_state("needs_you", t0, 90 * SEC).is_none() {
        task.dump_all();
        panic!("no needs_you for {kind}");
    }
    // The dialog finishes painting.
    thread::sleep(1500 * Duration::from_millis(1));
    let screen = rows(task);
    eprintln!("claude {kind} dialog:\n{}", screen.join("\n"));
    screen
}

/// The keys termic's profile sends for `choice` on `screen`.
fn keys_for(kind: &str, screen: &[String], choice: &str) -> Vec<u8> {
    let read = profile_for("claude")
        .read_dialog(kind, &ScreenRows::new(screen.iter().map(String::as_str)))
        .unwrap_or_else(|| panic!("no {kind} dialog read on:\n{}", screen.join("\n")));
    let ids: Vec<&str> = read.choices.iter().map(|c| c.id.as_str()).collect();
    eprintln!("offered: {ids:?}");
    read.choices
        .iter()
        .find(|c| c.id == choice)
        .unwrap_or_else(|| panic!("{choice} not offered: {ids:?}"))
        .keys
        .clone()
}

/// The tool results the model got after the dialog was answered.
fn tool_results(task: &TermicTask) -> String {
    task.server
        .requests()
        .iter()
        .flat_map(|r| r.tool_results.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// AskUserQuestion's second option ("Blue"), answered with the keys the
/// profile gives `option_2`: the model gets "Blue" as the answer.
#[test]
#[ignore = "real Claude Code: TERMIC_REAL_AGENTS and --ignored"]
fn claude_question_option_two_with_the_profiles_keys_answers_blue() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Ask, setup);
    let screen = blocked(&task, "ask me a color", "question");
    let keys = keys_for("question", &screen, "option_2");
    let t = task.keys(&keys);
    if task.wait_state("done", t, 60 * SEC).is_none() {
        task.dump_all();
        panic!("the question was not answered by {keys:?}");
    }
    let results = tool_results(&task);
    eprintln!("tool results: {results}");
    assert!(results.contains("Blue"), "{results}");
    assert!(!results.contains("=\"Red\""), "{results}");
}

/// ExitPlanMode's dialog answered with the keys the profile gives
/// `option_1` (its first Yes): the plan is approved (the model's tool result says so).
#[test]
#[ignore = "real Claude Code: TERMIC_REAL_AGENTS and --ignored"]
fn claude_plan_approved_with_the_profiles_keys() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        before: Some(plan_mode),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Plan, setup);
    let screen = blocked(&task, "plan it", "plan");
    let keys = keys_for("plan", &screen, "option_1");
    let t = task.keys(&keys);
    if task.wait_state("done", t, 60 * SEC).is_none() {
        task.dump_all();
        panic!("the plan was not answered by {keys:?}");
    }
    let results = tool_results(&task);
    eprintln!("tool results: {results}");
    assert!(results.to_lowercase().contains("approved"), "{results}");
}

/// Measurement (by hand): Claude's multi-select question, its screen after
/// each of `MEASURE_KEYS` (comma separated: ENTER, SPACE, DOWN, UP, TAB,
/// RIGHT or literal text), and the tool results.
#[test]
#[ignore = "measurement by hand: TERMIC_REAL_AGENTS, --ignored, MEASURE_KEYS"]
fn measure_claude_multi_select_question() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::AskMultiSelect, setup);
    let t0 = task.prompt("ask me for toppings");
    blocked_since(&task, t0, "question");
    for step in std::env::var("MEASURE_KEYS").unwrap_or_default().split(',') {
        let bytes: &[u8] = match step {
            "" => continue,
            "ENTER" => b"\r",
            "SPACE" => b" ",
            "DOWN" => b"\x1b[B",
            "UP" => b"\x1b[A",
            "TAB" => b"\t",
            "RIGHT" => b"\x1b[C",
            other => other.as_bytes(),
        };
        task.keys(bytes);
        thread::sleep(Duration::from_millis(1500));
        eprintln!("after {step}:\n{}", rows(&task).join("\n"));
    }
    let done = task.wait_state("done", t0, 10 * SEC);
    eprintln!("done: {done:?}\ntool results: {}", tool_results(&task));
}
