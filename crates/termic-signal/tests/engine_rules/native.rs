//! OSC 7501 native status, and titles and notifications under it.

use crate::common::script::check;

// ---- native status ---------------------------------------------------------------

#[test]
fn native_status_governs_from_its_first_report() {
    check(
        "native governs",
        "agent claude
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
                 0 native working
                 +5000 native {state}
                 +10 native done
                 expect 0 idle -> working native_working
                 expect 5000 working -> interrupted {rule}"
            ),
        );
    }
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
        Some("⚠ Action Required - ⠙ - Running: write - grok")
    );
}

#[test]
fn under_native_status_titles_and_notifications_move_nothing() {
    check(
        "native ignores titles",
        "agent codex
         0 native working
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
         +10 bytes \\e]7501;state=working:app=claude-code\\e\\\\
         +50 bytes \\e]7501;state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBXcml0ZTogYS5ycw==\\e\\\\
         expect 10 idle -> working native_working
         expect 60 working -> needs_you native_blocked kind=permission",
    );
    let attention = outcome.transitions[1].attention.clone().unwrap();
    assert_eq!(attention.message.as_deref(), Some("approve Write: a.rs"));
    assert!(
        outcome.engine.take_native_probe(),
        "the probe is reported once"
    );
    assert!(!outcome.engine.take_native_probe());
}
