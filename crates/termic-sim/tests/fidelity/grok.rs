//! Grok: Claude-compatible sources run first with GROK_HOOK_* stamps, the
//! compat opt-outs, camelCase payloads, no terminalSequence, unknown events
//! skipped, titles per version, StopCancelled on 1.0.5 only.

use std::time::Duration;

use crate::harness::{claude_hooks, is, Home, Sim, SimOpts, SEC};

fn grok_file(home: &Home, entries: &[(&str, &str)]) {
    home.write(".grok/hooks/termic.json", &claude_hooks(entries, home, ""));
}

#[test]
fn claude_file_hooks_run_first_with_grok_stamps() {
    let home = Home::new();
    home.claude_settings(&[("UserPromptSubmit", "claude-ups"), ("Stop", "claude-stop")]);
    home.rec_prints(
        "claude-stop",
        r#"{"terminalSequence":"\u001b]777;termic;v1;done;task-0123-abcd\u0007"}"#,
    );
    grok_file(
        &home,
        &[("UserPromptSubmit", "grok-ups"), ("Stop", "grok-stop")],
    );
    let sim = Sim::auto("grok", "simple", &home, &[]);
    sim.wait_trace(
        "stop",
        |v| v["ev"] == "hook_exit" && v["command"].as_str().unwrap().ends_with("grok-stop"),
        5 * SEC,
    );
    let runs = home.runs();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["claude-ups", "grok-ups", "claude-stop", "grok-stop"]
    );
    assert_eq!(runs[0].grok_event, "user_prompt_submit");
    assert_eq!(
        runs[0].grok_name,
        "global/settings:user_prompt_submit[0].hooks[0]"
    );
    assert_eq!(
        runs[1].grok_name,
        "global/termic:user_prompt_submit[0].hooks[0]"
    );
    assert_eq!(runs[2].grok_event, "stop");
    assert!(runs.iter().all(|r| r.tty == "fail"));
    // camelCase fields, snake_case event value.
    let p = &runs[0].payload;
    assert_eq!(p["hookEventName"], "user_prompt_submit");
    assert!(p["prompt"].as_str().unwrap().starts_with("<user_query>"));
    for k in [
        "sessionId",
        "cwd",
        "workspaceRoot",
        "transcriptPath",
        "permissionMode",
    ] {
        assert!(p.get(k).is_some(), "{k}");
    }
    assert_eq!(runs[3].payload["reason"], "end_turn");
    // No terminalSequence handling (not a wait: it would land in this window).
    std::thread::sleep(Duration::from_millis(100));
    assert!(!sim.output().contains("777;termic"));
}

#[test]
fn compat_opt_outs_drop_the_claude_hooks() {
    for (toml, env) in [
        (Some("[compat.claude]\nhooks = false\n"), None),
        (None, Some("false")),
    ] {
        let home = Home::new();
        home.claude_settings(&[("Stop", "claude-stop")]);
        grok_file(&home, &[("Stop", "grok-stop")]);
        if let Some(t) = toml {
            home.write(".grok/config.toml", t);
        }
        let env_pairs: Vec<(&str, &str)> = env
            .map(|v| ("GROK_CLAUDE_HOOKS_ENABLED", v))
            .into_iter()
            .collect();
        let sim = Sim::spawn(
            "grok",
            "simple",
            &home,
            SimOpts {
                args: &["--auto"],
                env: &env_pairs,
                ..Default::default()
            },
        );
        sim.wait_trace("stop", is("hook_exit", "event", "Stop"), 5 * SEC);
        // Not a wait: a dropped Claude hook would run in this window.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(home.run_names(), ["grok-stop"]);
    }
}

