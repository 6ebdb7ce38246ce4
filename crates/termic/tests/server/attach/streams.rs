//! The protocol's streams through a real server, spoken by a client of
//! the protocol alone (as the web page and a remote host will be): a
//! subscribed task list, and a task's view.

use std::io::{BufReader, BufWriter};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use std::num::NonZeroU16;

use termic::server::protocol::input::{InputEvent, Key, KeyCode, Size};
use termic::server::protocol::{
    read_attach_frame, read_frame, write_frame, AttachFrame, DetachReason, Request, Response,
    TaskRow, ViewRequest, PROTOCOL,
};

use crate::harness::hook;
use crate::served::Served;

/// A connection after the hello.
pub struct Conn {
    input: BufReader<UnixStream>,
    out: BufWriter<UnixStream>,
}

impl Conn {
    pub fn open(s: &Served) -> Conn {
        let stream = UnixStream::connect(s.socket()).unwrap();
        // A test that waits for a push that never comes fails, not hangs.
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut conn = Conn {
            input: BufReader::new(stream.try_clone().unwrap()),
            out: BufWriter::new(stream),
        };
        conn.send(&Request::Hello {
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").into(),
            quiet: false,
        });
        let welcome = conn.read();
        assert!(matches!(welcome, Response::Welcome { .. }), "{welcome:?}");
        conn
    }

    pub fn send(&mut self, request: &Request) {
        write_frame(&mut self.out, request).unwrap();
    }

    pub fn read(&mut self) -> Response {
        read_frame(&mut self.input).unwrap()
    }

    /// The next frame of a stream that mixes output and messages.
    pub fn read_frame(&mut self) -> AttachFrame {
        read_attach_frame(&mut self.input).unwrap()
    }

    /// Pushes until one is a row `pred` accepts (which is returned).
    pub fn row_until(&mut self, what: &str, pred: impl Fn(&TaskRow) -> bool) -> TaskRow {
        loop {
            match self.read() {
                Response::Task(row) if pred(&row) => return row,
                Response::Task(_) => {}
                other => panic!("waiting for {what}: {other:?}"),
            }
        }
    }
}

/// A task that says READY, echoes lines, says its size on `size`, prints
/// [`FLOOD`] bytes of lines on `flood`, and on `go` works then needs you.
fn script() -> String {
    format!(
        "echo READY; while read l; do case \"$l\" in go) {}; {};; \
         size) echo \"size:$(stty size)\";; \
         flood) head -c {} /dev/zero | od -v; echo FLOOD-DONE;; \
         *) echo \"got:$l\";; esac; done",
        hook("working", ""),
        hook("attention", ";kind=permission"),
        FLOOD / 4,
    )
}

/// What `flood` prints: `od -v` turns each 16 zero bytes into a line of
/// 64 characters.
const FLOOD: usize = 20_000_000;

#[test]
fn a_subscriber_gets_every_task_then_each_start_state_change_and_removal() {
    let s = Served::new(&script());
    s.expect(&["run", "fake", "--name", "first", "--detach"], 0);
    let mut list = Conn::open(&s);
    list.send(&Request::Subscribe);
    let Response::Subscribed { now, tasks } = list.read() else {
        panic!("not subscribed");
    };
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    assert_eq!((tasks[0].id, tasks[0].name.as_str()), (1, "first"));
    assert!(
        tasks[0].started <= now && tasks[0].since <= now,
        "{tasks:?} at {now}"
    );

    // Started from the CLI: pushed.
    s.expect(&["run", "fake", "--name", "second", "--detach"], 0);
    let second = list.row_until("second to appear", |r| r.name == "second");
    assert_eq!(second.id, 2);
    assert_ne!(second.state, "exited", "{second:?}");

    // Its state changes: pushed, up to needs you.
    s.expect(&["send", "second", "go", "--enter"], 0);
    let needs = list.row_until("second to need you", |r| {
        r.id == 2 && r.state == "needs_you"
    });
    assert!(needs.since >= second.started, "{needs:?}");

    // Closed: pushed as removed.
    s.expect(&["kill", "second"], 0);
    loop {
        match list.read() {
            Response::TaskRemoved { id } => {
                assert_eq!(id, 2);
                break;
            }
            Response::Task(row) => assert_eq!(row.id, 2, "only second changed: {row:?}"),
            other => panic!("waiting for the removal: {other:?}"),
        }
    }

    // The server stops: the subscriber is told so (not a lost server).
    s.expect(&["server", "stop"], 0);
    loop {
        match list.read() {
            Response::Detached(DetachReason::Stopped) => break,
            Response::Task(_) | Response::TaskRemoved { .. } => {}
            other => panic!("waiting for the stop: {other:?}"),
        }
    }
}

