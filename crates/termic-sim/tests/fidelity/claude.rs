//! Claude Code: settings rules, hook execution, terminalSequence and the
//! allowlist, titles, Notification/OSC 9, OSC 7501, interrupts, timeouts.

use std::time::Duration;

use crate::harness::{claude_hooks, events, eventually, is, Home, Sim, SimOpts, SEC, TASK_ID};

const WIRE_ATTENTION: &str = "\x1b]777;termic;v1;attention;task-0123-abcd;kind=permission\x07";

fn approve_permission(sim: &Sim) {
    sim.wait_for("Do you want to create out.txt?", 5 * SEC);
    sim.send(b"1");
}

#[test]
fn sync_hook_sequence_lands_after_the_hook_returns() {
    let home = Home::new();
    home.claude_settings(&[("PermissionRequest", "perm")]);
    home.rec_prints(
        "perm",
        r#"{"terminalSequence":"\u001b]777;termic;v1;attention;task-0123-abcd;kind=permission\u0007"}"#,
    );
    let sim = Sim::auto("claude", "permission", &home, &[]);
    sim.wait_for(WIRE_ATTENTION, 5 * SEC);
    let trace = sim.trace();
    let exit = events(&trace, "hook_exit")
        .into_iter()
        .find(|v| v["event"] == "PermissionRequest")
        .unwrap()["ts"]
        .as_f64()
        .unwrap();
    let written = sim.wait_trace("seq_written", |v| v["ev"] == "seq_written", SEC)["ts"]
        .as_f64()
        .unwrap();
    assert!(
        written - exit >= 10.0,
        "landed {}ms after the hook exited",
        written - exit
    );
    // The idle glyph is painted BEFORE PermissionRequest fires (measured ~25 ms).
    let spawn = events(&trace, "hook_spawn")
        .into_iter()
        .find(|v| v["event"] == "PermissionRequest")
        .unwrap()["ts"]
        .as_f64()
        .unwrap();
    let idle = events(&trace, "title")
        .into_iter()
        .rev()
        .find(|v| v["title"] == "✳ Claude Code" && v["ts"].as_f64().unwrap() <= spawn)
        .expect("idle title before the hook");
    assert!(spawn - idle["ts"].as_f64().unwrap() >= 20.0);
    let out = sim.output();
    assert!(out.find("\x1b]0;✳ Claude Code\x07").unwrap() < out.find(WIRE_ATTENTION).unwrap());
    let run = &home.runs()[0];
    assert_eq!(run.tty, "fail", "hooks run with no controlling terminal");
    assert_eq!(run.task_id, TASK_ID, "the agent's env reaches the hook");
    assert_eq!(run.payload["hook_event_name"], "PermissionRequest");
    assert_eq!(run.payload["tool_name"], "Write");
    for k in [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "tool_input",
        "permission_suggestions",
    ] {
        assert!(run.payload.get(k).is_some(), "{k} missing: {}", run.payload);
    }
    approve_permission(&sim);
}

