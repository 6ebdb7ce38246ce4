//! One test per engine rule, each a scripted timeline on a virtual clock
//! (format: tests/common/script.rs).

mod common;

use common::script::check;

// ---- settle (title idle) -------------------------------------------------

#[test]
fn settle_title_idle_for_5s_is_done() {
    check(
        "settle",
        "agent claude
         0 key enter
         +20 activity
         +30 title ◐ Claude Code
         +960 title ◑ Claude Code
         +500 activity
         +490 title ✳ Claude Code
         expect 20 idle -> working submit_activity
         expect 7000 working -> done settle",
    );
}

#[test]
fn settle_waits_for_visible_output_to_stop() {
    check(
        "settle postponed",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +3000 activity
         expect 10 idle -> working title_busy
         expect 9000 working -> done settle",
    );
}

#[test]
fn busy_title_cancels_settle() {
    check(
        "busy cancels settle",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +4000 title ◐ Claude Code
         +5000 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 15000 working -> done settle",
    );
}

#[test]
fn attention_cancels_settle() {
    // goAttention/cancelSettle: the notification lands before the settle.
    let outcome = check(
        "attention cancels settle",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +2000 notify Claude needs your permission
         expect 10 idle -> working title_busy
         expect 3000 working -> needs_you notification kind=notification",
    );
    assert_eq!(outcome.engine.false_done_count(), 0);
}

#[test]
fn claude_idle_nudge_is_filtered_and_settle_still_fires() {
    check(
        "notify filter",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +1000 notify Claude is waiting for your input
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle",
    );
}

#[test]
fn settle_ceiling_ends_a_turn_whose_output_never_stops() {
    check(
        "settle ceiling",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         every 1000 until 120000 activity
         expect 10 idle -> working title_busy
         expect 91000 working -> done settle_ceiling",
    );
}

// ---- fallbacks (no title states) ------------------------------------------

#[test]
fn byte_quiet_asks_you_to_look_instead_of_claiming_done() {
    check(
        "byte quiet",
        "agent agy
         0 key enter
         +100 activity
         every 500 until 5000 activity
         expect 100 idle -> working submit_activity
         expect 16600 working -> needs_you byte_quiet kind=unsure",
    );
}

#[test]
fn output_after_byte_quiet_resumes_working_unless_a_key_was_pressed() {
    check(
        "quiet resume",
        "agent agy
         0 key enter
         +100 activity
         +20000 activity
         +20000 key other
         +10 activity
         expect 100 idle -> working submit_activity
         expect 12100 working -> needs_you byte_quiet
         expect 20100 needs_you -> working quiet_resume
         expect 32100 working -> needs_you byte_quiet",
    );
}

#[test]
fn settled_screen_catches_identical_repaints() {
    check(
        "settled screen",
        "agent opencode
         0 key enter
         +50 activity
         +0 screen 7 0
         every 1000 until 30000 activity
         expect 50 idle -> working submit_activity
         expect 20050 working -> needs_you settled_screen kind=unsure",
    );
}

#[test]
fn screen_change_after_settled_screen_resumes() {
    check(
        "settled screen resume",
        "agent opencode
         0 key enter
         +50 activity
         +0 screen 7 0
         every 1000 until 22000 activity
         +0 screen 8 0
         expect 50 idle -> working submit_activity
         expect 20050 working -> needs_you settled_screen
         expect 21050 needs_you -> working quiet_resume
         expect 33050 working -> needs_you byte_quiet",
    );
}

#[test]
fn scrollback_stability_ends_a_turn_that_only_animates_in_place() {
    check(
        "scrollback stable",
        "agent agy
         0 key enter
         +10 activity
         +0 screen 1 0
         +1000 screen 2 5
         +1000 screen 3 9
         every 500 until 100000 activity || screen 4 9 || activity || screen 5 9
         expect 10 idle -> working submit_activity
         expect 62010 working -> needs_you scrollback_stable kind=unsure",
    );
}

