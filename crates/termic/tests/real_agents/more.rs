//! Gemini CLI, Qwen Code and GitHub Copilot CLI as termic tasks, before
//! termic wires their hooks (issue 15): with titles and screen rules alone a
//! permission prompt must read needs you with no done before it, and the
//! badge must claim no more than the agent's terminal says. Closing a task
//! must leave none of its processes behind (Gemini CLI's relauncher ignores
//! SIGHUP). Opt-in like real_agents/tasks.rs: TERMIC_REAL_AGENTS and --ignored.

use crate::real_agents_support;

use std::thread;
use std::time::{Duration, Instant};

use real_agents_support::*;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::pty::processes_with_home;
use termic_fakemodel::ScenarioName;
use termic_hooks::agents::AgentSchema;

/// The Inspector time of the first timeline entry holding all of `parts`.
fn at(task: &TermicTask, parts: &[&str]) -> Option<u64> {
    task.timeline()
        .iter()
        .filter(|e| parts.iter().all(|p| e.contains(p)))
        .find_map(|e| e.split(' ').next()?.parse().ok())
}

/// Prompts for the file and waits for the first needs you; prints the
/// screen at that moment. Returns (prompt time, the needs-you line).
fn blocked(task: &TermicTask) -> (u64, Line) {
    task.takes_input();
    let t0 = task.prompt("create the file out.txt please");
    let needs = match task.wait_state("needs_you", t0, 120 * SEC) {
        Some(line) => line,
        None => {
            task.dump_all();
            panic!("{}: no needs_you", task.agent.name());
        }
    };
    thread::sleep(1500 * Duration::from_millis(1)); // the dialog finishes painting
    let screen = task
        .rt
        .with_screen(task.id, |s| s.contents())
        .unwrap_or_default();
    eprintln!("{} screen at needs you:\n{screen}", task.agent.name());
    (t0, needs)
}

