//! Scripted timelines: a compact text form of "what the agent did, when, and
//! what the engine must say", run on a virtual clock.
//!
//! ```text
//! # comment
//! agent claude            header: agent profile id
//! task t1                 header: this task's TERMIC_TASK_ID
//! hooks on                header: hooks wired (default off)
//! watched on              header: user watching (default on)
//! horizon 60000           header: tick up to this time at the end (default: last event + 60000)
//! 0 key enter             event at an absolute ms time
//! +30 title ◐ Claude Code event relative to the previous event
//! every 960 until 60000 title ◐ Claude Code || title ◑ Claude Code
//!                         repeat (cycling through alternatives split by ` || `) from the previous time
//! expect 34787 working -> done settle [kind=permission]
//! expect false_done 1     also: native_seen true|false
//! ```
//!
//! Events: `key enter|escape|ctrlc|other`, `title TEXT`, `notify TEXT` (OSC 9),
//! `activity`, `bell`, `hook EVENT [task=ID] [k=v]...`, `native STATE [kind=K]
//! [msg=REST OF LINE]`, `focus on|off`, `wired on|off`, `screen HASH LINES`,
//! `exit CODE|none`, `foreground PROFILE [wired]|none`, `probe_answered` (termic answered the
//! OSC 7501 probe), `resize` (the terminal was resized), `bytes ESCAPED` (through the scanner; `\e \a \r \n \xNN \\`),
//! `rows ESCAPED` (the screen's bottom rows for the screen rules, split by `\n`).
//! The expected transitions must match the actual ones exactly, in order.

use termic_signal::engine::{Engine, EngineConfig, Key, Rule, ScreenFacts, State, Transition};
use termic_signal::profile::ScreenRows;
use termic_signal::signal::{NativeState, NotifySource, ProgramStatus, Signal};
use termic_signal::wire::{HookEvent, HookMessage};

