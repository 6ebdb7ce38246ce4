//! The whole chain below termic: termic-hooks installs its real hooks into a
//! fixture HOME, the simulated agent reads that config, fires them the way
//! the real agent does, and the wire messages land on the PTY, parsed with
//! `termic_signal::wire` as termic's scanner does.

use std::time::Duration;
use termic_hooks::plan::AgentVersions;

use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::InstallFacts;
use termic_hooks::target::{InstallTarget, Paths};
use termic_signal::wire::{parse_body, HookEvent, HookMessage};

use crate::harness::{eventually, Home, Sim, SimOpts, SEC, TASK_ID};

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

fn install(home: &Home, schemas: &[AgentSchema]) {
    let paths = Paths {
        home: home.path().to_path_buf(),
        data_dir: home.path().join(".local/share/termic"),
    };
    for s in schemas {
        let t = InstallTarget::host(*s, &paths, &Default::default()).unwrap();
        apply::install(&t, &FACTS).unwrap();
    }
}

/// Every termic wire message in `out`, in order (BEL or ST terminated).
fn messages(out: &str) -> Vec<HookMessage> {
    let mut found = Vec::new();
    for chunk in out.split("\x1b]").skip(1) {
        let end = chunk.find(['\x07', '\x1b']).unwrap_or(chunk.len());
        if let Some(Ok(m)) = parse_body(&chunk[..end]) {
            found.push(m);
        }
    }
    found
}

fn events(out: &str) -> Vec<(HookEvent, Option<String>)> {
    messages(out)
        .into_iter()
        .map(|m| (m.event, m.field("kind").map(str::to_owned)))
        .collect()
}

fn wait_events(sim: &Sim, n: usize) -> Vec<(HookEvent, Option<String>)> {
    if eventually(5 * SEC, || events(&sim.output()).len() >= n) {
        return events(&sim.output());
    }
    panic!(
        "fewer than {n} wire messages: {:?}\n{:?}",
        events(&sim.output()),
        sim.output()
    );
}

fn kind(k: &str) -> Option<String> {
    Some(k.to_string())
}

#[test]
fn claude_permission_turn_reports_working_attention_done() {
    let home = Home::new();
    install(&home, &[AgentSchema::CLAUDE]);
    let sim = Sim::auto("claude", "permission", &home, &[]);
    assert_eq!(
        wait_events(&sim, 2),
        [
            (HookEvent::Working, None),
            (HookEvent::Attention, kind("permission"))
        ]
    );
    let out = sim.output();
    // The attention lands after the idle glyph the prompt painted: the
    // window in which termic would otherwise settle to a false done.
    let idle_glyph = out.rfind("\x1b]0;✳ Claude Code\x07").unwrap();
    assert!(out.find(";attention;").unwrap() > idle_glyph);
    assert!(messages(&out).iter().all(|m| m.task_id == TASK_ID));
    sim.send(b"1");
    let all = wait_events(&sim, 3);
    assert_eq!(all[2], (HookEvent::Done, None));
}

#[test]
fn claude_question_and_plan_kinds() {
    for (scenario, k) in [("question", "question"), ("plan", "plan")] {
        let home = Home::new();
        install(&home, &[AgentSchema::CLAUDE]);
        let sim = Sim::auto("claude", scenario, &home, &[]);
        assert_eq!(wait_events(&sim, 2)[1], (HookEvent::Attention, kind(k)));
        // Enter picks the highlighted first option of either list.
        sim.send(b"\r");
    }
}

#[test]
fn claude_hooks_outside_termic_emit_nothing() {
    let home = Home::new();
    install(&home, &[AgentSchema::CLAUDE]);
    let sim = Sim::spawn(
        "claude",
        "simple",
        &home,
        SimOpts {
            args: &["--auto", "--probe-wait-ms", "50"],
            task_id: false,
            ..Default::default()
        },
    );
    sim.wait_trace(
        "stop",
        crate::harness::is("hook_exit", "event", "Stop"),
        5 * SEC,
    );
    // Not a wait: no wire message may follow the Stop hook in this window.
    std::thread::sleep(Duration::from_millis(150));
    let out = sim.output();
    assert!(!out.contains("777;termic"), "{out:?}");
    assert!(sim.trace().iter().all(|v| v["ev"] != "seq_written"));
}

#[test]
fn grok_runs_the_claude_hook_silently_and_reports_once() {
    let home = Home::new();
    install(&home, &[AgentSchema::CLAUDE, AgentSchema::GROK]);
    let sim = Sim::auto("grok", "permission", &home, &[]);
    sim.wait_trace(
        "note",
        crate::harness::is("hook_exit", "event", "Notification"),
        5 * SEC,
    );
    sim.send(b"3");
    sim.wait_trace(
        "stop",
        |v| {
            v["ev"] == "hook_exit"
                && v["event"] == "Stop"
                && v["command"].as_str().unwrap().contains(".grok")
        },
        5 * SEC,
    );
    // Not a wait: a second report would land in this window.
    std::thread::sleep(Duration::from_millis(100));
    // Claude's scripts did run under grok (grok reads ~/.claude/settings.json)...
    let claude_runs = sim
        .trace()
        .iter()
        .filter(|v| {
            v["ev"] == "hook_spawn"
                && v["command"]
                    .as_str()
                    .unwrap()
                    .contains(".claude/termic-hooks")
        })
        .count();
    assert!(
        claude_runs >= 2,
        "grok ran termic's claude hooks {claude_runs} times"
    );
    // ...and said nothing: one message per edge, all from grok's own hooks.
    assert_eq!(
        events(&sim.output()),
        [
            (HookEvent::Working, None),
            (HookEvent::Attention, kind("permission")),
            (HookEvent::Done, None)
        ]
    );
}

