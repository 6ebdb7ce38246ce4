//! The runtime feeding the signal engine: transitions from real PTY output,
//! keys from input, timers through tick/next_deadline on a controlled clock,
//! the event log, and exit.

use crate::runtime_support;

use std::sync::Arc;
use std::time::Duration;

use runtime_support::*;
use termic_runtime::clock::ManualClock;
use termic_runtime::eventlog::EventLog;
use termic_runtime::{Runtime, RuntimeConfig, RuntimeEvent, TaskId};
use termic_signal::engine::{State, Transition};

const T: Duration = Duration::from_secs(10);

fn transitions(
    events: &crossbeam_channel::Receiver<RuntimeEvent>,
    id: TaskId,
    until: State,
) -> Vec<Transition> {
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + T;
    while std::time::Instant::now() < deadline {
        match events.recv_timeout(Duration::from_millis(100)) {
            Ok(RuntimeEvent::Transition(got, t)) if got == id => {
                let done = t.to == until;
                out.push(t);
                if done {
                    return out;
                }
            }
            _ => {}
        }
    }
    panic!("never reached {until:?}; saw {out:?}");
}

#[test]
fn native_status_from_the_pty_moves_the_task_and_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("events.jsonl");
    let (rt, events) = runtime();
    rt.set_event_log(Some(EventLog::open(&log_path).unwrap()));
    let mut spec = sh(
        "native",
        "printf '\\033]7501;state=working:app=codex\\007'; sleep 0.2; \
         printf '\\033]7501;state=blocked:app=codex:kind=permission\\007'; sleep 0.2; \
         printf '\\033]7501;state=done:app=codex\\007'; read x",
    );
    spec.agent = "codex".into();
    spec.profile = "codex".into();
    let id = rt.spawn(spec).unwrap();
    let seen = transitions(&events, id, State::Done);
    let states: Vec<_> = seen.iter().map(|t| t.to).collect();
    assert_eq!(states, [State::Working, State::NeedsYou, State::Done]);
    assert_eq!(
        seen[1].attention.as_ref().and_then(|a| a.kind.as_deref()),
        Some("permission")
    );
    rt.write_input(id, b"\r").unwrap();
    let rest = transitions(&events, id, State::Exited);
    assert_eq!(rest.last().unwrap().from, State::Done);
    wait_exit(&rt, &events, id, T);

    let text = std::fs::read_to_string(&log_path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tos: Vec<&str> = lines.iter().map(|l| l["to"].as_str().unwrap()).collect();
    assert_eq!(tos, ["working", "needs_you", "done", "exited"]);
    assert!(lines
        .iter()
        .all(|l| l["task"] == "native" && l["agent"] == "codex"));
    assert_eq!(lines[1]["attention"]["kind"], "permission");
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let ts = lines[0]["ts"].as_u64().unwrap();
    assert!(
        ts <= now_ms && now_ms - ts < 60_000,
        "ts {ts} is not recent ms since epoch"
    );
}

#[test]
fn timers_fire_only_through_tick_on_the_injected_clock() {
    let clock = Arc::new(ManualClock::new(1_000, 1_700_000_000_000));
    let (rt, events) = Runtime::new(RuntimeConfig::default(), clock.clone());
    let mut spec = sh(
        "timer",
        "stty -echo; read x; printf 'working on it\\n'; read y",
    );
    spec.profile = "generic".into();
    let id = rt.spawn(spec).unwrap();
    wait_screen(&rt, id, T, |_| true);
    rt.write_input(id, b"go\r").unwrap();
    wait_screen(&rt, id, T, |s| s.contains("working on it"));
    // The engine has the output once the turn started.
    assert!(eventually(T, || rt.with_engine(id, |e| e.state()).unwrap()
        == State::Working));
    let state = rt.with_engine(id, |e| e.state()).unwrap();
    let deadline = rt
        .next_deadline()
        .expect("a timer is armed after a turn started");
    assert!(deadline > 1_000, "deadline {deadline}");
    // Real time passing does nothing: the clock has not moved (not a wait:
    // this window is what is checked).
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(rt.with_engine(id, |e| e.state()).unwrap(), state);
    // Moving the clock past every deadline and ticking does.
    let mut moved = false;
    for _ in 0..20 {
        let Some(d) = rt.next_deadline() else { break };
        clock.set(d);
        rt.tick(d);
        if rt.with_engine(id, |e| e.state()).unwrap() != state {
            moved = true;
            break;
        }
    }
    assert!(moved, "no timer moved the task from {state:?}");
    let got: Vec<_> = events
        .try_iter()
        .filter_map(|e| match e {
            RuntimeEvent::Transition(t, tr) if t == id => Some(tr),
            _ => None,
        })
        .collect();
    assert!(!got.is_empty());
    assert!(got.iter().all(|t| t.at >= 1_000));
    rt.kill(id).unwrap();
}