#[derive(Debug, Clone)]
pub enum Event {
    Key(Key),
    Signal(Signal),
    Focus(bool),
    Wired(bool),
    Screen(ScreenFacts),
    Exit(Option<i32>),
    Bytes(Vec<u8>),
    /// `foreground PROFILE [wired]` or `foreground none`: the runtime saw
    /// another program in the task's foreground.
    Foreground(Option<String>, bool),
    /// termic answered the OSC 7501 probe (the runtime's `native_probe_answered`).
    ProbeAnswered,
    /// The terminal was resized (the runtime's `resize`).
    Resize,
    /// The screen's bottom rows (the runtime's `screen_rows`).
    Rows(ScreenRows),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub at: u64,
    pub from: State,
    pub to: State,
    pub rule: Rule,
    pub kind: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Script {
    pub agent: String,
    pub task: String,
    pub hooks: bool,
    pub watched: bool,
    pub horizon: Option<u64>,
    pub events: Vec<(u64, Event)>,
    pub expected: Vec<Expected>,
    pub false_done: Option<u32>,
    pub native_seen: Option<bool>,
}

pub struct Outcome {
    pub transitions: Vec<Transition>,
    pub engine: Engine,
}

fn state(s: &str) -> State {
    match s {
        "idle" => State::Idle,
        "working" => State::Working,
        "needs_you" => State::NeedsYou,
        "done" => State::Done,
        "interrupted" => State::Interrupted,
        "exited" => State::Exited,
        "rate_limited" => State::RateLimited(None),
        // `rate_limited(15:00)`: rate limited until that time.
        _ if s.starts_with("rate_limited(") => State::RateLimited(Some(
            s.strip_prefix("rate_limited(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(termic_signal::limit::ResetAt::from_wire)
                .unwrap_or_else(|| panic!("bad reset time in {s:?}")),
        )),
        // `error(server_error)`: the error state with its reason's wire
        // token; `stopped(REASON)`: the state a stop on that reason lands
        // in (`rate_limited` for a rate limit with no time, else the error).
        _ => {
            let reason = |prefix: &str| {
                s.strip_prefix(prefix)
                    .and_then(|r| r.strip_suffix(')'))
                    .and_then(termic_signal::stop::StopReason::from_wire)
            };
            match (reason("error("), reason("stopped(")) {
                (Some(termic_signal::stop::StopReason::RateLimited), _) => {
                    panic!("a rate limit is not an error: write rate_limited, not {s:?}")
                }
                (Some(reason), _) => State::Error(reason),
                (_, Some(reason)) => State::stopped(reason, None),
                _ => panic!("unknown state {s:?}"),
            }
        }
    }
}

fn on_off(s: &str) -> bool {
    match s {
        "on" | "true" | "1" => true,
        "off" | "false" | "0" => false,
        _ => panic!("expected on/off, got {s:?}"),
    }
}

pub fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 2;
        match b[i - 1] {
            b'e' => out.push(0x1b),
            b'a' => out.push(0x07),
            b'r' => out.push(b'\r'),
            b'n' => out.push(b'\n'),
            b'\\' => out.push(b'\\'),
            b'x' => {
                let hex = std::str::from_utf8(&b[i..i + 2]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 2;
            }
            other => panic!("unknown escape \\{}", other as char),
        }
    }
    out
}

fn parse_event(line: &str, task: &str) -> Event {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    match word {
        "key" => Event::Key(match rest {
            "enter" => Key::Submit,
            "escape" => Key::Escape,
            "ctrlc" => Key::CtrlC,
            "other" => Key::Other,
            _ => panic!("unknown key {rest:?}"),
        }),
        "title" => Event::Signal(Signal::Title(rest.to_string())),
        "notify" => Event::Signal(Signal::Notify {
            source: NotifySource::Osc9,
            body: rest.to_string(),
        }),
        "activity" => Event::Signal(Signal::Activity),
        "bell" => Event::Signal(Signal::Bell),
        "hook" => {
            let mut parts = rest.split_whitespace();
            let event = HookEvent::parse(parts.next().unwrap()).expect("hook event");
            let mut msg = HookMessage::new(event, task);
            for kv in parts {
                let (k, v) = kv.split_once('=').expect("k=v");
                if k == "task" {
                    msg.task_id = v.to_string();
                } else {
                    msg = msg.with(k, v);
                }
            }
            Event::Signal(Signal::Hook(msg))
        }
        "native" => Event::Signal(Signal::Native(parse_native(rest))),
        "focus" => Event::Focus(on_off(rest)),
        "wired" => Event::Wired(on_off(rest)),
        "screen" => {
            let (hash, lines) = rest.split_once(' ').expect("screen HASH LINES");
            Event::Screen(ScreenFacts {
                hash: hash.parse().unwrap(),
                scrollback_lines: lines.parse().unwrap(),
            })
        }
        "exit" => Event::Exit(rest.parse().ok()),
        "bytes" => Event::Bytes(unescape(rest)),
        "foreground" => {
            let mut words = rest.split_whitespace();
            let profile = words.next().filter(|p| *p != "none").map(str::to_string);
            Event::Foreground(profile, words.next() == Some("wired"))
        }
        "probe_answered" => Event::ProbeAnswered,
        "resize" => Event::Resize,
        "rows" => Event::Rows(ScreenRows::from_joined(
            &String::from_utf8(unescape(rest)).expect("rows are UTF-8"),
        )),
        _ => panic!("unknown event {line:?}"),
    }
}

fn parse_native(rest: &str) -> ProgramStatus {
    let (head, msg) = match rest.split_once(" msg=") {
        Some((h, m)) => (h, Some(m.to_string())),
        None => (rest, None),
    };
    let mut parts = head.split_whitespace();
    let st = match parts.next().unwrap() {
        "working" => NativeState::Working,
        "blocked" => NativeState::Blocked,
        "done" => NativeState::Done,
        "idle" => NativeState::Idle,
        "clear" => NativeState::Clear,
        "error" => NativeState::Error,
        other => panic!("unknown native state {other}"),
    };
    let kind = parts
        .find_map(|p| p.strip_prefix("kind="))
        .map(str::to_string);
    ProgramStatus {
        state: st,
        app: Some("test".to_string()),
        kind,
        id: None,
        progress: None,
        message: msg,
        title: None,
    }
}

pub fn parse(text: &str) -> Script {
    let mut s = Script {
        agent: "generic".into(),
        task: "task-1".into(),
        hooks: false,
        watched: true,
        horizon: None,
        events: Vec::new(),
        expected: Vec::new(),
        false_done: None,
        native_seen: None,
    };
    let mut now = 0u64;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let ctx = || format!("line {}: {raw}", n + 1);
        match word {
            "agent" => s.agent = rest.to_string(),
            "task" => s.task = rest.to_string(),
            "hooks" => s.hooks = on_off(rest),
            "watched" => s.watched = on_off(rest),
            "horizon" => s.horizon = Some(rest.parse().expect("horizon ms")),
            "expect" => parse_expect(&mut s, rest),
            "every" => {
                // every MS until T EVENT [| EVENT]...
                let mut it = rest.splitn(4, ' ');
                let step: u64 = it
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap_or_else(|_| panic!("{}", ctx()));
                assert_eq!(it.next(), Some("until"), "{}", ctx());
                let until = time(it.next().unwrap(), now);
                let alts: Vec<Event> = it
                    .next()
                    .unwrap()
                    .split(" || ")
                    .map(|e| parse_event(e.trim(), &s.task))
                    .collect();
                let mut i = 0;
                while now + step <= until {
                    now += step;
                    s.events.push((now, alts[i % alts.len()].clone()));
                    i += 1;
                }
            }
            _ => {
                now = time(word, now);
                s.events.push((now, parse_event(rest, &s.task)));
            }
        }
    }
    s
}

