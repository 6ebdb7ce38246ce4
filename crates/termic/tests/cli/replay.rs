//! `termic replay` over a recording termic did not make (issue 35 item 5):
//! the fixture is real Claude Code 2.1.332 recorded with asciinema 2.4.0
//! itself (no termic markers, no hooks, no native status: nothing answered
//! its OSC 7501 probe), offline against termic-fakemodel's `write`
//! scenario, on 2026-12-06. Its prompt is typed, its permission dialog
//! waits 48 s, Enter approves, the turn ends, Ctrl-C twice exits.

use serde_json::Value;
use termic_signal::replay::{read_recording_file, replay_recording, ReplayOptions};

use crate::cli_fixture::{termic_command, text, Root};

const CAST: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/asciinema/claude-permission.cast"
);

/// `(to, rule)` of every transition `termic replay --json` printed.
fn transitions(stdout: &[u8]) -> Vec<(String, String)> {
    text(stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            (
                v["to"].as_str().unwrap().to_string(),
                v["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn an_asciinema_recording_of_claudes_permission_dialog_replays_needs_you_with_no_done_before_it() {
    let cast = std::fs::read_to_string(CAST).unwrap();
    assert!(
        !cast.contains("termic"),
        "the fixture must be asciinema's own, with no termic facts"
    );
    let root = Root::new();
    let out = termic_command(&root.path(), &root.path())
        .args(["replay", "--json", "--agent", "claude", CAST])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let seen = transitions(&out.stdout);
    let needs = seen
        .iter()
        .position(|(to, _)| to == "needs_you")
        .unwrap_or_else(|| panic!("no needs you: {seen:?}"));
    // The live task's screen rule, from the replay's own screen model.
    assert_eq!(seen[needs].1, "screen_needs_you", "{seen:?}");
    assert!(
        !seen[..needs].iter().any(|(to, _)| to == "done"),
        "a done before the dialog's needs you: {seen:?}"
    );
    // Approved, the turn works on and ends in its one done.
    let dones: Vec<_> = seen.iter().filter(|(to, _)| to == "done").collect();
    assert_eq!(dones.len(), 1, "{seen:?}");
    assert_eq!(seen.last().unwrap().0, "done", "{seen:?}");
    assert!(err.contains("was not recorded by termic"), "{err}");
}

/// The same recording through the engine alone (no screen model, as
/// `termic replay` ran it before 2026-12-06): the dialog's idle title
/// settles into the false done the live task no longer has. This is what
/// the screen model fixes, so the fixture is shown to reach it.
#[test]
fn without_the_screen_model_the_same_recording_reads_a_false_done_at_the_dialog() {
    let mut rec = read_recording_file(std::path::Path::new(CAST)).unwrap();
    rec.header.termic.agent = "claude".to_string();
    assert!(!rec.has_screen_facts());
    let bare = replay_recording(&rec, &ReplayOptions::default());
    let states: Vec<&str> = bare.transitions.iter().map(|t| t.to.as_str()).collect();
    let first_done = states.iter().position(|s| *s == "done");
    assert!(
        first_done.is_some() && !states[..first_done.unwrap()].contains(&"needs_you"),
        "{states:?}"
    );
    // The turn went on after that "done": it was false.
    assert!(
        states[first_done.unwrap()..].contains(&"working"),
        "{states:?}"
    );
}

#[test]
fn an_unknown_agent_is_a_usage_error_naming_the_known_ones() {
    let root = Root::new();
    let out = termic_command(&root.path(), &root.path())
        .args(["replay", "--agent", "nosuch", CAST])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("unknown agent nosuch"), "{err}");
    assert!(err.contains("claude"), "{err}");
    assert!(out.stdout.is_empty());
}