#[test]
fn async_hook_runs_but_its_sequence_is_dropped() {
    let home = Home::new();
    home.write(
        ".claude/settings.json",
        &claude_hooks(&[("UserPromptSubmit", "ups")], &home, r#","async":true"#),
    );
    home.rec_prints(
        "ups",
        r#"{"terminalSequence":"\u001b]777;termic;v1;working;task-0123-abcd\u0007"}"#,
    );
    let sim = Sim::auto("claude", "simple", &home, &[]);
    sim.wait_trace("async exit", |v| v["ev"] == "hook_async_exit", 5 * SEC);
    sim.wait_for("pong", 5 * SEC);
    // Not a wait: the async hook's sequence would land in this window.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(home.run_names(), vec!["ups"]);
    assert!(
        !sim.output().contains("777;termic"),
        "async terminalSequence must never land"
    );
}

#[test]
fn allowlist_refuses_other_sequences_and_reemits_st_as_bel() {
    let home = Home::new();
    home.claude_settings(&[("UserPromptSubmit", "ups"), ("Stop", "stop")]);
    // OSC 52 (clipboard) is not on the allowlist (the OSC 9 digit rule and
    // the rest of the list: `osc::tests::allowlist_numbers`).
    home.rec_prints("ups", r#"{"terminalSequence":"\u001b]52;c;aGk=\u0007"}"#);
    home.rec_prints(
        "stop",
        r#"{"terminalSequence":"\u001b]777;termic;v1;done;task-0123-abcd\u001b\\"}"#,
    );
    let sim = Sim::auto("claude", "simple", &home, &[]);
    sim.wait_for("\x1b]777;termic;v1;done;task-0123-abcd\x07", 5 * SEC);
    assert!(!sim.output().contains("]52;"));
    assert!(sim
        .trace()
        .iter()
        .any(|v| v["ev"] == "seq_refused" && v["event"] == "UserPromptSubmit"));
}

#[test]
fn jsonc_settings_are_rejected_whole_and_local_settings_still_apply() {
    let home = Home::new();
    let good = claude_hooks(&[("Stop", "stop")], &home, "");
    home.write(".claude/settings.json", &format!("// my settings\n{good}"));
    home.write(
        ".claude/settings.local.json",
        &claude_hooks(&[("UserPromptSubmit", "local")], &home, ""),
    );
    let sim = Sim::auto("claude", "simple", &home, &[]);
    sim.wait_for("Invalid or malformed JSON", 5 * SEC);
    sim.wait_for("pong", 5 * SEC);
    // Not a wait: the rejected file's Stop hook would run in this window.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(home.run_names(), vec!["local"]);
}

#[test]
fn disable_all_hooks_runs_nothing() {
    let home = Home::new();
    let mut s = claude_hooks(&[("UserPromptSubmit", "ups"), ("Stop", "stop")], &home, "");
    s.insert_str(1, r#""disableAllHooks": true, "#);
    home.write(".claude/settings.json", &s);
    let sim = Sim::auto("claude", "simple", &home, &[]);
    sim.wait_for("pong", 5 * SEC);
    // Not a wait: a hook would run in this window.
    std::thread::sleep(Duration::from_millis(300));
    assert!(home.runs().is_empty());
}

#[test]
fn bom_settings_fire_and_payloads_use_claude_field_names() {
    let home = Home::new();
    let s = claude_hooks(&[("UserPromptSubmit", "ups"), ("Stop", "stop")], &home, "");
    home.write(".claude/settings.json", &format!("\u{feff}{s}"));
    let sim = Sim::auto("claude", "simple", &home, &[]);
    sim.wait_trace("stop hook", is("hook_exit", "event", "Stop"), 5 * SEC);
    let runs = home.runs();
    assert_eq!(runs[0].payload["prompt"], "Reply with the single word pong");
    assert_eq!(runs[1].payload["hook_event_name"], "Stop");
    for k in [
        "stop_hook_active",
        "last_assistant_message",
        "background_tasks",
        "session_crons",
    ] {
        assert!(runs[1].payload.get(k).is_some(), "{k}");
    }
    assert_eq!(runs[1].payload["last_assistant_message"], "pong");
}

#[test]
fn native_status_only_after_the_probe_is_answered() {
    let home = Home::new();
    let sim = Sim::spawn(
        "claude",
        "permission",
        &home,
        SimOpts {
            args: &["--auto"],
            answer_probe: true,
            ..Default::default()
        },
    );
    sim.wait_for(
        "state=blocked:app=claude-code:kind=permission:msg=",
        5 * SEC,
    );
    let out = sim.output();
    assert!(
        out.starts_with("\x1b]7501;?\x1b\\"),
        "the probe comes first"
    );
    let idle = out
        .find("\x1b]7501;state=idle:app=claude-code\x1b\\")
        .unwrap();
    let working = out.find("state=working:app=claude-code").unwrap();
    assert!(idle < working);
    assert!(
        out.contains("\x1b]0;Claude Code\x07"),
        "the title drops the glyph"
    );
    assert!(!out.contains("◐ Claude Code"));
    // base64("approve Write: <cwd>/out.txt")
    let msg = out
        .split("kind=permission:msg=")
        .nth(1)
        .unwrap()
        .split('\x1b')
        .next()
        .unwrap();
    use base64::Engine as _;
    let text = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(msg)
            .unwrap(),
    )
    .unwrap();
    assert!(
        text.starts_with("approve Write: ") && text.ends_with("/out.txt"),
        "{text}"
    );
    approve_permission(&sim);
    sim.wait_for("state=done:app=claude-code", 5 * SEC);
}

#[test]
fn unanswered_probe_and_no_native_fall_back_to_glyph_titles() {
    let home = Home::new();
    let sim = Sim::auto("claude", "simple", &home, &["--probe-wait-ms", "100"]);
    sim.wait_for("pong", 5 * SEC);
    sim.wait_for("\x1b]0;✳ Claude Code\x07\r\x1b[K> ", 5 * SEC);
    let out = sim.output();
    assert!(out.contains("\x1b]7501;?"));
    assert!(!out.contains("7501;state"));
    assert!(out.contains("\x1b]0;◐ Claude Code\x07"));

    let old = Sim::spawn(
        "claude",
        "simple",
        &home,
        SimOpts {
            args: &["--auto", "--no-native"],
            answer_probe: true,
            ..Default::default()
        },
    );
    old.wait_for("pong", 5 * SEC);
    assert!(
        !old.output().contains("7501"),
        "an older Claude never probes"
    );
}

#[test]
fn spinner_alternates_every_960ms() {
    let home = Home::new();
    let sim = Sim::auto("claude", "interrupt", &home, &["--probe-wait-ms", "20"]);
    let spin_times = |trace: &[serde_json::Value]| -> Vec<f64> {
        events(trace, "title")
            .into_iter()
            .filter(|v| v["title"] != "✳ Claude Code")
            .map(|v| v["ts"].as_f64().unwrap())
            .collect()
    };
    eventually(5 * SEC, || spin_times(&sim.trace()).len() >= 3);
    let trace = sim.trace();
    let spins = spin_times(&trace);
    assert!(spins.len() >= 3, "{spins:?}");
    let gap = spins[2] - spins[1];
    assert!((850.0..1300.0).contains(&gap), "gap {gap}");
    let titles: Vec<&str> = events(&trace, "title")
        .iter()
        .map(|v| v["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        &titles[1..4],
        ["◐ Claude Code", "◑ Claude Code", "◐ Claude Code"]
    );
}

#[test]
fn notification_hook_and_osc9_six_seconds_into_a_permission_prompt() {
    let home = Home::new();
    home.claude_settings(&[("PermissionRequest", "perm"), ("Notification", "note")]);
    // --speed 10: 6 s becomes 600 ms.
    let sim = Sim::auto(
        "claude",
        "permission",
        &home,
        &["--speed", "10", "--probe-wait-ms", "20"],
    );
    sim.wait_for("\x1b]9;Claude needs your permission\x07", 5 * SEC);
    let trace = sim.trace();
    let perm = sim.wait_trace("perm", is("hook_spawn", "event", "PermissionRequest"), SEC)["ts"]
        .as_f64()
        .unwrap();
    let note = events(&trace, "hook_spawn")
        .into_iter()
        .find(|v| v["event"] == "Notification")
        .unwrap()["ts"]
        .as_f64()
        .unwrap();
    assert!((550.0..900.0).contains(&(note - perm)), "{}", note - perm);
    let runs = home.runs();
    assert_eq!(runs[1].payload["notification_type"], "permission_prompt");
    assert!(runs[1].payload.get("permission_mode").is_none());
    approve_permission(&sim);
}

#[test]
fn question_and_plan_report_their_tool_names() {
    let keys: [(&str, &str, &[u8]); 2] = [
        // The question's second option: Down, then Enter (a digit does
        // nothing there, as on 2.1.332).
        ("question", "AskUserQuestion", b"\x1b[B\r"),
        ("plan", "ExitPlanMode", b"1"),
    ];
    for (scenario, tool, key) in keys {
        let home = Home::new();
        home.claude_settings(&[("PermissionRequest", "perm"), ("Stop", "stop")]);
        let sim = Sim::auto("claude", scenario, &home, &["--probe-wait-ms", "20"]);
        sim.wait_trace(
            "perm",
            is("hook_exit", "event", "PermissionRequest"),
            5 * SEC,
        );
        sim.send(key);
        sim.wait_trace("stop", is("hook_exit", "event", "Stop"), 5 * SEC);
        assert_eq!(home.runs()[0].payload["tool_name"], tool);
    }
}

#[test]
fn escape_and_ctrl_c_paint_idle_and_fire_no_hook() {
    for (key, lo, hi) in [(&b"\x1b"[..], 100.0, 600.0), (&b"\x03"[..], 30.0, 500.0)] {
        let home = Home::new();
        home.claude_settings(&[("Stop", "stop")]);
        let sim = Sim::auto("claude", "interrupt", &home, &["--probe-wait-ms", "20"]);
        sim.wait_for("Working", 5 * SEC);
        sim.send(key);
        let k = sim.wait_trace("key", |v| v["ev"] == "key", SEC)["ts"]
            .as_f64()
            .unwrap();
        let idle = sim.wait_trace(
            "idle",
            |v| {
                v["ev"] == "title" && v["title"] == "✳ Claude Code" && v["ts"].as_f64().unwrap() > k
            },
            SEC,
        );
        let dt = idle["ts"].as_f64().unwrap() - k;
        assert!((lo..hi).contains(&dt), "idle {dt} ms after {key:?}");
        // Not a wait: a hook for the interrupt would run in this window.
        std::thread::sleep(Duration::from_millis(200));
        assert!(home.runs().is_empty(), "no hook on an interrupt");
    }
}

#[test]
fn a_hook_that_never_returns_is_killed_at_its_timeout() {
    let home = Home::new();
    home.write_exec("bin/hang.sh", "#!/bin/sh\nsleep 300\n");
    home.write(
        ".claude/settings.json",
        &format!(
            r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"command","command":"{}","timeout":1}}]}}]}}}}"#,
            home.path().join("bin/hang.sh").display()
        ),
    );
    let sim = Sim::auto("claude", "hook-timeout", &home, &["--probe-wait-ms", "20"]);
    let exit = sim.wait_trace("timeout", is("hook_exit", "event", "Stop"), 5 * SEC);
    assert_eq!(exit["timed_out"], true);
    sim.wait_for("\x1b]0;✳ Claude Code\x07\r\x1b[K> ", 2 * SEC);
    let spawn = events(&sim.trace(), "hook_spawn")[0]["ts"]
        .as_f64()
        .unwrap();
    let dt = exit["ts"].as_f64().unwrap() - spawn;
    assert!((950.0..2000.0).contains(&dt), "{dt}");
}

