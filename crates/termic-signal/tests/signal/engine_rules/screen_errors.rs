//! The error screen rules (Stopped): with neither hooks nor native status,
//! an agent that gave up on an API error paints an idle title (Claude Code
//! 2.1.332, grok 0.2.111 on a 529 or 401) or freezes its spinner (grok on a
//! 429), and a guessed end would say done or "needs you [unsure]". When the
//! agent's own error line sits right above its own empty prompt, that end is
//! an error with the reason instead. The rule never moves a working turn and
//! never delays an end. Rows as the runtime sent them from the real agents
//! (crates/termic/tests/real_agents/error_screen.rs).

use termic_signal::engine::State;
use termic_signal::stop::StopReason;

use crate::common::script::{check, parse, run};

const RULE: &str = "──────────────────────────────────────────────────";
const CLAUDE_STATUS: &str = "  ⏸ manual mode on · ? for shortcuts";

/// Claude's screen after it gave up: the error rows, then its prompt box
/// with `placeholder` (after an NBSP, as 2.1.332 paints it).
fn claude_error_rows(error: &str, placeholder: &str) -> String {
    format!("❯\\xc2\\xa0say hello\\n{error}\\n{RULE}\\n❯\\xc2\\xa0{placeholder}\\n{RULE}\\n{CLAUDE_STATUS}")
}

const RESEND: &str = "Resend your message to try again";

/// The measured 529 timeline (CLAUDE_CODE_MAX_RETRIES=0): busy title, idle
/// title 150 ms later while the status row still says esc to interrupt,
/// the error painted 4.6 s later.
fn claude_timeline(rows: &str, expect: &str) -> String {
    format!(
        "agent claude
         0 key enter
         +470 title ◐ Claude Code
         +60 rows ❯\\n  ⏸ manual mode on · esc to interrupt
         +90 title ✳ Claude Code
         +4600 rows {rows}
         horizon 40000
         expect 470 idle -> working title_busy
         {expect}"
    )
}

#[test]
fn claude_api_error_screen_turns_the_settle_into_an_error_with_the_reason() {
    let cases = [
        (
            "● API Error: 529 The fake model is overloaded. This is a server-side issue, usually temporary — try again in a\\n  moment. If it persists, check your inference gateway (127.0.0.1:37207).",
            RESEND,
            "overloaded",
        ),
        (
            "● API Error: Request rejected (429) · The fake model is rate limiting this key.",
            RESEND,
            "rate_limited",
        ),
        (
            "● API Error: 500 The fake model had an internal error. This is a server-side issue, usually temporary — try\\n  again in a moment. If it persists, check your inference gateway (127.0.0.1:41549).",
            RESEND,
            "server_error",
        ),
        (
            "  ⎿ \\xc2\\xa0Invalid API key · Fix external API key",
            "Once fixed, resend your message",
            "auth_failed",
        ),
        (
            "● API Error: 400 something nobody measured",
            RESEND,
            "api_error",
        ),
    ];
    for (error, placeholder, reason) in cases {
        let rows = claude_error_rows(error, placeholder);
        // Without the rule: `working -> done settle` at 10220.
        let expect =
            format!("expect 10220 working -> stopped({reason}) screen_error\n expect false_done 0");
        let outcome = check(reason, &claude_timeline(&rows, &expect));
        assert!(
            matches!(
                outcome.engine.state(),
                State::Error(_) | State::RateLimited(None)
            ),
            "{reason}"
        );
    }
}

#[test]
fn claude_401_painted_under_its_effort_hint_is_an_error() {
    // Measured: the 401 line is painted 0.5 s after Enter, with the
    // right-aligned effort hint still between it and the prompt box for 5 s.
    let effort = "                                                     ◐ medium · /effort";
    let rows = format!(
        "❯\\xc2\\xa0say hello\\n  ⎿ \\xc2\\xa0Invalid API key · Fix external API key\\n{effort}\\n{RULE}\\n❯\\xc2\\xa0Once fixed, resend your message\\n{RULE}\\n{CLAUDE_STATUS} · ← for agents"
    );
    check(
        "claude 401",
        &format!(
            "agent claude
             0 key enter
             +320 title ◐ Claude Code
             +80 rows ❯\\n  ⏸ manual mode on · esc to interrupt · ← for agents
             +80 title ✳ Claude Code
             +60 rows {rows}
             horizon 30000
             expect 320 idle -> working title_busy
             expect 5540 working -> error(auth_failed) screen_error"
        ),
    );
}

