//! How turns end: interrupts (interrupted, never done), the compressed
//! 8.5-minute subagent run (one done, at Stop), agy's done from its Stop
//! hook, Codex's native status, and the prose question no agent reports.

use std::time::Duration;

use termic_hooks::agents::AgentSchema;
use termic_runtime::RuntimeConfig;

use super::support::{count, no_native, trace, wired, Fixture, Session, SEC};

const ESC: &[u8] = b"\x1b";

/// Install `schema`'s hooks (wired) when given, start `agent` on the long
/// `interrupt` scenario, wait until it is working, press `keys` (with a
/// pause between them), and return the session.
fn interrupted(
    fx: &Fixture,
    config: RuntimeConfig,
    agent: &str,
    schema: Option<AgentSchema>,
    args: &[&str],
    keys: &[&[u8]],
) -> Session {
    let s = Session::start(fx, config);
    if let Some(schema) = schema {
        fx.install(&[schema]);
        s.rt.set_hooks_wired(agent, true);
    }
    let id = s.spawn(fx, "t", agent, "interrupt", args);
    // The keystroke counts as evidence only while the user watches the tab.
    s.rt.set_watched(Some(id));
    s.wait_state("t", "working", 10 * SEC);
    // Keys paced like a person's, and these times are part of the input: the
    // first lands mid-answer, and each is a lone key (the simulators tell a
    // lone Escape from a sequence by the gap after it).
    std::thread::sleep(Duration::from_millis(800));
    for k in keys {
        s.send(id, k);
        std::thread::sleep(Duration::from_millis(400));
    }
    s
}

/// Claude with termic's hooks and the probe reply off (hooks alone), on
/// `scenario`.
fn claude_hooks_only(fx: &Fixture, scenario: &str, args: &[&str]) -> Session {
    let config = no_native();
    wired(fx, config, AgentSchema::CLAUDE, "claude", scenario, args).0
}

/// `interrupted` with one Escape and termic's default settings.
fn escaped(fx: &Fixture, agent: &str, schema: Option<AgentSchema>, args: &[&str]) -> Session {
    interrupted(fx, RuntimeConfig::default(), agent, schema, args, &[ESC])
}

/// The turn ends as interrupted by one of `rules`, exactly once, with no
/// done and no needs-you.
fn assert_interrupted(s: &Session, within: Duration, rules: &[&str]) {
    let line = s.wait_state("t", "interrupted", within);
    assert!(rules.contains(&line["rule"].as_str().unwrap()), "{line}");
    // Not a wait: a done or a needs-you after the interrupt would land here.
    std::thread::sleep(Duration::from_millis(500));
    let states = s.states("t");
    assert_eq!(
        count(&states, "done"),
        0,
        "an interrupt is not a done: {:?}",
        s.steps("t")
    );
    assert_eq!(count(&states, "needs_you"), 0, "{:?}", s.steps("t"));
    assert_eq!(count(&states, "interrupted"), 1, "{:?}", s.steps("t"));
}

#[test]
fn claude_escape_and_ctrl_c_end_the_turn_as_interrupted() {
    for key in [ESC, b"\x03"] {
        let fx = Fixture::new();
        let claude = Some(AgentSchema::CLAUDE);
        let s = interrupted(&fx, no_native(), "claude", claude, &["--auto"], &[key]);
        assert_interrupted(&s, 5 * SEC, &["interrupt_title"]);
    }
}

#[test]
fn claude_native_escape_is_interrupted() {
    let fx = Fixture::new();
    let s = escaped(&fx, "claude", Some(AgentSchema::CLAUDE), &["--auto"]);
    assert_interrupted(&s, 5 * SEC, &["native_idle", "interrupt_title"]);
}

#[test]
fn grok_1_0_5_escape_is_interrupted_by_stop_cancelled() {
    let fx = Fixture::new();
    let s = escaped(&fx, "grok", Some(AgentSchema::GROK), &["--auto"]);
    // StopCancelled (350 ms after the key) is the signal; the idle title
    // follows it and must not count again.
    assert_interrupted(&s, 5 * SEC, &["hook_interrupted"]);
    assert_eq!(
        s.steps("t"),
        ["working:hook_working", "interrupted:hook_interrupted"]
    );
}