#[test]
fn subagent_run_looks_idle_in_parts_and_stops_once() {
    let home = Home::new();
    home.claude_settings(&[("Stop", "stop"), ("SubagentStop", "sub")]);
    // 8.5 minutes at --speed 100.
    let sim = Sim::auto(
        "claude",
        "subagents",
        &home,
        &["--speed", "100", "--probe-wait-ms", "20"],
    );
    sim.wait_trace("stop", is("hook_exit", "event", "Stop"), 15 * SEC);
    let trace = sim.trace();
    let stop_ts = sim.wait_trace("stop", is("hook_spawn", "event", "Stop"), SEC)["ts"]
        .as_f64()
        .unwrap();
    let titles: Vec<(&str, f64)> = events(&trace, "title")
        .iter()
        .map(|v| (v["title"].as_str().unwrap(), v["ts"].as_f64().unwrap()))
        .collect();
    let idle_before_stop = titles
        .iter()
        .filter(|(t, ts)| *t == "✳ Claude Code" && *ts < stop_ts)
        .count();
    assert!(
        idle_before_stop >= 3,
        "the title claims idle during the run: {titles:?}"
    );
    let runs = home.runs();
    assert_eq!(runs.iter().filter(|r| r.name == "stop").count(), 1);
    let real_subagents = runs
        .iter()
        .filter(|r| r.name == "sub" && r.payload["agent_type"] == "general-purpose");
    assert_eq!(real_subagents.count(), 4);
    // The follow-up-suggestion agent: SubagentStop with an empty agent_type after Stop.
    assert!(eventually(5 * SEC, || home
        .runs()
        .iter()
        .any(|r| r.name == "sub" && r.payload["agent_type"] == "")));
}

