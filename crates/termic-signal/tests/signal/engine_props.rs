//! Property tests: random output bytes, signals, keys, facts and time steps.
//! The engine never panics, never reports two dones for one submit, and while
//! hooks are wired or native status was seen, reports done only when a hook
//! or the native status said so. A hook or native done transition comes
//! only from the call that carried this task's own done message.

use proptest::prelude::*;
use termic_signal::engine::{Engine, EngineConfig, Key, Rule, ScreenFacts, State, Transition};
use termic_signal::profile::profile_for;
use termic_signal::scanner::Scanner;
use termic_signal::signal::{NativeState, NotifySource, ProgramStatus, Signal};
use termic_signal::wire::{HookEvent, HookMessage};

const TASK: &str = "task-1";

#[derive(Debug, Clone)]
enum Input {
    Bytes(Vec<u8>),
    Signal(Signal),
    Key(Key),
    Focus(bool),
    Wired(bool),
    Screen(u64, usize),
    Exit(Option<i32>),
    Tick,
}

fn title() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "✳ Claude Code",
        "◐ Claude Code",
        "◑ Claude Code",
        "Claude Code",
        "⠋ work | proj",
        "[ ! ] Action Required | x | proj",
        "proj",
        "⠋ - Thinking - grok",
        "⚠ Action Required - ⠋ - Running: write - grok",
        "Plan - grok",
        "OC | session",
        "",
    ])
    .prop_map(str::to_string)
}

fn hook() -> impl Strategy<Value = HookMessage> {
    let event = prop::sample::select(HookEvent::ALL.to_vec());
    let task = prop::sample::select(vec![TASK, TASK, TASK, "other-task"]);
    let extra = prop::sample::select(vec![
        None,
        Some(("kind", "permission")),
        Some(("kind", "question")),
        Some(("background", "1")),
        Some(("hook", "Stop")),
    ]);
    (event, task, extra).prop_map(|(e, t, x)| {
        let m = HookMessage::new(e, t);
        match x {
            Some((k, v)) => m.with(k, v),
            None => m,
        }
    })
}

fn native() -> impl Strategy<Value = ProgramStatus> {
    let state = prop::sample::select(vec![
        NativeState::Working,
        NativeState::Blocked,
        NativeState::Done,
        NativeState::Idle,
        NativeState::Clear,
        NativeState::Error,
    ]);
    (state, any::<bool>()).prop_map(|(state, kind)| ProgramStatus {
        state,
        app: Some("codex".into()),
        kind: kind.then(|| "permission".to_string()),
        id: None,
        progress: None,
        message: None,
        title: None,
    })
}

fn signal() -> impl Strategy<Value = Signal> {
    prop_oneof![
        4 => Just(Signal::Activity),
        3 => title().prop_map(Signal::Title),
        1 => prop::sample::select(vec!["Claude needs your permission", "Claude is waiting for your input"])
            .prop_map(|b| Signal::Notify { source: NotifySource::Osc9, body: b.into() }),
        1 => Just(Signal::Bell),
        2 => hook().prop_map(Signal::Hook),
        1 => native().prop_map(Signal::Native),
        1 => Just(Signal::NativeProbe),
    ]
}

/// Output bytes: random, or fragments of real sequences (split anywhere).
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    let fragments = prop::sample::select(vec![
        "\x1b]0;◐ Claude Code\x07".as_bytes().to_vec(),
        "\x1b]0;✳ Claude Code\x07".as_bytes().to_vec(),
        b"\x1b]777;termic;v1;working;task-1;hook=UserPromptSubmit\x07".to_vec(),
        b"\x1b]777;termic;v1;done;task-1;hook=Stop\x07".to_vec(),
        b"\x1b]777;termic;v1;attention;task-1;kind=permission\x07".to_vec(),
        b"\x1b]7501;state=working:app=codex\x1b\\".to_vec(),
        b"\x1b]7501;state=done:app=codex\x1b\\".to_vec(),
        b"\x1b]9;Claude needs your permission\x07".to_vec(),
        b"hello \x1b[31mworld\x1b[0m\r\n".to_vec(),
    ]);
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        (fragments, any::<prop::sample::Index>()).prop_map(|(f, i)| {
            let cut = i.index(f.len() + 1);
            f[..cut].to_vec()
        }),
    ]
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        3 => bytes().prop_map(Input::Bytes),
        6 => signal().prop_map(Input::Signal),
        3 => prop::sample::select(vec![Key::Submit, Key::Escape, Key::CtrlC, Key::Other]).prop_map(Input::Key),
        1 => any::<bool>().prop_map(Input::Focus),
        1 => any::<bool>().prop_map(Input::Wired),
        1 => (0u64..4, 0usize..4).prop_map(|(h, l)| Input::Screen(h, l)),
        1 => prop::option::of(-1i32..3).prop_map(Input::Exit),
        2 => Just(Input::Tick),
    ]
}