/// A view's client: what it shows is its stream replayed into a screen of
/// the size the server last said.
pub struct Viewer {
    conn: Conn,
    screen: vt100::Parser,
    size: Option<Size>,
}

impl Viewer {
    pub fn open(s: &Served, task: &str, cols: u16, rows: u16) -> (Viewer, u64) {
        let mut conn = Conn::open(s);
        conn.send(&Request::View(ViewRequest {
            task: task.into(),
            cols,
            rows,
            history: 0,
        }));
        let Response::Viewing { id } = conn.read() else {
            panic!("not viewing");
        };
        let nz = |n| NonZeroU16::new(n).unwrap();
        let viewer = Viewer {
            conn,
            screen: vt100::Parser::new(nz(rows), nz(cols), 0),
            size: None,
        };
        (viewer, id)
    }

    /// Reads the stream until the screen shows `text`.
    pub fn wait_text(&mut self, text: &str) -> String {
        loop {
            let contents = self.screen.screen().contents();
            if contents.contains(text) {
                return contents;
            }
            match self.conn.read_frame() {
                AttachFrame::Output(bytes) => self.screen.process(&bytes),
                AttachFrame::Message(Response::ViewSize(size)) => {
                    let nz = |n| NonZeroU16::new(n).unwrap();
                    self.screen
                        .screen_mut()
                        .set_size(nz(size.rows), nz(size.cols));
                    self.size = Some(size);
                }
                AttachFrame::Message(other) => panic!("waiting for {text:?}: {other:?}"),
            }
        }
    }

    /// Presses `key` (a line, or "" for Enter alone) followed by Enter.
    pub fn press(&mut self, key: &str) {
        self.type_line(key);
    }

    /// Reads the stream until `capture` of the screen is `expected`, with
    /// at least one frame read first (the screen before the keys just
    /// pressed never counts). Err: what the screen was when `within`
    /// passed with no new frame for it.
    pub fn wait_screen(
        &mut self,
        expected: &str,
        capture: impl Fn(&vt100::Parser) -> String,
        within: Duration,
    ) -> Result<(), String> {
        let stream = self.conn.input.get_ref();
        stream.set_read_timeout(Some(within)).unwrap();
        let mut fresh = false;
        loop {
            if fresh && capture(&self.screen) == expected {
                return Ok(());
            }
            match read_attach_frame(&mut self.conn.input) {
                Ok(AttachFrame::Output(bytes)) => self.screen.process(&bytes),
                Ok(AttachFrame::Message(Response::ViewSize(size))) => {
                    let nz = |n| NonZeroU16::new(n).unwrap();
                    self.screen
                        .screen_mut()
                        .set_size(nz(size.rows), nz(size.cols));
                }
                Ok(AttachFrame::Message(other)) => return Err(format!("{other:?}")),
                Err(_) => return Err(capture(&self.screen)),
            }
            fresh = true;
        }
    }

    fn input(&mut self, event: InputEvent) {
        self.conn.send(&Request::Input(event));
    }

    /// `line` typed key by key, then Enter.
    pub fn type_line(&mut self, line: &str) {
        for c in line.chars() {
            self.input(InputEvent::Key(Key::press(KeyCode::Char(c))));
        }
        self.input(InputEvent::Key(Key::press(KeyCode::Enter)));
    }
}

