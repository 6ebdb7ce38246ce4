//! `--record`: a task run through the runtime with recording on replays,
//! through `termic_signal::replay`, to the same transitions at the same
//! (relative) times.

use crate::runtime_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use runtime_support::*;
use termic_runtime::clock::{Clock, ManualClock};
use termic_runtime::{Runtime, RuntimeConfig, RuntimeEvent, TaskId, TaskStatus};
use termic_signal::engine::{Key, State, Transition};
use termic_signal::replay::{
    read_recording_file, replay_recording, Marker, RecordedEvent, Recording, ReplayOptions,
};

const START: u64 = 10_000;

/// Collect transitions until one reaches `state`. When nothing arrives for
/// a while and a timer is armed (the hook attention's debounce), move the
/// manual clock to it and tick, as the UI does when its sleep ends.
fn wait_for(
    rt: &Runtime,
    clock: &ManualClock,
    events: &crossbeam_channel::Receiver<RuntimeEvent>,
    seen: &mut Vec<Transition>,
    id: TaskId,
    state: State,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !seen.iter().any(|t| t.to == state) {
        assert!(
            Instant::now() < deadline,
            "never reached {state:?}: {seen:?}"
        );
        match events.recv_timeout(Duration::from_millis(200)) {
            Ok(RuntimeEvent::Transition(got, t)) if got == id => seen.push(t),
            Ok(_) => {}
            Err(_) => {
                if let Some(d) = rt.next_deadline() {
                    clock.set(d.max(clock.now_ms()));
                    rt.tick(clock.now_ms());
                }
            }
        }
    }
}

/// What a user types at the first prompt: it must not reach a recording
/// made without `--record-input`.
const SECRET: &str = "hunter2-secret";

/// Record the scenario, check the file's end and replay it against the
/// live run; the recording's text comes back for the input checks.
fn record_and_replay(record_input: bool) -> (Recording, String) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START, 1_764_000_000_000));
    let (rt, events) = Runtime::new(RuntimeConfig::default(), clock.clone());
    rt.set_record_dir(Some(dir.path().join("rec")));
    rt.set_record_input(record_input);
    rt.set_hooks_wired("claude", true);
    // A fake agent that reports through termic's hook wire format, one step
    // per line of input, then exits 4.
    let hook = |event: &str, fields: &str| {
        format!("printf '\\033]777;termic;v1;{event};%s{fields}\\007' \"$TERMIC_TASK_ID\"")
    };
    let script = format!(
        "stty -echo; {}; read a; {}; printf 'question?'; read b; {}; read c; printf '\\033]0;bye\\007'; exit 4",
        hook("working", ""),
        hook("attention", ";kind=permission"),
        hook("done", ""),
    );
    let mut spec = sh("rec task", &script);
    spec.agent = "claude".into();
    spec.profile = "claude".into();
    let id = rt.spawn(spec).unwrap();
    let mut live = Vec::new();
    wait_for(&rt, &clock, &events, &mut live, id, State::Working);
    clock.advance(1_000);
    rt.set_watched(Some(id));
    rt.write_input(id, format!("{SECRET}\r").as_bytes())
        .unwrap();
    wait_for(&rt, &clock, &events, &mut live, id, State::NeedsYou);
    clock.advance(700);
    rt.write_input(id, b"\r").unwrap();
    wait_for(&rt, &clock, &events, &mut live, id, State::Done);
    clock.advance(300);
    rt.set_watched(None);
    rt.write_input(id, b"\r").unwrap();
    wait_for(&rt, &clock, &events, &mut live, id, State::Exited);
    // The recording is closed when the task is reaped.
    assert!(eventually(Duration::from_secs(10), || rt
        .info(id)
        .unwrap()
        .status
        != TaskStatus::Running));

    let files: Vec<_> = std::fs::read_dir(dir.path().join("rec"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("rec-task-1764000010-"));
    let recording = read_recording_file(&files[0]).unwrap();
    assert_eq!(recording.header.termic.agent, "claude");
    assert!(recording.header.termic.hooks_wired);
    // The exit closes the recording: its last event is the end marker, and
    // the default replay (up to that marker, no tail) matches the live run.
    assert_eq!(
        recording.events.last().map(|(_, e)| e),
        Some(&RecordedEvent::Marker(Marker::End))
    );
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let outcome = replay_recording(&recording, &ReplayOptions::default());
    assert!(!outcome.cut_off);
    let replayed = outcome.transitions;

    let shifted: Vec<Transition> = live
        .iter()
        .cloned()
        .map(|mut t| {
            t.at -= START;
            t
        })
        .collect();
    assert_eq!(replayed, shifted);
    let states: Vec<_> = replayed.iter().map(|t| t.to).collect();
    assert_eq!(
        states,
        [State::Working, State::NeedsYou, State::Done, State::Exited]
    );
    (recording, text)
}

fn inputs(recording: &Recording) -> Vec<&RecordedEvent> {
    recording
        .events
        .iter()
        .map(|(_, e)| e)
        .filter(|e| matches!(e, RecordedEvent::Input(_)))
        .collect()
}

#[test]
fn a_recorded_task_replays_to_the_same_transitions_without_its_input() {
    let (recording, text) = record_and_replay(false);
    assert!(inputs(&recording).is_empty(), "{text}");
    assert!(!text.contains(SECRET) && !text.contains("hunter"), "{text}");
    // Only the kinds of keys: some keys then Enter, then Enter twice.
    let keys: Vec<&Marker> = recording
        .events
        .iter()
        .filter_map(|(_, e)| match e {
            RecordedEvent::Marker(m @ Marker::Keys(_)) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(
        keys,
        [
            &Marker::Keys(vec![Key::Other, Key::Submit]),
            &Marker::Keys(vec![Key::Submit]),
            &Marker::Keys(vec![Key::Submit]),
        ]
    );
}

#[test]
fn with_record_input_the_keystrokes_are_recorded_and_replay_the_same() {
    let (recording, text) = record_and_replay(true);
    assert_eq!(
        inputs(&recording).first(),
        Some(&&RecordedEvent::Input(format!("{SECRET}\r").into_bytes())),
        "{text}"
    );
    assert_eq!(inputs(&recording).len(), 3);
}
