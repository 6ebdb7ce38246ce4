//! The guessing rules: settle, its ceiling, and the fallbacks.

use crate::common::script::check;

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

/// A resize repaints an agent waiting at a fallback's needs you: the
/// redraw is not the agent resuming (issue 35); output after the redraw
/// window still is.
#[test]
fn a_resize_redraw_after_byte_quiet_does_not_resume_working() {
    check(
        "resize after quiet",
        "agent agy
         0 key enter
         +100 activity
         +20000 resize
         +30 activity
         +200 activity
         +5000 activity
         expect 100 idle -> working submit_activity
         expect 12100 working -> needs_you byte_quiet
         expect 25330 needs_you -> working quiet_resume
         expect 37330 working -> needs_you byte_quiet",
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
fn working_again_after_a_long_needs_you_restarts_the_fallback_clocks() {
    // After a long idle in needs you, Enter and a repaint that leaves the
    // screen as it was resume the turn; the settled-screen clock used to
    // still count from the turn's start, fired at once ("fires in 0s") and
    // flashed working -> needs_you -> working in one millisecond.
    check(
        "no zero-second settled screen",
        "agent opencode
         0 key enter
         +50 activity
         +0 screen 7 0
         +200000 key enter
         +20 activity
         +0 screen 7 0
         expect 50 idle -> working submit_activity
         expect 12050 working -> needs_you byte_quiet kind=unsure
         expect 200070 needs_you -> working submit_activity
         expect 212070 working -> needs_you byte_quiet kind=unsure",
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

#[test]
fn the_inspector_can_see_armed_timers_title_and_governance() {
    use termic_signal::engine::{Engine, EngineConfig, Key, TimerKind, TitleState};
    use termic_signal::signal::Signal;
    let mut engine = Engine::new(EngineConfig::new("claude", "t", false));
    engine.key(0, Key::Submit);
    engine.on_signal(10, Signal::Title("◐ Claude Code".into()));
    engine.on_signal(1000, Signal::Title("✳ Claude Code".into()));
    assert_eq!(
        engine.armed_timers(),
        vec![
            (TimerKind::Settle, 6000),
            (TimerKind::ByteQuiet, 13000),
            (TimerKind::SettleCeiling, 91000),
            (TimerKind::AbsoluteCeiling, 600010),
        ]
    );
    assert_eq!(engine.title(), ("✳ Claude Code", TitleState::Idle));
    assert!(!engine.is_governed());
    engine.set_hooks_wired(1500, true);
    assert!(engine.is_governed());
    assert_eq!(engine.armed_timers(), vec![]);
}
