//! OSC 7501 native status, and titles and notifications under it.

use crate::common::script::check;

// ---- native status ---------------------------------------------------------------

#[test]
fn native_status_governs_from_its_first_report() {
    check(
        "native governs",
        "agent claude
         0 probe_answered
         0 native idle
         +1000 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +60000 activity
         expect native_seen on",
    );
}

#[test]
fn native_blocked_carries_kind_and_message() {
    let outcome = check(
        "native blocked",
        "agent codex
         0 native idle
         +1000 key enter
         +30 native working
         +60 native blocked kind=permission
         +900 title [ . ] Action Required | touch | proj
         +3000 key other
         +50 native working
         +2000 native done
         expect 1030 idle -> working native_working
         expect 1090 working -> needs_you native_blocked kind=permission
         expect 5040 needs_you -> working native_working
         expect 7040 working -> done native_done",
    );
    let t = &outcome.transitions[1];
    assert_eq!(t.reason.to_string(), "native: blocked kind=permission");
}

#[test]
fn native_idle_mid_turn_is_an_interrupt_and_clear_too() {
    for (state, rule) in [("idle", "native_idle"), ("clear", "native_clear")] {
        check(
            state,
            &format!(
                "agent codex
                 0 key enter
                 +20 native working
                 +5000 native {state}
                 +10 native done
                 expect 20 idle -> working native_working
                 expect 5020 working -> interrupted {rule}"
            ),
        );
    }
}

/// Claude Code 2.1.332 with a background shell (issue 35, measured
/// 2026-12-06 in `real_agents matrix` claude:background:native): it stays
/// `working` while the shell runs after its answer, then reports `working`
/// and `clear` in one write when the shell ended and the turn goes on, and
/// `done` ~400 ms later. The `clear` is not an interrupt; the done is the
/// turn's one done.
#[test]
fn claude_native_clear_mid_turn_after_background_work_is_not_an_interrupt() {
    check(
        "claude clear",
        "agent claude
         0 probe_answered
         +0 key enter
         +400 native working
         +1100 native blocked kind=permission
         +1000 key enter
         +120 native working
         +1900 native working
         +14000 native working
         +0 native clear
         +400 native done
         expect 400 idle -> working native_working
         expect 1500 working -> needs_you native_blocked kind=permission
         expect 2620 needs_you -> working native_working
         expect 18920 working -> done native_done",
    );
}

/// Claude Code 2.1.332 on `/clear` after a turn (matrix `claude clear
/// native`, 2026-12-06): native `working` 220 ms after Enter, `idle` 400
/// ms later, no done: a local command, so idle, not interrupted. After an
/// Escape the same `idle` is the interrupt.
#[test]
fn claude_native_idle_after_clear_is_idle_not_an_interrupt() {
    check(
        "claude /clear",
        "agent claude
         0 probe_answered
         +0 key enter
         +380 native working
         +1140 native done
         +1320 key enter
         +220 native working
         +400 native idle
         +4400 key enter
         +230 native working
         +870 native done
         expect 380 idle -> working native_working
         expect 1520 working -> done native_done
         expect 3060 done -> working native_working
         expect 3460 working -> idle native_idle
         expect 8090 idle -> working native_working
         expect 8960 working -> done native_done",
    );
    check(
        "claude escape",
        "agent claude
         0 probe_answered
         +0 key enter
         +380 native working
         +3000 key escape
         +150 native idle
         expect 380 idle -> working native_working
         expect 3530 working -> interrupted native_idle",
    );
    // An Escape typed while nobody watched (no pending interrupt: the key
    // alone proves nothing) still makes Claude's own `idle` the interrupt,
    // as does an `idle` that comes long after the key on a loaded machine
    // (real_binary_claude_unwatched_done_rings_and_escape_rings_nothing
    // read `idle` there with the window rule of 6504dc9).
    check(
        "claude escape unwatched",
        "agent claude
         watched off
         0 probe_answered
         +0 key enter
         +380 native working
         +3000 key escape
         +150 native idle
         expect 380 idle -> working native_working
         expect 3530 working -> interrupted native_idle",
    );
    check(
        "claude escape, idle late",
        "agent claude
         0 probe_answered
         +0 key enter
         +380 native working
         +3000 key escape
         +6000 native idle
         expect 380 idle -> working native_working
         expect 9380 working -> interrupted native_idle",
    );
}

