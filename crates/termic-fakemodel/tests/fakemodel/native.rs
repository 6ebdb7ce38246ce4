//! Real agents, no termic: what each pinned agent puts on its terminal and
//! which hooks it fires, for the behaviours termic depends on. Opt-in: set
//! TERMIC_REAL_AGENTS to the cache `.ci/real-agents-install` filled. Without
//! it the tests are ignored (.ci/run passes --ignored). Runs one agent at a time.

use std::path::Path;
use std::time::Duration;

use base64::Engine;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::drive::{AgentRun, RunOptions};
use termic_fakemodel::pty::processes_with_home;
use termic_fakemodel::suite::{begin, SEC};
use termic_fakemodel::ScenarioName;

fn states_only(states: &[(f64, String)]) -> Vec<String> {
    // `working` may carry a msg (the tool being run); the state is what counts.
    let mut out: Vec<String> = Vec::new();
    for (_, s) in states {
        let head: Vec<&str> = s.split(':').filter(|f| !f.starts_with("msg=")).collect();
        let head = head.join(":");
        if out.last() != Some(&head) {
            out.push(head);
        }
    }
    out
}

fn decode_msg(state: &str) -> String {
    let b64 = state
        .split(':')
        .find_map(|f| f.strip_prefix("msg="))
        .unwrap_or("");
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap_or_default(),
    )
    .unwrap_or_default()
}

fn start(cache: &Path, agent: Agent, scenario: ScenarioName, options: RunOptions) -> AgentRun {
    AgentRun::start(cache, agent, scenario, options).expect("the agent starts and shows its UI")
}

/// The permission turn's tail: approve with `key`, wait for the native
/// done, then 1 s more; returns the native states since `t0`.
fn approve_until_native_done(run: &mut AgentRun, key: &[u8], t0: f64) -> Vec<String> {
    let t_key = run.answer(key).unwrap();
    run.wait_native("state=done", t_key, 60 * SEC)
        .expect("done after approval");
    // Not a wait: a late native state would show up in this window.
    std::thread::sleep(SEC);
    states_only(&run.native_states(t0))
}

/// A slow turn interrupted with Escape 2 s into the model's answer: waits
/// for the native idle, then `after` more. Returns (prompt, Escape) times.
fn escape_to_native_idle(run: &mut AgentRun, after: Duration) -> (f64, f64) {
    let t0 = run.prompt("count slowly").unwrap();
    run.wait_native("state=working", t0, 30 * SEC)
        .expect("working");
    run.server
        .wait_for(30 * SEC, |e| !e.side)
        .expect("the model request");
    // The Escape must land mid-answer, 2 s in (a time, like a person's).
    std::thread::sleep(2 * SEC);
    let t_esc = run.keys(b"\x1b").unwrap();
    let (t_idle, _) = run
        .wait_native("state=idle", t_esc, 20 * SEC)
        .expect("idle after Escape");
    eprintln!(
        "{}: idle {:.0} ms after Escape",
        run.agent.name(),
        t_idle - t_esc
    );
    // Not a wait: no done may follow the Escape in this window.
    std::thread::sleep(after);
    assert!(
        run.native_states(t0)
            .iter()
            .all(|(_, s)| !s.starts_with("state=done")),
        "no done after Escape: {:?}",
        run.native_states(t0)
    );
    (t0, t_esc)
}

