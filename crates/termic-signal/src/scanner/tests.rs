//! One test per signal kind, on byte strings as the agents write them.

use super::*;
use crate::signal::{NativeState, NotifySource, ProgramStatus};
use crate::wire::{HookEvent, HookMessage, WireError};

fn scan(bytes: &[u8]) -> Vec<Signal> {
    let mut out = Vec::new();
    Scanner::new().feed(bytes, &mut out);
    out
}

fn title(s: &str) -> Signal {
    Signal::Title(s.to_string())
}

fn notify(source: NotifySource, body: &str) -> Signal {
    Signal::Notify {
        source,
        body: body.to_string(),
    }
}

#[test]
fn osc_0_and_2_are_titles_with_semicolons_kept_and_osc_1_is_ignored() {
    assert_eq!(
        scan("\x1b]0;✳ Claude Code\x07".as_bytes()),
        [title("✳ Claude Code")]
    );
    assert_eq!(scan(b"\x1b]2;a;b;;c\x1b\\"), [title("a;b;;c")]);
    assert_eq!(scan(b"\x1b]0;\x07"), [title("")]);
    assert_eq!(scan(b"\x1b]1;icon name\x07"), []);
}

#[test]
fn invalid_utf8_in_a_title_is_replaced_not_dropped() {
    assert_eq!(
        scan(b"\x1b]0;ok\xff\xfe\x07"),
        [title("ok\u{fffd}\u{fffd}")]
    );
}

#[test]
fn osc_9_is_a_notification_unless_it_is_progress_or_a_conemu_command() {
    assert_eq!(
        scan(b"\x1b]9;Claude needs your permission\x07"),
        [notify(NotifySource::Osc9, "Claude needs your permission")]
    );
    assert_eq!(
        scan(b"\x1b]9;4;1;42\x07"),
        [Signal::Progress {
            state: 1,
            value: Some(42)
        }]
    );
    assert_eq!(
        scan(b"\x1b]9;4\x07"),
        [Signal::Progress {
            state: 0,
            value: None
        }]
    );
    assert_eq!(
        scan(b"\x1b]9;4;3;250\x07"),
        [Signal::Progress {
            state: 3,
            value: None
        }]
    );
    assert_eq!(scan(b"\x1b]9;4;x;1\x07"), []);
    assert_eq!(scan(b"\x1b]9;9;/home/me\x07"), [], "ConEmu cwd report");
    assert_eq!(scan(b"\x1b]9;\x07"), []);
    assert_eq!(
        scan(b"\x1b]9;done: 3; ok\x07"),
        [notify(NotifySource::Osc9, "done: 3; ok")]
    );
}

#[test]
fn osc_777_notify_reports_the_body_after_the_title_with_semicolons() {
    assert_eq!(
        scan(b"\x1b]777;notify;Claude Code;Claude needs you; now\x07"),
        [notify(NotifySource::Osc777, "Claude needs you; now")]
    );
    assert_eq!(
        scan(b"\x1b]777;notify;only a title\x07"),
        [notify(NotifySource::Osc777, "only a title")]
    );
    assert_eq!(scan(b"\x1b]777;notify\x07"), []);
    assert_eq!(scan(b"\x1b]777;precmd\x07"), [], "urxvt shell hooks");
}

#[test]
fn osc_777_termic_is_a_hook_message_or_a_rejection() {
    let msg = HookMessage::new(HookEvent::Attention, "3f9c0a1e-77b2")
        .with("hook", "PermissionRequest")
        .with("kind", "permission");
    assert_eq!(
        scan(msg.to_sequence().as_bytes()),
        [Signal::Hook(msg.clone())]
    );
    // ST-terminated works the same.
    let st = format!("\x1b]{}\x1b\\", msg.body());
    assert_eq!(scan(st.as_bytes()), [Signal::Hook(msg)]);
    assert_eq!(
        scan(b"\x1b]777;termic;v9;done;abc\x07"),
        [Signal::HookRejected {
            raw: "777;termic;v9;done;abc".into(),
            error: WireError::UnsupportedVersion("v9".into()),
        }]
    );
}

#[test]
fn osc_99_single_chunked_and_base64() {
    assert_eq!(
        scan(b"\x1b]99;;Hello world\x1b\\"),
        [notify(NotifySource::Osc99, "Hello world")]
    );
    // kitty's own example: title chunk then body chunk.
    assert_eq!(
        scan(b"\x1b]99;i=1:d=0;Hello world\x1b\\\x1b]99;i=1:d=1:p=body;This is cool\x1b\\"),
        [notify(NotifySource::Osc99, "This is cool")]
    );
    // base64 body in two chunks, interleaved with another id.
    let bytes = b"\x1b]99;i=a:d=0:e=1:p=body;bmVlZHMg\x07\
                  \x1b]99;i=b:d=0;other\x07\
                  \x1b]99;i=a:e=1:p=body;eW91\x07";
    assert_eq!(scan(bytes), [notify(NotifySource::Osc99, "needs you")]);
    // invalid base64 adds nothing but the notification still completes.
    assert_eq!(
        scan(b"\x1b]99;i=c:d=0;Title\x07\x1b]99;i=c:e=1:p=body;!!!\x07"),
        [notify(NotifySource::Osc99, "Title")]
    );
}