// ---- titles and notifications under native status ------------------------------------

#[test]
fn needs_you_title_raises_attention_and_busy_title_resumes() {
    let outcome = check(
        "title needs you",
        "agent grok
         0 key enter
         +40 title ⠋ - Thinking - grok
         +2000 title ⚠ Action Required - ⠙ - Running: write - grok
         +250 title ⚠ Action Required - ⠹ - Running: write - grok
         +4000 key other
         +30 title ⠸ - Running: write - grok
         expect 40 idle -> working title_busy
         expect 2040 working -> needs_you title_needs_you kind=title
         expect 6320 needs_you -> working title_busy
         expect 18320 working -> needs_you byte_quiet kind=unsure",
    );
    let message = outcome.transitions[1]
        .attention
        .as_ref()
        .unwrap()
        .message
        .clone();
    assert_eq!(
        message.as_deref(),
        Some("from the program's output: ⚠ Action Required - ⠙ - Running: write - grok")
    );
}

#[test]
fn under_native_status_titles_and_notifications_move_nothing() {
    check(
        "native ignores titles",
        "agent codex
         0 key enter
         +0 native working
         +100 title [ ! ] Action Required | x | proj
         +100 notify approval needed
         +100 native blocked kind=permission
         +100 title ⠋ x | proj
         +100 title proj
         expect 0 idle -> working native_working
         expect 300 working -> needs_you native_blocked kind=permission",
    );
}

#[test]
fn native_blocked_message_is_the_decoded_prompt_text() {
    let mut outcome = check(
        "native message",
        "agent claude
         0 bytes \\e]7501;?\\e\\\\
         +0 probe_answered
         +0 key enter
         +10 bytes \\e]7501;state=working:app=claude-code\\e\\\\
         +50 bytes \\e]7501;state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBXcml0ZTogYS5ycw==\\e\\\\
         expect 10 idle -> working native_working
         expect 60 working -> needs_you native_blocked kind=permission",
    );
    let attention = outcome.transitions[1].attention.clone().unwrap();
    assert_eq!(
        attention.message.as_deref(),
        Some("from the program's output: approve Write: a.rs")
    );
    assert!(
        outcome.engine.take_native_probe(),
        "the probe is reported once"
    );
    assert!(!outcome.engine.take_native_probe());
}

// ---- measured on the real agents (real-agents re-measurement) ----------------------

#[test]
fn codex_start_up_working_idle_pair_is_not_a_turn() {
    check(
        "codex start-up pair",
        "agent codex
         0 native idle
         +100 native working
         +100 native idle
         +5000 key enter
         +20 native working
         +3000 native done
         expect 5220 idle -> working native_working
         expect 8220 working -> done native_done",
    );
}

#[test]
fn codex_start_up_spinner_title_before_its_first_report_is_not_a_turn() {
    // Seen once on Codex 0.171.0 under load (2026-12-06): the spinner title
    // came before the first OSC 7501 report, and the start-up pair then read
    // as a turn that was interrupted.
    check(
        "codex start-up title",
        "agent codex
         0 title ⠋ x | proj
         +50 native working
         +100 native idle
         +100 title proj
         +5000 key enter
         +20 native working
         +3000 native done
         expect 5270 idle -> working native_working
         expect 8270 working -> done native_done",
    );
    // After an Enter the title still opens the turn (a Codex that never
    // reports native status).
    check(
        "codex title after enter",
        "agent codex
         0 key enter
         +40 title ⠋ x | proj
         expect 40 idle -> working title_busy
         expect 12040 working -> needs_you byte_quiet kind=unsure",
    );
}

#[test]
fn native_working_without_enter_counts_after_the_hold() {
    // An agent started with its prompt on the command line: no Enter at all.
    check(
        "prompt argument",
        "agent codex
         0 native idle
         +200 native working
         +5000 native done
         expect 1200 idle -> working native_working
         expect 5200 working -> done native_done",
    );
}