#[test]
fn grok_0_2_111_escape_is_interrupted_by_its_idle_title() {
    let fx = Fixture::new();
    let args = ["--auto", "--grok-version", "0.2.111"];
    let s = escaped(&fx, "grok", Some(AgentSchema::GROK), &args);
    // 0.2.111 fires no hook on Escape; its title goes idle 10-26 ms later.
    assert_interrupted(&s, 5 * SEC, &["interrupt_title"]);
}

#[test]
fn opencode_needs_two_escapes_and_reports_interrupted() {
    let fx = Fixture::new();
    let s = escaped(&fx, "opencode", Some(AgentSchema::OPENCODE), &["--auto"]);
    // Not a wait: one Escape must move nothing in this window.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(s.states("t"), ["working"], "one Escape leaves it streaming");
    let id = s.rt.tasks()[0].meta.id;
    s.send(id, ESC);
    assert_interrupted(&s, 5 * SEC, &["hook_interrupted"]);
}

#[test]
fn codex_escape_is_interrupted_not_done() {
    let fx = Fixture::new();
    let s = escaped(&fx, "codex", None, &["--auto"]);
    assert_interrupted(&s, 5 * SEC, &["native_idle", "interrupt_title"]);
}

#[test]
fn agy_escape_is_interrupted_once_the_terminal_goes_quiet() {
    let fx = Fixture::new();
    let s = escaped(&fx, "agy", Some(AgentSchema::AGY), &["--auto"]);
    // agy publishes nothing: only the quiet after the key (15 s grace) says
    // so. Its byte-quiet ask (12 s) must not fire over a pending interrupt.
    assert_interrupted(&s, 25 * SEC, &["interrupt_quiet"]);
}

#[test]
fn subagent_run_ends_done_exactly_once_at_stop() {
    let fx = Fixture::new();
    let s = claude_hooks_only(&fx, "subagents", &["--auto", "--speed", "100"]);
    let done = s.wait_state("t", "done", 20 * SEC);
    assert_eq!(done["rule"], "hook_done");
    // Not a wait: a subagent's second done would land in this window.
    std::thread::sleep(Duration::from_millis(500));
    s.assert_states("t", &["working", "done"]);
    let t = trace(&fx.trace_path("t"));
    let stop = t
        .iter()
        .find(|v| v["ev"] == "hook_spawn" && v["event"] == "Stop")
        .unwrap()["ts"]
        .as_f64()
        .unwrap();
    assert!(
        done["ts"].as_f64().unwrap() >= stop.floor(),
        "done comes from Stop, not before it"
    );
    let idle_titles = t
        .iter()
        .filter(|v| {
            v["ev"] == "title" && v["title"] == "✳ Claude Code" && v["ts"].as_f64().unwrap() < stop
        })
        .count();
    assert!(
        idle_titles >= 3,
        "the run did look idle at times ({idle_titles})"
    );
}

#[test]
fn agy_done_comes_from_its_stop_hook() {
    let fx = Fixture::new();
    let (s, _id) = wired(
        &fx,
        RuntimeConfig::default(),
        AgentSchema::AGY,
        "agy",
        "simple",
        &["--auto"],
    );
    let working = s.wait_state("t", "working", 10 * SEC);
    assert_eq!(working["rule"], "hook_working");
    let done = s.wait_state("t", "done", 10 * SEC);
    assert_eq!(done["rule"], "hook_done");
    // Not a wait: a second done would land in this window.
    std::thread::sleep(Duration::from_millis(300));
    s.assert_states("t", &["working", "done"]);
}

