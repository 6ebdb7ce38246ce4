//! Real agents through termic: the real Claude Code, opencode, grok and Codex
//! run as termic tasks (the runtime `termic run` uses: PTY, env contract,
//! terminal replies, signal engine, event log) against the fake model
//! server, with hooks installed by termic-hooks into a fixture HOME. Every
//! scenario is asserted on termic's event log.
//!
//! Opt-in: set TERMIC_REAL_AGENTS to the cache `.ci/real-agents-install`
//! filled, and pass --ignored (.ci/run does both). One agent runs
//! at a time.

use crate::real_agents_support;

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use real_agents_support::*;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::drive::scratch_dir;
use termic_fakemodel::pty::processes_with_home;
use termic_fakemodel::recorder;
use termic_fakemodel::suite::real_agents_cache;
use termic_fakemodel::ScenarioName;
use termic_hooks::agents::AgentSchema;

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_hooks_without_probe_reply_give_needs_you_then_one_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE],
        recorder: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Write, setup);
    let (t0, states) = permission_turn(&task, b"\r");
    assert_honest_turn(&states);
    assert_released_to_working(&states);
    let needs = task.assert_needs_you_from(t0, "hook_attention", Some("permission"));
    let done = task.first("done", t0);
    assert_eq!(done.rule, "hook_done", "done at Stop, not after a settle");
    // The hook's OSC reached termic within the measured window, needs you
    // followed after the engine's permission debounce (1 s), and done came at
    // Stop with no settle delay (the settle is 5 s). Hook start times come
    // from the recorder, registered beside termic's hook for the same event.
    // Bounds are generous for 2 loaded cores; the values are printed.
    let hooks = recorder::read(&task.home);
    let started = |event: &str, since: u64| {
        hooks
            .iter()
            .find(|h| h.event == event && h.ts_ms >= since as f64)
            .unwrap_or_else(|| panic!("{event} fired: {hooks:?}"))
            .ts_ms
    };
    let request = started("PermissionRequest", t0);
    // The Inspector timeline runs on termic's monotonic clock, the event log
    // on the wall clock: place the signal by its distance to the transition.
    let timeline = task.timeline();
    let at = |part: &str, also: &str| {
        timeline
            .iter()
            .filter(|e| e.contains(part) && e.contains(also))
            .find_map(|e| e.split(' ').next()?.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {part:?} {also:?} in the timeline: {timeline:#?}"))
    };
    let signal_to_needs =
        at(" transition ", "-> needs_you") - at(" signal hook", "PermissionRequest");
    let arrived = needs.ts as f64 - signal_to_needs;
    let (osc_ms, attention_ms) = (arrived - request, needs.ts as f64 - request);
    let done_ms = done.ts as f64 - started("Stop", needs.ts);
    eprintln!(
        "claude hooks: PermissionRequest start -> signal {osc_ms:.0} ms, -> needs_you \
         {attention_ms:.0} ms; Stop start -> done {done_ms:.0} ms"
    );
    // The recorder starts beside termic's hook, not before it: its own
    // start-up can put its stamp a few ms after termic already moved (-9 ms
    // measured for Stop), hence the small negative allowance.
    assert!((-500.0..1500.0).contains(&osc_ms), "{osc_ms} ms");
    assert!(
        (-500.0..3000.0).contains(&attention_ms),
        "{attention_ms} ms"
    );
    assert!((-500.0..2000.0).contains(&done_ms), "{done_ms} ms");
    assert_no_termic_file(&task.project);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_native_status_without_hooks_gives_needs_you_then_one_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Write, setup);
    let (t0, states) = permission_turn(&task, b"\r");
    assert_honest_turn_per_frame(&states);
    assert_released_to_working(&states);
    task.assert_needs_you_from(t0, "native_blocked", Some("permission"));
    assert_eq!(task.first("done", t0).rule, "native_done");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_native_status_and_hooks_agree_one_needs_you_one_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        hooks: vec![AgentSchema::CLAUDE],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Write, setup);
    let (_, states) = permission_turn(&task, b"\r");
    assert_honest_turn(&states);
    assert_released_to_working(&states);
    assert_eq!(
        states.iter().filter(|s| *s == "needs_you").count(),
        1,
        "{states:?}"
    );
}

