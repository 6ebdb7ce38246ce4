//! Definition of done 2, 3 and 4, and the native-status extras: a permission
//! prompt raises needs-you with no preceding false done (and without hooks
//! the false done is reproduced); hooks fired outside termic or by grok say
//! nothing; native status and hooks together count once.

use std::time::Duration;

use termic_hooks::agents::AgentSchema;
use termic_runtime::RuntimeConfig;

use super::support::{count, no_native, wired, Fixture, Session, SEC};
use crate::wait::eventually;

/// Claude's idle glyph while blocked would settle to a false done after 5 s;
/// wait past that (and past the 6 s Notification) before judging.
const PAST_SETTLE: Duration = Duration::from_millis(6500);

#[test]
fn claude_permission_with_hooks_needs_you_and_no_false_done() {
    let fx = Fixture::new();
    fx.install(&[AgentSchema::CLAUDE]);
    // The probe reply turned off: Claude falls back to hooks alone.
    let s = Session::start(&fx, no_native());
    s.rt.set_hooks_wired("claude", true);
    let id = s.spawn(&fx, "t", "claude", "permission", &["--auto"]);
    let needs = s.wait_state("t", "needs_you", 10 * SEC);
    assert_eq!(needs["rule"], "hook_attention");
    assert_eq!(needs["attention"]["kind"], "permission");
    // Not a wait: no done may come while the dialog waits, past the settle.
    std::thread::sleep(PAST_SETTLE);
    s.assert_states("t", &["working", "needs_you"]);
    s.send(id, b"1");
    let done = s.wait_state("t", "done", 10 * SEC);
    assert_eq!(done["rule"], "hook_done");
    let states = s.states("t");
    assert_eq!(
        (count(&states, "needs_you"), count(&states, "done")),
        (1, 1),
        "{states:?}"
    );
}

#[test]
fn claude_permission_without_hooks_reproduces_the_false_done() {
    let fx = Fixture::new();
    let s = Session::start(&fx, no_native());
    let _id = s.spawn(&fx, "t", "claude", "permission", &["--auto"]);
    s.wait_state("t", "working", 10 * SEC);
    // Blocked on the prompt, the idle glyph settles into a done that is false.
    let done = s.wait_state("t", "done", 10 * SEC);
    let states = s.states("t");
    let first_needs = states.iter().position(|x| x == "needs_you");
    let first_done = states.iter().position(|x| x == "done").unwrap();
    assert!(
        first_needs.is_none_or(|n| n > first_done),
        "{:?}",
        s.steps("t")
    );
    assert_ne!(done["rule"], "hook_done");
}

#[test]
fn grok_and_opencode_permission_needs_you_without_a_false_done() {
    for (agent, schema, approve, args) in [
        ("grok", AgentSchema::GROK, &b"3"[..], &["--auto"][..]),
        (
            "grok",
            AgentSchema::GROK,
            &b"3"[..],
            &["--auto", "--grok-version", "0.2.111"][..],
        ),
        (
            "opencode",
            AgentSchema::OPENCODE,
            &b"\r"[..],
            &["--auto"][..],
        ),
    ] {
        let fx = Fixture::new();
        fx.install(&[schema]);
        let s = Session::start(&fx, RuntimeConfig::default());
        s.rt.set_hooks_wired(agent, true);
        let id = s.spawn(&fx, "t", agent, "permission", args);
        let needs = s.wait_state("t", "needs_you", 10 * SEC);
        // grok 0.2.111 also says it in its title (`⚠ Action Required`), which
        // may land first; either way it is one needs-you.
        let rules: &[&str] = if args.contains(&"0.2.111") {
            &["hook_attention", "title_needs_you"]
        } else {
            &["hook_attention"]
        };
        assert!(
            rules.contains(&needs["rule"].as_str().unwrap()),
            "{agent} {args:?}: {needs}"
        );
        // Not a wait: no done may come while the dialog waits, past the settle.
        std::thread::sleep(PAST_SETTLE);
        assert_eq!(
            s.states("t"),
            ["working", "needs_you"],
            "{agent} {args:?}: {:?}",
            s.steps("t")
        );
        s.send(id, approve);
        let done = s.wait_state("t", "done", 10 * SEC);
        assert_eq!(done["rule"], "hook_done", "{agent}: {:?}", s.steps("t"));
        assert_eq!(count(&s.states("t"), "done"), 1);
    }
}