#[test]
fn the_error_reason_names_the_rule_and_the_end_it_replaced() {
    let rows = claude_error_rows("● API Error: 529 The fake model is overloaded.", RESEND);
    let outcome = check(
        "claude 529 detail",
        &claude_timeline(
            &rows,
            "expect 10220 working -> error(overloaded) screen_error",
        ),
    );
    assert_eq!(
        outcome.transitions[1].reason.to_string(),
        "screen: API error on screen (claude.api-error, claude.error-529-once) when the settle \
         ended the turn (title idle for 9.6s, no output for 5s): stopped: overloaded"
    );
    assert_eq!(outcome.engine.state(), State::Error(StopReason::Overloaded));
}

/// grok 0.2.111's failure line and JSON, then its empty prompt box.
fn grok_rows(failure: &str) -> String {
    format!(
        "     ❯ say hello                                8:17 AM\\n{failure}\\n  ╭────────────────────────╮\\n  │ ❯                      │\\n  ╰──────────── grok-build ─╯\\n  Shift+Tab:mode  │  Ctrl+.:shortcuts"
    )
}

const GROK_529: &str = "     Retry failed: API error (status 529 <unknown status code>): The fake model is overloaded.\\n     Turn failed in 0.0s: Internal error: {\\n       \"message\": \"API error (status 529 <unknown status code>): The fake model is overloaded.\",\\n       \"http_status\": 529\\n     }";

#[test]
fn grok_turn_failed_with_an_idle_title_is_an_error_not_a_done() {
    for (failure, reason) in [
        (GROK_529, "overloaded"),
        (
            "  ┃  Authentication required — your session has expired or your credentials were rejected. Run /login to re-\\n  ┃  authenticate, then resend your message.",
            "auth_failed",
        ),
    ] {
        check(
            reason,
            &format!(
                "agent grok
                 0 key enter
                 +10 activity
                 +140 title ⠸ - Waiting for response… - grok
                 +30 title grok
                 +2 rows {}
                 +3 title say hello - grok
                 expect 10 idle -> working submit_activity
                 expect 5182 working -> stopped({reason}) screen_error
                 expect false_done 0",
                grok_rows(failure)
            ),
        );
    }
}

#[test]
fn grok_rate_limit_under_a_frozen_spinner_is_an_error_not_needs_you_unsure() {
    // 429: one retry, then 'Retry failed: rate_limit_error' and the title
    // frozen on a busy frame: byte-quiet would ask "needs you [unsure]".
    check(
        "grok 429",
        &format!(
            "agent grok
             0 key enter
             +17 activity
             +190 title ⠸ - Waiting for response… - grok
             +35 title ⠼ - Retrying (1/15) - grok
             +2300 title ⠼ - Waiting for response… - say hello - grok
             +5 rows {}
             horizon 30000
             expect 17 idle -> working submit_activity
             expect 14542 working -> rate_limited screen_error",
            grok_rows(
                "     Retry failed: rate_limit_error: The fake model is rate limiting this key."
            )
        ),
    );
}

#[test]
fn error_text_printed_mid_turn_does_not_move_a_working_turn() {
    // The agent shows a file holding Claude's whole error screen while its
    // title is busy: nothing happens; when the real prompt comes back the
    // settle gives the done.
    let rows = claude_error_rows("● API Error: 529 The fake model is overloaded.", RESEND);
    check(
        "printed error screen",
        &format!(
            "agent claude
             0 key enter
             +200 title ◐ Claude Code
             +100 rows {rows}
             every 960 until 30000 title ◐ Claude Code
             30000 rows ❯\\n{RULE}\\n{CLAUDE_STATUS}
             +10 title ✳ Claude Code
             horizon 60000
             expect 200 idle -> working title_busy
             expect 35010 working -> done settle"
        ),
    );
}

/// A plain Claude turn whose screen ends with `rows`: the settle's done.
fn ends_in_a_done(name: &str, rows: &str) {
    check(
        name,
        &format!(
            "agent claude
             0 key enter
             +200 title ◐ Claude Code
             +800 title ✳ Claude Code
             +10 rows {rows}
             horizon 20000
             expect 200 idle -> working title_busy
             expect 6000 working -> done settle"
        ),
    );
}

