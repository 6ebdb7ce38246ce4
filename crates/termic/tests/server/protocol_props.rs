//! The server's protocol decoder against hostile input (proptest): any
//! bytes give a message or an error, never a panic; reading a frame never
//! allocates past the frame limit, whatever length it declares, and
//! decoding a body of at most the limit stays within a fixed multiple of
//! it (`DECODE_BUDGET`); well-formed JSON of any shape under any message
//! name is an error or a message; every request and input event survives a
//! round trip.

mod meter {
    //! A global allocator that measures, on the thread that asks, the
    //! largest single allocation and the peak of live bytes.
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    pub struct Meter;

    thread_local! {
        static ON: Cell<bool> = const { Cell::new(false) };
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
        static LARGEST: Cell<usize> = const { Cell::new(0) };
    }

    fn note(delta: isize, size: usize) {
        let _ = ON.try_with(|on| {
            if !on.get() {
                return;
            }
            LIVE.with(|l| {
                let live = l.get() + delta;
                l.set(live);
                PEAK.with(|p| p.set(p.get().max(live)));
            });
            if delta > 0 {
                LARGEST.with(|m| m.set(m.get().max(size)));
            }
        });
    }

    // SAFETY: every call goes to the system allocator unchanged.
    unsafe impl GlobalAlloc for Meter {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note(layout.size() as isize, layout.size());
            System.alloc(layout)
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            note(-(layout.size() as isize), 0);
            System.dealloc(ptr, layout)
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            note(new as isize - layout.size() as isize, new);
            System.realloc(ptr, layout, new)
        }
    }

    /// What `f` allocated on this thread: (largest single allocation,
    /// peak of live bytes).
    pub fn measure<T>(f: impl FnOnce() -> T) -> (usize, usize) {
        LIVE.with(|l| l.set(0));
        PEAK.with(|p| p.set(0));
        LARGEST.with(|m| m.set(0));
        ON.with(|on| on.set(true));
        let out = f();
        drop(out);
        ON.with(|on| on.set(false));
        (
            LARGEST.with(Cell::get),
            PEAK.with(Cell::get).max(0) as usize,
        )
    }
}

#[global_allocator]
static METER: meter::Meter = meter::Meter;

use proptest::prelude::*;
use serde_json::Value;
use termic::input::wire::{from_crossterm, to_crossterm};
use termic::server::protocol::input::{
    InputEvent, Key, KeyCode, KeyKind, Mods, Mouse, MouseButton, MouseKind, Outer, Size,
};
use termic::server::protocol::{
    read_attach_frame, read_frame, write_frame, AttachRequest, Request, Response, RestoreAction,
    RestoreRequest, RunProgram, RunRequest, ViewRequest, WaitFor, MAX_FRAME,
};

fn mods() -> impl Strategy<Value = Mods> {
    any::<(bool, bool, bool, bool)>().prop_map(|(shift, ctrl, alt, super_)| Mods {
        shift,
        ctrl,
        alt,
        super_,
    })
}

fn key_code() -> impl Strategy<Value = KeyCode> {
    prop_oneof![
        any::<char>().prop_map(KeyCode::Char),
        any::<u8>().prop_map(KeyCode::F),
        prop::sample::select(vec![
            KeyCode::Enter,
            KeyCode::Tab,
            KeyCode::BackTab,
            KeyCode::Backspace,
            KeyCode::Esc,
            KeyCode::Up,
            KeyCode::Down,
            KeyCode::Left,
            KeyCode::Right,
            KeyCode::Home,
            KeyCode::End,
            KeyCode::PageUp,
            KeyCode::PageDown,
            KeyCode::Insert,
            KeyCode::Delete,
            KeyCode::Null,
        ]),
    ]
}