// Claude with neither hooks nor a probe reply: real_agents/screen.rs (the
// screen rules now stop the plan's false done there).

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_escape_is_interrupted_not_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        hooks: vec![AgentSchema::CLAUDE],
        slow_for: Some(20 * SEC),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Slow, setup);
    let t0 = escape_turn(&task);
    assert!(
        !task.states(t0).iter().any(|s| s == "done"),
        "{:?}",
        task.states(t0)
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_ask_user_question_needs_you_as_a_question() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Ask, setup);
    let t0 = task.prompt("ask me a color");
    let needs = task.wait_state("needs_you", t0, 60 * SEC);
    task.report("claude ask");
    assert_eq!(needs.expect("needs you").kind.as_deref(), Some("question"));
    // Paced like a person: a real agent can drop keys sent sooner
    // (real_agents_support/driven.rs).
    thread::sleep(SEC);
    let t_key = task.keys(b"\r");
    task.wait_state("done", t_key, 60 * SEC)
        .expect("done after the answer");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_from_inside_tmux_still_reports() {
    let (cache, _one) = begin();
    // termic itself started inside tmux: the child must not see it.
    std::env::set_var("TMUX", "/tmp/tmux-0/default,4242,0");
    std::env::set_var("TMUX_PANE", "%3");
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Write, setup);
    std::env::remove_var("TMUX");
    std::env::remove_var("TMUX_PANE");
    let (_, states) = permission_turn(&task, b"\r");
    assert_honest_turn(&states);
    assert_released_to_working(&states);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_claude_outside_termic_with_hooks_installed_prints_no_termic_sequence() {
    let (cache, _one) = begin();
    use termic_fakemodel::drive::{AgentRun, RunOptions};
    fn install_claude(home: &Path) {
        install_hooks(home, &[AgentSchema::CLAUDE]);
    }
    let opts = RunOptions {
        before_spawn: Some(install_claude),
        ..RunOptions::default()
    };
    let mut run = AgentRun::start(&cache, Agent::Claude, ScenarioName::Write, opts).unwrap();
    let t0 = run.prompt("create the file out.txt please").unwrap();
    run.server
        .wait_for(60 * SEC, |e| !e.side && e.reply.starts_with("tool"))
        .expect("tool call");
    // Paced like a person: a real agent can drop keys sent sooner
    // (real_agents_support/driven.rs).
    thread::sleep(2 * SEC);
    run.keys(b"\r").unwrap();
    run.server
        .wait_for(60 * SEC, |e| {
            !e.side && e.step == 1 && e.finished_ms.is_some()
        })
        .expect("turn ended");
    // Not a wait: a termic sequence printed late would show up in this window.
    thread::sleep(2 * SEC);
    let text = String::from_utf8_lossy(&run.pty.output()).into_owned();
    assert!(
        !text.contains("777;termic"),
        "a termic sequence outside termic"
    );
    assert!(t0 > 0.0 && run.project.join("out.txt").exists());
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_opencode_permission_asked_replied_and_one_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::OPENCODE],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Opencode, ScenarioName::Write, setup);
    let (t0, states) = permission_turn(&task, b"\r");
    assert_honest_turn(&states);
    task.assert_needs_you_from(t0, "hook_attention", Some("permission"));
    assert_released_to_working(&states);
    assert_no_termic_file(&task.project);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_multi_step_turn_is_working_throughout_then_one_hook_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Multi, setup);
    assert_multi_step_turn(&task, "hook_done");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_native_multi_step_turn_is_working_throughout_then_one_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Multi, setup);
    assert_multi_step_turn(&task, "native_done");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_opencode_multi_step_turn_is_working_throughout_then_one_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::OPENCODE],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Opencode, ScenarioName::Multi, setup);
    assert_multi_step_turn(&task, "hook_done");
}

