//! The server's protocol decoder against hostile input (proptest): any
//! bytes give a message or an error, never a panic and never an allocation
//! past the frame limit; every request survives a round trip.

use proptest::prelude::*;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use termic::server::protocol::{
    read_attach_frame, read_frame, write_frame, AttachRequest, Request, Response, RunProgram,
    RunRequest, WaitFor, MAX_FRAME,
};

/// Terminal events an attached client sends.
fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        Just(Event::FocusGained),
        Just(Event::FocusLost),
        any::<(u16, u16)>().prop_map(|(c, r)| Event::Resize(c, r)),
        ".*".prop_map(Event::Paste),
        (any::<char>(), any::<u8>()).prop_map(|(c, m)| Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::from_bits_truncate(m)
        ))),
    ]
}

fn wait_for() -> impl Strategy<Value = WaitFor> {
    prop_oneof![
        Just(WaitFor::NeedsYou),
        Just(WaitFor::Done),
        Just(WaitFor::Exited)
    ]
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![
        (any::<u32>(), ".*", any::<bool>()).prop_map(|(protocol, version, quiet)| Request::Hello {
            protocol,
            version,
            quiet
        }),
        Just(Request::List),
        Just(Request::Stop),
        event().prop_map(Request::Input),
        (any::<Option<String>>(), any::<(u16, u16)>()).prop_map(|(task, (cols, rows))| {
            Request::Attach(AttachRequest {
                task,
                cwd: "/".into(),
                path_var: String::new(),
                cols,
                rows,
                env: vec![("K".into(), "v".into())],
                outputs: Default::default(),
            })
        }),
        (".*", ".*").prop_map(|(task, name)| Request::Rename { task, name }),
        (".*", ".*", any::<bool>()).prop_map(|(task, text, enter)| Request::Send {
            task,
            text,
            enter
        }),
        (".*", any::<bool>()).prop_map(|(task, remove_worktree)| Request::Kill {
            task,
            remove_worktree
        }),
        (
            ".*",
            prop::collection::vec(wait_for(), 0..4),
            any::<Option<u64>>()
        )
            .prop_map(|(task, states, timeout_ms)| Request::Wait {
                task,
                states,
                timeout_ms
            }),
        (
            prop::collection::vec(".*", 0..4),
            any::<Option<String>>(),
            any::<bool>(),
            any::<(u16, u16)>()
        )
            .prop_map(
                |(argv, name, worktree, (cols, rows))| Request::Run(RunRequest {
                    program: RunProgram::Command { argv },
                    name,
                    worktree,
                    cwd: "/".into(),
                    path_var: String::new(),
                    cols,
                    rows,
                    env: Vec::new(),
                    outputs: termic_runtime::TaskOutputs {
                        event_log: Some("/tmp/events.jsonl".into()),
                        record: None,
                        record_input: worktree,
                    },
                })
            ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes_decode_or_fail_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = read_frame::<Request>(&mut bytes.as_slice());
        let _ = read_frame::<Response>(&mut bytes.as_slice());
        let _ = read_attach_frame(&mut bytes.as_slice());
    }

    #[test]
    fn a_framed_body_of_any_bytes_fails_cleanly(body in prop::collection::vec(any::<u8>(), 0..2048)) {
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        let _ = read_frame::<Request>(&mut frame.as_slice());
    }

    #[test]
    fn a_request_survives_a_round_trip_and_any_corruption(req in request(), at in any::<usize>(), byte in any::<u8>()) {
        let mut buf = Vec::new();
        write_frame(&mut buf, &req).unwrap();
        let back: Request = read_frame(&mut buf.as_slice()).unwrap();
        prop_assert_eq!(&back, &req);
        // One byte changed anywhere, the length included: no panic.
        let i = at % buf.len();
        buf[i] = byte;
        let _ = read_frame::<Request>(&mut buf.as_slice());
    }

    #[test]
    fn a_length_over_the_limit_is_refused(len in (MAX_FRAME as u32 + 1)..=u32::MAX) {
        let frame = len.to_be_bytes();
        prop_assert!(read_frame::<Request>(&mut frame.as_slice()).is_err());
    }
}