/// Every input event a client can send, extreme values included.
fn event() -> impl Strategy<Value = InputEvent> {
    let kind = prop::sample::select(vec![KeyKind::Press, KeyKind::Repeat, KeyKind::Release]);
    let mouse_kind = prop::sample::select(vec![
        MouseKind::Down,
        MouseKind::Up,
        MouseKind::Drag,
        MouseKind::Moved,
        MouseKind::ScrollUp,
        MouseKind::ScrollDown,
        MouseKind::ScrollLeft,
        MouseKind::ScrollRight,
    ]);
    let button = prop::sample::select(vec![
        MouseButton::Left,
        MouseButton::Middle,
        MouseButton::Right,
    ]);
    prop_oneof![
        any::<bool>().prop_map(|osc7501| InputEvent::Outer(Outer { osc7501 })),
        any::<bool>().prop_map(InputEvent::Focus),
        any::<(u16, u16)>().prop_map(|(cols, rows)| InputEvent::Resize(Size { cols, rows })),
        ".*".prop_map(InputEvent::Paste),
        (key_code(), mods(), kind).prop_map(|(code, mods, kind)| InputEvent::Key(Key {
            code,
            mods,
            kind
        })),
        (mouse_kind, button, any::<(u16, u16)>(), mods()).prop_map(
            |(kind, button, (column, row), mods)| InputEvent::Mouse(Mouse {
                kind,
                button,
                column,
                row,
                mods
            })
        ),
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
        Just(Request::Subscribe),
        (".*", any::<(u16, u16)>()).prop_map(|(task, (cols, rows))| Request::View(ViewRequest {
            task,
            cols,
            rows,
            history: 0,
        })),
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
        (".*", ".*").prop_map(|(task, choice)| Request::Answer { task, choice }),
        ".*".prop_map(|task| Request::Timeline { task }),
        ".*".prop_map(|task| Request::Restart { task }),
        ".*".prop_map(|task| Request::Details { task }),
        Just(Request::ReloadHosts),
        ".*".prop_map(|task| Request::RemoveMerged { task }),
        (".*", any::<Option<String>>(), any::<Option<String>>())
            .prop_map(|(task, how, into)| Request::Merge { task, how, into }),
        (".*", ".*", any::<usize>()).prop_map(|(task, path, hunk)| Request::Revert {
            task,
            file: serde_json::from_value(serde_json::json!({
                "path": path, "old_path": null, "status": "modified", "binary": false,
                "added": 1, "removed": 0, "hunks": []
            }))
            .unwrap(),
            hunk
        }),
        (
            prop::collection::vec(".*", 0..3),
            prop_oneof![
                Just(RestoreAction::Start),
                Just(RestoreAction::List),
                Just(RestoreAction::Forget)
            ],
            any::<(u16, u16)>()
        )
            .prop_map(
                |(tasks, action, (cols, rows))| Request::Restore(RestoreRequest {
                    tasks,
                    action,
                    path_var: String::new(),
                    cols,
                    rows,
                    env: Vec::new(),
                    outputs: Default::default(),
                })
            ),
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

    #[test]
    fn an_input_event_survives_the_wire_and_the_terminal_event_it_becomes(ev in event()) {
        let mut buf = Vec::new();
        write_frame(&mut buf, &Request::Input(ev.clone())).unwrap();
        let back: Request = read_frame(&mut buf.as_slice()).unwrap();
        prop_assert_eq!(&back, &Request::Input(ev.clone()));
        // The button of a move or a scroll is not part of it (documented).
        let ev = match ev {
            InputEvent::Mouse(m) if !matches!(m.kind, MouseKind::Down | MouseKind::Up | MouseKind::Drag) => {
                InputEvent::Mouse(Mouse { button: MouseButton::Left, ..m })
            }
            other => other,
        };
        // The client's word on its terminal is no terminal event.
        match to_crossterm(ev.clone()) {
            Some(terminal) => prop_assert_eq!(from_crossterm(terminal), Some(ev)),
            None => prop_assert!(matches!(ev, InputEvent::Outer(_))),
        }
    }

    #[test]
    fn any_json_under_any_message_name_decodes_or_fails(name in message_name(), value in json()) {
        let body = serde_json::to_vec(&serde_json::json!({ name: value })).unwrap();
        let (_, peak) = meter::measure(|| {
            (
                termic::server::protocol::decode::<Request>(&body).is_ok(),
                termic::server::protocol::decode::<Response>(&body).is_ok(),
            )
        });
        // Within the budget, above a floor for an error's message.
        prop_assert!(peak <= DECODE_BUDGET * body.len() + 64 * 1024, "{} bytes live for {}", peak, body.len());
        // And as a bare value.
        let bare = serde_json::to_vec(&value).unwrap();
        let _ = termic::server::protocol::decode::<Request>(&bare);
    }

    #[test]
    fn a_declared_length_never_allocates_past_the_limit(len in any::<u32>(), body in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut frame = len.to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        let (largest, _) = meter::measure(|| read_frame::<Request>(&mut frame.as_slice()));
        prop_assert!(largest <= MAX_FRAME, "{} bytes for a declared {}", largest, len);
    }
}

/// The message names a client or server sends, and a few it does not.
fn message_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "hello",
            "list",
            "run",
            "send",
            "kill",
            "wait",
            "stop",
            "attach",
            "input",
            "subscribe",
            "view",
            "welcome",
            "refused",
            "tasks",
            "started",
            "waited",
            "killed",
            "ok",
            "attached",
            "detached",
            "error",
            "subscribed",
            "task",
            "task_removed",
            "viewing",
            "view_size",
            "answer",
            "answered",
            "key",
            "mouse",
            "paste",
            "focus",
            "resize",
            "revert",
            "reverted",
            "merge",
            "merged",
            "remove_merged",
        ])
        .prop_map(str::to_owned),
        "[a-z_]{0,12}",
    ]
}

