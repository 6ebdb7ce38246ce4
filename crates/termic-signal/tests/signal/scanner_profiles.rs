//! Bytes as the agents paint them, through the scanner, read by the profiles.

use termic_signal::profile::{profile_for, wants_attention, TitleState};
use termic_signal::scanner::Scanner;
use termic_signal::signal::Signal;
use termic_signal::wire::{field, HookEvent, HookMessage};

fn scan(bytes: &[u8]) -> Vec<Signal> {
    let mut out = Vec::new();
    Scanner::new().feed(bytes, &mut out);
    out
}

/// The one-line regression that would silently disable the feature: the
/// attention message termic's own claude hook emits (docs/protocol.md,
/// PermissionRequest) must pass claude's notify filter, and must reach the
/// engine as a hook message.
#[test]
fn termic_claude_attention_message_passes_the_claude_notify_filter() {
    for kind in ["permission", "question", "plan"] {
        let msg = HookMessage::new(HookEvent::Attention, "3f9c0a1e-77b2")
            .with(field::HOOK, "PermissionRequest")
            .with(field::KIND, kind);
        let body = msg.body();
        assert!(wants_attention("claude", &body), "{body}");
        assert!(profile_for("claude").explain_notify(&body).wants_attention);
        assert_eq!(scan(msg.to_sequence().as_bytes()), [Signal::Hook(msg)]);
    }
    // The protocol.md example, byte for byte (JSON escapes decoded).
    let json = r#"{"terminalSequence":"\u001b]777;termic;v1;attention;3f9c0a1e-77b2;hook=PermissionRequest;kind=permission\u0007"}"#;
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let sequence = value["terminalSequence"].as_str().unwrap();
    let signals = scan(sequence.as_bytes());
    let [Signal::Hook(msg)] = signals.as_slice() else {
        panic!("expected a hook message, got {signals:?}");
    };
    assert_eq!(msg.field(field::KIND), Some("permission"));
    assert!(wants_attention("claude", &msg.body()));
}

/// (agent, title bytes as painted, state)
const PAINTED: &[(&str, &str, TitleState)] = &[
    ("claude", "\x1b]0;✳ Claude Code\x07", TitleState::Idle),
    ("claude", "\x1b]0;◐ Claude Code\x07", TitleState::Busy),
    ("claude", "\x1b]0;◑ Claude Code\x07", TitleState::Busy),
    ("claude", "\x1b]0;Claude Code\x07", TitleState::Unknown),
    (
        "codex",
        "\x1b]0;[ ! ] Action Required | title | proj\x07",
        TitleState::NeedsYou,
    ),
    ("codex", "\x1b]0;⠋ title | proj\x1b\\", TitleState::Busy),
    ("codex", "\x1b]2;proj\x1b\\", TitleState::Idle),
    (
        "grok",
        "\x1b]0;⠋ - Waiting for response… - grok\x07",
        TitleState::Busy,
    ),
    (
        "grok",
        "\x1b]0;⚠ Action Required - ⠋ - Running: write - grok\x07",
        TitleState::NeedsYou,
    ),
    ("grok", "\x1b]0;Pong Reply - grok\x07", TitleState::Idle),
    ("opencode", "\x1b]0;OC | Pong\x07", TitleState::Unknown),
];

#[test]
fn painted_titles_scan_and_classify_as_measured() {
    for &(agent, bytes, want) in PAINTED {
        let signals = scan(bytes.as_bytes());
        let [Signal::Title(title)] = signals.as_slice() else {
            panic!("{bytes:?} gave {signals:?}");
        };
        assert_eq!(
            profile_for(agent).classify_title(title),
            want,
            "{agent}: {title:?}"
        );
    }
}

#[test]
fn claude_notifications_through_the_scanner() {
    let signals = scan(
        b"\x1b]9;Claude needs your permission\x07\x1b]777;notify;Claude Code;Claude is waiting for your input\x07",
    );
    let bodies: Vec<_> = signals
        .iter()
        .map(|s| match s {
            Signal::Notify { body, .. } => (body.as_str(), wants_attention("claude", body)),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        bodies,
        [
            ("Claude needs your permission", true),
            ("Claude is waiting for your input", false)
        ]
    );
}