/// Gemini or Qwen without hooks: the title says needs you while the prompt
/// waits (nothing else for 4 s), Enter approves, the title's return to
/// idle gives exactly one done. Prints the title-to-badge latency.
fn title_agent_permission(agent: Agent, blocked_title: &str, version: &str) {
    let (cache, _one) = begin();
    let task = TermicTask::start(&cache, agent, ScenarioName::Write, Setup::default());
    let (t0, needs) = blocked(&task);
    // Not a wait: the needs you must hold through this window with no done.
    thread::sleep(4 * SEC);
    let held = task.states(t0);
    let t_key = task.keys(b"\r");
    task.expect_state("done", t_key, 90 * SEC, "no done after approval");
    // Not a wait: a late done or state would show up in this window.
    thread::sleep(3 * SEC);
    let label = format!("{}, no hooks", agent.name());
    task.report(&label);
    let states = task.states(t0);
    assert_eq!(held, ["working", "needs_you"], "{held:?}");
    // The title and the dialog on screen are both the agent's own sign;
    // under load the screen rule (read every 50 ms) can come first.
    assert!(
        needs.rule == "title_needs_you" || needs.rule == "screen_needs_you",
        "{needs:?}"
    );
    assert_honest_turn(&states);
    assert_released_to_working(&states);
    assert!(task.project.join("out.txt").is_file());
    let badge = at(&task, &["transition", "-> needs_you"]).unwrap();
    let title = at(&task, &["signal title", blocked_title]).unwrap();
    let done = at(&task, &["transition", "-> done"]).unwrap();
    let idle = task
        .timeline()
        .iter()
        .filter(|e| e.contains("signal title") && e.contains("idle"))
        .filter_map(|e| e.split(' ').next()?.parse::<u64>().ok())
        .rfind(|t| *t <= done)
        .expect("an idle title before the done");
    eprintln!(
        "{}: needs you from {}, {} ms after the blocked title; idle title -> done {} ms \
         (the settle)",
        agent.name(),
        needs.rule,
        badge as i64 - title as i64,
        done - idle
    );
    let name = agent.name();
    let header = format!(
        "# {name} {version}, write permission prompt, no hooks, approved with Enter\n\
         # Recorded under termic: the real {name} as a termic task against\n\
         # termic-fakemodel (crates/termic/tests/real_agents/more.rs, with\n\
         # TERMIC_TRACE_OUT set): window titles from the Inspector timeline and\n\
         # the keys sent, on the runtime's clock. Screen rows are not in it.\n\
         agent {name}\nhooks off"
    );
    let trace = task.trace(
        &header,
        &format!("real-{name}-{version}-write-no-hooks.trace"),
    );
    assert!(trace.contains(blocked_title), "{trace}");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_gemini_without_hooks_permission_is_needs_you_then_one_done() {
    title_agent_permission(Agent::Gemini, "Action Required", "0.61.0");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_qwen_without_hooks_permission_is_needs_you_then_one_done() {
    title_agent_permission(Agent::Qwen, "\u{2733}", "0.24.4");
}

/// Copilot's title never changes, so without hooks only its permission
/// prompt on screen says anything: needs you from the screen rule, and no
/// done at all (nothing on its terminal says its turn ended); once it is
/// quiet, the byte-quiet fallback asks the user to look.
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_copilot_without_hooks_permission_is_needs_you_and_never_done() {
    let (cache, _one) = begin();
    let task = TermicTask::start(
        &cache,
        Agent::Copilot,
        ScenarioName::Write,
        Setup::default(),
    );
    let (t0, needs) = blocked(&task);
    let held = task.states(t0);
    let t_key = task.keys(b"\r");
    task.expect_state("working", t_key, 30 * SEC, "not working after approval");
    let deadline = Instant::now() + 30 * SEC;
    while !task.project.join("out.txt").is_file() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    // The turn is over once the answer is on screen; then the only thing
    // termic may say is the quiet fallback's "take a look", never done.
    let t_end = termic_fakemodel::pty::now_ms() as u64;
    let look = task.wait_state("needs_you", t_end, 60 * SEC);
    thread::sleep(2 * SEC);
    task.report("copilot, no hooks");
    let states = task.states(t0);
    let look = look.expect("the quiet fallback asks to look after the turn");
    assert!(
        look.rule.contains("quiet") || look.rule.contains("settled"),
        "{look:?}"
    );
    eprintln!(
        "copilot: after the turn, needs you from {} {} ms after the approval",
        look.rule,
        look.ts - t_key
    );
    assert_eq!(held, ["working", "needs_you"], "{held:?}");
    assert_eq!(
        (needs.rule.as_str(), needs.kind.as_deref()),
        ("screen_needs_you", Some("permission")),
        "{needs:?}"
    );
    assert!(task.project.join("out.txt").is_file());
    assert!(!states.iter().any(|s| s == "done"), "{states:?}");
    let badge = at(&task, &["transition", "-> needs_you"]).unwrap();
    let tool = task
        .server
        .requests()
        .into_iter()
        .find(|e| !e.side && e.reply.starts_with("tool"))
        .expect("the tool call");
    eprintln!(
        "copilot: tool call answered -> needs you {} ms (screen facts every 50 ms)",
        needs.ts as i64 - tool.finished_ms.unwrap_or(tool.ts_ms) as i64
    );
    let _ = badge;
}

/// A task in the middle of a turn is closed: every process it started is
/// gone within termic's kill grace (plus margin), and none was left to the
/// test's own cleanup.
fn closes_cleanly(agent: Agent) {
    let (cache, _one) = begin();
    let setup = Setup {
        slow_for: Some(60 * SEC),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, agent, ScenarioName::Slow, setup);
    task.takes_input();
    let t0 = task.prompt("count slowly");
    task.expect_state("working", t0, 30 * SEC, "not working after the prompt");
    task.server
        .wait_for(60 * SEC, |e| !e.side)
        .expect("the model request");
    let before = processes_with_home(&task.home);
    assert!(!before.is_empty());
    let t_close = Instant::now();
    task.rt.kill(task.id).unwrap();
    let deadline = Instant::now() + 15 * SEC;
    while !processes_with_home(&task.home).is_empty() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(50));
    }
    let left = processes_with_home(&task.home);
    eprintln!(
        "{}: {} processes, all gone {} ms after close; left: {left:?}",
        agent.name(),
        before.len(),
        t_close.elapsed().as_millis()
    );
    assert!(left.is_empty(), "left after close: {left:?}");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_gemini_task_closes_cleanly_mid_turn() {
    closes_cleanly(Agent::Gemini);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_qwen_task_closes_cleanly_mid_turn() {
    closes_cleanly(Agent::Qwen);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_copilot_task_closes_cleanly_mid_turn() {
    closes_cleanly(Agent::Copilot);
}

/// Escape mid-answer with no hooks: the idle title that follows the key
/// (Gemini ~220 ms, Qwen ~390 ms) is an interrupt, never a done.
fn escape_is_interrupted(agent: Agent) {
    let (cache, _one) = begin();
    let setup = Setup {
        slow_for: Some(20 * SEC),
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, agent, ScenarioName::Slow, setup);
    task.takes_input();
    let t0 = escape_turn(&task);
    let states = task.states(t0);
    assert!(!states.iter().any(|s| s == "done"), "{states:?}");
    assert_eq!(states.last().map(String::as_str), Some("interrupted"));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_gemini_without_hooks_escape_is_interrupted_not_done() {
    escape_is_interrupted(Agent::Gemini);
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_qwen_without_hooks_escape_is_interrupted_not_done() {
    escape_is_interrupted(Agent::Qwen);
}

/// With termic's hooks installed (`termic_hooks` into the scratch HOME): a
/// permission prompt reads needs you with no done before it, the approval
/// gives exactly one done, and that done is the agent's own end-of-turn
/// hook (not a title or a settle). Prints the hook-to-badge times from the
/// Inspector timeline.
fn hooks_permission(agent: Agent, schema: AgentSchema, attention: &str, done_hook: &str) {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![schema],
        ..Setup::default()
    };
    let task = TermicTask::start(&cache, agent, ScenarioName::Write, setup);
    let (t0, _needs) = blocked(&task);
    // Not a wait: the needs you must hold through this window with no done.
    thread::sleep(4 * SEC);
    let held = task.states(t0);
    let t_key = task.keys(b"\r");
    let done = task.expect_state("done", t_key, 90 * SEC, "no done after approval");
    // Not a wait: a late done or state would show up in this window.
    thread::sleep(3 * SEC);
    task.report(&format!("{}, hooks", agent.name()));
    let states = task.states(t0);
    assert_eq!(held, ["working", "needs_you"], "{held:?}");
    assert_honest_turn(&states);
    assert_eq!(done.rule, "hook_done", "{done:?}");
    assert!(task.project.join("out.txt").is_file());
    let hook_attention = at(&task, &[" signal hook", attention]);
    let hook_done = at(&task, &[" signal hook", done_hook]);
    assert!(
        hook_attention.is_some(),
        "no {attention} hook reached termic"
    );
    eprintln!(
        "{}: {attention} hook at {hook_attention:?}, {done_hook} hook at {hook_done:?}, done at {}",
        agent.name(),
        done.ts
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_gemini_with_hooks_permission_is_needs_you_then_one_hook_done() {
    hooks_permission(
        Agent::Gemini,
        AgentSchema::GEMINI,
        "Notification",
        "AfterAgent",
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_qwen_with_hooks_permission_is_needs_you_then_one_hook_done() {
    hooks_permission(Agent::Qwen, AgentSchema::QWEN, "PermissionRequest", "Stop");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_copilot_with_hooks_permission_is_needs_you_then_one_hook_done() {
    hooks_permission(
        Agent::Copilot,
        AgentSchema::COPILOT,
        "permissionRequest",
        "agentStop",
    );
}