#[test]
fn native_status_and_hooks_together_count_once() {
    let fx = Fixture::new();
    let (s, id) = wired(
        &fx,
        RuntimeConfig::default(),
        AgentSchema::CLAUDE,
        "claude",
        "permission",
        &["--auto"],
    );
    s.wait_state("t", "needs_you", 10 * SEC);
    s.wait_screen(id, "Do you want to create out.txt?", 10 * SEC);
    s.send(id, b"1");
    s.wait_state("t", "done", 10 * SEC);
    // Not a wait: a second needs-you or done would land in this window.
    std::thread::sleep(Duration::from_millis(500));
    let states = s.states("t");
    assert_eq!(
        (count(&states, "needs_you"), count(&states, "done")),
        (1, 1),
        "{:?}",
        s.steps("t")
    );
    // The native channel spoke first (it is in the simulator's trace).
    assert!(
        s.events("t")
            .iter()
            .any(|v| v["rule"].as_str().unwrap().starts_with("native_")),
        "{:?}",
        s.steps("t")
    );
}

#[test]
fn grok_running_termics_claude_hook_says_nothing() {
    let fx = Fixture::new();
    fx.install(&[AgentSchema::CLAUDE]);
    let s = Session::start(&fx, RuntimeConfig::default());
    let _id = s.spawn(&fx, "t", "grok", "simple", &["--auto"]);
    let ran = || {
        super::support::trace(&fx.trace_path("t"))
            .iter()
            .filter(|v| {
                v["ev"] == "hook_exit"
                    && v["command"]
                        .as_str()
                        .unwrap()
                        .contains(".claude/termic-hooks")
            })
            .count()
    };
    assert!(
        eventually(10 * SEC, || ran() >= 2),
        "grok ran termic's claude hooks ({})",
        ran()
    );
    // Not a wait: a transition from what those hooks printed would land here.
    std::thread::sleep(Duration::from_millis(500));
    s.assert_no_hook_transition("t");
}

#[test]
fn hooks_fired_outside_termic_emit_nothing() {
    for (agent, schema) in [
        ("claude", AgentSchema::CLAUDE),
        ("grok", AgentSchema::GROK),
        ("agy", AgentSchema::AGY),
        ("opencode", AgentSchema::OPENCODE),
    ] {
        let fx = Fixture::new();
        fx.install(&[schema]);
        let s = Session::start(&fx, no_native());
        s.rt.set_hooks_wired(agent, true);
        // The same agent started with TERMIC_TASK_ID removed from its env, as
        // it would be in any other terminal.
        let sim = super::support::sim_binary();
        let script = format!(
            "unset TERMIC_TASK_ID; exec '{}' {agent} simple --auto --exit-at-end --trace '{}'",
            sim.display(),
            fx.trace_path("t").display()
        );
        s.rt.spawn(termic_runtime::TaskSpec {
            name: "t".into(),
            agent: agent.into(),
            argv: vec!["sh".into(), "-c".into(), script.into()],
            cwd: fx.project(),
            env: vec![("HOME".into(), fx.home().into())],
            profile: agent.into(),
            size: termic_runtime::TermSize {
                rows: 40,
                cols: 120,
            },
            container: None,
        })
        .unwrap();
        s.wait_state("t", "exited", 10 * SEC);
        let trace = super::support::trace(&fx.trace_path("t"));
        let ran = if agent == "opencode" {
            // Plugins run in-process: termic's was loaded and got the turn.
            trace.iter().any(|v| {
                v["ev"] == "plugins" && v["files"].as_array().is_some_and(|f| !f.is_empty())
            })
        } else {
            trace
                .iter()
                .any(|v| v["ev"] == "hook_exit" && v["event"] == "Stop")
        };
        assert!(ran, "{agent}: termic's hooks ran");
        assert!(
            trace.iter().all(|v| v["ev"] != "seq_written"),
            "{agent}: and printed no sequence"
        );
        s.assert_no_hook_transition("t");
    }
}
