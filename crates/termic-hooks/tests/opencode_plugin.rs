//! termic's opencode plugin loaded by node with a fake event bus
//! (`opencode_harness.mjs`), its writes read back from a real pty.

mod common;

use std::path::Path;
use std::process::Command;

use common::Pty;
use termic_hooks::agents::opencode::plugin_source;
use termic_signal::wire::{HookEvent, HookMessage};

const TASK: &str = "oc-task-42";

struct Outcome {
    summary: serde_json::Value,
    pty: Vec<u8>,
}

fn run(scenario: &str, task_id: Option<&str>) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("termic.js");
    std::fs::write(&plugin, plugin_source()).unwrap();
    // opencode (Bun) loads .js as a module; node needs to be told.
    std::fs::write(dir.path().join("package.json"), r#"{"type":"module"}"#).unwrap();
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/opencode_harness.mjs");
    let mut pty = Pty::open();
    let mut cmd = Command::new("node");
    cmd.arg(&harness)
        .arg(&plugin)
        .arg(scenario)
        .env_remove("TERMIC_TASK_ID")
        .env("TERMIC_PTY", &pty.slave_path);
    if let Some(id) = task_id {
        cmd.env("TERMIC_TASK_ID", id);
    }
    let out = cmd.output().expect("node is installed");
    assert!(
        out.status.success(),
        "harness failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["threw"], serde_json::json!([]), "a handler threw");
    Outcome {
        summary,
        pty: match task_id {
            Some(TASK) => pty.drain_within(std::time::Duration::from_secs(1)),
            _ => pty.drain(),
        },
    }
}

fn seq(event: HookEvent, hook: &str, kind: bool) -> String {
    let mut m = HookMessage::new(event, TASK).with("hook", hook);
    if kind {
        m = m.with("kind", "permission");
    }
    m.to_sequence()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn each_event_maps_to_its_wire_message_and_idle_reports_once() {
    let out = run("map", Some(TASK));
    assert_eq!(
        out.summary["hookKeys"],
        serde_json::json!(["chat.message", "event"])
    );
    let want = [
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Attention, "permission.asked", true),
        seq(HookEvent::Released, "permission.replied", false),
        seq(HookEvent::Attention, "permission.updated", true),
        // session.status idle reports; the session.idle that follows does not.
        seq(HookEvent::Done, "session.status", false),
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Done, "session.idle", false),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
}

#[test]
fn a_throwing_write_never_escapes_a_handler() {
    let out = run("throwing-write", Some(TASK));
    assert_eq!(
        out.summary["hookKeys"],
        serde_json::json!(["chat.message", "event"])
    );
    assert!(out.pty.is_empty());
}

#[test]
fn loaded_twice_it_registers_once() {
    let out = run("double-load", Some(TASK));
    assert_eq!(out.summary["secondHookKeys"], serde_json::json!([]));
    let want = [
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Attention, "permission.asked", true),
        seq(HookEvent::Done, "session.idle", false),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
}

#[test]
fn silent_without_or_with_a_malformed_task_id() {
    let long = "a".repeat(65);
    for id in [
        None,
        Some(""),
        Some("a;b"),
        Some("a\nb"),
        Some(long.as_str()),
    ] {
        let out = run("no-task-id", id);
        assert_eq!(out.summary["hookKeys"], serde_json::json!([]), "{id:?}");
        assert!(out.pty.is_empty(), "spoke for {id:?}");
    }
}

#[test]
fn a_subagent_going_idle_is_ignored() {
    let out = run("subagent", Some(TASK));
    let want = [
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Done, "session.idle", false),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
}

#[test]
fn an_unknown_session_is_looked_up_through_the_client() {
    let out = run("subagent-via-client", Some(TASK));
    let want = [
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Done, "session.idle", false),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
}

#[test]
fn an_error_then_idle_is_an_interrupt() {
    let out = run("error-then-idle", Some(TASK));
    let want = [
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Interrupted, "session.idle", false),
        seq(HookEvent::Working, "chat.message", false),
        seq(HookEvent::Done, "session.idle", false),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
}

#[test]
fn the_plugin_file_is_ascii_without_control_bytes_and_names_its_generator() {
    let src = plugin_source();
    assert!(src.starts_with("// termic agent hook, generated by termic "));
    assert!(src.is_ascii());
    assert!(!src.bytes().any(|b| b < 0x20 && b != b'\n'));
    assert!(!src.contains("/dev/tty"));
}
