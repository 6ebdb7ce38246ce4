//! Turn bookkeeping: one done per submit, false done, exit, the log, the docs table.

use crate::common::script::check;

// ---- one done per submit --------------------------------------------------------

#[test]
fn one_done_per_submit_without_hooks() {
    check(
        "one done per submit",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +10000 title ◐ Claude Code
         +1000 title ✳ Claude Code
         +10000 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle
         expect 11000 done -> working title_busy
         expect 17000 working -> idle settle
         expect 22010 idle -> working title_busy
         expect 28000 working -> done settle",
    );
}

#[test]
fn hooks_and_native_together_give_one_of_each() {
    check(
        "hooks and native",
        "agent claude
         hooks on
         0 probe_answered
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +80 native working
         +50 native blocked kind=permission msg=approve Write: out.txt
         +10 hook attention hook=PermissionRequest kind=permission
         +4000 key enter
         +60 native working
         +3000 hook done hook=Stop
         +12 native done
         +2000 native idle
         expect 10 idle -> working hook_working
         expect 140 working -> needs_you native_blocked kind=permission
         expect 4210 needs_you -> working native_working
         expect 7210 working -> done hook_done
         expect false_done 0",
    );
}

#[test]
fn activity_after_done_does_not_restart_working() {
    check(
        "activity after done",
        "agent agy
         hooks on
         0 hook working
         +1000 hook done
         +100 activity
         +100 activity
         expect 0 idle -> working hook_working
         expect 1000 working -> done hook_done",
    );
}

// ---- false done signature, exit ------------------------------------------------------

#[test]
fn false_done_signature_is_counted() {
    check(
        "false done",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +6000 notify Claude needs your permission
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle
         expect 7000 done -> needs_you notification
         expect false_done 1",
    );
}

#[test]
fn attention_long_after_done_is_not_a_false_done() {
    check(
        "late attention",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +20000 notify Claude needs your permission
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle
         expect 21000 done -> needs_you notification
         expect false_done 0",
    );
}

#[test]
fn exited_is_terminal() {
    let outcome = check(
        "exit",
        "agent claude
         hooks on
         0 hook working
         +100 exit 0
         +10 hook working
         +10 native blocked kind=permission
         +10 key enter
         expect 0 idle -> working hook_working
         expect 100 working -> exited exit",
    );
    assert_eq!(outcome.engine.next_deadline(), None);
}

// ---- the documented table -------------------------------------------------------------

/// The first two cells of every row of the table under `## {heading}`.
fn doc_table(doc: &str, heading: &str) -> Vec<(String, String)> {
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("docs/state-machine.md has no ## {heading}"));
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let name = cells[0].trim_start_matches("| ").trim_matches('`');
            (name.to_string(), cells[1].to_string())
        })
        .collect()
}

#[test]
fn docs_constants_table_matches_the_defaults() {
    // Both ways: every constant and rule of the code is documented with its
    // value / label, and the docs list nothing the code does not have.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/state-machine.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let code: Vec<(String, String)> = termic_signal::engine::Constants::default()
        .table()
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    assert_eq!(doc_table(&doc, "Constants"), code, "## Constants");
    let rules: Vec<(String, String)> = termic_signal::engine::Rule::ALL
        .iter()
        .map(|r| (r.as_str().to_string(), r.label().to_string()))
        .collect();
    assert_eq!(doc_table(&doc, "Rules"), rules, "## Rules");
}

// ---- the Inspector timeline -------------------------------------------------------------

#[test]
fn the_log_shows_signals_keys_timers_and_transitions() {
    let mut outcome = check(
        "log",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +1000 title ◐ Claude Code
         +1000 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 8000 working -> done settle",
    );
    let log: Vec<String> = outcome
        .engine
        .drain_log()
        .iter()
        .map(|e| format!("{} {} {}", e.at, e.kind.as_str(), e.text))
        .collect();
    let wanted = [
        "0 key Enter",
        "10 signal title \"◐ Claude Code\" (busy, claude.busy-glyph)",
        "10 transition idle -> working (title: busy \"◐ Claude Code\")",
        "1000 timer settle armed, fires in 5s",
        "2000 timer settle cancelled",
        "3000 timer settle armed, fires in 5s",
        "8000 timer settle fired",
        "8000 transition working -> done (settle: title idle for 5s)",
    ];
    for line in wanted {
        assert!(
            log.iter().any(|l| l == line),
            "missing {line:?} in {log:#?}"
        );
    }
    assert!(outcome.engine.drain_log().is_empty(), "drained");
}

#[test]
fn a_late_tick_fires_timers_at_their_deadlines_in_order() {
    use termic_signal::engine::{Engine, EngineConfig, Key, State};
    use termic_signal::signal::Signal;
    let mut engine = Engine::new(EngineConfig::new("claude", "t", false));
    engine.key(0, Key::Submit);
    engine.on_signal(10, Signal::Title("◐ Claude Code".into()));
    engine.on_signal(1000, Signal::Title("✳ Claude Code".into()));
    assert_eq!(engine.next_deadline(), Some(6000));
    // The caller oversleeps by a minute: the settle still happened at 6000.
    let out = engine.tick(66_000);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].at, out[0].to), (6000, State::Done));
    assert_eq!(engine.since(), 6000);
    assert_eq!(engine.next_deadline(), None);
}

#[test]
fn a_clock_going_backwards_does_not_underflow() {
    use termic_signal::engine::{Engine, EngineConfig, Key, State};
    use termic_signal::signal::{NotifySource, Signal};
    use termic_signal::wire::{HookEvent, HookMessage};
    let mut engine = Engine::new(EngineConfig::new("claude", "t", true));
    engine.on_signal(
        1000,
        Signal::Hook(HookMessage::new(HookEvent::Working, "t")),
    );
    engine.on_signal(5000, Signal::Hook(HookMessage::new(HookEvent::Done, "t")));
    let out = engine.on_signal(
        2000,
        Signal::Notify {
            source: NotifySource::Osc9,
            body: "Claude needs your permission".into(),
        },
    );
    assert_eq!(out[0].to, State::NeedsYou);
    assert_eq!(engine.false_done_count(), 1);
    engine.key(100, Key::Submit);
    engine.on_signal(50, Signal::Activity);
}
