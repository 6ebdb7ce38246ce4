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
        (NativeState::Error, "error"),
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

/// After the first visible output of a feed the text is skipped (vte's
/// `wants_text`): the bells and OSCs in and after it still count, invalid
/// and cut UTF-8 included.
#[test]
fn bells_and_titles_in_text_after_visible_output_still_count() {
    assert_eq!(
        scan("é\x07ab\u{2588}\x07\x1b]0;t\x07x\x07".as_bytes()),
        [
            Signal::Activity,
            Signal::Bell,
            Signal::Bell,
            title("t"),
            Signal::Bell
        ]
    );
    assert_eq!(
        scan(b"a\xe2\x96\x07\xff\x07\xc2\x85\x07"),
        [Signal::Activity, Signal::Bell, Signal::Bell, Signal::Bell]
    );
    let mut scanner = Scanner::new();
    let mut out = Vec::new();
    scanner.feed(b"ab\xe2\x96", &mut out);
    scanner.feed(b"\x88\x07", &mut out);
    assert_eq!(out, [Signal::Activity, Signal::Activity, Signal::Bell]);
    // The same cut in text after an escape sequence, which the scanner
    // skips: the next feed still sees the character whole.
    out.clear();
    scanner.feed(b"a\x1b[0m\xe2\x96", &mut out);
    scanner.feed(b"\x88", &mut out);
    assert_eq!(out, [Signal::Activity, Signal::Activity]);
}

#[test]
fn csi_dcs_and_other_escapes_are_silent() {
    let bytes = b"\x1b[?1049h\x1b[>0q\x1b[?2004h\x1bP+q544e\x1b\\\x1b]10;?\x1b\\\x1b]11;?\x07\x1b]1337;x\x07\x1b(B";
    assert_eq!(scan(bytes), []);
}

#[test]
fn an_osc_over_the_limit_is_dropped_whole_and_the_next_one_works() {
    // Body = "0;" + title: exactly MAX_OSC_BYTES is kept, one more is not.
    let at_limit = "y".repeat(MAX_OSC_BYTES - 2);
    assert_eq!(
        scan(format!("\x1b]0;{at_limit}\x07").as_bytes()),
        [title(&at_limit)]
    );
    let over = "y".repeat(MAX_OSC_BYTES - 1);
    for end in ["\x07", "\x1b\\", "\x18", "\x1a"] {
        let bytes = format!("\x1b]0;{over}{end}\x1b]0;next\x07");
        assert_eq!(scan(bytes.as_bytes()), [title("next")], "ended by {end:?}");
    }
    // The BEL ending a dropped OSC is not a bell; a later one is.
    let bytes = format!("\x1b]9;{}\x07\x07", "z".repeat(3 * MAX_OSC_BYTES));
    assert_eq!(scan(bytes.as_bytes()), [Signal::Bell]);
}

#[test]
fn the_limit_holds_across_feed_calls() {
    let mut scanner = Scanner::new();
    let mut out = Vec::new();
    scanner.feed(b"\x1b]0;", &mut out);
    for _ in 0..MAX_OSC_BYTES {
        scanner.feed(b"ab", &mut out);
    }
    scanner.feed(b"\x07\x1b]0;", &mut out);
    scanner.feed(b"after\x07", &mut out);
    assert_eq!(out, [title("after")]);
}

/// The bound on an OSC (vte's, since the scanner's own limiter went in
/// session 9) costs an over-long OSC only: on input whose OSCs are all
/// within it, nothing changes. The reference drops over-long OSCs after
/// the fact, from the body vte hands over.
mod osc_bound_matches_reference {
    use super::*;
    use proptest::prelude::*;