#[test]
fn error_text_above_a_normal_prompt_is_a_done() {
    // A real done whose last message quotes the error: the prompt box holds
    // no error placeholder, so the rule does not match.
    let rows = format!(
        "● API Error: 529 The fake model is overloaded.\\n{RULE}\\n❯\\xc2\\xa0\\n{RULE}\\n{CLAUDE_STATUS}"
    );
    ends_in_a_done("quoted error", &rows);
    // Rows under the prompt box (more than the status rows) break the anchor.
    let rows = format!(
        "{}\\n  tail row 1\\n  tail row 2\\n  tail row 3",
        claude_error_rows("● API Error: 529 overloaded", RESEND)
    );
    ends_in_a_done("error not at the bottom", &rows);
}

#[test]
fn an_error_screen_left_from_the_previous_turn_does_not_name_this_one() {
    // The screen still shows the last turn's error when a new turn starts
    // (nothing repainted): only an error that came up during this turn
    // counts, so this turn's end is a done.
    let rows = claude_error_rows("● API Error: 529 The fake model is overloaded.", RESEND);
    check(
        "stale error",
        &format!(
            "agent claude
             0 key enter
             +200 title ◐ Claude Code
             +100 rows {rows}
             +100 title ✳ Claude Code
             20000 key enter
             +200 title ◐ Claude Code
             +800 title ✳ Claude Code
             horizon 40000
             expect 200 idle -> working title_busy
             expect 5400 working -> error(overloaded) screen_error
             expect 20200 error(overloaded) -> working title_busy
             expect 26000 working -> done settle"
        ),
    );
}

#[test]
fn with_hooks_the_error_screen_is_not_obeyed() {
    let rows = claude_error_rows("● API Error: 529 The fake model is overloaded.", RESEND);
    check(
        "hooked",
        &format!(
            "agent claude
             task t1
             hooks on
             0 key enter
             +10 hook working task=t1 hook=UserPromptSubmit
             +200 title ◐ Claude Code
             +100 rows {rows}
             +100 title ✳ Claude Code
             +20 hook done task=t1 hook=Stop
             horizon 30000
             expect 10 idle -> working hook_working
             expect 430 working -> done hook_done"
        ),
    );
}

#[test]
fn error_screens_in_a_shell_or_command_task_do_nothing() {
    let rows = claude_error_rows("● API Error: 529 The fake model is overloaded.", RESEND);
    for agent in ["shell", "command", "generic"] {
        let outcome = run(&parse(&format!(
            "agent {agent}
             0 key enter
             +10 activity
             +10 rows {rows}
             horizon 60000"
        )));
        assert!(
            !outcome
                .transitions
                .iter()
                .any(|t| matches!(t.to, State::Error(_))),
            "{agent}: {:?}",
            outcome.transitions
        );
    }
}

/// Gemini CLI 0.61.0 after a 401, as the runtime sent its bottom rows
/// (real_agents matrix::cell_gemini_error_neither, 2026-12-06): the error
/// and its note right above the empty prompt box and the footer.
fn gemini_error_rows() -> String {
    let bar = |c: &str| c.repeat(120);
    [
        " > say hello".to_string(),
        bar("▀"),
        "✕ [API Error: {\"error\":{\"code\":\"invalid_api_key\",\"message\":\"invalid".to_string(),
        "  x-api-key\",\"param\":null,\"type\":\"invalid_request_error\"}}]".to_string(),
        "ℹ This request failed. Press F12 for diagnostics, or run /settings and change \"Error Verbosity\" to full for full".to_string(),
        "  details.".to_string(),
        format!("{:>119}", "? for shortcuts"),
        bar("─"),
        " Shift+Tab to accept edits".to_string(),
        bar("▄"),
        " >   Type your message or @path/to/file".to_string(),
        bar("▀"),
        " workspace (/directory)                                                   sandbox                                /model".to_string(),
        " /tmp/proj                                                                no sandbox                               Auto".to_string(),
    ]
    .join("\\n")
}

#[test]
fn gemini_api_error_with_a_ready_title_is_an_error_not_a_done() {
    // Measured: Enter, '✦  Working…' 58 ms later, '◇  Ready' 292 ms after
    // that, the error painted 2.9 s later still; with neither channel the
    // settle gave a done (a false done) before the rule.
    check(
        "gemini 401",
        &format!(
            "agent gemini
             0 key enter
             +20 activity
             +58 title ✦  Working… (proj)
             +292 title ◇  Ready (proj)
             +2904 rows {}
             horizon 30000
             expect 20 idle -> working submit_activity
             expect 8274 working -> error(auth_failed) screen_error
             expect false_done 0",
            gemini_error_rows()
        ),
    );
}

