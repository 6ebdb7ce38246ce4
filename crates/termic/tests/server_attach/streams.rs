//! The protocol's streams through a real server, spoken by a client of
//! the protocol alone (as the web page and a remote host will be): a
//! subscribed task list, and a task's view.

use std::io::{BufReader, BufWriter};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use termic::server::protocol::{read_frame, write_frame, Request, Response, TaskRow, PROTOCOL};

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

    /// Pushes until one is a row `pred` accepts (which is returned).
    fn row_until(&mut self, what: &str, pred: impl Fn(&TaskRow) -> bool) -> TaskRow {
        loop {
            match self.read() {
                Response::Task(row) if pred(&row) => return row,
                Response::Task(_) => {}
                other => panic!("waiting for {what}: {other:?}"),
            }
        }
    }
}

/// A task that says READY, echoes lines, and on `go` works then needs you.
fn script() -> String {
    format!(
        "echo READY; while read l; do case \"$l\" in go) {}; {};; *) echo \"got:$l\";; esac; done",
        hook("working", ""),
        hook("attention", ";kind=permission"),
    )
}

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
}