#[test]
fn blocked_or_done_inside_the_hold_proves_the_turn() {
    check(
        "blocked in hold",
        "agent claude
         0 probe_answered
         0 native idle
         +200 native working
         +50 native blocked kind=question
         expect 250 idle -> working native_working
         expect 250 working -> needs_you native_blocked kind=question",
    );
    check(
        "done in hold",
        "agent codex
         0 native working
         +300 native done
         expect 300 idle -> working native_working
         expect 300 working -> done native_done",
    );
}

#[test]
fn first_native_idle_ends_a_heuristic_turn_as_idle_not_interrupted() {
    // An early Enter while Codex starts: the heuristics open a turn on the
    // start-up painting, then Codex's first report says nothing runs.
    check(
        "early enter",
        "agent codex
         0 key enter
         +50 activity
         +2000 native idle
         expect 50 idle -> working submit_activity
         expect 2050 working -> idle native_idle",
    );
}

#[test]
fn grok_title_before_its_hook_still_gets_the_hooks_kind() {
    // Measured on 0.2.111: Action Required lands ~20 ms after the
    // Notification hook starts, before the hook's OSC reaches the PTY.
    let outcome = check(
        "title then hook",
        "agent grok
         hooks on
         0 key enter
         +20 hook working hook=UserPromptSubmit
         +30 title ⠋ - Running: Write - grok
         +2000 title ⚠ Action Required - ⠙ - Running: Write - grok
         +5 hook attention hook=Notification kind=permission
         expect 20 idle -> working hook_working
         expect 2050 working -> needs_you title_needs_you kind=title",
    );
    let now = outcome.engine.attention().unwrap();
    assert_eq!(now.kind.as_deref(), Some("permission"));
    assert!(now.message.as_deref().unwrap().contains("Action Required"));
    // And the other order: the held hook attention lends its kind.
    let outcome = check(
        "hook then title",
        "agent grok
         hooks on
         0 key enter
         +20 hook working hook=UserPromptSubmit
         +2000 hook attention hook=Notification kind=permission
         +20 title ⚠ Action Required - ⠙ - Running: Write - grok
         expect 20 idle -> working hook_working
         expect 2040 working -> needs_you title_needs_you kind=permission",
    );
    assert_eq!(
        outcome.engine.attention().unwrap().kind.as_deref(),
        Some("permission")
    );
}

/// Issue 30: what a client may answer for the user rests on the agent's
/// own word. A title's needs-you is a guess until the hook confirms it; a
/// title alone never is the agent's word.
#[test]
fn a_needs_you_is_the_agents_once_its_hook_confirms_the_titles() {
    let title_only = check(
        "title only",
        "agent grok
         hooks on
         0 key enter
         +20 hook working hook=UserPromptSubmit
         +30 title ⠋ - Running: Write - grok
         +2000 title ⚠ Action Required - ⠙ - Running: Write - grok
         expect 20 idle -> working hook_working
         expect 2050 working -> needs_you title_needs_you kind=title",
    );
    assert!(!title_only.engine.needs_you_from_agent());
    let confirmed = check(
        "title then hook",
        "agent grok
         hooks on
         0 key enter
         +20 hook working hook=UserPromptSubmit
         +30 title ⠋ - Running: Write - grok
         +2000 title ⚠ Action Required - ⠙ - Running: Write - grok
         +5 hook attention hook=Notification kind=permission
         expect 20 idle -> working hook_working
         expect 2050 working -> needs_you title_needs_you kind=title",
    );
    assert!(confirmed.engine.needs_you_from_agent());
    let hooked = check(
        "a question's hook",
        "agent claude
         hooks on
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +100 hook attention hook=PermissionRequest kind=question
         expect 10 idle -> working hook_working
         expect 110 working -> needs_you hook_attention kind=question",
    );
    assert!(hooked.engine.needs_you_from_agent());
    // The hook first, held in its debounce, then the title: the title
    // raises it with the held hook's kind, and it is the agent's word.
    let held = check(
        "hook then title",
        "agent grok
         hooks on
         0 key enter
         +20 hook working hook=UserPromptSubmit
         +2000 hook attention hook=Notification kind=permission
         +20 title ⚠ Action Required - ⠙ - Running: Write - grok
         expect 20 idle -> working hook_working
         expect 2040 working -> needs_you title_needs_you kind=permission",
    );
    assert!(held.engine.needs_you_from_agent());
}