    struct Reference<'a> {
        inner: SignalPerformer<'a>,
    }

    impl Perform for Reference<'_> {
        fn print(&mut self, c: char) {
            self.inner.print(c)
        }
        fn execute(&mut self, byte: u8) {
            self.inner.execute(byte)
        }
        fn osc_dispatch(&mut self, params: &[&[u8]], bell: bool) {
            // Body length: params plus the `;` between them. The soup below
            // never has more than 16 params (vte keeps them all) nor C0
            // controls inside an OSC (vte skips those).
            let len = params.iter().map(|p| p.len() + 1).sum::<usize>() - 1;
            if len <= MAX_OSC_BYTES {
                self.inner.osc_dispatch(params, bell)
            }
        }
    }

    fn reference(bytes: &[u8]) -> Vec<Signal> {
        let mut out = Vec::new();
        let mut kitty = KittyAssembler::default();
        let mut performer = Reference {
            inner: SignalPerformer::new(&mut out, &mut kitty),
        };
        Parser::<MAX_OSC_BYTES>::default().advance(&mut performer, bytes);
        performer.inner.flush_activity();
        out
    }

    fn soup() -> impl Strategy<Value = Vec<u8>> {
        let filler = prop_oneof![
            Just(MAX_OSC_BYTES - 3),
            Just(MAX_OSC_BYTES - 2),
            Just(MAX_OSC_BYTES - 1),
            Just(MAX_OSC_BYTES),
            0usize..64,
        ]
        .prop_map(|n| vec![b'x'; n]);
        let token = prop_oneof![
            Just(b"\x1b]0;".to_vec()),
            Just(b"\x1b]9;".to_vec()),
            Just(b"\x1b]".to_vec()),
            Just(b"\x1b".to_vec()),
            Just(b"\x1b\\".to_vec()),
            Just(b"\x07".to_vec()),
            Just(b"\x18".to_vec()),
            Just(b"\x1a".to_vec()),
            Just(b"\x1b[".to_vec()),
            Just(b"\x1bP".to_vec()),
            Just(b"\x1b ".to_vec()),
            Just(vec![0x1b, 0x80, b']']),
            Just(vec![0x1b, 0x05, b']']),
            Just(vec![0x1b, 0x05, 0xe6, 0x97, 0xa5, 0x1b, b']']),
            Just(vec![0x1b, 0x80]),
            Just("日本".as_bytes().to_vec()),
            Just(b";".to_vec()),
            Just(b"0;".to_vec()),
            Just(b"9;".to_vec()),
            Just(b"]".to_vec()),
            filler,
        ];
        proptest::collection::vec(token, 0..16).prop_map(|t| t.concat())
    }

    /// Every way out of vte's Escape state, each followed by `]` and an
    /// over-long body: dropped only when that `]` opened an OSC.
    #[test]
    fn on_every_escape_state_exit() {
        let long = "x".repeat(MAX_OSC_BYTES + 1);
        for after_esc in [
            &[][..],
            &[0x18],
            &[0x1a],
            &[0x1b],
            &[0x05],
            &[0x7f],
            &[0x80],
            &[0xff],
            b" ",
            b"(",
            b"[",
            b"P",
            b"X",
        ] {
            let mut bytes = b"\x1b".to_vec();
            bytes.extend_from_slice(after_esc);
            bytes.extend_from_slice(format!("]0;{long}\x07\x07\x1b]0;t\x07").as_bytes());
            assert_eq!(scan(&bytes), reference(&bytes), "ESC {after_esc:?} ]");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]
        #[test]
        fn on_random_escape_soup(bytes in soup()) {
            prop_assert_eq!(scan(&bytes), reference(&bytes));
        }

        #[test]
        fn on_random_escape_soup_split_anywhere(
            bytes in soup(),
            cuts in proptest::collection::vec(0usize..40_000, 1..8),
        ) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            let mut scanner = Scanner::new();
            let mut out = Vec::new();
            let mut start = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                let cut = cut.clamp(start, bytes.len());
                scanner.feed(&bytes[start..cut], &mut out);
                start = cut;
            }
            let without_activity = |v: Vec<Signal>| -> Vec<Signal> {
                v.into_iter().filter(|s| *s != Signal::Activity).collect()
            };
            prop_assert_eq!(without_activity(out), without_activity(reference(&bytes)));
        }
    }
}
