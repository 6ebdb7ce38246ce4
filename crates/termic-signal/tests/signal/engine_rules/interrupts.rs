//! Escape and Ctrl-C as interrupt evidence; hook interrupts.

use crate::common::script::check;

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

#[test]
fn an_interrupt_spends_no_done() {
    // The agent carries on by itself after the interrupt (no Enter): its
    // next end is still a done, because the interrupt did not spend the
    // submit's done. Had it, the settle would end the turn as idle.
    check(
        "interrupt keeps the done",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +8000 key escape
         +110 title ✳ Claude Code
         +2000 title ◐ Claude Code
         +3000 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 8120 working -> interrupted interrupt_title
         expect 10120 interrupted -> working title_busy
         expect 18120 working -> done settle",
    );
}

#[test]
fn an_idle_title_after_the_window_is_not_an_interrupt() {
    // 3.5 s after the key is past interrupt_title_window_ms: the key did not
    // take, so the idle title is an ordinary end (settle), not an interrupt.
    check(
        "late idle title",
        "agent claude
         0 key enter
         +10 title ◐ Claude Code
         +8000 key escape
         +3500 title ✳ Claude Code
         expect 10 idle -> working title_busy
         expect 16510 working -> done settle",
    );
}

/// Gemini CLI 0.61.0 with termic's hooks, as measured (real_agents
/// matrix::cell_gemini_escape_hooks, 2026-12-06): Escape 3 s into a slow
/// answer, then AfterAgent 149 ms later and the Ready title 112 ms later,
/// in either order. Either way the turn was interrupted, never done; a
/// turn with no Escape still ends in the hook's done.
#[test]
fn gemini_after_agent_right_after_escape_is_an_interrupt_not_a_done() {
    let working = "✦  Working… (proj)";
    let ready = "◇  Ready (proj)";
    check(
        "hook first",
        &format!(
            "agent gemini
             task t1
             hooks on
             0 key enter
             +71 hook working task=t1 hook=BeforeAgent
             +6 title {working}
             +3006 key escape
             +112 hook done task=t1 hook=AfterAgent
             +37 title {ready}
             horizon 20000
             expect 71 idle -> working hook_working
             expect 3195 working -> interrupted hook_interrupted
             expect false_done 0"
        ),
    );
    check(
        "title first",
        &format!(
            "agent gemini
             task t1
             hooks on
             0 key enter
             +71 hook working task=t1 hook=BeforeAgent
             +6 title {working}
             +3006 key escape
             +112 title {ready}
             +37 hook done task=t1 hook=AfterAgent
             horizon 20000
             expect 71 idle -> working hook_working
             expect 3195 working -> interrupted interrupt_title
             expect false_done 0"
        ),
    );
    check(
        "no escape",
        &format!(
            "agent gemini
             task t1
             hooks on
             0 key enter
             +71 hook working task=t1 hook=BeforeAgent
             +6 title {working}
             +3006 hook done task=t1 hook=AfterAgent
             +50 title {ready}
             horizon 20000
             expect 71 idle -> working hook_working
             expect 3083 working -> done hook_done"
        ),
    );
}
