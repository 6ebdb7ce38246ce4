//! GitHub Copilot CLI 1.0.102: camelCase hooks from
//! ~/.copilot/settings.json run with the controlling terminal; the title
//! never says busy, blocked or idle; OSC 9;4 progress on ghostty stays busy
//! through a permission prompt.

use crate::harness::{events, Home, Sim, SimOpts, SEC};

#[test]
fn a_permission_turn_hooks_title_and_progress() {
    let home = Home::new();
    let entry = |name: &str| {
        format!(
            r#"[{{"type":"command","bash":"{}","timeoutSec":5}}]"#,
            home.rec(name)
        )
    };
    home.write(
        ".copilot/settings.json",
        &format!(
            r#"{{"hooks":{{"userPromptSubmitted":{},"permissionRequest":{},"notification":{},"agentStop":{}}}}}"#,
            entry("submit"),
            entry("permission"),
            entry("notification"),
            entry("stop")
        ),
    );
    let opts = SimOpts {
        env: &[("TERM_PROGRAM", "ghostty")],
        ..SimOpts::default()
    };
    let sim = Sim::spawn("copilot", "permission", &home, opts);
    sim.wait_for("GitHub Copilot", 5 * SEC);
    sim.send(b"\r");
    sim.wait_for("↑/↓ to navigate · enter to select · esc to cancel", 5 * SEC);
    let blocked = sim.output();
    sim.send(b"\r");
    sim.wait_trace(
        "agentStop",
        |v| v["ev"] == "hook_exit" && v["event"] == "agentStop",
        10 * SEC,
    );
    let runs = home.runs();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["submit", "permission", "notification", "stop"]);
    assert!(runs.iter().all(|r| r.tty == "ok"), "{runs:?}");
    assert!(runs[0].payload["sessionId"].is_string());
    assert_eq!(runs[1].payload["toolName"], "edit");
    assert_eq!(runs[2].payload["notification_type"], "permission_prompt");
    assert_eq!(runs[3].payload["stopReason"], "end_turn");
    // Busy progress while blocked; cleared only at the end.
    let last_progress = blocked.rfind("\x1b]9;4;").unwrap();
    assert!(blocked[last_progress..].starts_with("\x1b]9;4;3;0"));
    sim.wait_for("\x1b]9;4;0;0", 2 * SEC);
    let trace = sim.trace();
    let titles: Vec<&str> = events(&trace, "title")
        .iter()
        .map(|t| t["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(titles.iter().all(|t| t.ends_with("GitHub Copilot")));
}