#[test]
fn grok_with_only_the_claude_install_emits_nothing() {
    let home = Home::new();
    install(&home, &[AgentSchema::CLAUDE]);
    let sim = Sim::auto("grok", "simple", &home, &[]);
    sim.wait_trace(
        "stop",
        crate::harness::is("hook_exit", "event", "Stop"),
        5 * SEC,
    );
    // Not a wait: a report would land in this window.
    std::thread::sleep(Duration::from_millis(100));
    assert!(events(&sim.output()).is_empty());
}

#[test]
fn grok_1_0_5_escape_reports_interrupted() {
    let home = Home::new();
    install(&home, &[AgentSchema::GROK]);
    let sim = Sim::auto("grok", "interrupt", &home, &[]);
    wait_events(&sim, 1);
    sim.escape();
    assert_eq!(wait_events(&sim, 2)[1], (HookEvent::Interrupted, None));
}

#[test]
fn agy_reports_working_and_done() {
    let home = Home::new();
    install(&home, &[AgentSchema::AGY]);
    let sim = Sim::auto("agy", "permission", &home, &[]);
    assert_eq!(wait_events(&sim, 1), [(HookEvent::Working, None)]);
    sim.wait_for("Allow Write on out.txt?", 5 * SEC);
    // Not a wait: an attention message would land in this window.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(events(&sim.output()).len(), 1, "agy has no attention event");
    sim.send(b"1");
    assert_eq!(wait_events(&sim, 2)[1], (HookEvent::Done, None));
}

#[test]
fn opencode_reports_all_four_and_released() {
    let home = Home::new();
    install(&home, &[AgentSchema::OPENCODE]);
    let sim = Sim::auto("opencode", "permission", &home, &[]);
    assert_eq!(
        wait_events(&sim, 2),
        [
            (HookEvent::Working, None),
            (HookEvent::Attention, kind("permission"))
        ]
    );
    sim.send(b"\r");
    let all = wait_events(&sim, 4);
    assert_eq!(
        all[2..],
        [(HookEvent::Released, None), (HookEvent::Done, None)]
    );
    // Not a wait: a second done would land in this window.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        events(&sim.output()).len(),
        4,
        "session.status idle and session.idle make one done"
    );
}

#[test]
fn opencode_subagents_end_in_one_done() {
    let home = Home::new();
    install(&home, &[AgentSchema::OPENCODE]);
    let sim = Sim::auto("opencode", "subagents", &home, &["--speed", "200"]);
    let all = wait_events(&sim, 2);
    // Not a wait: a subagent's done would land in this window.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(all, [(HookEvent::Working, None), (HookEvent::Done, None)]);
    assert_eq!(events(&sim.output()).len(), 2);
}

#[test]
fn opencode_second_escape_reports_interrupted() {
    let home = Home::new();
    install(&home, &[AgentSchema::OPENCODE]);
    let sim = Sim::auto("opencode", "interrupt", &home, &[]);
    wait_events(&sim, 1);
    sim.escape();
    sim.wait_for("esc again", SEC);
    // Not a wait: a report of the first Escape would land in this window.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        events(&sim.output()).len(),
        1,
        "the first Escape changes nothing"
    );
    sim.escape();
    assert_eq!(wait_events(&sim, 2)[1], (HookEvent::Interrupted, None));
}

#[test]
fn claude_background_stop_is_marked_and_the_final_stop_is_not() {
    let home = Home::new();
    install(&home, &[AgentSchema::CLAUDE]);
    let sim = Sim::auto("claude", "background", &home, &["--speed", "5"]);
    wait_events(&sim, 3);
    let msgs = messages(&sim.output());
    assert_eq!(
        msgs.iter().map(|m| m.event).collect::<Vec<_>>(),
        [HookEvent::Working, HookEvent::Done, HookEvent::Done]
    );
    assert_eq!(msgs[1].field("background"), Some("1"));
    assert_eq!(msgs[2].field("background"), None);
}

#[test]
fn grok_idle_prompt_notification_is_not_attention() {
    let home = Home::new();
    install(&home, &[AgentSchema::GROK]);
    // idle_prompt fires 60 s after a turn: 0.6 s at --speed 100.
    let sim = Sim::auto("grok", "simple", &home, &["--speed", "100"]);
    sim.wait_trace(
        "idle_prompt",
        |v| v["ev"] == "hook_exit" && v["event"] == "Notification",
        10 * SEC,
    );
    // Not a wait: an attention message would land in this window.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        events(&sim.output()),
        [(HookEvent::Working, None), (HookEvent::Done, None)]
    );
}
