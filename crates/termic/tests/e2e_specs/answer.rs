//! One-tap answers (issue 30) through the real binary with the simulated
//! Claude (termic-sim, termic's real hooks installed in the fixture HOME):
//! blocked on a permission, `termic answer` lists what is asked and the
//! dialog's choices, `termic answer sim approve_once` types exactly the
//! choice's key (the simulator's trace of the keys it read proves it), and
//! the task goes working, then done.

use std::time::Duration;

use serde_json::Value;

use super::binary::{StopOnDrop, NO_PROBE};
use super::support::{log_lines, to_and_rule, trace, Fixture};
use crate::wait::eventually_some;

/// The keys the simulator read, as its trace names them.
fn keys(path: &std::path::Path) -> Vec<String> {
    trace(path)
        .into_iter()
        .filter(|l| l["ev"] == "key")
        .map(|l| l["key"].to_string())
        .collect()
}

/// The simulated Claude with termic's hooks, run in `scenario` as task
/// `sim`, blocked: its row once it offers choices, the trace's and the
/// event log's paths.
fn blocked_sim(fx: &Fixture, scenario: &str) -> (Value, std::path::PathBuf, std::path::PathBuf) {
    let keys_path = fx.root.path().join("sim-trace.jsonl");
    let trace_arg = keys_path.display().to_string();
    fx.config(
        &[("claude", scenario, &["--auto", "--trace", &trace_arg])],
        NO_PROBE,
    );
    fx.termic_ok(&["hooks", "install", "claude", "--yes"]);
    let log = fx.root.path().join("events.jsonl");
    let log_arg = log.display().to_string();
    fx.termic_ok(&[
        "--event-log",
        &log_arg,
        "run",
        "claude",
        "--name",
        "sim",
        "--detach",
    ]);
    fx.termic_ok(&["wait", "sim", "--for", "needs-you", "--timeout", "30"]);
    let row = eventually_some(Duration::from_secs(30), || {
        let rows: Value = serde_json::from_str(&fx.termic_ok(&["ls", "--json"])).ok()?;
        let row = rows.as_array()?.first()?.clone();
        row.get("choices").is_some().then_some(row)
    })
    .expect("the simulated claude's row never offered choices");
    (row, keys_path, log)
}

#[test]
fn a_simulated_claude_permission_is_answered_with_its_choice() {
    let fx = Fixture::new();
    let _stop = StopOnDrop(&fx);
    let (row, keys_path, log) = blocked_sim(&fx, "permission");
    assert_eq!(row["attention"]["kind"], "permission", "{row}");
    assert_eq!(row["attention"]["from_output"], false, "{row}");
    let ids: Vec<&str> = row["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["approve_once", "approve_always", "deny"], "{row}");

    let listed = fx.termic_ok(&["answer", "sim"]);
    assert!(listed.starts_with("sim needs you: permission"), "{listed}");
    assert!(
        listed.contains("  approve_once    Yes\n")
            && listed
                .contains("  deny            No, and tell Claude what to do differently (esc)\n"),
        "{listed}"
    );

    let before = keys(&keys_path).len();
    let out = fx.termic_ok(&["answer", "sim", "approve_once"]);
    assert_eq!(out.trim(), "sent approve_once");
    let out = fx.termic_ok(&["wait", "sim", "--for", "done", "--timeout", "30"]);
    assert_eq!(out.trim(), "done");
    // Exactly one key reached the agent: the choice's `1`.
    let read = keys(&keys_path);
    assert_eq!(read.len(), before + 1, "{read:?}");
    assert!(read[before].contains("'1'"), "{read:?}");
    // needs you, then working (the answer), then done.
    let moves: Vec<String> = to_and_rule(&log_lines(&log))
        .into_iter()
        .map(|m| m.split(':').next().unwrap_or_default().to_string())
        .collect();
    let at = moves.iter().position(|m| m == "needs_you").unwrap();
    assert_eq!(moves[at + 1..], ["working", "done"], "{moves:?}");

    // Answered: the task no longer needs you, and nothing more is sent.
    let out = fx.termic(&["answer", "sim", "approve_once"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no longer needs you"));
    assert_eq!(keys(&keys_path).len(), before + 1);
}

/// termic-sim's question is drawn as Claude Code 2.1.332 draws it
/// (`❯ 1. Red`, "Type something.", "Chat about this", the footer) and
/// takes what it takes: termic's profile offers its two options, and
/// option_2 is Down then Enter (two keys in the simulator's trace); the
/// task goes working, then done.
#[test]
fn a_simulated_claude_question_is_answered_with_the_lists_arrow_and_enter() {
    let fx = Fixture::new();
    let _stop = StopOnDrop(&fx);
    let (row, keys_path, _) = blocked_sim(&fx, "question");
    assert_eq!(row["attention"]["kind"], "question", "{row}");
    // Red and Blue, not "Type something." or "Chat about this".
    let listed = fx.termic_ok(&["answer", "sim"]);
    assert!(
        listed.contains("\n  option_1  Red\n  option_2  Blue\nAnswer:"),
        "{listed}"
    );
    let before = keys(&keys_path).len();
    let out = fx.termic_ok(&["answer", "sim", "option_2"]);
    assert_eq!(out.trim(), "sent option_2");
    let out = fx.termic_ok(&["wait", "sim", "--for", "done", "--timeout", "30"]);
    assert_eq!(out.trim(), "done");
    let read = keys(&keys_path);
    assert_eq!(read[before..], ["\"Down\"", "\"Enter\""], "{read:?}");
}