#[test]
fn osc_99_queries_are_not_notifications() {
    // opencode 1.18.33 at start-up, measured.
    assert_eq!(scan(b"\x1b]99;i=opentui-notifications:p=?;\x1b\\"), []);
    assert_eq!(scan(b"\x1b]99;i=x:p=close;\x07"), []);
    assert_eq!(scan(b"\x1b]99;i=x:p=alive;\x07"), []);
}

#[test]
fn a_bare_bel_is_a_bell_and_an_osc_terminating_bel_is_not() {
    assert_eq!(scan(b"\x07"), [Signal::Bell]);
    assert_eq!(scan(b"\x1b]0;t\x07"), [title("t")]);
    assert_eq!(scan(b"\x1b]0;t\x07\x07"), [title("t"), Signal::Bell]);
}

fn status(state: NativeState, app: &str) -> ProgramStatus {
    ProgramStatus {
        state,
        app: Some(app.to_string()),
        kind: None,
        id: None,
        progress: None,
        message: None,
        title: None,
    }
}

#[test]
fn osc_7501_probe_and_reports_as_measured() {
    assert_eq!(scan(b"\x1b]7501;?\x1b\\"), [Signal::NativeProbe]);
    assert_eq!(
        scan(b"\x1b]7501;state=working:app=claude-code\x07"),
        [Signal::Native(status(NativeState::Working, "claude-code"))]
    );
    // msg = base64("approve Write: /path/out.txt")
    let blocked = b"\x1b]7501;state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBXcml0ZTogL3BhdGgvb3V0LnR4dA==\x1b\\";
    let mut want = status(NativeState::Blocked, "claude-code");
    want.kind = Some("permission".into());
    want.message = Some("approve Write: /path/out.txt".into());
    assert_eq!(scan(blocked), [Signal::Native(want)]);
    for (state, name) in [
        (NativeState::Done, "done"),
        (NativeState::Idle, "idle"),
        (NativeState::Clear, "clear"),
    ] {
        let bytes = format!("\x1b]7501;state={name}:app=codex\x07");
        assert_eq!(
            scan(bytes.as_bytes()),
            [Signal::Native(status(state, "codex"))]
        );
    }
}

#[test]
fn osc_7501_optional_fields_bad_base64_and_unknown_states() {
    let bytes = b"\x1b]7501;state=working:app=x:id=7:progress=55:title=aGk:msg=%%%\x07";
    let mut want = status(NativeState::Working, "x");
    want.id = Some("7".into());
    want.progress = Some(55);
    want.title = Some("hi".into());
    assert_eq!(scan(bytes), [Signal::Native(want)], "bad msg => None");
    assert_eq!(scan(b"\x1b]7501;state=pondering:app=x\x07"), []);
    assert_eq!(scan(b"\x1b]7501;app=x\x07"), [], "no state");
    assert_eq!(scan(b"\x1b]7501;\x07"), []);
}

#[test]
fn activity_is_reported_once_per_feed_at_the_first_visible_output() {
    assert_eq!(
        scan(b"\x1b]0;t\x07hello\nworld\x07"),
        [title("t"), Signal::Activity, Signal::Bell]
    );
    assert_eq!(scan(b"\n"), [Signal::Activity]);
    assert_eq!(scan(b"\r\x1b[2J\x1b[H\x1b[31m"), [], "no visible output");
}

#[test]
fn csi_dcs_and_other_escapes_are_silent() {
    let bytes = b"\x1b[?1049h\x1b[>0q\x1b[?2004h\x1bP+q544e\x1b\\\x1b]10;?\x1b\\\x1b]11;?\x07\x1b]1337;x\x07\x1b(B";
    assert_eq!(scan(bytes), []);
}

#[test]
fn an_osc_that_fills_the_buffer_is_dropped_and_the_next_one_works() {
    let mut bytes = b"\x1b]0;".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', MAX_OSC_BYTES * 3));
    bytes.extend_from_slice(b"\x07\x1b]0;next\x07");
    assert_eq!(scan(&bytes), [title("next")]);
    // Just under the limit is kept whole.
    let just_under = format!("\x1b]0;{}\x07", "y".repeat(MAX_OSC_BYTES - 2));
    assert_eq!(
        scan(just_under.as_bytes()),
        [title(&"y".repeat(MAX_OSC_BYTES - 2))]
    );
}
