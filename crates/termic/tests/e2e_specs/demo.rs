//! `termic demo`: a task per simulated agent in a throwaway HOME, a
//! permission prompt raising needs-you, the Inspector, and the user's real
//! HOME left exactly as it was.

use super::binary::tree;
use super::support::{Fixture, SEC};
use crate::termic_pty::Termic;
use crate::wait::eventually;

const TASKS: [&str; 5] = [
    "claude-demo",
    "grok-demo",
    "agy-demo",
    "opencode-demo",
    "codex-demo",
];

/// The focused task's pane (right of the sidebar) as one string without
/// whitespace, so a notice reads the same however it wrapped.
fn pane_text(screen: &str) -> String {
    screen
        .lines()
        .filter_map(|l| l.split_once('│').map(|(_, pane)| pane.to_owned()))
        .collect::<String>()
        .split_whitespace()
        .collect()
}

fn transitions(log: &std::path::Path, task: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["task"] == task)
        .collect()
}

fn needs_you(log: &std::path::Path, task: &str) -> Option<serde_json::Value> {
    transitions(log, task)
        .into_iter()
        .find(|v| v["to"] == "needs_you")
}

#[test]
fn demo_runs_every_agent_in_a_throwaway_home() {
    let fx = Fixture::new();
    let real_home = fx.home();
    std::fs::create_dir_all(real_home.join(".claude")).unwrap();
    std::fs::write(
        real_home.join(".claude/settings.json"),
        "{\"model\": \"mine\"}\n",
    )
    .unwrap();
    let tmp = fx.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let before = tree(&real_home);

    let log = fx.log_path().display().to_string();
    let mut cmd = fx.pty_command(&["demo", "--speed", "4", "--event-log", &log]);
    cmd.env("TMPDIR", &tmp);
    let mut t = Termic::spawn(cmd);

    t.wait_within("a task per agent", 15 * SEC, |s| {
        TASKS.iter().all(|n| s.contains(n))
    });
    t.wait_within("the throwaway HOME notice", 10 * SEC, |s| {
        pane_text(s).contains("yourrealHOMEisnotreadorchanged")
    });
    // The demo's second turn asks permission: needs-you, from hooks or
    // native status (agy has no attention event).
    let asking = ["claude-demo", "grok-demo", "opencode-demo", "codex-demo"];
    eventually(20 * SEC, || {
        asking
            .iter()
            .all(|n| needs_you(fx.log_path().as_path(), n).is_some())
    });
    for n in asking {
        let v = needs_you(&fx.log_path(), n).unwrap_or_else(|| panic!("{n} never needed you"));
        let rule = v["rule"].as_str().unwrap();
        assert!(
            rule == "hook_attention" || rule == "native_blocked",
            "{n}: {v}"
        );
    }
    // agy has no attention event: its turns are its hooks' (working from
    // PreInvocation, done from Stop), and a silent prompt may only be
    // asked about by the byte-quiet fallback (kind unsure), never done.
    let agy = transitions(&fx.log_path(), "agy-demo");
    let done = agy.iter().position(|v| v["to"] == "done");
    let done = done.unwrap_or_else(|| panic!("agy never finished a turn: {agy:?}"));
    assert_eq!(agy[0]["rule"], "hook_working", "{agy:?}");
    assert_eq!(agy[done]["rule"], "hook_done", "{agy:?}");
    for v in agy.iter().filter(|v| v["to"] == "needs_you") {
        assert_eq!(v["rule"], "byte_quiet", "{v}");
        assert_eq!(v["attention"]["kind"], "unsure", "{v}");
    }
    t.wait_within("a needs-you badge", 5 * SEC, |s| s.contains("needs you"));
    // The Inspector opens on the focused task.
    t.send(b"\x1di");
    t.wait_within("the Inspector", 5 * SEC, |s| s.contains("Inspector: "));
    t.send(b"\x1b");
    t.wait_within("the Inspector closed", 5 * SEC, |s| {
        !s.contains("Inspector: ")
    });
    assert!(t.quit(), "demo quits on prefix q:\n{}", t.screen());
    assert!(
        tree(&real_home) == before,
        "the real HOME is byte-identical"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.iter()
            .all(|n| !n.to_string_lossy().starts_with("termic-demo-")),
        "throwaway dir removed: {left:?}"
    );
}