#[test]
fn absolute_ceiling_ends_a_turn_with_no_busy_sign_for_10_minutes() {
    check(
        "absolute ceiling",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         every 1000 until 700000 activity
         expect 10 idle -> working title_busy
         expect 600010 working -> needs_you absolute_ceiling kind=unsure",
    );
}

#[test]
fn enter_without_output_starts_nothing() {
    check(
        "submit window",
        "agent agy
         0 key enter
         +5000 activity
         expect false_done 0",
    );
}

// ---- hooks own the turn -----------------------------------------------------

#[test]
fn hooks_wired_silence_every_heuristic_until_the_hook_done() {
    check(
        "hooks own the turn",
        "agent claude
         hooks on
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +20 title ◐ Claude Code
         +1000 title ✳ Claude Code
         +0 screen 1 0
         +700000 hook done hook=Stop
         expect 10 idle -> working hook_working
         expect 701030 working -> done hook_done",
    );
}

#[test]
fn hook_done_while_not_working_is_ignored() {
    check(
        "done without working",
        "agent agy
         hooks on
         0 hook done hook=Stop
         +10 hook interrupted
         +10 hook working
         +10 hook done
         +10 hook done
         expect 20 idle -> working hook_working
         expect 30 working -> done hook_done",
    );
}

#[test]
fn claude_stop_with_background_tasks_keeps_working() {
    check(
        "background",
        "agent claude
         hooks on
         0 hook working hook=UserPromptSubmit
         +5000 hook done hook=Stop background=1
         +60000 hook done hook=Stop
         expect 0 idle -> working hook_working
         expect 65000 working -> done hook_done",
    );
}

#[test]
fn hook_message_for_another_task_is_recorded_not_obeyed() {
    let mut outcome = check(
        "foreign task",
        "agent claude
         hooks on
         task mine
         0 hook working task=someone-else
         +10 hook working
         +10 hook done task=someone-else
         +10 hook attention task=someone-else kind=question
         expect 10 idle -> working hook_working",
    );
    let log = outcome.engine.drain_log();
    assert!(
        log.iter()
            .filter(|e| e.text.contains("another task") && e.text.contains("not obeyed"))
            .count()
            == 3,
        "{log:#?}"
    );
}

#[test]
fn setting_hooks_wired_mid_turn_drops_the_settle() {
    check(
        "wired mid turn",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +1000 wired on
         +60000 wired off
         expect 10 idle -> working title_busy
         expect 62000 working -> done settle",
    );
}

// ---- permission debounce -----------------------------------------------------

#[test]
fn permission_attention_is_held_for_the_debounce() {
    check(
        "debounce",
        "agent claude
         hooks on
         0 hook working hook=UserPromptSubmit
         +30000 title ✳ Claude Code
         +20 hook attention hook=PermissionRequest kind=permission
         expect 0 idle -> working hook_working
         expect 31020 working -> needs_you hook_attention kind=permission",
    );
}

#[test]
fn debounce_is_cancelled_by_busy_title_hook_working_or_release() {
    for resolve in ["title ◐ Claude Code", "hook working", "hook released"] {
        check(
            resolve,
            &format!(
                "agent claude
                 hooks on
                 0 hook working
                 +1000 title ✳ Claude Code
                 +20 hook attention hook=PermissionRequest
                 +500 {resolve}
                 +9000 hook done hook=Stop
                 expect 0 idle -> working hook_working
                 expect 10520 working -> done hook_done
                 expect false_done 0"
            ),
        );
    }
}

#[test]
fn questions_and_plans_are_not_debounced() {
    for kind in ["question", "plan"] {
        check(
            kind,
            &format!(
                "agent claude
                 hooks on
                 0 hook working
                 +100 hook attention kind={kind}
                 expect 0 idle -> working hook_working
                 expect 100 working -> needs_you hook_attention kind={kind}"
            ),
        );
    }
}

