//! Qwen Code 0.24.4: Claude-named hooks from ~/.qwen/settings.json run
//! with no controlling terminal; the blocked title is Claude's idle star;
//! a terminalSequence lands only from the idle_prompt Notification.

use crate::harness::{claude_hooks, events, Home, Sim, SimOpts, SEC};

#[test]
fn a_permission_turn_titles_hooks_and_their_terminal() {
    let home = Home::new();
    home.write(
        ".qwen/settings.json",
        &claude_hooks(
            &[
                ("UserPromptSubmit", "submit"),
                ("PermissionRequest", "permission"),
                ("Stop", "stop"),
                ("Notification", "notification"),
            ],
            &home,
            "",
        ),
    );
    let seq = r#"{"terminalSequence":"\u001b]777;notify;termic;x\u0007"}"#;
    home.rec_prints("permission", seq);
    home.rec_prints("notification", seq);
    let sim = Sim::spawn("qwen", "permission", &home, SimOpts::default());
    sim.wait_for("Qwen - ", 5 * SEC);
    sim.send(b"\r");
    sim.wait_for("\u{2733}\u{FE0E} Qwen - ", 5 * SEC);
    sim.wait_for("Waiting for user confirmation...", 5 * SEC);
    sim.send(b"\r");
    sim.wait_trace(
        "idle_prompt",
        |v| {
            v["ev"] == "hook_exit" && v["event"] == "Notification" && {
                let runs = home.runs();
                runs.iter().filter(|r| r.name == "notification").count() == 2
            }
        },
        10 * SEC,
    );
    let runs = home.runs();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "submit",
            "permission",
            "notification",
            "submit",
            "stop",
            "notification"
        ]
    );
    assert!(runs.iter().all(|r| r.tty == "fail"), "{runs:?}");
    assert_eq!(runs[3].payload["prompt"], "", "the second submit is empty");
    assert_eq!(runs[5].payload["notification_type"], "idle_prompt");
    // Dropped from PermissionRequest and permission_prompt; shown once, from
    // idle_prompt.
    sim.wait_for("\x1b]777;notify;termic;x\x07", 2 * SEC);
    assert_eq!(sim.output().matches("777;notify;termic;x").count(), 1);
    let trace = sim.trace();
    let glyphs: Vec<String> = events(&trace, "title")
        .iter()
        .map(|t| {
            let title = t["title"].as_str().unwrap();
            title.split("Qwen").next().unwrap().trim_end().to_string()
        })
        .collect();
    assert_eq!(glyphs, ["", "◐\u{FE0E}", "✳\u{FE0E}", "◐\u{FE0E}", ""]);
}