/// How long after its first model request Claude Code may report native
/// `working` (20 to 70 ms measured at load 7 to 15; docs/gotchas.md).
const NATIVE_REPORT_LAG_MS: u64 = 250;

/// One prompt, then the multi scenario's read-only tool calls (reads inside
/// the project need no permission) with a pause before each, then the
/// answer: the task is working from before the first model request until
/// after the last, with no other state in between, then done exactly once
/// (from `done_rule`), and the model saw one request per step plus the one
/// that ended the turn.
fn assert_multi_step_turn(task: &TermicTask, done_rule: &str) {
    let steps = termic_fakemodel::Scenario::new(ScenarioName::Multi, "").steps;
    let readme = "A file the fake model reads.\n";
    std::fs::write(task.project.join("README.md"), readme).unwrap();
    let t0 = task.prompt("read the readme, step by step");
    let done = task.expect_state("done", t0, 120 * SEC, "no done after the steps");
    thread::sleep(3 * SEC); // a second done, or a late state, shows up here
    task.report(&format!("{} multi-step", task.name()));
    let states = task.states(t0);
    assert_eq!(states, ["working", "done"], "one prompt, one turn");
    assert_eq!(done.rule, done_rule);
    let turn: Vec<_> = task
        .server
        .requests()
        .into_iter()
        .filter(|r| !r.side && r.ts_ms >= t0)
        .collect();
    for r in &turn {
        eprintln!(
            "  model {} step={} results={} -> {}",
            r.ts_ms,
            r.step,
            r.tool_results.len(),
            r.reply
        );
    }
    let made: Vec<usize> = turn.iter().map(|r| r.step).collect();
    assert_eq!(
        made,
        (0..=steps).collect::<Vec<_>>(),
        "one request per step"
    );
    assert!(turn[..steps].iter().all(|r| r.reply.starts_with("tool")));
    let last = turn.last().unwrap();
    assert!(
        last.tool_results.len() == steps
            && last.tool_results.iter().all(|t| t.contains(readme.trim())),
        "every step read the file: {:?}",
        last.tool_results
    );
    let working = task.first("working", t0);
    let ended = last.finished_ms.expect("the last answer finished");
    let side = task.server.requests().iter().filter(|r| r.side).count();
    eprintln!(
        "{} multi-step: working {} ms after Enter, first request {} ms, last answer \
         finished {} ms, done {} ms ({}); {side} side requests",
        task.name(),
        working.ts - t0,
        turn[0].ts_ms - t0,
        ended - t0,
        done.ts - t0,
        done.rule
    );
    // Claude Code 2.1.332 sends its first model request 20 to 70 ms before
    // it reports native `working` (measured; termic moves in the millisecond
    // the report arrives), so with native status alone the badge may trail
    // the first request by that much. Hooks (UserPromptSubmit) come first.
    let lag = if done_rule == "native_done" {
        NATIVE_REPORT_LAG_MS
    } else {
        0
    };
    assert!(
        working.ts <= turn[0].ts_ms + lag,
        "working before the first step (allowed lag {lag} ms)"
    );
    assert!(done.ts >= ended, "done only after the last answer");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_grok_notification_then_one_done_and_idle_prompt_changes_nothing() {
    let (cache, _one) = begin();
    let env = vec![(
        "GROK_IDLE_NOTIFICATION_DELAY_MS".to_string(),
        "3000".to_string(),
    )];
    // Both installs: grok also runs termic's claude hooks, which must stay
    // silent. The recorder in claude's settings.json is the positive control
    // for the compat-off test below: with compat on, grok runs it.
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE, AgentSchema::GROK],
        recorder_in: Some(Agent::Claude),
        env,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Grok, ScenarioName::Write, setup);
    let (t0, _) = permission_turn(&task, b"3");
    thread::sleep(3 * SEC); // the idle_prompt notification lands 3 s after Stop
    let states = task.states(t0);
    assert_honest_turn(&states);
    // Only the claude-file recorder is installed, so every record is one.
    let ran: Vec<Option<String>> = recorder::read(&task.home)
        .into_iter()
        .map(|h| h.grok_event)
        .collect();
    eprintln!("claude-file hooks grok ran: {ran:?}");
    for event in ["user_prompt_submit", "stop"] {
        assert!(
            ran.contains(&Some(event.to_string())),
            "grok ran the claude-file {event} hook: {ran:?}"
        );
    }
    // termic's claude scripts ran under grok too (both installed) and must
    // have said nothing: every hook message the engine saw is grok's.
    let hook_signals = hook_signals(&task);
    eprintln!("grok hook signals: {hook_signals:#?}");
    assert!(!hook_signals.is_empty(), "grok's own hooks reported");
    // Grok's install also uses UserPromptSubmit and Stop: a claude script
    // that spoke would double them (or bring a PermissionRequest).
    let count = |what: &str| hook_signals.iter().filter(|e| e.contains(what)).count();
    assert_eq!(
        (
            count("(UserPromptSubmit)"),
            count("(Stop)"),
            count("PermissionRequest")
        ),
        (1, 1, 0),
        "{hook_signals:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_grok_with_claude_compat_off_runs_no_claude_hook_and_still_reports() {
    let (cache, _one) = begin();
    fn compat_off(home: &Path) {
        let path = home.join(".grok/config.toml");
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str("\n[compat.claude]\nhooks = false\n");
        std::fs::write(path, text).unwrap();
    }
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE, AgentSchema::GROK],
        recorder_in: Some(Agent::Claude),
        before: Some(compat_off),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Grok, ScenarioName::Write, setup);
    let (t0, states) = permission_turn(&task, b"3");
    assert_honest_turn(&states);
    assert_grok_released(&task.lines(), t0);
    // The recorder sits in claude's settings.json beside termic's claude
    // hooks; the test above shows grok runs it when compat is on.
    let settings = std::fs::read_to_string(task.home.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("rec/hook.sh") && settings.contains("termic-hooks"),
        "the recorder and termic's claude hooks are both there: {settings}"
    );
    let ran = recorder::read(&task.home);
    assert!(ran.is_empty(), "grok ran claude-file hooks: {ran:?}");
    // termic's grok hooks still drove the turn: its Notification and Stop
    // reached the engine, and the done is the Stop hook's.
    let hook_signals = hook_signals(&task);
    eprintln!("grok hook signals, compat off: {hook_signals:#?}");
    let count = |what: &str| hook_signals.iter().filter(|e| e.contains(what)).count();
    assert_eq!(
        (
            count("(UserPromptSubmit)"),
            count("(Notification)"),
            count("(Stop)")
        ),
        (1, 1, 1),
        "{hook_signals:?}"
    );
    assert_eq!(task.first("done", t0).rule, "hook_done");
}