#[test]
fn gemini_answer_below_an_old_error_is_a_done() {
    // The next turn's answer sits between the old error and the prompt
    // box: the rule no longer matches, the settle's end is a done.
    let rows = gemini_error_rows().replacen(
        "ℹ This request failed.",
        "✦ Hello! How can I help?\\nℹ This request failed.",
        1,
    );
    let rows = rows.replacen("  details.", "  details.\\n\\n✦ Hello there.", 1);
    check(
        "gemini answer after an error",
        &format!(
            "agent gemini
             0 key enter
             +20 activity
             +58 title ✦  Working… (proj)
             +292 title ◇  Ready (proj)
             +100 rows {rows}
             horizon 30000
             expect 20 idle -> working submit_activity
             expect 5370 working -> done settle"
        ),
    );
}

/// Qwen Code 0.24.4's bottom rows after a 401 (120 columns), its prompt
/// row as given (its empty prompt, or text typed into it).
fn qwen_error_rows(prompt: &str) -> String {
    let bar = "─".repeat(120);
    [
        "  > say hello",
        "  ✕ [API Error: 401 invalid x-api-key] (Press Ctrl+Y to retry)",
        &bar,
        prompt,
        &bar,
        "  ➜ proj · fake-model",
        "  ⏸ Ask permissions (shift + tab to cycle)",
    ]
    .join("\\n")
}

#[test]
fn qwen_api_error_with_an_idle_title_is_an_error_not_a_done() {
    // Measured (real_agents matrix::cell_qwen_error_neither, 2026-12-06):
    // busy title 10 ms after Enter, idle 867 ms later, the error painted;
    // the settle gave a done (a false done) before the rule.
    let rows = qwen_error_rows(">   Type your message or @path/to/file");
    check(
        "qwen 401",
        &format!(
            "agent qwen
             0 key enter
             +38 activity
             +10 title ◐\u{fe0e} Qwen - proj
             +867 title Qwen - proj
             +20 rows {rows}
             horizon 30000
             expect 38 idle -> working submit_activity
             expect 5935 working -> error(auth_failed) screen_error
             expect false_done 0"
        ),
    );
}

/// Qwen Code 0.24.4 with termic's hooks, on a 401: UserPromptSubmit, then
/// no Stop hook at all (measured 2026-12-06, real_agents
/// matrix::cell_qwen_error_hooks). The same anchored screen rule as
/// without hooks ends the hooked turn as the error when it begins to match
/// during it; before, the task read working for good.
#[test]
fn qwen_hooked_turn_ends_in_an_error_on_its_own_error_screen_with_no_stop_hook() {
    let turn = |rows: &str| {
        format!(
            "agent qwen
             task t1
             hooks on
             0 key enter
             +10 title ◐\u{fe0e} Qwen - proj
             +20 hook working task=t1 hook=UserPromptSubmit
             +850 title Qwen - proj
             +20 rows {rows}
             horizon 120000
             expect 30 idle -> working hook_working"
        )
    };
    let rows = qwen_error_rows(">   Type your message or @path/to/file");
    check(
        "qwen 401 hooks",
        &format!(
            "{}
             expect 900 working -> error(auth_failed) screen_error
             expect false_done 0",
            turn(&rows)
        ),
    );
    // The same line over a prompt with text in it is not Qwen's own error
    // screen (a program can print the line; the empty prompt under it is
    // Qwen's): the hooks still own the turn, it stays working.
    let typed = qwen_error_rows(">   go on");
    let outcome = check("qwen typed", &turn(&typed));
    assert_eq!(outcome.engine.state(), State::Working);
    // Printed mid-turn, with the agent's spinner row between it and the
    // prompt: working.
    let printed = qwen_error_rows(">   Type your message or @path/to/file").replace(
        "(Press Ctrl+Y to retry)",
        "(Press Ctrl+Y to retry)\\n  ⠏ Thinking... (esc to cancel, 2s)",
    );
    let outcome = check("qwen printed", &turn(&printed));
    assert_eq!(outcome.engine.state(), State::Working);
}