/// Time steps from a millisecond to past the 10-minute ceiling.
fn step() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..50, 50u64..2_000, 2_000u64..20_000, 20_000u64..700_000]
}

fn is_working_signal(signal: &Signal) -> bool {
    match signal {
        Signal::Hook(m) => m.task_id == TASK && m.event == HookEvent::Working,
        Signal::Native(s) => s.state == NativeState::Working,
        _ => false,
    }
}

/// The signals this input carries. Raw bytes go through a shadow scanner, so
/// a message split across chunks counts in the chunk that completes it, as
/// it does for the engine.
fn carried(input: &Input, shadow: &mut Scanner) -> Vec<Signal> {
    match input {
        Input::Signal(signal) => vec![signal.clone()],
        Input::Bytes(b) => {
            let mut signals = Vec::new();
            shadow.feed(b, &mut signals);
            signals
        }
        _ => Vec::new(),
    }
}

/// Does this input license a new done (a "submit" in the invariant's sense)?
fn is_submit(input: &Input, carried: &[Signal]) -> bool {
    matches!(input, Input::Key(Key::Submit)) || carried.iter().any(is_working_signal)
}

/// A hook or native done is reported only in the call that carried this
/// task's own done message: never from a timer, never from another task's id.
fn dones_have_their_message(out: &[Transition], carried: &[Signal]) -> Result<(), TestCaseError> {
    let own_hook_done = carried
        .iter()
        .any(|s| matches!(s, Signal::Hook(m) if m.task_id == TASK && m.event == HookEvent::Done));
    let native_done = carried
        .iter()
        .any(|s| matches!(s, Signal::Native(p) if p.state == NativeState::Done));
    for t in out {
        if t.reason.rule == Rule::HookDone {
            prop_assert!(
                own_hook_done,
                "{} at {} without this task's hook done",
                t.reason,
                t.at
            );
        }
        if t.reason.rule == Rule::NativeDone {
            prop_assert!(
                native_done,
                "{} at {} without a native done",
                t.reason,
                t.at
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn engine_invariants_hold(
        agent in prop::sample::select(vec!["claude", "codex", "grok", "agy", "opencode", "generic"]),
        wired in any::<bool>(),
        script in prop::collection::vec((step(), input()), 1..120),
    ) {
        let mut engine = Engine::new(EngineConfig::new(agent, TASK, wired));
        let mut now = 0u64;
        let mut dones_since_submit = 0;
        let mut last_at = 0;
        let mut last_state = State::Idle;
        let mut shadow = Scanner::new();
        for (dt, input) in script {
            now += dt;
            // Timers due before this input fire first, as the runtime does.
            let mut out: Vec<Transition> = Vec::new();
            while let Some(d) = engine.next_deadline().filter(|d| *d <= now) {
                prop_assert!(d >= last_at, "deadline {d} before the last transition {last_at}");
                out.extend(engine.tick(d));
            }
            let governed = engine.config().hooks_wired || engine.native_status_seen();
            only_authorities_end_turns(governed, quiet_ask(&engine), &out)?;
            dones_have_their_message(&out, &[])?;
            check(&out, &mut dones_since_submit, &mut last_at, &mut last_state)?;
            prop_assert_eq!(engine.state(), last_state);
            // Judge the governing facts before the input can change them.
            let governed = engine.config().hooks_wired || engine.native_status_seen();
            let quiet_ask_before = quiet_ask(&engine);
            let carried = carried(&input, &mut shadow);
            let submit = is_submit(&input, &carried);
            let out = apply(&mut engine, now, input);
            dones_have_their_message(&out, &carried)?;
            let quiet_ask = quiet_ask_before && quiet_ask(&engine);
            only_authorities_end_turns(governed || engine.config().hooks_wired, quiet_ask, &out)?;
            // The submit takes effect where its turn starts: one chunk can
            // end the last turn (a hook done cut off by the ESC that starts
            // the next sequence) before it starts the next.
            let turn_starts = out.iter().position(|t| t.to == State::Working);
            let (before, after) = match (submit, turn_starts) {
                (true, Some(i)) => out.split_at(i),
                (true, None) => (&out[..0], &out[..]),
                (false, _) => (&out[..], &out[..0]),
            };
            check(before, &mut dones_since_submit, &mut last_at, &mut last_state)?;
            if submit {
                dones_since_submit = 0;
            }
            check(after, &mut dones_since_submit, &mut last_at, &mut last_state)?;
            prop_assert_eq!(engine.state(), last_state);
        }
        // Whatever happened, an exited engine stays exited and arms nothing.
        if engine.state() == State::Exited {
            prop_assert_eq!(engine.next_deadline(), None);
        }
    }
}

/// Feed one input to the engine, as the runtime would.
fn apply(engine: &mut Engine, now: u64, input: Input) -> Vec<Transition> {
    match input {
        Input::Bytes(b) => engine.feed_output(now, &b),
        Input::Signal(s) => engine.on_signal(now, s),
        Input::Key(k) => engine.key(now, k),
        Input::Focus(w) => {
            engine.focus(now, w);
            Vec::new()
        }
        Input::Wired(w) => {
            engine.set_hooks_wired(now, w);
            Vec::new()
        }
        Input::Screen(hash, lines) => engine.screen(
            now,
            ScreenFacts {
                hash,
                scrollback_lines: lines,
            },
        ),
        Input::Exit(c) => engine.exited(now, c),
        Input::Tick => engine.tick(now),
    }
}

/// Hooks alone own the turn of an agent whose hooks cannot report "needs
/// you" (agy): then, and only then, byte-quiet may still ASK (needs you).
fn quiet_ask(engine: &Engine) -> bool {
    engine.config().hooks_wired
        && !engine.native_status_seen()
        && !profile_for(&engine.config().agent).hooks_report_attention
}

/// While hooks are wired or native status was seen, a done comes only from
/// them, and no heuristic ends a turn (byte-quiet may ask when `quiet_ask`).
fn only_authorities_end_turns(
    governed: bool,
    quiet_ask: bool,
    out: &[Transition],
) -> Result<(), TestCaseError> {
    for t in out {
        if governed && t.to == State::Done {
            prop_assert!(
                matches!(t.reason.rule, Rule::HookDone | Rule::NativeDone),
                "done by {} while hooks or native status own the turn",
                t.reason
            );
        }
        let asks = quiet_ask && t.reason.rule == Rule::ByteQuiet && t.to == State::NeedsYou;
        if governed && !asks {
            prop_assert!(
                !t.reason.rule.is_heuristic_end(),
                "{} while governed",
                t.reason
            );
        }
    }
    Ok(())
}

fn check(
    out: &[Transition],
    dones_since_submit: &mut u32,
    last_at: &mut u64,
    last_state: &mut State,
) -> Result<(), TestCaseError> {
    for t in out {
        prop_assert_eq!(t.from, *last_state, "transitions chain");
        prop_assert!(t.from != t.to);
        prop_assert!(
            t.at >= *last_at,
            "time went backwards: {} < {}",
            t.at,
            *last_at
        );
        prop_assert_eq!(t.attention.is_some(), t.to == State::NeedsYou);
        prop_assert!(*last_state != State::Exited, "left exited");
        if t.to == State::Done {
            *dones_since_submit += 1;
            prop_assert!(*dones_since_submit <= 1, "two dones for one submit");
        }
        *last_at = t.at;
        *last_state = t.to;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A caller whose clock misbehaves (jumps back, repeats) must not crash
    /// the engine, and the reported states still chain.
    #[test]
    fn a_clock_that_jumps_backwards_never_panics(
        agent in prop::sample::select(vec!["claude", "codex", "agy"]),
        wired in any::<bool>(),
        script in prop::collection::vec((0u64..800_000, input()), 1..80),
    ) {
        let mut engine = Engine::new(EngineConfig::new(agent, TASK, wired));
        let mut state = State::Idle;
        for (now, input) in script {
            let mut out = engine.tick(now);
            // focus and set_hooks_wired hand their transitions to the next call.
            let defers = matches!(input, Input::Focus(_) | Input::Wired(_));
            out.extend(apply(&mut engine, now, input));
            for t in out {
                prop_assert_eq!(t.from, state);
                state = t.to;
            }
            if !defers {
                prop_assert_eq!(engine.state(), state);
            }
        }
    }
}
