//! Real agents with neither hooks nor native status (issue 12 items 4-5):
//! the screen rules and the titles alone must give needs you with no done
//! before it, as measured on the real binaries. Each test prints its
//! transitions and the latency from the agent's own sign to the badge.
//!
//! Opt-in like real_agents/tasks.rs: TERMIC_REAL_AGENTS and --ignored (.ci/run).
//! With TERMIC_TRACE_OUT set, the grok tests also write their run as a
//! `.trace` for termic-signal's corpus.

use crate::real_agents_support;

use std::thread;

use real_agents_support::*;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::ScenarioName;

/// The Inspector time of the first timeline entry holding all of `parts`.
fn at(task: &TermicTask, parts: &[&str]) -> Option<u64> {
    task.timeline()
        .iter()
        .filter(|e| parts.iter().all(|p| e.contains(p)))
        .find_map(|e| e.split(' ').next()?.parse().ok())
}

/// The Inspector time of the last entry holding all of `parts` at or before `until`.
fn last_before(task: &TermicTask, parts: &[&str], until: u64) -> Option<u64> {
    task.timeline()
        .iter()
        .filter(|e| parts.iter().all(|p| e.contains(p)))
        .filter_map(|e| e.split(' ').next()?.parse::<u64>().ok())
        .rfind(|at| *at <= until)
}