#[test]
fn stop_with_background_tasks_then_a_final_stop() {
    let home = Home::new();
    home.claude_settings(&[("Stop", "stop")]);
    let sim = Sim::auto("claude", "background", &home, &["--speed", "5"]);
    sim.wait_for("All tests passed", 10 * SEC);
    sim.wait_trace(
        "second stop",
        |v| {
            v["ev"] == "hook_exit"
                && v["event"] == "Stop"
                && sim
                    .trace()
                    .iter()
                    .filter(|x| x["ev"] == "hook_exit" && x["event"] == "Stop")
                    .count()
                    == 2
        },
        5 * SEC,
    );
    let runs = home.runs();
    assert_eq!(runs.len(), 2);
    let bg = runs[0].payload["background_tasks"].as_array().unwrap();
    assert_eq!(bg.len(), 1);
    for k in ["id", "type", "status", "description", "command"] {
        assert!(bg[0].get(k).is_some(), "{k}");
    }
    assert_eq!(runs[1].payload["background_tasks"], serde_json::json!([]));
}

#[test]
fn unfocused_claude_keeps_the_busy_glyph_but_stops_alternating() {
    let home = Home::new();
    let sim = Sim::auto("claude", "interrupt", &home, &["--probe-wait-ms", "20"]);
    sim.wait_for("◐ Claude Code", 5 * SEC);
    sim.send(b"\x1b[O");
    // Not a wait: no alternation for two spinner periods is what is checked.
    std::thread::sleep(Duration::from_millis(2300));
    let trace = sim.trace();
    let focus_out = events(&trace, "title").len();
    assert_eq!(
        focus_out, 2,
        "idle at start, one busy glyph, then no alternation: {trace:#?}"
    );
    sim.send(b"\x1b[I");
    assert!(
        eventually(5 * SEC, || events(&sim.trace(), "title").len() > focus_out),
        "alternates again once focused"
    );
}