/// Copilot CLI 1.0.102's bottom rows after it gave up on a 401 (measured
/// 2026-12-06, real_agents matrix::cell_copilot_error_hooks).
const COPILOT_401_ROWS: &str = " ● Request failed due to a transient API error. Retrying...\\n ✗ Authentication failed with provider at http://127.0.0.1:33591/v1 (HTTP 401).\\n     Check your COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN.\\n /tmp/proj\\n╻▄▄▄▄▄▄▄▄\\n┃  \\n╹▀▀▀▀▀▀▀▀\\n ← open sidebar · Interactive · Manual Approval";

/// Copilot's screen while it retries (its spinner row under the retries).
const COPILOT_RETRYING_ROWS: &str = " ● Request failed due to a transient API error. Retrying...\\n ◐ Thinking (Esc to cancel)\\n /tmp/proj\\n╻▄▄▄▄\\n┃\\n╹▀▀▀▀\\n ← open sidebar";

/// Copilot with its hooks on a 401: userPromptSubmitted, then no agentStop
/// (its title carries no state): its own error screen ends the turn as the
/// auth failure it names. Before, the task read working for good.
#[test]
fn copilot_hooked_turn_ends_in_an_auth_failure_on_its_own_401_screen() {
    check(
        "copilot 401 hooks",
        &format!(
            "agent copilot
             task t1
             hooks on
             0 key enter
             +30 hook working task=t1 hook=userPromptSubmitted
             +200 rows {COPILOT_RETRYING_ROWS}
             +3800 rows {COPILOT_401_ROWS}
             horizon 120000
             expect 30 idle -> working hook_working
             expect 4030 working -> error(auth_failed) screen_error
             expect false_done 0"
        ),
    );
}

/// With neither channel nothing on Copilot's terminal ends a turn: the
/// byte-quiet fallback's guessed end is the error its screen names.
#[test]
fn copilot_401_screen_without_hooks_names_the_guessed_end() {
    let outcome = check(
        "copilot 401 no hooks",
        &format!(
            "agent copilot
             0 key enter
             +30 activity
             +200 rows {COPILOT_RETRYING_ROWS}
             +3800 rows {COPILOT_401_ROWS}
             horizon 120000
             expect 30 idle -> working submit_activity
             expect 12030 working -> error(auth_failed) screen_error
             expect false_done 0"
        ),
    );
    assert_eq!(
        outcome.engine.state(),
        State::Error(StopReason::AuthFailed),
        "{:?}",
        outcome.transitions
    );
}

/// Gemini CLI 0.61.0 with termic's hooks, on a 401: AfterAgent fires as
/// for a done, its `prompt_response` "[no response text]" (the hook sends
/// it as `message=`). The Gemini profile reads that message as the error
/// it is, never a done; any other answer is a done, and the engine keeps
/// it as the agent's last message (issue 31 item 3).
#[test]
fn gemini_after_agent_with_no_response_text_is_an_error_not_a_done() {
    // A Gemini turn with hooks whose AfterAgent says `message`, then `end`.
    let turn = |message: &str, end: &str| {
        format!(
            "agent gemini
             task t1
             hooks on
             0 key enter
             +10 hook working task=t1 hook=BeforeAgent
             +48 title ✦  Working… (proj)
             +200 hook done task=t1 hook=AfterAgent message={message}
             +30 title ◇  Ready (proj)
             horizon 30000
             expect 10 idle -> working hook_working
             expect 258 working -> {end}"
        )
    };
    let outcome = check(
        "gemini 401 with hooks",
        &format!(
            "{}\n expect false_done 0",
            turn("[no%20response%20text]", "error(api_error) hook_error")
        ),
    );
    assert_eq!(outcome.engine.last_message(), Some("[no response text]"));
    let outcome = check(
        "gemini answer with hooks",
        &turn("Hello%3B%20no%20response%20text%20here.", "done hook_done"),
    );
    assert_eq!(
        outcome.engine.last_message(),
        Some("Hello; no response text here.")
    );
    // Claude has no such message: the same text is its answer, a done.
    check(
        "claude says it",
        "agent claude
         task t1
         hooks on
         0 key enter
         +10 hook working task=t1 hook=UserPromptSubmit
         +200 hook done task=t1 hook=Stop message=[no%20response%20text]
         horizon 30000
         expect 10 idle -> working hook_working
         expect 210 working -> done hook_done",
    );
}