/// Claude with no hooks and `probe_reply: false` (what `[terminal]
/// native_probe_reply = false` gives: glyph titles, no native status):
/// `prompt`, its dialog on screen must be needs you of `kind` from the
/// screen rule, with no other state for 7 s (Claude's own nudge lands ~6 s
/// in); then `answer`, and unless `answer` is empty, one done. Prints the
/// latency from the idle title (the dialog is painted ~25 ms after it) to
/// the badge.
fn claude_without_channels(
    scenario: ScenarioName,
    setup: Setup,
    prompt: &str,
    kind: &str,
    answer: &[u8],
) {
    let (cache, _one) = begin();
    let task = TermicTask::start(&cache, Agent::Claude, scenario, setup);
    let t0 = task.prompt(prompt);
    let needs = task.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
    // Not a wait: the needs you must hold past the settle with no done.
    thread::sleep(7 * SEC);
    let blocked = task.states(t0);
    let label = format!("claude {kind}, no hooks, no probe reply");
    if answer.is_empty() {
        task.report(&label);
    } else {
        let t_key = task.keys(answer);
        task.expect_state("done", t_key, 90 * SEC, "no done after the answer");
        // Not a wait: a late done or state would show up in this window.
        thread::sleep(3 * SEC);
        task.report(&label);
        let states = task.states(t0);
        assert_honest_turn(&states);
        assert_released_to_working(&states);
    }
    assert_eq!(blocked, ["working", "needs_you"], "{blocked:?}");
    assert_eq!(
        (needs.rule.as_str(), needs.kind.as_deref()),
        ("screen_needs_you", Some(kind))
    );
    let badge = at(&task, &["transition", "-> needs_you"]).unwrap();
    let idle = last_before(&task, &["signal title", "✳"], badge).expect("idle title");
    eprintln!(
        "{label}: idle title -> needs you {} ms (screen facts every 50 ms)",
        badge - idle
    );
    // Usually under 100 ms; 4.0 to 4.5 s in 4 of 12 runs on 2026-12-06
    // (3 at load 12, 1 at load 2), with the states still right and no done.
    // The cause is not found yet (docs/gotchas.md, "Claude's dialogs
    // without channels: needs you 4 s after the idle title"). The bound
    // stays under Claude's own ~6 s nudge, so a late badge still fails.
    assert!(badge - idle < 5500, "{} ms", badge - idle);
    assert!(task
        .lines()
        .iter()
        .all(|l| !l.rule.contains("hook") && !l.rule.contains("native")));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_without_hooks_or_probe_reply_permission_is_needs_you_with_no_false_done() {
    let prompt = "create the file out.txt please";
    claude_without_channels(
        ScenarioName::Write,
        Setup::default(),
        prompt,
        "permission",
        b"\r",
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_without_hooks_or_probe_reply_question_is_needs_you() {
    claude_without_channels(
        ScenarioName::Ask,
        Setup::default(),
        "ask me a color",
        "question",
        b"\r",
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_without_hooks_or_probe_reply_plan_approval_is_needs_you() {
    let setup = Setup {
        before: Some(plan_mode),
        ..Setup::default()
    };
    // Approving switches Claude out of plan mode; the answer's turn is not
    // what this measures, so the test stops at the needs you.
    claude_without_channels(ScenarioName::Plan, setup, "plan it", "plan", b"");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_opencode_without_hooks_permission_is_needs_you_with_no_done_before_it() {
    let (cache, _one) = begin();
    let task = TermicTask::start(
        &cache,
        Agent::Opencode,
        ScenarioName::Write,
        Setup::default(),
    );
    let t0 = task.prompt("create the file out.txt please");
    // opencode's first start in a fresh HOME can sit silent for more than
    // 12 s (its plugin install), so the byte-quiet fallback may already
    // have asked (kind unsure) when the prompt appears: the rule then
    // sharpens that needs-you to a permission instead of raising a second.
    let deadline = std::time::Instant::now() + 150 * SEC;
    let matched = loop {
        if let Some(at) = at(&task, &["screen rule opencode.permission-prompt matches"]) {
            break at;
        }
        if std::time::Instant::now() > deadline {
            task.dump_all();
            panic!("opencode's permission prompt never matched");
        }
        thread::sleep(std::time::Duration::from_millis(100));
    };
    thread::sleep(SEC);
    let blocked = task.states(t0);
    let badge = task.first("needs_you", t0);
    let timeline = task.timeline();
    let raised = timeline.iter().any(|e| {
        e.contains("-> needs_you (screen:") || e.contains("attention is now kind=permission")
    });
    let t_key = task.keys(b"\r");
    task.expect_state("working", t_key, 30 * SEC, "not working after approval");
    // Not a wait: a late done or state would show up in this window.
    thread::sleep(3 * SEC);
    task.report("opencode, no hooks");
    assert_eq!(
        blocked.last().map(String::as_str),
        Some("needs_you"),
        "{blocked:?}"
    );
    assert!(!blocked.iter().any(|s| s == "done"), "{blocked:?}");
    assert!(
        raised,
        "needs you, kind permission, from the screen: {timeline:#?}"
    );
    let tool = task
        .server
        .requests()
        .into_iter()
        .find(|e| !e.side && e.reply.starts_with("tool"))
        .expect("tool call");
    eprintln!(
        "opencode no channel: first needs you from {} ({:?}); prompt matched at +{} ms \
         on the runtime clock; tool call answered -> first needs you {} ms",
        badge.rule,
        badge.kind,
        matched,
        badge.ts as i64 - tool.finished_ms.unwrap_or(tool.ts_ms) as i64
    );
    // opencode's titles carry no state: without its plugin nothing can say
    // done, and nothing here does.
    assert!(!task.states(t0).iter().any(|s| s == "done"));
}

/// grok without hooks: the Action Required title (or the prompt on screen)
/// is needs you, and after `answer` the title's return to idle ends the
/// turn with a done after the settle (issue 12 item 4).
fn grok_without_hooks(answer: &[u8], trace_name: &str) {
    let (cache, _one) = begin();
    let task = TermicTask::start(&cache, Agent::Grok, ScenarioName::Write, Setup::default());
    let t0 = task.prompt("create the file out.txt please");
    let needs = task.expect_state("needs_you", t0, 90 * SEC, "no needs_you");
    // Paced like a person: a real agent can drop keys sent sooner
    // (real_agents_support/driven.rs).
    thread::sleep(2 * SEC);
    let t_key = task.keys(answer);
    let done = task.expect_state("done", t_key, 60 * SEC, "no done after the answer");
    // Not a wait: a late done or state would show up in this window.
    thread::sleep(3 * SEC);
    let states = task.states(t0);
    task.report(trace_name);
    assert_honest_turn(&states);
    assert_released_to_working(&states);
    assert!(
        needs.rule == "title_needs_you" || needs.rule == "screen_needs_you",
        "{}",
        needs.rule
    );
    assert_eq!(done.rule, "settle");
    let done_at = at(&task, &["transition", "-> done"]).unwrap();
    let last_idle = last_before(&task, &["signal title", "(idle, grok.idle)"], done_at).unwrap();
    let title_needs = at(&task, &["transition", "-> needs_you"]).unwrap();
    let screen = at(&task, &["screen rule grok.permission-prompt matches"]);
    eprintln!(
        "grok no channel ({trace_name}): needs you at the Action Required title +0 ms; \
         screen rule matched {:?} ms after it",
        screen.map(|s| s as i64 - title_needs as i64)
    );
    eprintln!(
        "grok no channel ({trace_name}): idle title -> done {} ms (settle 5 s)",
        done_at - last_idle
    );
    let header = format!(
        "# grok 0.2.111, write permission prompt, no hooks, answered with {:?}\n\
         # Recorded under termic: the real grok as a termic task against\n\
         # termic-fakemodel (crates/termic/tests/real_agents/screen.rs, with\n\
         # TERMIC_TRACE_OUT set): window titles from the Inspector timeline and\n\
         # the keys sent, on the runtime's clock. Screen rows are not in it.\n\
         agent grok\nhooks off",
        String::from_utf8_lossy(answer)
    );
    let trace = task.trace(&header, trace_name);
    assert!(trace.contains("Action Required"), "{trace}");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_grok_without_hooks_approved_prompt_ends_in_one_done() {
    grok_without_hooks(b"3", "real-grok-0.2.111-approve-no-hooks.trace");
}
