//! termic's opencode plugin loaded by node with a fake event bus
//! (`opencode_harness.mjs`), its writes read back from a real pty.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::Pty;
use termic_hooks::agents::opencode::plugin_source;
use termic_signal::wire::{self, HookEvent, HookMessage};

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
    cmd.env("TZ", "UTC")
        .arg(&harness)
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

/// Runs `scenario` with a valid task id and checks the exact bytes on the
/// pty: one message per (event, hook, has kind=permission); working and
/// done carry the root session's id (`session=root`, 2026-12-06: a
/// restore resumes it).
fn assert_writes(scenario: &str, msgs: &[(HookEvent, &str, bool)]) -> Outcome {
    let out = run(scenario, Some(TASK));
    let want: String = msgs
        .iter()
        .map(|(event, hook, kind)| {
            let mut m = HookMessage::new(*event, TASK).with("hook", hook);
            if matches!(event, HookEvent::Working | HookEvent::Done) {
                m = m.with("session", "root");
            }
            match kind {
                true => m.with("kind", "permission").to_sequence(),
                false => m.to_sequence(),
            }
        })
        .collect();
    assert_eq!(text(&out.pty), want, "{scenario}");
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn each_event_maps_to_its_wire_message_and_idle_reports_once() {
    let out = assert_writes(
        "map",
        &[
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Attention, "permission.asked", true),
            (HookEvent::Released, "permission.replied", false),
            (HookEvent::Attention, "permission.updated", true),
            // session.status idle reports; the session.idle that follows does not.
            (HookEvent::Done, "session.status", false),
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Done, "session.idle", false),
        ],
    );
    assert_eq!(
        out.summary["hookKeys"],
        serde_json::json!(["chat.message", "event"])
    );
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
fn a_throwing_input_getter_neither_breaks_setup_nor_the_reports() {
    // `run` asserts nothing threw, setup included; the reports are the
    // same as with a working client (no client: every session is a root).
    assert_writes(
        "throwing-input",
        &[
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Attention, "permission.asked", true),
            (HookEvent::Released, "permission.replied", false),
            (HookEvent::Attention, "permission.updated", true),
            (HookEvent::Done, "session.status", false),
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Done, "session.idle", false),
        ],
    );
}

/// opencode waiting out a usage limit (2026-12-06): its `retry` status an
/// hour ahead says rate limited until that minute (UTC here, the local
/// clock in use), rounded up; a few seconds' backoff, an unreadable or a
/// days-long wait, or a subagent's, says nothing; the send after the wait
/// is working again, once; idle during a wait is the wait stopped.
#[test]
fn a_long_retry_is_rate_limited_until_then_and_the_retry_is_working() {
    let out = run("limit-retry", Some(TASK));
    let next = out.summary["next"].as_u64().unwrap();
    let minute = next.div_ceil(60_000) % (24 * 60);
    let until = format!("{:02}:{:02}", minute / 60, minute % 60);
    // Working and done carry the session; the limit its time.
    let said = |event, hook| {
        let m = HookMessage::new(event, TASK).with("hook", hook);
        match event {
            HookEvent::Working | HookEvent::Done => m.with("session", "root"),
            HookEvent::Error => m.with("reason", "rate_limited").with("until", &until),
            _ => m,
        }
    };
    let want: String = [
        said(HookEvent::Working, "chat.message"),
        said(HookEvent::Error, "session.status"),
        said(HookEvent::Working, "session.status"),
        said(HookEvent::Done, "session.status"),
        said(HookEvent::Working, "chat.message"),
        said(HookEvent::Error, "session.status"),
        said(HookEvent::Interrupted, "session.status"),
    ]
    .iter()
    .map(HookMessage::to_sequence)
    .collect();
    assert_eq!(text(&out.pty), want);
}

#[test]
fn loaded_twice_it_registers_once() {
    let out = assert_writes(
        "double-load",
        &[
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Attention, "permission.asked", true),
            (HookEvent::Done, "session.idle", false),
        ],
    );
    assert_eq!(out.summary["secondHookKeys"], serde_json::json!([]));
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
    assert_writes(
        "subagent",
        &[
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Done, "session.idle", false),
        ],
    );
}

#[test]
fn an_unknown_session_is_looked_up_through_the_client() {
    assert_writes(
        "subagent-via-client",
        &[
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Done, "session.idle", false),
        ],
    );
}