#[test]
fn a_timer_armed_by_new_input_wakes_the_ui() {
    let clock = Arc::new(ManualClock::new(5_000, 0));
    let (rt, events) = Runtime::new(RuntimeConfig::default(), clock.clone());
    let id = rt
        .spawn(sh("wake", "stty -echo; read x; echo busy; read y"))
        .unwrap();
    wait_screen(&rt, id, T, |_| true);
    // The UI planned its sleep: nothing armed yet.
    assert_eq!(rt.next_deadline(), None);
    while events.try_recv().is_ok() {}
    // Enter starts a turn and the output arms a heuristic timer: the UI,
    // asleep with no deadline, must hear about it.
    rt.write_input(id, b"go\r").unwrap();
    let woke = std::iter::from_fn(|| events.recv_timeout(T).ok())
        .any(|e| e == RuntimeEvent::DeadlineChanged(id));
    assert!(woke);
    assert!(rt.next_deadline().is_some());
    rt.kill(id).unwrap();
}

#[test]
fn printed_status_in_a_shell_task_moves_nothing_and_is_recorded() {
    let (rt, events) = runtime();
    let id = rt
        .spawn(sh(
            "hostile",
            "printf '\\033]7501;state=working:app=codex\\007\\033]7501;state=blocked:app=codex:kind=permission:msg=cHduZWQ=\\007\\033]9;Action Required\\007\\033]777;notify;x;approve\\007\\033]0;[ ! ] Action Required\\007\\007\\033]7501;state=done:app=codex\\007'; sleep 0.3",
        ))
        .unwrap();
    let seen = transitions(&events, id, State::Exited);
    let states: Vec<_> = seen.iter().map(|t| t.to).collect();
    assert_eq!(states, [State::Exited], "{seen:?}");
    let log: Vec<String> = rt.drain_log(id).into_iter().map(|e| e.text).collect();
    assert!(
        log.iter()
            .any(|l| l.contains("not obeyed: this task's program does not speak native status")),
        "{log:#?}"
    );
    assert!(log
        .iter()
        .any(|l| l.contains("not obeyed: this task's program output is only text")));
}

#[test]
fn enter_after_a_long_needs_you_does_not_flash_needs_you_again() {
    // Issue 12 item 7: after a long idle in needs you, Enter and a repaint
    // that leaves the screen as it was used to fire the settled-screen
    // fallback at once ("fires in 0s"): working -> needs_you -> working in
    // one millisecond. A real PTY, the runtime's screen facts, and a manual
    // clock, so the 200 s idle costs nothing.
    let clock = Arc::new(ManualClock::new(1_000, 1_700_000_000_000));
    let (rt, events) = Runtime::new(RuntimeConfig::default(), clock.clone());
    // opencode's profile: no titles, so only the fallbacks end its turns.
    let mut spec = sh(
        "flicker",
        "stty -echo; read a; printf 'x'; read b; printf '\\rx'; read c",
    );
    spec.profile = "opencode".into();
    spec.agent = "opencode".into();
    let id = rt.spawn(spec).unwrap();
    wait_screen(&rt, id, T, |_| true);
    let state = |rt: &Runtime| rt.with_engine(id, |e| e.state()).unwrap();
    let settle = |rt: &Runtime| {
        // The runtime applies output on its own thread; give it a moment of
        // real time, then hand the engine the screen at the current clock.
        // A time, not an event: the output after the resume leaves the
        // screen as it was (the case under test), so nothing shows it read,
        // and ticking sooner would hand the engine the screen before it.
        std::thread::sleep(Duration::from_millis(300));
        rt.tick(clock_now(&clock));
    };
    rt.write_input(id, b"go\r").unwrap();
    wait_screen(&rt, id, T, |s| s.contains('x'));
    settle(&rt);
    assert_eq!(state(&rt), State::Working);
    // Byte-quiet (12 s) asks; then a long idle with the screen unchanged.
    clock.advance(12_500);
    rt.tick(clock_now(&clock));
    assert_eq!(state(&rt), State::NeedsYou);
    clock.advance(200_000);
    rt.tick(clock_now(&clock));
    let resumed_at = clock_now(&clock);
    rt.write_input(id, b"\r").unwrap();
    settle(&rt);
    assert_eq!(state(&rt), State::Working);
    let due = rt.next_deadline().expect("the fallbacks are armed");
    assert!(
        due >= resumed_at + 5_000,
        "a fallback is due {} ms after the resume",
        due.saturating_sub(resumed_at)
    );
    rt.tick(clock_now(&clock));
    let got: Vec<_> = events
        .try_iter()
        .filter_map(|e| match e {
            RuntimeEvent::Transition(t, tr) if t == id => Some((tr.at, tr.to)),
            _ => None,
        })
        .collect();
    let after: Vec<_> = got.iter().filter(|(at, _)| *at >= resumed_at).collect();
    assert_eq!(after, [&(resumed_at, State::Working)], "{got:?}");
    rt.kill(id).unwrap();
}

fn clock_now(clock: &ManualClock) -> u64 {
    use termic_runtime::clock::Clock;
    clock.now_ms()
}

