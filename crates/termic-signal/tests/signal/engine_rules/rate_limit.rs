//! The rate-limited state: an agent stopped on a usage or rate limit reads
//! "rate limited until HH:MM" (or "rate limited" when it named no reset),
//! never done and never error, and leaves when the agent works again.

use termic_signal::engine::State;
use termic_signal::limit::ResetAt;

use crate::common::script::check;

#[test]
fn claude_native_limit_message_with_a_reset_reads_rate_limited_until_then() {
    // Claude Code's usage-limit message names its reset ("resets 3pm");
    // the native error carries it. No done follows, even on a quiet screen.
    let outcome = check(
        "claude usage limit",
        "agent claude
         0 probe_answered
         0 native idle
         +1000 key enter
         +100 native working
         +900 native error msg=API Error: Request rejected (429) · 5-hour limit reached ∙ resets 3pm
         horizon 120000
         expect 1100 idle -> working native_working
         expect 2000 working -> rate_limited(15:00) native_error",
    );
    let until = ResetAt::new(15, 0);
    assert_eq!(outcome.engine.state(), State::RateLimited(until));
    // What `[tasks] continue_after_limit` types, and the key it checks.
    assert_eq!(outcome.engine.continue_prompt(), Some("continue"));
    assert_eq!(outcome.engine.last_key_at(), Some(1000));
    assert_eq!(outcome.engine.state().as_str(), "rate_limited");
    assert_eq!(
        outcome.engine.state().to_string(),
        "rate limited until 15:00"
    );
    assert_eq!(
        outcome.transitions[1].reason.to_string(),
        "native: error (claude.error-429): stopped: rate limited until 15:00"
    );
}

#[test]
fn a_hook_limit_without_a_time_is_plain_rate_limited_and_a_later_time_refines_it() {
    // StopFailure's `error: rate_limit` names no time; the native message
    // that follows does: the badge changes once to carry it. A third report
    // with no time does not take the time away.
    let outcome = check(
        "hook then native",
        "agent claude
         task t1
         hooks on
         0 probe_answered
         0 native idle
         +1000 key enter
         +100 hook working task=t1 hook=UserPromptSubmit
         +4000 hook error task=t1 hook=StopFailure reason=rate_limited
         +1400 native error msg=API Error: Request rejected (429) · resets at 15:30
         +100 hook error task=t1 hook=StopFailure reason=rate_limited
         expect 1100 idle -> working hook_working
         expect 5100 working -> rate_limited hook_error
         expect 6500 rate_limited -> rate_limited(15:30) native_error",
    );
    assert_eq!(
        outcome.engine.state(),
        State::RateLimited(ResetAt::new(15, 30))
    );
}

#[test]
fn a_hook_may_carry_the_reset_time_in_its_until_field() {
    check(
        "hook until",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +2000 hook error task=t1 reason=rate_limited until=09:05
         +10 hook done task=t1
         expect 10 idle -> working hook_working
         expect 2010 working -> rate_limited(09:05) hook_error",
    );
    // A malformed time is no time: still rate limited, never an error.
    check(
        "hook bad until",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +2000 hook error task=t1 reason=rate_limited until=3pm
         expect 10 idle -> working hook_working
         expect 2010 working -> rate_limited hook_error",
    );
}

#[test]
fn rate_limited_leaves_when_the_agent_works_again_and_the_next_end_is_a_done() {
    check(
        "continue after the limit",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +2000 hook error task=t1 reason=rate_limited until=15:00
         +60000 key enter
         +10 hook working task=t1
         +3000 hook done task=t1
         expect 10 idle -> working hook_working
         expect 2010 working -> rate_limited(15:00) hook_error
         expect 62020 rate_limited(15:00) -> working hook_working
         expect 65020 working -> done hook_done",
    );
}

#[test]
fn without_hooks_no_heuristic_turns_a_rate_limit_into_a_done() {
    // Heuristics active (no hooks wired, no native status): a limit reported
    // by a hook of this task then a long quiet idle title must stay rate
    // limited, not settle into a done.
    check(
        "no done after a limit",
        "agent claude
         task t1
         0 key enter
         +10 title ◐ Claude Code
         +500 hook error task=t1 reason=rate_limited until=15:00
         +10 title ✳ Claude Code
         horizon 120000
         expect 10 idle -> working title_busy
         expect 510 working -> rate_limited(15:00) hook_error
         expect false_done 0",
    );
}

#[test]
fn a_limit_right_after_a_done_corrects_it_and_an_error_is_refined_to_a_limit() {
    check(
        "correction",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +3000 hook done task=t1
         +200 hook error task=t1 reason=rate_limited
         expect 10 idle -> working hook_working
         expect 3010 working -> done hook_done
         expect 3210 done -> rate_limited hook_error",
    );
    check(
        "api error then a limit",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1
         +3000 hook error task=t1 reason=api_error
         +100 hook error task=t1 reason=rate_limited until=15:00
         expect 10 idle -> working hook_working
         expect 3010 working -> error(api_error) hook_error
         expect 3110 error(api_error) -> rate_limited(15:00) hook_error",
    );
}

#[test]
fn printed_limit_text_moves_nothing() {
    // A command task printing a limit message and fake reports stays put.
    let outcome = check(
        "printed",
        "agent command
         task t1
         0 key enter
         +10 bytes 5-hour limit reached \\xe2\\x88\\x99 resets 3pm\\r\\n
         +10 bytes \\e]777;termic;v1;error;t1;reason=rate_limited;until=15:00\\a
         horizon 1000
         expect 10 idle -> working output_flowing",
    );
    assert!(
        outcome
            .transitions
            .iter()
            .all(|t| !matches!(t.to, State::RateLimited(_))),
        "{:?}",
        outcome.transitions
    );
}