// ---- who may report native status (docs/protocol.md) --------------------------------

#[test]
fn printed_native_status_in_a_generic_or_non_speaking_task_is_not_obeyed() {
    for agent in ["generic", "grok", "opencode", "agy"] {
        let mut outcome = check(
            agent,
            &format!(
                "agent {agent}
                 0 bytes \\e]7501;state=working:app=codex\\e\\\\
                 +10 bytes \\e]7501;state=blocked:app=codex:kind=permission:msg=cHduZWQ=\\e\\\\
                 +10 bytes \\e]7501;state=done:app=codex\\e\\\\
                 +10 bytes \\e]7501;state=idle:app=codex\\e\\\\
                 expect native_seen off"
            ),
        );
        let log: Vec<String> = outcome
            .engine
            .drain_log()
            .into_iter()
            .map(|e| e.text)
            .collect();
        let refused = log
            .iter()
            .filter(|l| l.contains("not obeyed: this task's program does not speak native status"))
            .count();
        assert_eq!(refused, 4, "{agent}: {log:#?}");
    }
}

#[test]
fn claude_status_counts_only_after_the_probe_was_answered() {
    // Probe seen, never answered (native_probe_reply off): printed text.
    let mut outcome = check(
        "unanswered",
        "agent claude
         0 bytes \\e]7501;?\\e\\\\
         +1000 key enter
         +10 bytes \\e]7501;state=done:app=claude-code\\e\\\\
         expect native_seen off",
    );
    assert!(outcome.engine.drain_log().iter().any(|e| e
        .text
        .contains("not obeyed: termic has not answered this task's OSC 7501 probe")));
    check(
        "answered",
        "agent claude
         0 bytes \\e]7501;?\\e\\\\
         +0 probe_answered
         +1000 key enter
         +10 bytes \\e]7501;state=working:app=claude-code\\e\\\\
         +10 bytes \\e]7501;state=done:app=claude-code\\e\\\\
         expect 1010 idle -> working native_working
         expect 1020 working -> done native_done
         expect native_seen on",
    );
}

#[test]
fn codex_status_counts_without_a_probe() {
    check(
        "codex",
        "agent codex
         0 key enter
         +10 bytes \\e]7501;state=working:app=codex\\e\\\\
         +10 bytes \\e]7501;state=done:app=codex\\e\\\\
         expect 10 idle -> working native_working
         expect 20 working -> done native_done",
    );
}

#[test]
fn a_native_done_never_ends_a_turn_a_hook_owns() {
    let mut outcome = check(
        "done",
        "agent codex
         hooks on
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +10 native working
         +10 native done
         +5000 hook done hook=Stop
         expect 10 idle -> working hook_working
         expect 5030 working -> done hook_done",
    );
    assert!(outcome
        .engine
        .drain_log()
        .iter()
        .any(|e| e.text.contains("not obeyed: a hook owns this turn")));
}

/// Idle after working is the agent's own interrupt report: Claude's hooks
/// have none (no Stop on Escape), so it still ends a hook-owned turn, as
/// interrupted, even when the Escape was typed while unwatched.
#[test]
fn a_native_idle_still_interrupts_a_turn_a_hook_owns() {
    check(
        "idle",
        "agent codex
         hooks on
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +10 native working
         +10 native idle
         expect 10 idle -> working hook_working
         expect 30 working -> interrupted native_idle",
    );
}

#[test]
fn printed_notifications_in_a_generic_task_are_recorded_not_obeyed() {
    let mut outcome = check(
        "generic notify",
        "agent generic
         0 key enter
         +10 bytes \\e]9;Action Required\\a\\e]777;notify;x;approve\\a\\e]0;[ ! ] Action Required\\a\\a
         +10 notify approve now",
    );
    assert!(outcome.transitions.iter().all(|t| t.reason.rule
        != termic_signal::engine::Rule::Notification
        && t.reason.rule != termic_signal::engine::Rule::TitleNeedsYou));
    let log = outcome.engine.drain_log();
    assert!(
        log.iter()
            .filter(|e| e
                .text
                .contains("not obeyed: this task's program output is only text"))
            .count()
            >= 3,
        "{log:#?}"
    );
}
