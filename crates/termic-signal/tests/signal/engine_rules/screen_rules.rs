//! Screen rules (profile/screen.rs, rules/screen_rules.rs): an agent's
//! dialog on screen raises needs you and holds a guessed done back; no rule
//! ever ends a turn, and none applies in a command or shell task.

use crate::common::script::{check, parse, run};

/// Claude Code 2.1.332's Write permission dialog, bottom rows as the
/// runtime sends them (measured under termic, hooks off, no probe reply).
const CLAUDE_DIALOG: &str = " Do you want to create out.txt?\\n ❯ 1. Yes\\n   2. Yes, and switch \
to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)\\n   \
3. No\\n Esc to cancel · Tab to amend";

const CLAUDE_PROMPT: &str = "❯\\n─────\\n  ⏸ manual mode on · ? for shortcuts";

#[test]
fn claude_permission_dialog_is_needs_you_with_no_done_before_it() {
    // The title goes idle ~25 ms before the dialog is painted; without the
    // rule the settle would call it done 5 s later (the plan's false done).
    let text = format!(
        "agent claude
         0 key enter
         +180 title ◐ Claude Code
         +1040 title ✳ Claude Code
         +60 rows {CLAUDE_DIALOG}
         +10000 key enter
         +100 rows {CLAUDE_PROMPT}
         +300 title ◐ Claude Code
         +500 title ✳ Claude Code
         expect 180 idle -> working title_busy
         expect 1280 working -> needs_you screen_needs_you kind=permission
         expect 11380 needs_you -> working screen_cleared
         expect 17180 working -> done settle
         expect false_done 0"
    );
    check("claude dialog", &text);
}

#[test]
fn claude_question_dialog_is_a_question() {
    check(
        "claude question",
        "agent claude
         0 key enter
         +200 title ◐ Claude Code
         +900 title ✳ Claude Code
         +50 rows ❯ 1. Red\\n     Pick Red.\\n  4. Chat about this\\nEnter to select · ↑/↓ to navigate · Esc to cancel
         expect 200 idle -> working title_busy
         expect 1150 working -> needs_you screen_needs_you kind=question",
    );
}

#[test]
fn claude_plan_dialog_is_a_plan() {
    check(
        "claude plan",
        "agent claude
         0 key enter
         +200 title ◐ Claude Code
         +900 title ✳ Claude Code
         +50 rows ──────\\n   Exit plan mode?\\n   Claude wants to exit plan mode\\n   ❯ 1. Yes, and switch to default (ask each time) for this session\\n     2. No
         expect 200 idle -> working title_busy
         expect 1150 working -> needs_you screen_needs_you kind=plan",
    );
}

#[test]
fn grok_permission_prompt_is_needs_you() {
    check(
        "grok prompt",
        "agent grok
         0 key enter
         +10 activity
         +200 rows   ┃  Allow Edit to /tmp/p/out.txt?\\n  ┃\\n  ┃  1 (●) Yes, and don't ask again for anything (always-approve mode)\\n  ┃  2 (○) Yes, allow all edits during this session\\n  ┃  3 (○) Yes\\n  ┃  4 (○) No, reject (type to add feedback)\\n  ┃\\n  1/4:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel
         expect 10 idle -> working submit_activity
         expect 210 working -> needs_you screen_needs_you kind=permission",
    );
}

#[test]
fn opencode_permission_prompt_is_needs_you() {
    check(
        "opencode prompt",
        "agent opencode
         0 key enter
         +10 activity
         +200 rows   ┃  △ Permission required\\n  ┃    → Edit out.txt\\n  ┃  1 + hello from the fake model\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃\\n  ┃   Allow once   Allow always   Reject                                 ctrl+f fullscreen  ⇆ select  enter confirm\\n  ┃
         expect 10 idle -> working submit_activity
         expect 210 working -> needs_you screen_needs_you kind=permission",
    );
}