/// Claude Code 2.1.332's StopFailure on the fake model's usage-limit reply
/// (measured 2026-12-06): `error: rate_limit` and `last_assistant_message`
/// "API Error: Request rejected (429) · Usage limit reached for this key.
/// Your limit resets at 15:00.". The hook sends that message; the engine
/// reads the reset from it as from a native error's message.
#[test]
fn a_hook_error_message_that_names_the_reset_gives_the_time() {
    let outcome = check(
        "stop failure message",
        "agent claude
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1 hook=UserPromptSubmit
         +300 hook error task=t1 hook=StopFailure reason=rate_limited message=API%20Error:%20Request%20rejected%20(429)%20\u{b7}%20Usage%20limit%20reached%20for%20this%20key.%20Your%20limit%20resets%20at%2015:00.
         horizon 60000
         expect 10 idle -> working hook_working
         expect 310 working -> rate_limited(15:00) hook_error",
    );
    assert_eq!(
        outcome.engine.state(),
        State::RateLimited(ResetAt::new(15, 0))
    );
}

/// Copilot CLI 1.0.102's bottom rows after it gave up on the fake model's
/// usage-limit reply (2026-12-06): its `✗ 429` line over its directory
/// row, its empty prompt box and its footer.
const COPILOT_LIMIT_ROWS: &str = "  ❯ say hello\\n ▀▀▀▀▀▀▀▀\\n ✗ 429 Usage limit reached for this key. Your limit resets at 15:00. \\n /tmp/proj\\n╻▄▄▄▄▄▄▄▄\\n┃  \\n╹▀▀▀▀▀▀▀▀\\n ← open sidebar · Interactive · Manual Approval";

/// A Copilot task with its hooks, from Enter to the hook's working.
const COPILOT_HOOKED_TURN: &str = "agent copilot
    task t1
    hooks on
    0 key enter
    +30 hook working task=t1 hook=userPromptSubmitted";

#[test]
fn copilot_hooked_turn_ends_rate_limited_on_its_own_limit_screen_with_no_stop_hook() {
    // Its hooks say working and then nothing (no agentStop on a 429): the
    // screen's error line, appearing during the turn, ends it.
    check(
        "copilot usage limit",
        &format!(
            "{COPILOT_HOOKED_TURN}
             +200 rows  ◐ Thinking (Esc to cancel)\\n /tmp/proj\\n╻▄▄▄▄\\n┃\\n╹▀▀▀▀\\n ← open sidebar
             +1300 rows {COPILOT_LIMIT_ROWS}
             horizon 120000
             expect 30 idle -> working hook_working
             expect 1530 working -> rate_limited(15:00) screen_error
             expect false_done 0"
        ),
    );
}

#[test]
fn copilot_limit_screen_left_from_the_last_turn_does_not_end_the_next() {
    // The next prompt starts a turn while the old error is still painted:
    // only a screen that comes up during a turn ends it.
    check(
        "copilot next turn",
        &format!(
            "{COPILOT_HOOKED_TURN}
             +1500 rows {COPILOT_LIMIT_ROWS}
             +5000 key enter
             +30 hook working task=t1 hook=userPromptSubmitted
             +10 rows {COPILOT_LIMIT_ROWS}
             +3000 hook done task=t1 hook=agentStop
             horizon 60000
             expect 30 idle -> working hook_working
             expect 1530 working -> rate_limited(15:00) screen_error
             expect 6560 rate_limited(15:00) -> working hook_working
             expect 9570 working -> done hook_done"
        ),
    );
}

#[test]
fn copilot_limit_screen_without_hooks_only_names_the_guessed_end() {
    // With neither channel nothing ends a Copilot turn on its own; the
    // guessed end, when it comes, is the limit with its time.
    let outcome = check(
        "copilot no hooks",
        &format!(
            "agent copilot
             0 key enter
             +200 rows  ◐ Thinking (Esc to cancel)\\n /tmp/proj\\n╻▄▄▄▄\\n┃\\n╹▀▀▀▀\\n ← open sidebar
             +1300 rows {COPILOT_LIMIT_ROWS}
             horizon 120000
             expect false_done 0"
        ),
    );
    assert!(
        !matches!(outcome.engine.state(), State::Done),
        "{:?}",
        outcome.engine.state()
    );
}

#[test]
fn an_interrupt_while_the_agent_waits_out_its_limit_ends_the_wait() {
    // opencode 1.18.33 waits a limit out itself; two Escapes stop the wait
    // and its plugin says interrupted (measured 2026-12-06). A done then
    // is still no turn's end.
    check(
        "opencode wait stopped",
        "agent opencode
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1 hook=chat.message
         +4600 hook error task=t1 hook=session.status reason=rate_limited until=20:34
         +5000 key escape
         +3000 key escape
         +85 hook interrupted task=t1 hook=session.status
         +10 hook done task=t1 hook=session.idle
         horizon 60000
         expect 10 idle -> working hook_working
         expect 4610 working -> rate_limited(20:34) hook_error
         expect 12695 rate_limited(20:34) -> interrupted hook_interrupted
         expect false_done 0",
    );
}