#[test]
fn an_error_then_idle_is_an_interrupt() {
    assert_writes(
        "error-then-idle",
        &[
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Interrupted, "session.idle", false),
            (HookEvent::Working, "chat.message", false),
            (HookEvent::Done, "session.idle", false),
        ],
    );
}

#[test]
fn an_api_error_then_idle_is_an_error_with_its_reason() {
    let out = run("api-error-then-idle", Some(TASK));
    let working = HookMessage::new(HookEvent::Working, TASK)
        .with("hook", "chat.message")
        .with("session", "root")
        .to_sequence();
    let error = |hook: &str, reason: &str| {
        HookMessage::new(HookEvent::Error, TASK)
            .with("hook", hook)
            .with("reason", reason)
            .to_sequence()
    };
    let want = [
        working.clone(),
        error("session.status", "rate_limited"),
        working.clone(),
        error("session.idle", "auth_failed"),
        working,
        error("session.idle", "server_error"),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
}

/// The session id goes out only as the wire takes it (`[A-Za-z0-9._:-]`,
/// not led by `-`, at most 128 bytes); otherwise the report goes without it.
#[test]
fn only_a_session_id_the_wire_takes_is_sent() {
    let out = run("session-ids", Some(TASK));
    let msg = |event, hook: &str, session: Option<&str>| {
        let m = HookMessage::new(event, TASK).with("hook", hook);
        match session {
            Some(id) => m.with("session", id).to_sequence(),
            None => m.to_sequence(),
        }
    };
    let mut want = msg(HookEvent::Working, "chat.message", Some("ses_4f2a.b:9"))
        + &msg(HookEvent::Done, "session.idle", Some("ses_4f2a.b:9"));
    for _ in 0..5 {
        want += &msg(HookEvent::Working, "chat.message", None);
        want += &msg(HookEvent::Done, "session.idle", None);
    }
    assert_eq!(text(&out.pty), want);
}

/// The assistant's last text of the turn goes with the done as
/// `message=` (issue 31 item 3, 2026-12-06), made as the hook scripts
/// make it (`wire::encode_text`, with a line break as a space): escaped,
/// controls dropped, cut to 300 bytes on a character boundary and never
/// inside an escape. A turn with no text, a subagent's text, a part of a
/// message whose role was never seen, or only blanks send none; an
/// interrupted turn sends no done.
#[test]
fn the_done_carries_the_assistants_last_text_of_the_turn() {
    let out = run("last-message", Some(TASK));
    let done = |text: Option<&str>| {
        let m = HookMessage::new(HookEvent::Done, TASK)
            .with("hook", "session.status")
            .with("session", "root");
        let m = match text {
            Some(text) => m.with("message", &wire::encode_text(text)),
            None => m,
        };
        m.to_sequence()
    };
    let working = HookMessage::new(HookEvent::Working, TASK)
        .with("hook", "chat.message")
        .with("session", "root")
        .to_sequence();
    let idle = |seq: String| seq.replace("hook=session.status", "hook=session.idle");
    let long = format!("a{}", "\u{e9}".repeat(200));
    let want = [
        working.clone(),
        done(Some("Hello; \"fake\" 100% model\\ \x1b[31mdone\u{85}.")),
        working.clone(),
        idle(done(Some(&long))),
        working.clone(),
        idle(done(Some(&"x".repeat(298)))),
        working.clone(),
        idle(done(None)),
        working.clone(),
        idle(done(None)),
        working,
        HookMessage::new(HookEvent::Interrupted, TASK)
            .with("hook", "session.idle")
            .to_sequence(),
    ]
    .concat();
    assert_eq!(text(&out.pty), want);
    let sent = text(&out.pty);
    assert!(sent.contains("message=Hello%3B %22fake%22 100%25 model%5C [31mdone."));
    assert!(sent.contains(&format!("message={}\x07", &long[..299])));
}

#[test]
fn the_plugin_file_is_ascii_without_control_bytes_and_names_its_generator() {
    let src = plugin_source();
    assert!(src.starts_with("// termic agent hook, generated by termic "));
    assert!(src.is_ascii());
    assert!(!src.bytes().any(|b| b < 0x20 && b != b'\n'));
    assert!(!src.contains("/dev/tty"));
}
