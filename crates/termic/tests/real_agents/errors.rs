//! Real agents through termic against a failing model API (termic-fakemodel's
//! error-429/500/529/401 scenarios): the badge says error with the reason,
//! never done. What each agent shows on each error is measured by
//! crates/termic-fakemodel/tests/fakemodel/errors.rs (docs/gotchas.md).
//!
//! Opt-in like the rest of the real-agent suite. Kept cheap for .ci/run:
//! Claude runs with CLAUDE_CODE_MAX_RETRIES=0 (its default is 10 retries over
//! ~3 minutes), Codex's harness config already has no retries, opencode gets
//! a 401 (it retries 429/5xx for ~100 s, a 401 not at all).

use crate::real_agents_support;

use std::time::Duration;

use real_agents_support::*;
use serde_json::Value;
use termic_fakemodel::agents::Agent;
use termic_fakemodel::{ApiFailure, ScenarioName};
use termic_hooks::agents::AgentSchema;

/// The `stopped` reason and rule of the last error line at or after `since`
/// (a second report may name the reason more precisely).
fn error_line(task: &TermicTask, since: u64) -> (String, String) {
    let text = std::fs::read_to_string(&task.log).unwrap_or_default();
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["to"] == "error" && v["ts"].as_u64().unwrap_or(0) >= since)
        .map(|v| {
            (
                v["stopped"].as_str().unwrap_or("").to_string(),
                v["rule"].as_str().unwrap_or("").to_string(),
            )
        })
        .unwrap_or_default()
}

/// Prompts once against a failing API; waits for the error and 3 s more.
/// Returns (stopped reason, rule, states since the prompt).
fn failing_turn(task: &TermicTask, timeout: Duration) -> (String, String, Vec<String>) {
    let t0 = task.prompt("say hello");
    task.expect_state("error", t0, timeout, "no error after the API failed");
    std::thread::sleep(3 * SEC); // a late done would show up here
    task.report(task.name());
    let (reason, rule) = error_line(task, t0);
    (reason, rule, task.states(t0))
}

fn no_retries() -> Vec<(String, String)> {
    vec![("CLAUDE_CODE_MAX_RETRIES".to_string(), "0".to_string())]
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_overloaded_with_hooks_and_native_is_error_overloaded_not_done() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        hooks: vec![AgentSchema::CLAUDE],
        env: no_retries(),
        ..Setup::default()
    };
    let fail = ScenarioName::Fail(ApiFailure::Overloaded);
    let task = TermicTask::start(&cache, Agent::Claude, fail, setup);
    let (reason, rule, states) = failing_turn(&task, 90 * SEC);
    // StopFailure says server_error ~150 ms before the native error names
    // the 529 (measured): the native report refines the reason.
    assert_eq!(reason, "overloaded", "{states:?}");
    assert!(rule == "hook_error" || rule == "native_error", "{rule}");
    assert!(!states.iter().any(|s| s == "done"), "{states:?}");
    assert_eq!(
        states.last().map(String::as_str),
        Some("error"),
        "{states:?}"
    );
}