fn time(word: &str, now: u64) -> u64 {
    match word.strip_prefix('+') {
        Some(rel) => now + rel.parse::<u64>().expect("relative ms"),
        None => word.parse().expect("absolute ms or +ms"),
    }
}

fn parse_expect(s: &mut Script, rest: &str) {
    let parts: Vec<&str> = rest.split_whitespace().collect();
    match parts.as_slice() {
        ["false_done", n] => s.false_done = Some(n.parse().unwrap()),
        ["native_seen", b] => s.native_seen = Some(on_off(b)),
        [at, from, "->", to, rule, more @ ..] => s.expected.push(Expected {
            at: at.parse().unwrap(),
            from: state(from),
            to: state(to),
            rule: Rule::parse(rule).unwrap_or_else(|| panic!("unknown rule {rule}")),
            kind: more
                .iter()
                .find_map(|m| m.strip_prefix("kind="))
                .map(str::to_string),
        }),
        _ => panic!("bad expect line: {rest}"),
    }
}

/// Drive an engine through the script the way the runtime does: tick at
/// every deadline before each event, then apply the event.
pub fn run(script: &Script) -> Outcome {
    let config = EngineConfig::new(&script.agent, &script.task, script.hooks);
    let mut engine = Engine::new(config);
    let mut out = Vec::new();
    engine.focus(0, script.watched);
    let advance = |engine: &mut Engine, to: u64, out: &mut Vec<Transition>| {
        while let Some(d) = engine.next_deadline().filter(|d| *d <= to) {
            out.extend(engine.tick(d));
        }
    };
    let mut last = 0;
    for (at, event) in &script.events {
        let at = *at;
        advance(&mut engine, at, &mut out);
        last = at;
        match event.clone() {
            Event::Key(k) => out.extend(engine.key(at, k)),
            Event::Signal(sig) => out.extend(engine.on_signal(at, sig)),
            Event::Focus(w) => engine.focus(at, w),
            Event::Wired(w) => engine.set_hooks_wired(at, w),
            Event::Screen(f) => out.extend(engine.screen(at, f)),
            Event::Exit(code) => out.extend(engine.exited(at, code)),
            Event::Bytes(b) => out.extend(engine.feed_output(at, &b)),
            Event::Foreground(p, wired) => {
                out.extend(engine.set_foreground(at, p.as_deref(), wired))
            }
            Event::ProbeAnswered => engine.native_probe_answered(at),
            Event::Resize => engine.resize(at),
            Event::Rows(rows) => out.extend(engine.screen_rows(at, &rows)),
        }
    }
    let horizon = script.horizon.unwrap_or(last + 60_000);
    advance(&mut engine, horizon, &mut out);
    Outcome {
        transitions: out,
        engine,
    }
}

fn render(t: &[Transition]) -> String {
    t.iter()
        .map(|t| {
            let kind = t
                .attention
                .as_ref()
                .and_then(|a| a.kind.clone())
                .map(|k| format!(" kind={k}"))
                .unwrap_or_default();
            format!(
                "expect {} {} -> {} {}{kind}    # {}\n",
                t.at, t.from, t.to, t.reason.rule, t.reason
            )
        })
        .collect()
}

/// Run and assert every expectation; the failure message prints the actual
/// timeline in `expect` syntax.
pub fn check(name: &str, text: &str) -> Outcome {
    let script = parse(text);
    let outcome = run(&script);
    let actual: Vec<Expected> = outcome
        .transitions
        .iter()
        .map(|t| Expected {
            at: t.at,
            from: t.from,
            to: t.to,
            rule: t.reason.rule,
            kind: t.attention.as_ref().and_then(|a| a.kind.clone()),
        })
        .collect();
    let matches = actual.len() == script.expected.len()
        && actual.iter().zip(&script.expected).all(|(a, e)| {
            a.at == e.at
                && a.from == e.from
                && a.to == e.to
                && a.rule == e.rule
                && (e.kind.is_none() || a.kind == e.kind)
        });
    assert!(
        matches,
        "{name}: transitions differ.\nactual:\n{}",
        render(&outcome.transitions)
    );
    if let Some(n) = script.false_done {
        assert_eq!(outcome.engine.false_done_count(), n, "{name}: false_done");
    }
    if let Some(b) = script.native_seen {
        assert_eq!(
            outcome.engine.native_status_seen(),
            b,
            "{name}: native_seen"
        );
    }
    outcome
}