#[test]
fn two_views_of_one_task_at_different_sizes_see_it_and_type_into_it() {
    let s = Served::new(&script());
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let (mut small, id) = Viewer::open(&s, "t1", 40, 10);
    assert_eq!(id, 1);
    small.wait_text("READY");
    assert_eq!(
        small.size,
        Some(Size { cols: 40, rows: 10 }),
        "the first repaint is at its size"
    );
    let (mut big, id) = Viewer::open(&s, "1", 100, 30);
    assert_eq!(id, 1);
    big.wait_text("READY");
    assert_eq!(
        big.size,
        Some(Size {
            cols: 100,
            rows: 30
        })
    );

    // Typed in the small view: the task takes its size first.
    small.type_line("size");
    small.wait_text("size:10 40");
    big.wait_text("size:10 40");

    // Pasted in the big one: its size, and both see it.
    big.input(InputEvent::Paste("size\n".into()));
    big.wait_text("size:30 100");
    small.wait_text("size:30 100");
    assert_eq!(
        small.size,
        Some(Size {
            cols: 100,
            rows: 30
        }),
        "the small view is told the task's size"
    );

    // Keys from both reach the task in order.
    small.type_line("one");
    small.wait_text("got:one");
    big.type_line("two");
    let screen = big.wait_text("got:two");
    assert!(screen.contains("got:one"), "{screen}");

    // A resize of a view is the task's size.
    small.input(InputEvent::Resize(Size { cols: 50, rows: 12 }));
    small.type_line("size");
    small.wait_text("size:12 50");

    // Closed: each view is told, and its stream ends.
    s.expect(&["kill", "t1"], 0);
    for view in [&mut small, &mut big] {
        loop {
            match view.conn.read_frame() {
                AttachFrame::Message(Response::Detached(DetachReason::Closed)) => break,
                AttachFrame::Output(_) | AttachFrame::Message(Response::ViewSize(_)) => {}
                AttachFrame::Message(other) => panic!("waiting for the close: {other:?}"),
            }
        }
    }
}

#[test]
fn a_view_of_a_flooding_task_gets_frames_not_the_flood() {
    let s = Served::new(&script());
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    let (mut view, _) = Viewer::open(&s, "t1", 80, 24);
    view.wait_text("READY");
    view.type_line("flood");
    let mut received = 0;
    loop {
        if view.screen.screen().contents().contains("FLOOD-DONE") {
            break;
        }
        match view.conn.read_frame() {
            AttachFrame::Output(bytes) => {
                received += bytes.len();
                view.screen.process(&bytes);
            }
            AttachFrame::Message(Response::ViewSize(_)) => {}
            AttachFrame::Message(other) => panic!("during the flood: {other:?}"),
        }
    }
    // All of it went through: the last offset is 5,000,000 in octal.
    let screen = view.screen.screen().contents();
    assert!(screen.contains("23045500\nFLOOD-DONE"), "{screen}");
    assert!(
        received < FLOOD / 20,
        "{received} bytes of frames for a {FLOOD}-byte flood"
    );
}

/// A view that types takes the task's size, not the notifications: the
/// attached workspace in use still rings for a task it does not watch
/// (until 2026-12-06 the view became the client active last and no
/// workspace notified).
#[test]
fn the_attached_workspace_notifies_while_a_view_types() {
    let s = Served::new(&script());
    s.expect(
        &["run", "--detach", "--name", "t0", "--", "sleep", "600"],
        0,
    );
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    // The workspace watches t0; t1 is not watched.
    let a = super::attach(&s, &["t0"]);
    a.wait_text("t1");
    let (mut view, _) = Viewer::open(&s, "t1", 80, 24);
    view.wait_text("READY");
    view.type_line("go");
    // No desktop service here: the terminal's OSC 777.
    a.wait_raw(b"\x1b]777;notify;termic;t1 (fake) needs you");
    assert!(
        crate::harness::contains(&a.raw(), b"\x07"),
        "the workspace rang"
    );
}