/// Prompts once against a limiting API; waits for rate_limited and 3 s
/// more. Returns (the last rate_limited line's until and rule, states since
/// the prompt).
fn limited_turn(task: &TermicTask, timeout: Duration) -> (Option<String>, String, Vec<String>) {
    let t0 = task.prompt("say hello");
    task.expect_state(
        "rate_limited",
        t0,
        timeout,
        "not rate limited after the 429",
    );
    std::thread::sleep(3 * SEC); // a late done or a refined time shows up here
    task.report(task.name());
    let last = task
        .lines()
        .into_iter()
        .rfind(|l| l.ts >= t0 && l.to == "rate_limited")
        .expect("a rate_limited line");
    (last.until, last.rule, task.states(t0))
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_rate_limited_with_hooks_only_is_rate_limited_from_stop_failure() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::CLAUDE],
        env: no_retries(),
        ..Setup::default()
    };
    let fail = ScenarioName::Fail(ApiFailure::RateLimited);
    let task = TermicTask::start(&cache, Agent::Claude, fail, setup);
    let (until, rule, states) = limited_turn(&task, 90 * SEC);
    // StopFailure's `error: rate_limit` names no reset time.
    assert_eq!((until, rule.as_str()), (None, "hook_error"), "{states:?}");
    assert!(
        !states.iter().any(|s| s == "done" || s == "error"),
        "{states:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_usage_limit_is_rate_limited_until_the_reset_not_done() {
    // Measured 2026-12-06 (Claude Code 2.1.332, the fake model's usage-limit
    // reply: 429, retry-after 3600): no retry, StopFailure `rate_limit`, then
    // native `state=error` with "... Your limit resets at 15:00." ~50 ms later.
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        hooks: vec![AgentSchema::CLAUDE],
        ..Setup::default()
    };
    let fail = ScenarioName::Fail(ApiFailure::UsageLimit);
    let task = TermicTask::start(&cache, Agent::Claude, fail, setup);
    let (until, _rule, states) = limited_turn(&task, 60 * SEC);
    assert_eq!(until.as_deref(), Some("15:00"), "{states:?}");
    assert!(
        !states.iter().any(|s| s == "done" || s == "error"),
        "{states:?}"
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("rate_limited"),
        "{states:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_claude_bad_key_with_native_only_is_error_auth_failed_not_needs_you() {
    let (cache, _one) = begin();
    let setup = Setup {
        probe_reply: true,
        env: no_retries(),
        ..Setup::default()
    };
    let fail = ScenarioName::Fail(ApiFailure::AuthFailed);
    let task = TermicTask::start(&cache, Agent::Claude, fail, setup);
    let (reason, rule, states) = failing_turn(&task, 90 * SEC);
    assert_eq!(
        (reason.as_str(), rule.as_str()),
        ("auth_failed", "native_error")
    );
    assert!(
        !states.iter().any(|s| s == "done" || s == "needs_you"),
        "{states:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_codex_rate_limited_is_error_from_native_status_not_done() {
    let (cache, _one) = begin();
    let fail = ScenarioName::Fail(ApiFailure::RateLimited);
    let task = TermicTask::start(&cache, Agent::Codex, fail, Setup::default());
    let (reason, rule, states) = failing_turn(&task, 60 * SEC);
    // Codex 0.171.0 says `state=error` with no message: the reason is unknown.
    assert_eq!(
        (reason.as_str(), rule.as_str()),
        ("api_error", "native_error")
    );
    assert!(!states.iter().any(|s| s == "done"), "{states:?}");
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_opencode_bad_key_is_error_auth_failed_from_its_plugin() {
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::OPENCODE],
        ..Setup::default()
    };
    let fail = ScenarioName::Fail(ApiFailure::AuthFailed);
    let task = TermicTask::start(&cache, Agent::Opencode, fail, setup);
    let (reason, rule, states) = failing_turn(&task, 120 * SEC);
    assert_eq!(
        (reason.as_str(), rule.as_str()),
        ("auth_failed", "hook_error")
    );
    assert!(
        !states.iter().any(|s| s == "done" || s == "interrupted"),
        "{states:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_termic_grok_overloaded_is_error_from_its_agent_error_notification() {
    // 0.2.111 gives up on a 529 at once and fires no Stop: only its
    // Notification hook (`notificationType: agent_error`) says so.
    let (cache, _one) = begin();
    let setup = Setup {
        hooks: vec![AgentSchema::GROK],
        ..Setup::default()
    };
    let fail = ScenarioName::Fail(ApiFailure::Overloaded);
    let task = TermicTask::start(&cache, Agent::Grok, fail, setup);
    let (reason, rule, states) = failing_turn(&task, 60 * SEC);
    assert_eq!(
        (reason.as_str(), rule.as_str()),
        ("overloaded", "hook_error")
    );
    assert!(!states.iter().any(|s| s == "done"), "{states:?}");
}