#[test]
fn demo_scenario_loops_and_approves_its_prompt_by_itself() {
    // `termic demo` runs this loop for as long as it is open: a plain turn,
    // a turn that asks permission (approved by itself after
    // --auto-approve-ms), then back to the first prompt.
    let home = Home::new();
    home.claude_settings(&[("PermissionRequest", "perm"), ("Stop", "stop")]);
    let sim = Sim::auto(
        "claude",
        "demo",
        &home,
        &["--speed", "20", "--auto-approve-ms", "2000"],
    );
    let submits = || -> Vec<String> {
        events(&sim.trace(), "submit")
            .iter()
            .map(|v| v["prompt"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    eventually(10 * SEC, || submits().len() >= 3);
    assert_eq!(
        submits()[..3],
        [
            "Summarise the README",
            "Create notes.txt with the summary",
            "Summarise the README"
        ]
    );
    sim.wait_for("Created notes.txt", SEC);
    // Two Stops (one per turn) and the one permission prompt before the loop.
    assert_eq!(home.run_names()[..3], ["stop", "perm", "stop"]);
}

#[test]
fn drop_hooks_rewrites_settings_without_termic_hooks_and_stops_running_them() {
    let home = Home::new();
    let ours = home.write_exec(
        ".claude/termic-hooks/claude-hook",
        &format!(
            "#!/bin/sh\nexec {}/bin/rec.sh \"$@\"\n",
            home.path().display()
        ),
    );
    let ours = ours.display();
    let settings = format!(
        r#"{{"model":"opus","hooks":{{
  "SessionStart":[{{"hooks":[{{"type":"command","command":"{ours} ours-start"}}]}}],
  "Stop":[{{"hooks":[{{"type":"command","command":"{ours} ours-stop"}},{{"type":"command","command":"{}"}}]}}]}}}}"#,
        home.rec("user-stop")
    );
    let path = home.write(".claude/settings.json", &settings);
    let sim = Sim::auto("claude", "hooks-dropped", &home, &[]);
    sim.wait_trace("drop_hooks", |v| v["ev"] == "drop_hooks", 5 * SEC);
    approve_permission(&sim);
    sim.wait_for("Created out.txt", 5 * SEC);
    assert!(
        eventually(5 * SEC, || home
            .run_names()
            .contains(&"user-stop".to_string())),
        "{:?}",
        home.run_names()
    );
    // Start-up hooks ran before the rewrite; after it only the user's hook runs.
    assert_eq!(home.run_names(), ["ours-start", "user-stop"]);
    let after: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(after["model"], "opus");
    assert!(after["hooks"].get("SessionStart").is_none(), "{after}");
    let stop = after["hooks"]["Stop"][0]["hooks"].as_array().unwrap();
    assert_eq!(stop.len(), 1, "{after}");
    assert_eq!(stop[0]["command"], home.rec("user-stop").as_str());
    assert!(!std::fs::read_to_string(&path)
        .unwrap()
        .contains("termic-hooks"));
}