#[test]
fn a_held_attention_keeps_the_settle_from_firing() {
    // Hooks not reported wired, but a hook speaks: the held attention must
    // still stop the settle the idle title armed 20 ms earlier.
    check(
        "held attention blocks settle",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +20 hook attention hook=PermissionRequest
         expect 10 idle -> working title_busy
         expect 2020 working -> needs_you hook_attention kind=permission",
    );
}

#[test]
fn released_returns_to_working() {
    check(
        "released",
        "agent opencode
         hooks on
         0 hook working hook=chat.message
         +100 hook attention hook=permission.asked kind=permission
         +5000 hook released hook=permission.replied
         +1000 hook done hook=session.idle
         expect 0 idle -> working hook_working
         expect 1100 working -> needs_you hook_attention
         expect 5100 needs_you -> working hook_released
         expect 6100 working -> done hook_done",
    );
}

// ---- one done per submit --------------------------------------------------------

#[test]
fn one_done_per_submit_without_hooks() {
    check(
        "one done per submit",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +10000 title ◐ Claude Code
         +1000 title ✳ Claude Code
         +10000 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle
         expect 11000 done -> working title_busy
         expect 17000 working -> idle settle
         expect 22010 idle -> working title_busy
         expect 28000 working -> done settle",
    );
}

#[test]
fn hooks_and_native_together_give_one_of_each() {
    check(
        "hooks and native",
        "agent claude
         hooks on
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +80 native working
         +50 native blocked kind=permission msg=approve Write: out.txt
         +10 hook attention hook=PermissionRequest kind=permission
         +4000 key enter
         +60 native working
         +3000 hook done hook=Stop
         +12 native done
         +2000 native idle
         expect 10 idle -> working hook_working
         expect 140 working -> needs_you native_blocked kind=permission
         expect 4210 needs_you -> working native_working
         expect 7210 working -> done hook_done
         expect false_done 0",
    );
}

#[test]
fn activity_after_done_does_not_restart_working() {
    check(
        "activity after done",
        "agent agy
         hooks on
         0 hook working
         +1000 hook done
         +100 activity
         +100 activity
         expect 0 idle -> working hook_working
         expect 1000 working -> done hook_done",
    );
}

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

// ---- interrupts ------------------------------------------------------------------

#[test]
fn escape_then_idle_title_is_an_interrupt() {
    for key in ["escape", "ctrlc"] {
        check(
            key,
            &format!(
                "agent claude
                 0 key enter
                 +10 title ◐ Claude Code
                 +8000 key {key}
                 +110 title ✳ Claude Code
                 expect 10 idle -> working title_busy
                 expect 8120 working -> interrupted interrupt_title"
            ),
        );
    }
}

#[test]
fn interrupt_keys_count_only_while_watched() {
    check(
        "not watched",
        "agent claude
         watched off
         0 key enter
         +10 title ◐ Claude Code
         +8000 key escape
         +110 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 13120 working -> done settle",
    );
}

#[test]
fn escape_then_quiet_is_an_interrupt_for_agents_without_titles() {
    check(
        "quiet interrupt",
        "agent agy
         hooks on
         0 hook working hook=PreInvocation
         every 500 until 8000 activity
         +200 key escape
         +300 activity
         expect 0 idle -> working hook_working
         expect 23500 working -> interrupted interrupt_quiet",
    );
}

#[test]
fn an_escape_the_agent_ignores_interrupts_nothing() {
    check(
        "ignored escape",
        "agent opencode
         hooks on
         0 hook working hook=chat.message
         every 500 until 8000 activity
         +100 key escape
         every 500 until 60000 activity
         +100 hook done hook=session.idle
         expect 0 idle -> working hook_working
         expect 59700 working -> done hook_done",
    );
}

