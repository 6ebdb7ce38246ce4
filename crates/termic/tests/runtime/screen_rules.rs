//! Screen rules through a real PTY: the runtime sends the screen's last rows
//! to the engine for an agent task's profile, and printed text can at most
//! ask (needs you) there; in a command, shell or generic task the same text
//! does nothing at all (issue 12 item 5, docs/state-machine.md).

use crate::runtime_support;

use std::time::{Duration, Instant};

use runtime_support::*;
use termic_runtime::{RuntimeEvent, TaskId};
use termic_signal::engine::{State, Transition};
use termic_signal::replay::{read_recording_file, replay_recording, ReplayOptions};

/// Claude Code 2.1.332's permission dialog, as a file would hold it.
const DIALOG: &str = " Do you want to create out.txt?\\n ❯ 1. Yes\\n   2. Yes, and switch to accept edits\\n   3. No\\n\\n Esc to cancel · Tab to amend\\n";

fn until_exit(events: &crossbeam_channel::Receiver<RuntimeEvent>, id: TaskId) -> Vec<Transition> {
    let mut out = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(RuntimeEvent::Transition(got, t)) =
            events.recv_timeout(Duration::from_millis(100))
        {
            if got == id {
                let exited = t.to == State::Exited;
                out.push(t);
                if exited {
                    return out;
                }
            }
        }
    }
    panic!("never exited; saw {out:?}");
}

#[test]
fn a_printed_dialog_in_a_command_shell_or_generic_task_moves_nothing() {
    for profile in ["command", "shell", "generic"] {
        let (rt, events) = runtime();
        let mut spec = sh(
            &format!("cat-{profile}"),
            &format!("printf '{DIALOG}'; sleep 1"),
        );
        spec.profile = profile.to_string();
        let id = rt.spawn(spec).unwrap();
        let seen = until_exit(&events, id);
        assert!(
            seen.iter().all(|t| t.to != State::NeedsYou
                && t.to != State::Done
                && !t.reason.rule.as_str().starts_with("screen")),
            "{profile}: {seen:?}"
        );
        let log: Vec<String> = rt.drain_log(id).into_iter().map(|e| e.text).collect();
        assert!(
            !log.iter().any(|l| l.contains("screen rule")),
            "{profile}: {log:#?}"
        );
    }
}

#[test]
fn a_dialog_on_an_agent_tasks_screen_asks_and_never_ends_the_turn() {
    // An agent task (claude's profile, no hooks, no native status) whose
    // program paints a busy title, then the dialog: the runtime's rows reach
    // the rule, which raises needs you. Nothing ends the turn but the exit.
    let dir = tempfile::tempdir().unwrap();
    let (rt, events) = runtime();
    rt.set_record_dir(Some(dir.path().to_path_buf()));
    let mut spec = sh(
        "claude-like",
        &format!("printf '\\033]0;◐ Claude Code\\007'; sleep 0.3; printf '\\033]0;✳ Claude Code\\007{DIALOG}'; sleep 1.5"),
    );
    spec.profile = "claude".to_string();
    spec.agent = "claude".to_string();
    let id = rt.spawn(spec).unwrap();
    let seen = until_exit(&events, id);
    let moves: Vec<(State, &str)> = seen
        .iter()
        .map(|t| (t.to, t.reason.rule.as_str()))
        .collect();
    assert_eq!(
        moves,
        [
            (State::Working, "title_busy"),
            (State::NeedsYou, "screen_needs_you"),
            (State::Exited, "exit"),
        ],
        "{seen:?}"
    );
    assert_eq!(
        seen[1].attention.as_ref().and_then(|a| a.kind.as_deref()),
        Some("permission")
    );
    let log: Vec<String> = rt.drain_log(id).into_iter().map(|e| e.text).collect();
    assert!(
        log.iter().any(|l| l.contains(
            "screen rule claude.permission-dialog matches (needs you, last 12 non-blank rows, measured on Claude Code 2.1.332)"
        )),
        "{log:#?}"
    );
    // The recording carries the rows, so a replay gives what live gave.
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "cast"))
        .expect("a recording");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("termic:rows= Do you want to create out.txt?"),
        "{text}"
    );
    let replayed = replay_recording(
        &read_recording_file(&file).unwrap(),
        &ReplayOptions::default(),
    );
    let again: Vec<(State, &str)> = replayed
        .transitions
        .iter()
        .map(|t| (t.to, t.reason.rule.as_str()))
        .collect();
    assert_eq!(again, moves);
}