#[test]
fn a_matching_not_done_rule_holds_the_settle_until_it_clears() {
    // The title idles while the status row still says esc to interrupt:
    // the done waits for the row, then the full settle (without the rule it
    // would be 9000: 5 s after the last output).
    check(
        "claude esc to interrupt",
        "agent claude
         0 key enter
         +100 title ◐ Claude Code
         +900 title ✳ Claude Code
         +0 rows ❯\\n  ⏸ manual mode on · esc to interrupt · ← for agents
         every 1000 until 4000 activity
         10000 rows ❯\\n  ⏸ manual mode on · ? for shortcuts
         expect 100 idle -> working title_busy
         expect 15000 working -> done settle",
    );
}

/// AskUserQuestion with two questions (issue 35, measured 2026-12-06 in
/// `real_agents matrix` claude:questions:neither): tabs over the first
/// question and a footer that says "Tab/Arrow keys"; the settle used to
/// call it done 1 s before Claude's own notification.
#[test]
fn claude_several_questions_are_needs_you() {
    check(
        "claude several questions",
        "agent claude
         horizon 8000
         0 key enter
         +240 title ◐ Claude Code
         +270 title ✳ Claude Code
         +20 rows ←  ☐ Color  ☐ Size  ✔ Submit  →\\nWhich color do you like?\\n❯ 1. Red\\n     Pick Red.\\n  2. Blue\\n     Pick Blue.\\n  3. Type something.\\n  4. Chat about this\\nEnter to select · Tab/Arrow keys to navigate · Esc to cancel
         +2000 key enter
         +30 rows ←  ☒ Color  ☐ Size  ✔ Submit  →\\nWhich size do you need?\\n❯ 1. Small\\n     Pick Small.\\n  2. Large\\n     Pick Large.\\n  3. Type something.\\n  4. Chat about this\\nEnter to select · Tab/Arrow keys to navigate · Esc to cancel
         +0 activity
         +2000 key enter
         +30 rows Review your answers\\n ● Which color do you like?\\n   → Red\\n ● Which size do you need?\\n   → Small\\n❯ 1. Submit answers\\n  2. Cancel
         +0 activity
         +2000 key enter
         +30 rows ❯\\n  ⏸ manual mode on · esc to interrupt
         +0 activity
         expect 240 idle -> working title_busy
         expect 530 working -> needs_you screen_needs_you kind=question
         expect 6620 needs_you -> working screen_cleared",
    );
}

/// Claude Code 2.1.332 with neither hooks nor native status, a shell it
/// started in the background still running after its answer (issue 35,
/// measured 2026-12-06 in `real_agents matrix` claude:background:neither):
/// the idle title used to settle into a done 8 s before the shell ended.
/// The status row's `· 1 shell ·` holds the settle; when the shell ends
/// Claude goes on (busy title), then idles, and that is the one done.
#[test]
fn claude_with_a_background_shell_running_is_not_done() {
    check(
        "claude background shell",
        "agent claude
         0 key enter
         +300 title ◐ Claude Code
         +600 title ✳ Claude Code
         +80 rows ✻ Cooked for 1s · done 9:28 AM · 1 shell still running\\n❯\\n  ⏸ manual mode on · 1 shell · ← for agents · ↓ to manage
         14000 rows ❯\\n  ⏸ manual mode on · ? for shortcuts
         +100 title ◐ Claude Code
         +200 title ✳ Claude Code
         expect 300 idle -> working title_busy
         expect 19300 working -> done settle",
    );
}

#[test]
fn hooks_own_the_turn_and_a_rule_is_recorded_not_obeyed() {
    let mut outcome = check(
        "hooked claude dialog",
        &format!(
            "agent claude
             hooks on
             0 key enter
             +10 hook working
             +1000 rows {CLAUDE_DIALOG}
             +1000 hook attention kind=permission
             +5000 hook released
             +2000 hook done
             expect 10 idle -> working hook_working
             expect 3010 working -> needs_you hook_attention kind=permission
             expect 7010 needs_you -> working hook_released
             expect 9010 working -> done hook_done"
        ),
    );
    let log: Vec<String> = outcome
        .engine
        .drain_log()
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert!(
        log.iter()
            .any(|l| l.contains("claude.permission-dialog not obeyed")),
        "{log:#?}"
    );
}