#[test]
fn hook_interrupted_ends_the_turn_without_a_done() {
    check(
        "hook interrupted",
        "agent grok
         hooks on
         0 hook working hook=UserPromptSubmit
         +8000 key escape
         +350 hook interrupted hook=StopCancelled
         +12 hook done hook=Stop
         expect 0 idle -> working hook_working
         expect 8350 working -> interrupted hook_interrupted",
    );
}

// ---- false done signature, exit ------------------------------------------------------

#[test]
fn false_done_signature_is_counted() {
    check(
        "false done",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +6000 notify Claude needs your permission
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle
         expect 7000 done -> needs_you notification
         expect false_done 1",
    );
}

#[test]
fn attention_long_after_done_is_not_a_false_done() {
    check(
        "late attention",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +20000 notify Claude needs your permission
         expect 10 idle -> working title_busy
         expect 6000 working -> done settle
         expect 21000 done -> needs_you notification
         expect false_done 0",
    );
}

#[test]
fn exited_is_terminal() {
    let outcome = check(
        "exit",
        "agent claude
         hooks on
         0 hook working
         +100 exit 0
         +10 hook working
         +10 native blocked kind=permission
         +10 key enter
         expect 0 idle -> working hook_working
         expect 100 working -> exited exit",
    );
    assert_eq!(outcome.engine.next_deadline(), None);
}

// ---- the documented table -------------------------------------------------------------

#[test]
fn docs_constants_table_matches_the_defaults() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/state-machine.md");
    let doc = std::fs::read_to_string(path).unwrap();
    for (name, value) in termic_signal::engine::Constants::default().table() {
        let row = format!("| `{name}` | {value} |");
        assert!(
            doc.contains(&row),
            "docs/state-machine.md lacks the row {row}"
        );
    }
    for rule in termic_signal::engine::Rule::ALL {
        let row = format!("| `{}` | {} |", rule.as_str(), rule.label());
        assert!(
            doc.contains(&row),
            "docs/state-machine.md lacks the rule row {row}"
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

// ---- the Inspector timeline -------------------------------------------------------------

#[test]
fn the_log_shows_signals_keys_timers_and_transitions() {
    let mut outcome = check(
        "log",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +990 title ✳ Claude Code
         +1000 title ◐ Claude Code
         +1000 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 8000 working -> done settle",
    );
    let log: Vec<String> = outcome
        .engine
        .drain_log()
        .iter()
        .map(|e| format!("{} {} {}", e.at, e.kind.as_str(), e.text))
        .collect();
    let wanted = [
        "0 key Enter",
        "10 signal title \"◐ Claude Code\" (busy)",
        "10 transition idle -> working (title: busy \"◐ Claude Code\")",
        "1000 timer settle armed, due at 6000",
        "2000 timer settle cancelled",
        "3000 timer settle armed, due at 8000",
        "8000 timer settle fired",
        "8000 transition working -> done (settle: title idle for 5000 ms)",
    ];
    for line in wanted {
        assert!(
            log.iter().any(|l| l == line),
            "missing {line:?} in {log:#?}"
        );
    }
    assert!(outcome.engine.drain_log().is_empty(), "drained");
}

#[test]
fn a_late_tick_fires_timers_at_their_deadlines_in_order() {
    use termic_signal::engine::{Engine, EngineConfig, Key, State};
    use termic_signal::signal::Signal;
    let mut engine = Engine::new(EngineConfig::new("claude", "t", false));
    engine.key(0, Key::Submit);
    engine.on_signal(10, Signal::Title("◐ Claude Code".into()));
    engine.on_signal(1000, Signal::Title("✳ Claude Code".into()));
    assert_eq!(engine.next_deadline(), Some(6000));
    // The caller oversleeps by a minute: the settle still happened at 6000.
    let out = engine.tick(66_000);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].at, out[0].to), (6000, State::Done));
    assert_eq!(engine.since(), 6000);
    assert_eq!(engine.next_deadline(), None);
}