/// Claude with its probe answered and the hook recorder, prompted with
/// `prompt`: returns the run, the prompt time and the blocked state.
fn claude_blocked(
    cache: &Path,
    scenario: ScenarioName,
    prompt: &str,
) -> (AgentRun, f64, (f64, String)) {
    let opts = RunOptions {
        probe: true,
        recorder: true,
        ..RunOptions::default()
    };
    let mut run = start(cache, Agent::Claude, scenario, opts);
    let t0 = run.prompt(prompt).unwrap();
    let blocked = run
        .wait_native("state=blocked", t0, 60 * SEC)
        .expect("blocked");
    (run, t0, blocked)
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_claude_native_status_says_blocked_then_done_once() {
    let (cache, _one) = begin();
    let (mut run, t0, (t_blocked, blocked)) = claude_blocked(
        &cache,
        ScenarioName::Write,
        "create the file out.txt please",
    );
    assert!(blocked.contains(":kind=permission"), "{blocked}");
    assert!(
        decode_msg(&blocked).starts_with("approve Write: "),
        "{}",
        decode_msg(&blocked)
    );
    // The hook and the native report start together; under load the
    // recorder's line can land after `blocked` (seen once in CI).
    let request = run
        .wait_hook("PermissionRequest", t0, 10 * SEC)
        .expect("PermissionRequest fired");
    eprintln!(
        "claude: blocked {:.0} ms after Enter, {:.0} ms after PermissionRequest started",
        t_blocked - t0,
        t_blocked - request.ts_ms
    );
    let states = approve_until_native_done(&mut run, b"\r", t0);
    assert_eq!(
        states,
        [
            "state=working:app=claude-code",
            "state=blocked:app=claude-code:kind=permission",
            "state=working:app=claude-code",
            "state=done:app=claude-code"
        ]
    );
    // With the probe answered the title drops its glyph.
    assert!(
        run.titles(t0).iter().all(|(_, t)| t == "Claude Code"),
        "{:?}",
        run.titles(t0)
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_claude_without_probe_reply_is_silent_and_its_title_says_idle_while_blocked() {
    let (cache, _one) = begin();
    let opts = RunOptions {
        probe: false,
        recorder: true,
        ..RunOptions::default()
    };
    let mut run = start(&cache, Agent::Claude, ScenarioName::Write, opts);
    assert!(
        run.term_events().iter().any(|e| e.body == "7501;?"),
        "Claude probes for native status"
    );
    let t0 = run.prompt("create the file out.txt please").unwrap();
    let request = run
        .wait_hook("PermissionRequest", t0, 60 * SEC)
        .expect("PermissionRequest");
    let note = run
        .wait_hook("Notification", request.ts_ms, 15 * SEC)
        .expect("the permission Notification nudge");
    assert!(
        note.payload
            .contains("\"notification_type\":\"permission_prompt\""),
        "{}",
        note.payload
    );
    let nudge = note.ts_ms - request.ts_ms;
    assert!(
        (5000.0..9000.0).contains(&nudge),
        "Notification came {nudge:.0} ms after PermissionRequest"
    );
    // The defect the plan describes: blocked, and the title shows the idle glyph.
    let (_, last_title) = run.titles(t0).pop().expect("titles");
    assert_eq!(last_title, "\u{2733} Claude Code");
    let t_key = run.answer(b"\r").unwrap();
    run.wait_hook("Stop", t_key, 60 * SEC)
        .expect("Stop after approval");
    assert!(
        run.native_states(0.0).is_empty(),
        "no OSC 7501 state without a probe reply"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_claude_escape_fires_no_hook_and_reports_idle_not_done() {
    let (cache, _one) = begin();
    let opts = RunOptions {
        probe: true,
        recorder: true,
        slow_for: Some(Duration::from_secs(20)),
        ..RunOptions::default()
    };
    let mut run = start(&cache, Agent::Claude, ScenarioName::Slow, opts);
    let (_, t_esc) = escape_to_native_idle(&mut run, 2 * SEC);
    assert!(
        run.hooks()
            .iter()
            .all(|h| h.ts_ms < t_esc || h.event == "SessionEnd"),
        "{:?}",
        run.hooks()
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_claude_ask_user_question_reports_blocked_question() {
    let (cache, _one) = begin();
    let (mut run, t0, (_, blocked)) = claude_blocked(&cache, ScenarioName::Ask, "ask me a color");
    assert!(blocked.contains(":kind=question"), "{blocked}");
    assert_eq!(
        decode_msg(&blocked),
        "answer: Which color do you like? (Red \u{b7} Blue)"
    );
    let request = run
        .wait_hook("PermissionRequest", t0, 10 * SEC)
        .expect("PermissionRequest for the question");
    assert!(request
        .payload
        .contains("\"tool_name\":\"AskUserQuestion\""));
    let t_key = run.answer(b"\r").unwrap();
    run.wait_native("state=done", t_key, 60 * SEC)
        .expect("done after the answer");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_opencode_reports_permission_asked_replied_and_idle_once() {
    let (cache, _one) = begin();
    let opts = RunOptions {
        recorder: true,
        ..RunOptions::default()
    };
    let mut run = start(&cache, Agent::Opencode, ScenarioName::Write, opts);
    let t0 = run.prompt("create the file out.txt please").unwrap();
    run.wait_hook("chat.message", t0, 60 * SEC)
        .expect("chat.message");
    let asked = run
        .wait_hook("permission.asked", t0, 90 * SEC)
        .expect("permission.asked");
    assert!(
        asked.payload.contains("\"permission\":\"edit\""),
        "{}",
        asked.payload
    );
    assert!(
        !run.hooks().iter().any(|h| h.event == "session.idle"),
        "no idle while the prompt waits"
    );
    let t_key = run.answer(b"\r").unwrap();
    run.wait_hook("permission.replied", t_key, 30 * SEC)
        .expect("permission.replied");
    run.wait_hook("session.idle", t_key, 60 * SEC)
        .expect("session.idle");
    // Not a wait: a second session.idle would show up in this window.
    std::thread::sleep(2 * SEC);
    let idles = run
        .hooks()
        .iter()
        .filter(|h| h.event == "session.idle")
        .count();
    assert_eq!(idles, 1);
    assert!(
        !run.hooks().iter().any(|h| h.event == "permission.ask"),
        "the legacy permission.ask hook fired"
    );
    assert!(run.project.join("out.txt").exists());
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_grok_notifies_permission_then_stops_then_idle_prompt() {
    let (cache, _one) = begin();
    let env = vec![(
        "GROK_IDLE_NOTIFICATION_DELAY_MS".to_string(),
        "3000".to_string(),
    )];
    let opts = RunOptions {
        recorder: true,
        env,
        ..RunOptions::default()
    };
    let mut run = start(&cache, Agent::Grok, ScenarioName::Write, opts);
    let t0 = run.prompt("create the file out.txt please").unwrap();
    let note = run
        .wait_hook("Notification", t0, 60 * SEC)
        .expect("Notification");
    assert_eq!(note.grok_event.as_deref(), Some("notification"));
    assert!(
        note.payload
            .contains("\"notificationType\":\"permission_prompt\""),
        "{}",
        note.payload
    );
    run.wait_title("Action Required", t0, 10 * SEC)
        .expect("grok 0.2.111 says it is blocked in its title");
    assert!(!run.hooks().iter().any(|h| h.event == "Stop"));
    let t_key = run.answer(b"3").unwrap();
    let stop = run.wait_hook("Stop", t_key, 60 * SEC).expect("Stop");
    assert!(
        stop.payload.contains("\"reason\":\"end_turn\""),
        "{}",
        stop.payload
    );
    let idle = run
        .wait_hook("Notification", stop.ts_ms + 1.0, 10 * SEC)
        .expect("idle_prompt");
    assert!(
        idle.payload
            .contains("\"notificationType\":\"idle_prompt\""),
        "{}",
        idle.payload
    );
    let delay = idle.ts_ms - stop.ts_ms;
    assert!(
        (2500.0..6000.0).contains(&delay),
        "idle_prompt {delay:.0} ms after Stop"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_grok_escape_fires_no_hook_and_its_title_goes_idle() {
    let (cache, _one) = begin();
    let env = vec![(
        "GROK_IDLE_NOTIFICATION_DELAY_MS".to_string(),
        "2000".to_string(),
    )];
    let opts = RunOptions {
        recorder: true,
        env,
        slow_for: Some(Duration::from_secs(20)),
        ..RunOptions::default()
    };
    let mut run = start(&cache, Agent::Grok, ScenarioName::Slow, opts);
    let t0 = run.prompt("count slowly").unwrap();
    run.wait_title("Responding", t0, 30 * SEC)
        .expect("busy title");
    // The Escape must land mid-answer: a second in (a time, like a person's).
    std::thread::sleep(SEC);
    let t_esc = run.keys(b"\x1b").unwrap();
    // Idle is `grok` or `<session title> - grok`: no braille spinner.
    let idle =
        |t: &str| t.ends_with("grok") && !t.chars().any(|c| ('\u{2800}'..='\u{28ff}').contains(&c));
    let (t_idle, _) = run
        .wait(10 * SEC, |r| {
            r.titles(t_esc).into_iter().find(|(_, t)| idle(t))
        })
        .expect("idle title");
    eprintln!("grok: idle title {:.0} ms after Escape", t_idle - t_esc);
    // Not a wait: a hook after the Escape would show up in this window.
    std::thread::sleep(5 * SEC);
    let after: Vec<String> = run
        .hooks()
        .into_iter()
        .filter(|h| h.ts_ms >= t_esc)
        .map(|h| h.event)
        .collect();
    assert!(after.is_empty(), "hooks after Escape: {after:?}");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_codex_reports_blocked_natively_before_its_title_and_its_app_server_is_ended() {
    let (cache, _one) = begin();
    let mut run = start(
        &cache,
        Agent::Codex,
        ScenarioName::Write,
        RunOptions::default(),
    );
    let t0 = run.prompt("create the file out.txt please").unwrap();
    let (t_blocked, blocked) = run
        .wait_native("state=blocked", t0, 60 * SEC)
        .expect("blocked");
    assert_eq!(blocked, "state=blocked:app=codex:kind=permission");
    let (t_title, _) = run
        .wait_title("Action Required", t0, 10 * SEC)
        .expect("Action Required title");
    eprintln!(
        "codex: blocked {:.0} ms after Enter, title {:.0} ms after blocked",
        t_blocked - t0,
        t_title - t_blocked
    );
    assert!(
        t_title - t_blocked > 500.0,
        "the title is held about 1 s after the last key"
    );
    let states = approve_until_native_done(&mut run, b"y", t0);
    assert_eq!(
        states,
        [
            "state=working:app=codex",
            "state=blocked:app=codex:kind=permission",
            "state=working:app=codex",
            "state=done:app=codex"
        ]
    );
    let home = run.home.clone();
    assert!(
        processes_with_home(&home).len() > 1,
        "codex runs helpers beside the TUI"
    );
    drop(run);
    assert!(
        processes_with_home(&home).is_empty(),
        "every codex process ended"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_codex_escape_gives_idle_without_done() {
    let (cache, _one) = begin();
    let opts = RunOptions {
        slow_for: Some(Duration::from_secs(20)),
        ..RunOptions::default()
    };
    let mut run = start(&cache, Agent::Codex, ScenarioName::Slow, opts);
    escape_to_native_idle(&mut run, SEC);
}