#[test]
fn printed_dialog_text_in_a_shell_or_command_task_does_nothing() {
    // `cat` of a file holding Claude's dialog: in a shell or a command task
    // the profile has no rules, so the rows are not even read.
    for agent in ["shell", "command", "generic"] {
        let text = format!(
            "agent {agent}
             0 key enter
             +10 activity
             +50 rows {CLAUDE_DIALOG}
             +60000 activity"
        );
        let outcome = run(&parse(&text));
        assert!(
            outcome
                .transitions
                .iter()
                .all(|t| !t.reason.rule.as_str().starts_with("screen")),
            "{agent}: {:?}",
            outcome.transitions
        );
        assert_eq!(outcome.engine.screen_rows_wanted(), 0, "{agent}");
    }
}

#[test]
fn printed_dialog_text_in_an_agent_task_can_ask_but_never_end_a_turn() {
    // The accepted trade-off: text printed in an agent task (the agent
    // showing a file) can raise needs you; it can never give a done, and
    // while it shows, the settle's done waits.
    let outcome = check(
        "printed dialog",
        &format!(
            "agent claude
             0 key enter
             +100 title ◐ Claude Code
             +100 rows {CLAUDE_DIALOG}
             +900 title ✳ Claude Code
             +30000 rows {CLAUDE_PROMPT}
             horizon 60000
             expect 100 idle -> working title_busy
             expect 200 working -> needs_you screen_needs_you kind=permission
             expect 31100 needs_you -> working screen_cleared
             expect 36100 working -> done settle"
        ),
    );
    assert_eq!(outcome.engine.false_done_count(), 0);
}

#[test]
fn a_dialog_still_painted_after_the_answer_does_not_raise_again() {
    // grok: the title goes busy (answered) while the prompt is still on
    // screen for a frame or two; rows that change but still match are the
    // same dialog, not a new one.
    let prompt = "  ┃  Allow Edit to /tmp/p/out.txt?\\n  ┃  3 (○) Yes\\n  1/4:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel";
    check(
        "dialog lingers",
        &format!(
            "agent grok
             0 key enter
             +10 activity
             +200 title ⚠ Action Required - ⠴ - Running: Write - grok
             +2 rows {prompt}
             +5000 key other
             +20 title ⠙ - Waiting for response… - grok
             +10 rows {prompt}\\n  ⠙ 5.1s
             +20 rows ❯
             +10 title Fake task - grok
             expect 10 idle -> working submit_activity
             expect 210 working -> needs_you title_needs_you kind=title
             expect 5232 needs_you -> working title_busy
             expect 10272 working -> done settle"
        ),
    );
}

#[test]
fn a_rule_outside_a_turn_raises_nothing() {
    // At start-up, before any prompt, a dialog-shaped screen is not a turn.
    check(
        "rule at rest",
        &format!(
            "agent claude
             0 title ✳ Claude Code
             +100 rows {CLAUDE_DIALOG}
             +60000 rows {CLAUDE_PROMPT}"
        ),
    );
}

#[test]
fn every_profile_screen_pattern_compiles_and_names_its_agent() {
    use termic_signal::profile::PROFILES;
    for profile in PROFILES {
        for rule in profile.screen_rules {
            assert!(
                rule.id.starts_with(&format!("{}.", profile.id)),
                "{}",
                rule.id
            );
            assert!(regex::Regex::new(rule.pattern).is_ok(), "{}", rule.id);
            assert!(!rule.measured_on.is_empty() && !rule.why.is_empty());
        }
    }
}
