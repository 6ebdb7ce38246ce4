//! Hook messages: hooks own the turn, the permission debounce, foreign ids.

use crate::common::script::check;

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
fn hooks_unwired_mid_turn_hand_the_turn_to_the_settle() {
    // The agent dropped its hooks during the turn: no Stop will come. When
    // the runtime learns it (a re-stamp of the config, seconds later), the
    // heuristics take over from the fields they were kept on: the title went
    // idle at 1030, so the settle is long due and fires at once.
    check(
        "unwired mid-turn",
        "agent claude
         hooks on
         0 key enter
         +10 hook working hook=UserPromptSubmit
         +20 title ◐ Claude Code
         +1000 title ✳ Claude Code
         +8000 wired off
         expect 10 idle -> working hook_working
         expect 9030 working -> done settle",
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

#[test]
fn wiring_hooks_after_a_settle_fell_due_still_reports_it() {
    // Live, the runtime may learn the hooks are wired before it ticks; a
    // replay ticks first. Both must report the same settle at 6000.
    use termic_signal::engine::{Engine, EngineConfig, Key, State};
    use termic_signal::signal::Signal;
    let mut engine = Engine::new(EngineConfig::new("claude", "t", false));
    engine.key(0, Key::Submit);
    engine.on_signal(10, Signal::Title("◐ Claude Code".into()));
    engine.on_signal(1000, Signal::Title("✳ Claude Code".into()));
    engine.set_hooks_wired(7000, true);
    assert_eq!(
        engine.next_deadline(),
        Some(6000),
        "the deferred done is due"
    );
    let out = engine.tick(7000);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].at, out[0].to), (6000, State::Done));
    assert_eq!(engine.next_deadline(), None);
}

// ---- hooks with no attention event (agy) ---------------------------------------------------

#[test]
fn hooks_without_an_attention_event_keep_the_byte_quiet_ask_and_nothing_else() {
    // agy's hooks say working and done only. While they alone govern, a
    // silence still ASKS (needs you, unsure); the settled screen, scrollback
    // and absolute-ceiling fallbacks stay down, nothing but Stop ends the
    // turn, and output after the ask returns to working.
    check(
        "agy hooks quiet ask",
        "agent agy
         hooks on
         0 key enter
         +40 hook working hook=PreInvocation
         +0 screen 1 0
         +1000 screen 2 3
         +10 activity
         every 1000 until 700000 screen 2 3
         700000 activity
         +500 hook done hook=Stop
         expect 40 idle -> working hook_working
         expect 13050 working -> needs_you byte_quiet kind=unsure
         expect 700000 needs_you -> working quiet_resume
         expect 700500 working -> done hook_done",
    );
}

#[test]
fn the_quiet_ask_is_only_for_hooks_that_cannot_say_needs_you() {
    // The same silence under hooks that do report attention (claude,
    // opencode, grok), or once native status is seen, asks nothing.
    for agent in ["claude", "opencode", "grok"] {
        check(
            agent,
            &format!(
                "agent {agent}
                 hooks on
                 0 key enter
                 +40 hook working
                 +10 activity
                 +100000 hook done
                 expect 40 idle -> working hook_working
                 expect 100050 working -> done hook_done"
            ),
        );
    }
    // agy does not speak OSC 7501: a printed report is not obeyed, so it
    // governs nothing and the quiet ask still runs.
    check(
        "agy with printed native status",
        "agent agy
         hooks on
         0 key enter
         +40 hook working hook=PreInvocation
         +10 native working
         +10 activity
         +100000 hook done hook=Stop
         expect 40 idle -> working hook_working
         expect 12060 working -> needs_you byte_quiet kind=unsure
         expect 100060 needs_you -> done hook_done
         expect native_seen off",
    );
}

#[test]
fn an_unwired_agy_under_the_quiet_ask_is_ungoverned_again() {
    // Unwiring hooks mid-turn hands the turn back to every heuristic: here
    // the settled screen, which the quiet ask alone never runs.
    check(
        "agy unwired",
        "agent agy
         hooks on
         0 key enter
         +40 hook working hook=PreInvocation
         +10 activity
         +1000 wired off
         +0 screen 5 0
         every 1000 until 30000 activity
         expect 40 idle -> working hook_working
         expect 21050 working -> needs_you settled_screen kind=unsure",
    );
}