#[test]
fn codex_native_status_blocks_and_finishes() {
    let fx = Fixture::new();
    let s = Session::start(&fx, RuntimeConfig::default());
    let id = s.spawn(&fx, "t", "codex", "permission", &["--auto"]);
    let needs = s.wait_state("t", "needs_you", 10 * SEC);
    assert_eq!(needs["rule"], "native_blocked");
    assert_eq!(needs["attention"]["kind"], "permission");
    // Codex paints its approval (and its Action Required title) 1 s after
    // the last key; the answer comes once it shows, as a person's would.
    s.wait_screen(id, "Yes, proceed (y)", 10 * SEC);
    s.send(id, b"y");
    let done = s.wait_state("t", "done", 10 * SEC);
    assert_eq!(done["rule"], "native_done");
    assert_eq!(count(&s.states("t"), "needs_you"), 1, "{:?}", s.steps("t"));
}

#[test]
fn prose_question_ends_as_done_on_every_agent() {
    // The gap the plan says closes on no agent: a question asked in prose is
    // a normal end of turn. termic reports done, honestly, and no more.
    for (agent, schema, config, rule) in [
        (
            "claude",
            Some(AgentSchema::CLAUDE),
            no_native(),
            "hook_done",
        ),
        (
            "grok",
            Some(AgentSchema::GROK),
            RuntimeConfig::default(),
            "hook_done",
        ),
        (
            "agy",
            Some(AgentSchema::AGY),
            RuntimeConfig::default(),
            "hook_done",
        ),
        (
            "opencode",
            Some(AgentSchema::OPENCODE),
            RuntimeConfig::default(),
            "hook_done",
        ),
        ("codex", None, RuntimeConfig::default(), "native_done"),
    ] {
        let fx = Fixture::new();
        let s = Session::start(&fx, config);
        if let Some(schema) = schema {
            fx.install(&[schema]);
            s.rt.set_hooks_wired(agent, true);
        }
        s.spawn(&fx, "t", agent, "prose-question", &["--auto"]);
        let done = s.wait_state("t", "done", 10 * SEC);
        assert_eq!(done["rule"], rule, "{agent}: {:?}", s.steps("t"));
        // Not a wait: a needs-you or a second done would land in this window.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            s.states("t"),
            ["working", "done"],
            "{agent}: {:?}",
            s.steps("t")
        );
    }
}

#[test]
fn agy_permission_prompt_asks_after_the_quiet_and_its_stop_ends_the_turn() {
    // agy has no attention event and paints nothing while it waits, so with
    // its hooks wired the byte-quiet fallback (12 s) still asks, unsure,
    // and never claims a done; the done comes from its Stop hook.
    let fx = Fixture::new();
    let (s, id) = wired(
        &fx,
        RuntimeConfig::default(),
        AgentSchema::AGY,
        "agy",
        "permission",
        &["--auto"],
    );
    s.wait_state("t", "working", 10 * SEC);
    let needs = s.wait_state("t", "needs_you", 20 * SEC);
    assert_eq!(needs["rule"], "byte_quiet", "{needs}");
    assert_eq!(needs["attention"]["kind"], "unsure", "{needs}");
    s.assert_states("t", &["working", "needs_you"]);
    s.send(id, b"1");
    let done = s.wait_state("t", "done", 10 * SEC);
    assert_eq!(done["rule"], "hook_done", "{:?}", s.steps("t"));
    assert_eq!(count(&s.states("t"), "done"), 1, "{:?}", s.steps("t"));
}

#[test]
fn claude_background_tasks_keep_the_task_working_until_the_final_stop() {
    let fx = Fixture::new();
    let s = claude_hooks_only(&fx, "background", &["--auto", "--speed", "2"]);
    let done = s.wait_state("t", "done", 15 * SEC);
    assert_eq!(done["rule"], "hook_done");
    let t = trace(&fx.trace_path("t"));
    let stops: Vec<f64> = t
        .iter()
        .filter(|v| v["ev"] == "hook_spawn" && v["event"] == "Stop")
        .filter_map(|v| v["ts"].as_f64())
        .collect();
    assert_eq!(stops.len(), 2, "a background Stop, then the final one");
    assert!(
        done["ts"].as_f64().unwrap() >= stops[1].floor(),
        "done only at the final Stop"
    );
    s.assert_states("t", &["working", "done"]);
}
