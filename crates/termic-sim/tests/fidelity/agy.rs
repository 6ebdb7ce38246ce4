//! Antigravity: the live config path, the heterogeneous shape, the dead
//! path, the `/hooks` listing, no OSC at all, nothing on an interrupt.

use std::time::Duration;

use crate::harness::{is, Home, Sim, SEC};

fn config(home: &Home) -> String {
    format!(
        r#"{{ "termic": {{ "enabled": true,
            "PreInvocation": [ {{"type":"command","command":"{w}"}} ],
            "Stop": [ {{"type":"command","command":"{d}"}} ] }},
          "wrapped": {{ "enabled": true,
            "Stop": [ {{"matcher":"*","hooks":[{{"type":"command","command":"{x}"}}]}} ] }},
          "off": {{ "enabled": false, "Stop": [ {{"type":"command","command":"{o}"}} ] }} }}"#,
        w = home.rec("working"),
        d = home.rec("done"),
        x = home.rec("wrapped"),
        o = home.rec("off"),
    )
}

#[test]
fn live_file_runs_direct_handlers_only() {
    let home = Home::new();
    home.write(".gemini/config/hooks.json", &config(&home));
    home.write(
        ".gemini/antigravity-cli/hooks.json",
        &format!(
            r#"{{"dead":{{"enabled":true,"Stop":[{{"type":"command","command":"{}"}}]}}}}"#,
            home.rec("dead")
        ),
    );
    let sim = Sim::auto("agy", "simple", &home, &[]);
    sim.wait_trace("stop", is("hook_exit", "event", "Stop"), 5 * SEC);
    // Not a wait: the dead file's handler would run in this window.
    std::thread::sleep(Duration::from_millis(200));
    let runs = home.runs();
    assert_eq!(
        runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["working", "done"]
    );
    assert_eq!(runs[1].payload["fullyIdle"], true);
    assert_eq!(runs[1].payload["terminationReason"], "NO_TOOL_CALL");
    assert!(runs.iter().all(|r| r.tty == "fail"));
    let out = sim.output();
    assert!(
        out.contains("loaded 4 named hooks from 2 hooks.json file(s)"),
        "{out}"
    );
    assert!(!out.contains("\x1b]"), "agy paints no OSC at all");
}

#[test]
fn hooks_list_prints_the_resolved_command_column() {
    let home = Home::new();
    home.write(".gemini/config/hooks.json", &config(&home));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_termic-sim"))
        .args(["agy", "hooks-list"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let wrapped = text.lines().find(|l| l.contains("wrapped")).expect(&text);
    assert!(
        wrapped.starts_with("Stop") && wrapped.trim_end().ends_with("wrapped"),
        "empty command: {wrapped:?}"
    );
    let direct = text
        .lines()
        .find(|l| l.starts_with("PreInvocation"))
        .unwrap();
    assert!(direct.contains("rec.sh working"), "{direct}");
}

#[test]
fn interrupt_publishes_nothing() {
    let home = Home::new();
    home.write(".gemini/config/hooks.json", &config(&home));
    let sim = Sim::auto("agy", "interrupt", &home, &[]);
    sim.wait_for("working...", 5 * SEC);
    sim.escape();
    sim.wait_for("Interrupted", SEC);
    let len = sim.output().len();
    // Not a wait: nothing may run or print for the interrupt in this window.
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(
        home.run_names(),
        ["working"],
        "only PreInvocation, nothing for the interrupt"
    );
    assert_eq!(
        sim.output().len(),
        len,
        "after the interrupt the terminal goes quiet"
    );
}