#[test]
fn two_tasks_of_one_name_are_told_apart_in_the_event_log() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("events.jsonl");
    let (rt, events) = runtime();
    rt.set_event_log(Some(EventLog::open(&log_path).unwrap()));
    let a = rt.spawn(sh("twin", "exit 3")).unwrap();
    let b = rt.spawn(sh("twin", "exit 4")).unwrap();
    assert_eq!(wait_exit(&rt, &events, a, T), Some(3));
    assert_eq!(wait_exit(&rt, &events, b, T), Some(4));
    let text = std::fs::read_to_string(&log_path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pid_of = |id| i64::from(rt.info(id).unwrap().meta.pid);
    for (id, code) in [(a, "3"), (b, "4")] {
        let mine: Vec<_> = lines
            .iter()
            .filter(|l| l["pid"].as_i64() == Some(pid_of(id)))
            .collect();
        assert_eq!(mine.len(), 1, "{text}");
        assert_eq!(mine[0]["task"], "twin");
        assert_eq!(mine[0]["to"], "exited");
        assert!(mine[0]["reason"].as_str().unwrap().contains(code), "{text}");
    }
    assert_ne!(pid_of(a), pid_of(b));
    // The secret TERMIC_TASK_ID (a capability) never reaches the log.
    for id in [a, b] {
        let secret = rt.info(id).unwrap().meta.task_id;
        assert!(!text.contains(&secret), "{text}");
    }
}

/// Two readers of one task's Inspector timeline (two attached clients) each
/// see every entry, whenever each reads: reading does not take entries
/// away from the other.
#[test]
fn two_readers_of_the_timeline_each_see_every_entry() {
    let (rt, events) = runtime();
    let mut spec = sh(
        "two-readers",
        "printf '\\033]7501;state=working:app=codex\\007'; sleep 0.2; \
         printf '\\033]7501;state=done:app=codex\\007'; read x",
    );
    spec.agent = "codex".into();
    spec.profile = "codex".into();
    let id = rt.spawn(spec).unwrap();
    transitions(&events, id, State::Working);
    let (first_a, cursor_a) = rt.log_since(id, 0);
    transitions(&events, id, State::Done);
    let (rest_a, _) = rt.log_since(id, cursor_a);
    let (all_b, _) = rt.log_since(id, 0);
    let text = |entries: &[termic_signal::engine::LogEntry]| -> Vec<String> {
        entries.iter().map(|e| e.to_string()).collect()
    };
    let mut a = text(&first_a);
    a.extend(text(&rest_a));
    // (Screen facts may be logged between the reads: compare prefixes.)
    let b = text(&all_b);
    assert!(
        b.len() >= a.len() && b[..a.len()] == a[..],
        "A {a:?}\nB {b:?}"
    );
    assert!(a.iter().any(|e| e.contains("-> working")), "{a:?}");
    assert!(a.iter().any(|e| e.contains("-> done")), "{a:?}");
    // The tests' own reader (drain_log) has its own cursor too.
    let drained = text(&rt.drain_log(id));
    assert!(
        drained.len() >= a.len() && drained[..a.len()] == a[..],
        "{drained:?}"
    );
    rt.write_input(id, b"\r").unwrap();
    wait_exit(&rt, &events, id, T);
}

/// Issue 27: the runtime's event channel is bounded. A task flooding
/// transitions while its reader reads nothing fills it, the rest is
/// dropped (the sender never waits: it holds the engine's lock), the
/// channel says it lagged, and the state is still the runtime's to read
/// (what `RuntimeEvent::Resync` re-reads).
#[test]
fn a_flood_of_transitions_fills_the_bounded_event_channel_and_the_state_is_still_read() {
    let (rt, events) = runtime();
    let mut spec = sh(
        "flood",
        "i=0; while [ $i -lt 6000 ]; do \
         printf '\\033]777;termic;v1;working;%s\\007\\033]777;termic;v1;done;%s\\007' \"$TERMIC_TASK_ID\" \"$TERMIC_TASK_ID\"; \
         i=$((i+1)); done; printf 'FLOOD-END'; sleep 30",
    );
    spec.profile = "claude".into();
    spec.agent = "claude".into();
    let id = rt.spawn(spec).unwrap();
    // Read nothing until the flood is over (the screen is not an event).
    wait_screen(&rt, id, Duration::from_secs(60), |s| {
        s.contains("FLOOD-END")
    });
    // The screen shows a batch before the engine is fed its signals
    // (runtime/screen.rs): the last done reaches the engine just after.
    // Counted only then: a count taken while the engine still sends
    // drains the channel as it fills and may pass the bound.
    assert!(
        eventually(T, || rt.with_engine(id, |e| e.state()) == Some(State::Done)),
        "{:?}",
        rt.with_engine(id, |e| e.state())
    );
    // What the channel holds now, not a count drained while a late event
    // (a screen's Dirty) may still arrive: draining frees a slot for it,
    // which made a drained count one over the bound under load.
    let queued = events.len();
    assert!(
        queued <= termic_runtime::events::EVENT_QUEUE,
        "{queued} events queued"
    );
    assert!(rt.take_lagged(), "12,000 transitions must have overflowed");
    assert!(!rt.take_lagged());
    rt.kill(id).unwrap();
}
