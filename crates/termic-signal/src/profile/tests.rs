//! Profile data checks and one test per measured title.

use super::*;

#[test]
fn every_pattern_compiles_and_stays_small() {
    for profile in PROFILES {
        for rule in profile.title_rules {
            assert!(
                Regex::new(rule.pattern).is_ok(),
                "{}: {:?} does not compile",
                rule.id,
                rule.pattern
            );
            // Rules stay readable and cheap (herdr caps rule complexity too).
            assert!(rule.pattern.len() <= 120, "{} is too long", rule.id);
            assert!(rule.id.starts_with(&format!("{}.", profile.id)));
        }
        for rule in profile.notify_ignore {
            assert!(rule.id.starts_with(&format!("{}.", profile.id)));
            assert!(!rule.contains.is_empty());
        }
    }
}

#[test]
fn only_agy_has_hooks_that_cannot_report_needs_you() {
    // agy's hook events are PreInvocation and Stop; every other agent's hooks
    // (or the generic fallback, which has none to contradict it) can say
    // "needs you". The engine keeps byte-quiet's ask for exactly this case.
    let without: Vec<&str> = PROFILES
        .iter()
        .filter(|p| !p.hooks_report_attention)
        .map(|p| p.id)
        .collect();
    assert_eq!(without, ["agy"]);
}

#[test]
fn ids_and_aliases_resolve_and_unknown_ids_fall_back_to_generic() {
    for id in ["claude", "codex", "grok", "agy", "opencode"] {
        assert_eq!(profile_for(id).id, id);
    }
    assert_eq!(profile_for("claude-code").id, "claude", "OSC 7501 app name");
    assert_eq!(profile_for("antigravity").id, "agy");
    assert_eq!(profile_for("aider").id, "generic");
    assert_eq!(profile_for("").id, "generic");
    assert_eq!(profile_for("Claude").id, "generic", "ids are exact");
}

/// (agent, title as measured, state)
const MEASURED_TITLES: &[(&str, &str, TitleState)] = &[
    // Claude Code 2.1.332, OSC 0.
    ("claude", "✳ Claude Code", TitleState::Idle),
    ("claude", "◐ Claude Code", TitleState::Busy),
    ("claude", "◑ Claude Code", TitleState::Busy),
    ("claude", "Claude Code", TitleState::Unknown),
    ("claude", "✳ Create out.txt file", TitleState::Idle),
    ("claude", "◑ Create out.txt file", TitleState::Busy),
    // Codex 0.171.0 and 0.142.5.
    ("codex", "proj", TitleState::Idle),
    ("codex", "⠋ Write a file | proj", TitleState::Busy),
    (
        "codex",
        "[ ! ] Action Required | title | proj",
        TitleState::NeedsYou,
    ),
    (
        "codex",
        "[ . ] Action Required | title | proj",
        TitleState::NeedsYou,
    ),
    (
        "codex",
        "[ ! ] Action Required | proj",
        TitleState::NeedsYou,
    ),
    // Grok 0.2.111 (and 1.0.5's ASCII ellipsis).
    ("grok", "grok", TitleState::Idle),
    ("grok", "⠋ - Waiting for response… - grok", TitleState::Busy),
    (
        "grok",
        "⠙ - Waiting for response… - Pong Reply - grok",
        TitleState::Busy,
    ),
    (
        "grok",
        "⠹ - Waiting for response... - grok",
        TitleState::Busy,
    ),
    (
        "grok",
        "⠸ - Running: write out.txt - grok",
        TitleState::Busy,
    ),
    (
        "grok",
        "⠼ - Responding - Pong Reply - grok",
        TitleState::Busy,
    ),
    ("grok", "⠴ - Thinking - grok", TitleState::Busy),
    (
        "grok",
        "⚠ Action Required - ⠦ - Running: write out.txt - grok",
        TitleState::NeedsYou,
    ),
    (
        "grok",
        "Exact One Word Pong Reply Request - grok",
        TitleState::Idle,
    ),
    // No title states.
    ("opencode", "OpenCode", TitleState::Unknown),
    ("opencode", "OC | Write a file", TitleState::Unknown),
    ("agy", "anything", TitleState::Unknown),
    ("generic", "✳ Claude Code", TitleState::Unknown),
];

#[test]
fn each_measured_title_classifies_as_measured() {
    for &(agent, title, want) in MEASURED_TITLES {
        let profile = profile_for(agent);
        assert_eq!(profile.classify_title(title), want, "{agent}: {title:?}");
        assert_eq!(profile.explain(title).state, want, "{agent}: {title:?}");
    }
}

#[test]
fn grok_waiting_for_response_is_the_model_not_the_user() {
    let explained = profile_for("grok").explain("⠋ - Waiting for response… - grok");
    assert_eq!(explained.decided_by, Some("grok.waiting-for-model"));
    assert_ne!(explained.state, TitleState::NeedsYou);
}

#[test]
fn explain_lists_every_rule_in_order_and_the_first_match_decides() {
    let profile = profile_for("grok");
    let explained = profile.explain("⠋ - Waiting for response… - grok");
    let ids: Vec<_> = explained.checks.iter().map(|c| c.rule_id).collect();
    let rule_ids: Vec<_> = profile.title_rules.iter().map(|r| r.id).collect();
    assert_eq!(ids, rule_ids);
    // Three rules match this title; the earliest one wins.
    let matched: Vec<_> = explained
        .checks
        .iter()
        .filter(|c| c.matched)
        .map(|c| c.rule_id)
        .collect();
    assert_eq!(
        matched,
        ["grok.waiting-for-model", "grok.busy-spinner", "grok.idle"]
    );
    let text = explained.to_string();
    assert!(text.contains("grok.waiting-for-model"), "{text}");
    assert!(
        text.lines().count() == 1 + profile.title_rules.len(),
        "{text}"
    );

    let none = profile_for("agy").explain("x");
    assert_eq!((none.state, none.decided_by), (TitleState::Unknown, None));
    assert!(none.to_string().contains("has no title rules"));
}

#[test]
fn claude_ignores_its_waiting_nudge_and_nothing_else() {
    assert!(!wants_attention(
        "claude",
        "Claude is waiting for your input"
    ));
    assert!(wants_attention(
        "claude",
        "Claude needs your permission to use Write"
    ));
    assert!(wants_attention("codex", "Claude is waiting for your input"));
    assert!(wants_attention("unknown-agent", "anything"));
    let explained = profile_for("claude").explain_notify("Claude is waiting for your input");
    assert!(!explained.wants_attention);
    assert_eq!(explained.checks.len(), 1);
    assert!(explained.checks[0].matched);
    assert!(explained.to_string().contains("claude.waiting-nudge"));
}