/// The hook messages the engine received, from its Inspector timeline.
fn hook_signals(task: &TermicTask) -> Vec<String> {
    task.timeline()
        .into_iter()
        .filter(|e| e.contains(" signal hook"))
        .collect()
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_grok_escape_is_interrupted_by_key_and_idle_title() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::GROK],
        slow_for: Some(20 * SEC),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Grok, ScenarioName::Slow, setup);
    let t0 = escape_turn(&task);
    assert!(!task.states(t0).iter().any(|s| s == "done"));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_codex_needs_you_from_native_status_and_its_app_server_ends() {
    let (cache, _one) = begin();
    let task = TermicTask::start(&cache, Agent::Codex, ScenarioName::Write, Setup::default());
    let (t0, states) = permission_turn(&task, b"y");
    assert_honest_turn(&states);
    let needs = task.assert_needs_you_from(t0, "native", None);
    let tool_call = task
        .server
        .requests()
        .into_iter()
        .find(|e| !e.side && e.reply.starts_with("tool"))
        .unwrap();
    let after_tool = needs.ts as i64 - tool_call.ts_ms as i64;
    eprintln!("codex: needs you {after_tool} ms after the model's tool call");
    assert!(after_tool < 800, "needs you {after_tool} ms after the tool call: the title (held ~1 s) was not what moved it");
    let home = task.home.clone();
    assert!(processes_with_home(&home).len() > 1);
    task.rt.kill(task.id).unwrap();
    let deadline = std::time::Instant::now() + 10 * SEC;
    while !processes_with_home(&home).is_empty() && std::time::Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    let left = processes_with_home(&home);
    drop(task); // ends the leftovers so the test leaks nothing
    assert!(
        left.is_empty(),
        "codex processes survived termic's kill by 10 s: {left:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_codex_escape_is_interrupted_not_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        slow_for: Some(20 * SEC),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Codex, ScenarioName::Slow, setup);
    let t0 = escape_turn(&task);
    assert!(!task.states(t0).iter().any(|s| s == "done"));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_agents_fixture_home_is_byte_identical_after_install_and_remove() {
    let cache = real_agents_cache();
    let root = scratch_dir("home-roundtrip");
    let (home, project) = (root.join("home"), root.join("proj"));
    for agent in Agent::ALL {
        agent
            .prepare(&cache, &home, &project, "http://127.0.0.1:9")
            .unwrap();
    }
    let before = snapshot(&home);
    let all = [
        AgentSchema::CLAUDE,
        AgentSchema::GROK,
        AgentSchema::OPENCODE,
    ];
    install_hooks(&home, &all);
    assert_ne!(snapshot(&home), before, "the install wrote something");
    remove_hooks(&home, &all);
    let after = snapshot(&home);
    let changed: Vec<&PathBuf> = after
        .keys()
        .chain(before.keys())
        .filter(|k| after.get(*k) != before.get(*k))
        .collect();
    assert!(
        changed.is_empty(),
        "changed by install then remove: {changed:?}"
    );
    assert!(snapshot(&project).is_empty());
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_codex_start_up_is_not_a_turn() {
    let (cache, _one) = begin();
    // Codex 0.171.0 sends state=idle, working, idle at start-up with no
    // prompt: that must not show as a turn, let alone an interrupted one.
    let task = TermicTask::start(&cache, Agent::Codex, ScenarioName::Plain, Setup::default());
    thread::sleep(3 * SEC);
    task.report("codex start-up");
    assert!(
        task.states(0).is_empty(),
        "transitions before any prompt: {:?}",
        task.states(0)
    );
}

/// Issue 12 item 3 with the real agent: a shell task (bash with termic's
/// integration), the user types `claude` at its prompt. The task takes
/// Claude's profile while it runs (its foreground process is Claude Code),
/// Claude's hooks own the turn (needs you from the permission hook with no
/// done before it, one done at Stop), and when Claude exits the shell's
/// profile is back. Measured so far only with the simulator as `claude`.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_typed_at_a_bash_prompt_takes_over_the_task_and_hands_it_back() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE],
        in_shell: true,
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, Agent::Claude, ScenarioName::Write, setup);
    let profile = || task.rt.with_engine(task.id, |e| e.profile_id().to_string());
    let foreground = || {
        task.rt
            .with_engine(task.id, |e| e.foreground_profile().map(str::to_string))
            .flatten()
    };
    assert_eq!(profile().as_deref(), Some("shell"));
    task.keys(b"claude\r");
    let end = Instant::now() + 60 * SEC;
    while foreground().as_deref() != Some("claude") {
        assert!(
            Instant::now() < end,
            "claude never became the foreground agent"
        );
        thread::sleep(Duration::from_millis(50));
    }
    task.wait_ready();
    let (t0, states) = permission_turn(&task, b"\r");
    assert_honest_turn(&states);
    task.assert_needs_you_from(t0, "hook_attention", Some("permission"));
    assert_eq!(task.first("done", t0).rule, "hook_done");
    assert!(task.project.join("out.txt").is_file());
    // Ctrl-C twice leaves Claude Code; the shell takes the task back.
    task.keys(b"\x03");
    thread::sleep(Duration::from_millis(500));
    task.keys(b"\x03");
    let end = Instant::now() + 30 * SEC;
    while foreground().is_some() {
        assert!(Instant::now() < end, "claude never handed the task back");
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(profile().as_deref(), Some("shell"));
}