/// Any JSON value: nested, with extreme numbers and odd strings.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".*".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{0,10}", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Decoding a body of at most [`MAX_FRAME`] bytes stays within this many
/// times the limit, live at once. The worst shape is a list of empty
/// strings: 3 bytes of JSON (`"",`) become a 24-byte `String`, in a vector
/// that doubles as it grows (measured 2026-12-06: 13 MiB for a `run` of
/// 350,000 empty arguments, 7 MiB for an `attach` of empty variables, at
/// most the frame itself for everything else).
const DECODE_BUDGET: usize = 16;

/// The frames that swell most when decoded, each as large as a frame may
/// be: many empty strings, many pairs, deep nesting.
#[test]
fn the_largest_hostile_frames_decode_within_the_budget() {
    let fill = |prefix: &str, item: &str, suffix: &str| {
        let n = (MAX_FRAME - prefix.len() - suffix.len()) / (item.len() + 1);
        let items = vec![item; n].join(",");
        format!("{prefix}{items}{suffix}").into_bytes()
    };
    let bodies = [
        fill(
            r#"{"run":{"program":{"command":{"argv":["#,
            r#""""#,
            r#"]}},"name":null,"worktree":false,"cwd":"/","path_var":"","cols":1,"rows":1}}"#,
        ),
        fill(
            r#"{"attach":{"task":null,"cwd":"/","path_var":"","cols":1,"rows":1,"env":["#,
            r#"["",""]"#,
            "]}}",
        ),
        fill(
            r#"{"wait":{"task":"","timeout_ms":null,"states":["#,
            r#""done""#,
            "]}}",
        ),
        fill(r#"{"tasks":["#, "{}", "]}"),
        format!("{}{}", "[".repeat(MAX_FRAME / 2), "]".repeat(MAX_FRAME / 2)).into_bytes(),
        format!("{{\"paste\":\"{}\"}}", "\\u0000".repeat(MAX_FRAME / 7)).into_bytes(),
    ];
    for body in bodies {
        assert!(body.len() <= MAX_FRAME, "{}", body.len());
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        let (_, peak) = meter::measure(|| {
            (
                read_frame::<Request>(&mut frame.as_slice()).is_ok(),
                read_frame::<Response>(&mut frame.as_slice()).is_ok(),
            )
        });
        assert!(
            peak <= DECODE_BUDGET * MAX_FRAME,
            "{} MiB live decoding {}",
            peak >> 20,
            String::from_utf8_lossy(&body[..40])
        );
    }
}
