//! Gemini CLI 0.61.0: hooks from ~/.gemini/settings.json run with the
//! controlling terminal; the Action Required title while a tool waits.

use crate::harness::{claude_hooks, events, Home, Sim, SimOpts, SEC};

#[test]
fn a_permission_turn_titles_hooks_and_their_terminal() {
    let home = Home::new();
    let hooks = claude_hooks(
        &[
            ("BeforeAgent", "before"),
            ("Notification", "notification"),
            ("AfterAgent", "after"),
        ],
        &home,
        r#","timeout":5000"#,
    );
    home.write(".gemini/settings.json", &hooks);
    let sim = Sim::spawn("gemini", "permission", &home, SimOpts::default());
    sim.wait_for("◇  Ready (", 5 * SEC);
    sim.send(b"\r");
    sim.wait_for("✋  Action Required (", 5 * SEC);
    sim.wait_for("● 1. Allow once", 5 * SEC);
    sim.send(b"\r");
    sim.wait_trace(
        "AfterAgent",
        |v| v["ev"] == "hook_exit" && v["event"] == "AfterAgent",
        10 * SEC,
    );
    // The Ready title follows AfterAgent by ~40 ms.
    sim.wait_trace(
        "the last Ready title",
        |v| {
            v["ev"] == "title" && v["title"].as_str().unwrap().starts_with("◇") && {
                let trace = sim.trace();
                events(&trace, "title").len() == 5
            }
        },
        5 * SEC,
    );
    let runs = home.runs();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["before", "notification", "after"]);
    assert!(runs.iter().all(|r| r.tty == "ok"), "{runs:?}");
    assert_eq!(runs[1].payload["notification_type"], "ToolPermission");
    assert_eq!(runs[2].payload["stop_hook_active"], false);
    let trace = sim.trace();
    let titles: Vec<String> = events(&trace, "title")
        .iter()
        .map(|t| t["title"].as_str().unwrap().trim_end().to_string())
        .collect();
    let home_dir = home
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        titles,
        [
            format!("◇  Ready ({home_dir})"),
            format!("✦  Working… ({home_dir})"),
            format!("✋  Action Required ({home_dir})"),
            format!("✦  Working… ({home_dir})"),
            format!("◇  Ready ({home_dir})"),
        ]
    );
    assert!(events(&trace, "title")
        .iter()
        .all(|t| t["title"].as_str().unwrap().chars().count() == 80));
}

/// Escape mid-turn fires AfterAgent, as a finished turn does (measured).
#[test]
fn escape_fires_after_agent_then_ready() {
    let home = Home::new();
    let hooks = claude_hooks(&[("AfterAgent", "after")], &home, r#","timeout":5000"#);
    home.write(".gemini/settings.json", &hooks);
    let sim = Sim::auto("gemini", "interrupt", &home, &[]);
    sim.wait_for("✦  Working… (", 5 * SEC);
    sim.escape();
    sim.wait_for("Request cancelled.", 5 * SEC);
    let runs = home.runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].name, "after");
    let out = sim.output();
    let after_escape = &out[out.rfind("✦  Working… (").unwrap()..];
    assert!(after_escape.contains("◇  Ready ("));
}