/// What termic reads of the simulator's screen now: the choices of its
/// Claude question dialog (termic-signal's claude profile), as (id, label,
/// keys).
fn question_choices(sim: &Sim) -> Vec<(String, String, Vec<u8>)> {
    let size = |n| std::num::NonZeroU16::new(n).expect("a size");
    let mut parser = vt100::Parser::new(size(40), size(120), 0);
    parser.process(sim.output().as_bytes());
    let rows: Vec<String> = parser.screen().rows(0, 120).collect();
    let screen = termic_signal::profile::ScreenRows::bottom(&rows, 40);
    termic_signal::profile::profile_for("claude")
        .read_dialog("question", &screen)
        .map(|d| d.choices)
        .unwrap_or_default()
        .into_iter()
        .map(|c| (c.id, c.label, c.keys))
        .collect()
}

/// The keys termic would send for `id` once the screen offers it with
/// `label`.
fn keys_once(sim: &Sim, id: &str, label: &str) -> Vec<u8> {
    let mut keys = None;
    let seen = eventually(5 * SEC, || {
        keys = question_choices(sim)
            .into_iter()
            .find(|(i, l, _)| i == id && l == label)
            .map(|(_, _, k)| k);
        keys.is_some()
    });
    assert!(
        seen,
        "{id} {label:?} not offered: {:?}",
        question_choices(sim)
    );
    keys.unwrap()
}

/// The multi-select question (issue 30) as 2.1.332 takes it, driven with
/// the keys termic's claude profile reads off the simulator's screen:
/// tick Cheese, tick Basil (each offered ticked once the box shows it),
/// Submit, then the review's "Submit answers": the answer is Cheese and
/// Basil, and the turn ends.
#[test]
fn a_multi_select_question_takes_ticks_then_submit_then_submit_answers() {
    let home = Home::new();
    home.claude_settings(&[("PermissionRequest", "perm"), ("Stop", "stop")]);
    let sim = Sim::auto(
        "claude",
        "question-multi",
        &home,
        &["--probe-wait-ms", "20"],
    );
    sim.wait_trace(
        "perm",
        is("hook_exit", "event", "PermissionRequest"),
        5 * SEC,
    );
    let offered: Vec<String> = question_choices(&sim).into_iter().map(|c| c.0).collect();
    assert_eq!(offered, ["toggle_1", "toggle_2", "toggle_3", "submit"]);
    for (id, before, after) in [
        ("toggle_1", "[ ] Cheese", "[✔] Cheese"),
        ("toggle_3", "[ ] Basil", "[✔] Basil"),
    ] {
        sim.send(&keys_once(&sim, id, before));
        keys_once(&sim, id, after);
    }
    // Submit is three rows below Basil: Down Down Enter.
    let submit = keys_once(&sim, "submit", "Submit");
    assert_eq!(submit, b"\x1b[B\x1b[B\r");
    sim.send(&submit);
    sim.send(&keys_once(&sim, "option_1", "Submit answers"));
    let answered = sim.wait_trace("answered", |v| v["ev"] == "answered", 5 * SEC);
    assert_eq!(answered["answers"], serde_json::json!(["Cheese", "Basil"]));
    sim.wait_trace("stop", is("hook_exit", "event", "Stop"), 5 * SEC);
    let payload = &home.runs()[0].payload;
    assert_eq!(payload["tool_name"], "AskUserQuestion");
    assert_eq!(payload["tool_input"]["questions"][0]["multiSelect"], true);
}