#[test]
fn permission_prompt_notification_and_titles_0_2_111() {
    let home = Home::new();
    grok_file(
        &home,
        &[
            ("Notification", "note"),
            ("Stop", "stop"),
            ("StopCancelled", "cancel"),
        ],
    );
    let sim = Sim::auto("grok", "permission", &home, &["--grok-version", "0.2.111"]);
    sim.wait_trace("note", is("hook_exit", "event", "Notification"), 5 * SEC);
    sim.wait_for("⚠ Action Required - ", SEC);
    let note = &home.runs()[0];
    assert_eq!(note.payload["notificationType"], "permission_prompt");
    assert_eq!(note.payload["hookEventName"], "notification");
    let out = sim.output();
    assert!(out.contains(" - Waiting for response… - grok\x07"));
    sim.send(b"3");
    sim.wait_trace("stop", is("hook_exit", "event", "Stop"), 5 * SEC);
    sim.wait_for("\x1b]0;Create Out.txt Containing Hello - grok\x07", SEC);
    // StopCancelled is unknown to 0.2.111: skipped, and said so.
    assert!(out.contains("unknown hook event \"StopCancelled\""));
}

#[test]
fn blocked_title_freezes_on_1_0_5() {
    let home = Home::new();
    grok_file(&home, &[("Notification", "note")]);
    let sim = Sim::auto("grok", "plan", &home, &[]);
    sim.wait_trace("note", is("hook_exit", "event", "Notification"), 5 * SEC);
    let before = sim.trace().iter().filter(|v| v["ev"] == "title").count();
    // Not a wait: the title must stay frozen for longer than a spinner frame.
    std::thread::sleep(Duration::from_millis(1200));
    let after = sim.trace().iter().filter(|v| v["ev"] == "title").count();
    assert_eq!(before, after, "no title change while blocked on 1.0.5");
    assert!(!sim.output().contains("Action Required"));
    sim.send(b"\r");
    sim.wait_for("Refactor done", 5 * SEC);
}

#[test]
fn escape_fires_stop_cancelled_on_1_0_5_only() {
    const IDLE: &str = "Count From 1 To 3000, - grok";
    for (version, key, expect) in [
        ("1.0.5", &b"\x1b"[..], true),
        ("1.0.5", &b"\x03"[..], true),
        ("0.2.111", &b"\x1b"[..], false),
    ] {
        let home = Home::new();
        grok_file(&home, &[("StopCancelled", "cancel"), ("Stop", "stop")]);
        let sim = Sim::auto("grok", "interrupt", &home, &["--grok-version", version]);
        sim.wait_for("Waiting for response", 5 * SEC);
        sim.send(key);
        let k = sim.wait_trace("key", |v| v["ev"] == "key", SEC)["ts"]
            .as_f64()
            .unwrap();
        sim.wait_for("Interrupted", SEC);
        // Not only a wait: on 0.2.111 no hook may run in this window (on
        // 1.0.5 StopCancelled runs in it, 30 to 600 ms after the key).
        std::thread::sleep(Duration::from_millis(600));
        let runs = home.runs();
        let idle = sim.wait_trace(
            "idle title",
            |v| v["ev"] == "title" && v["title"] == IDLE,
            SEC,
        )["ts"]
            .as_f64()
            .unwrap();
        if expect {
            assert_eq!(runs.len(), 1, "{version} {key:?}");
            assert_eq!(runs[0].payload["reason"], "user_interrupt");
            assert_eq!(runs[0].grok_event, "stop_cancelled");
            let spawn = sim.wait_trace("spawn", is("hook_spawn", "event", "StopCancelled"), SEC)
                ["ts"]
                .as_f64()
                .unwrap();
            let exit = sim.wait_trace("exit", is("hook_exit", "event", "StopCancelled"), SEC)["ts"]
                .as_f64()
                .unwrap();
            let (lo, hi) = if key == b"\x1b" {
                (330.0, 600.0)
            } else {
                (30.0, 250.0)
            };
            assert!((lo..hi).contains(&(spawn - k)), "{}", spawn - k);
            // The title is not measured going idle first on 1.0.5: the
            // hook is the signal, and the idle title follows it.
            assert!(
                idle >= exit,
                "idle title {idle} before StopCancelled {exit}"
            );
        } else {
            assert!(runs.is_empty(), "0.2.111 fires nothing on Escape");
            // Measured: idle 10-26 ms after Escape (slack for a busy machine).
            assert!((10.0..150.0).contains(&(idle - k)), "{}", idle - k);
        }
        assert!(sim.output().contains(&format!("\x1b]0;{IDLE}\x07")));
    }
}
