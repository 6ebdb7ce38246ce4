//! The error state: an agent that gave up on an API error reads "error"
//! with the reason, never done. Timelines are the ones measured on the real
//! agents (crates/termic-fakemodel/tests/fakemodel/errors.rs).

use termic_signal::engine::State;

use crate::common::script::check;

#[test]
fn claude_stop_failure_then_native_error_is_one_error_with_the_hook_reason() {
    // Measured 2.1.332, 429 with default retries: StopFailure at +182.6 s,
    // native `state=error` 1.4 s later; no Stop, no native done.
    let outcome = check(
        "claude 429",
        "agent claude
         task t1
         hooks on
         0 probe_answered
         0 native idle
         +1000 key enter
         +190 hook working task=t1 hook=UserPromptSubmit
         +130 native working
         +182400 hook error task=t1 hook=StopFailure reason=rate_limited
         +1400 native error msg=API Error: Request rejected (429) · The fake model is rate limiting this key.
         expect 1190 idle -> working hook_working
         expect 183720 working -> rate_limited hook_error",
    );
    assert_eq!(outcome.engine.state(), State::RateLimited(None));
    let t = &outcome.transitions[1];
    assert_eq!(
        t.reason.to_string(),
        "hook: error (StopFailure): stopped: rate limited"
    );
}

#[test]
fn claude_native_error_alone_names_the_reason_from_its_message() {
    for (msg, reason) in [
        (
            "API Error: Request rejected (429) · slow down",
            "rate_limited",
        ),
        (
            "API Error: 500 The fake model had an internal error.",
            "server_error",
        ),
        (
            "API Error: Repeated 529 Overloaded errors. The API is at capacity",
            "overloaded",
        ),
        ("API Error: 400 something else", "api_error"),
    ] {
        check(
            msg,
            &format!(
                "agent claude
                 0 probe_answered
                 0 native idle
                 +1000 key enter
                 +100 native working
                 +4000 native error msg={msg}
                 expect 1100 idle -> working native_working
                 expect 5100 working -> stopped({reason}) native_error"
            ),
        );
    }
}

#[test]
fn claude_blocked_kind_auth_is_an_auth_error_not_needs_you() {
    check(
        "claude 401",
        "agent claude
         0 probe_answered
         0 native idle
         +1000 key enter
         +600 native working
         +3700 native blocked kind=auth msg=Invalid API key · Fix external API key
         expect 1600 idle -> working native_working
         expect 5300 working -> error(auth_failed) native_error",
    );
}

#[test]
fn claude_blocked_kind_auth_with_no_working_first_is_the_submits_error() {
    // Measured in .ci/run 2026-12-03 (Claude Code 2.1.332, 401): Enter,
    // then `blocked kind=auth` 167 ms later and no native `working` at all.
    // The engine used to drop it ("no turn is running") and the badge stayed
    // idle under the agent's own "Invalid API key".
    check(
        "claude 401, no working",
        "agent claude
         0 probe_answered
         0 native idle
         +3657 key enter
         +167 native blocked kind=auth msg=Invalid API key · Fix external API key
         expect 3824 idle -> error(auth_failed) native_error",
    );
    // An Enter long before (past error_correction_ms, 5 s) is not this
    // error's submit: an idle task stays idle.
    let outcome = check(
        "claude 401, long after Enter",
        "agent claude
         0 probe_answered
         0 native idle
         +1000 key enter
         +5001 native blocked kind=auth msg=Invalid API key · Fix external API key",
    );
    assert_eq!(outcome.engine.state(), State::Idle);
    assert!(outcome.transitions.is_empty(), "{:?}", outcome.transitions);
}

#[test]
fn codex_native_error_without_a_message_is_a_plain_api_error() {
    // Codex 0.171.0 reports `state=error:app=codex` with no msg.
    check(
        "codex error",
        "agent codex
         0 native idle
         +1000 key enter
         +15 native working
         +700 native error
         expect 1015 idle -> working native_working
         expect 1715 working -> error(api_error) native_error",
    );
}

#[test]
fn an_error_right_after_a_done_corrects_it_and_a_late_one_is_ignored() {
    check(
        "correction window",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +3000 hook done task=t1
         +200 hook error task=t1 reason=server_error
         +1000 key enter
         +10 hook working task=t1
         +3000 hook done task=t1
         +6000 hook error task=t1 reason=server_error
         expect 10 idle -> working hook_working
         expect 3010 working -> done hook_done
         expect 3210 done -> error(server_error) hook_error
         expect 4220 error(server_error) -> working hook_working
         expect 7220 working -> done hook_done",
    );
}

#[test]
fn an_unknown_reason_is_still_an_error_and_another_tasks_error_is_not_obeyed() {
    check(
        "unknown reason",
        "agent claude
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +1000 hook error task=other reason=rate_limited
         +1000 hook error task=t1 reason=made_up
         expect 10 idle -> working hook_working
         expect 2010 working -> error(api_error) hook_error",
    );
}

#[test]
fn printed_error_reports_never_move_a_command_or_shell_task() {
    for agent in ["command", "shell"] {
        let outcome = check(
            agent,
            &format!(
                "agent {agent}
                 task t1
                 0 key enter
                 +10 bytes \\e]777;termic;v1;working;t1\\a
                 +10 bytes \\e]7501;state=working:app=claude-code\\a
                 +10 bytes \\e]777;termic;v1;error;t1;reason=rate_limited\\a
                 +10 bytes \\e]7501;state=error:app=claude-code:msg=KDQyOSk=\\a
                 horizon 1000"
            ),
        );
        assert!(
            outcome
                .transitions
                .iter()
                .all(|t| !matches!(t.to, State::Error(_) | State::RateLimited(_))),
            "{agent}: {:?}",
            outcome.transitions
        );
    }
}

#[test]
fn after_an_error_no_heuristic_turns_it_into_a_done() {
    // grok without hooks: heuristics active. An error (from a hook) then a
    // long quiet idle title: the settle must not claim a done.
    check(
        "no done after error",
        "agent claude
         task t1
         0 key enter
         +10 title ◐ Claude Code
         +500 hook error task=t1 reason=overloaded
         +10 title ✳ Claude Code
         horizon 120000
         expect 10 idle -> working title_busy
         expect 510 working -> error(overloaded) hook_error",
    );
}

#[test]
fn a_later_report_that_names_the_error_more_precisely_refines_it_once() {
    // Measured 2.1.332, 529 with CLAUDE_CODE_MAX_RETRIES=0: StopFailure says
    // server_error, the native error ~150 ms later says Overloaded.
    check(
        "claude 529",
        "agent claude
         task t1
         hooks on
         0 probe_answered
         0 native idle
         +1000 key enter
         +100 hook working task=t1 hook=UserPromptSubmit
         +4000 hook error task=t1 hook=StopFailure reason=server_error
         +150 native error msg=API Error: Repeated 529 Overloaded errors. The API is at capacity
         +100 native error msg=API Error: 500 again
         expect 1100 idle -> working hook_working
         expect 5100 working -> error(server_error) hook_error
         expect 5250 error(server_error) -> error(overloaded) native_error",
    );
}
