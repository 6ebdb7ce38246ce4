//! The simulator's terminal edges: raw mode on stdin (libc termios), a
//! shared writer for stdout plus the optional JSON-lines trace, and the
//! thread that turns stdin bytes into inputs.

use std::fs::File;
use std::io::Write;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::clock::unix_ms;
use crate::input::{Input, InputParser};

/// How long a lone ESC waits for the rest of a sequence before it counts as
/// the Escape key (terminals send a sequence in one write).
const ESC_WAIT_MS: i32 = 30;

/// Everything the simulated agent writes goes through here: the PTY bytes
/// and, with `--trace`, a timestamped record of what it did.
pub struct Output {
    out: Box<dyn Write + Send>,
    trace: Option<File>,
}

pub type SharedOutput = Arc<Mutex<Output>>;

impl Output {
    pub fn new(out: Box<dyn Write + Send>, trace: Option<File>) -> SharedOutput {
        Arc::new(Mutex::new(Output { out, trace }))
    }

    pub fn write(&mut self, s: &str) {
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.flush();
    }

    /// One trace line `{"ts": <unix ms>, "ev": ev, ...fields}`.
    pub fn trace(&mut self, ev: &str, fields: Value) {
        self.trace_at(unix_ms(), ev, fields);
    }

    pub fn trace_at(&mut self, ts: f64, ev: &str, fields: Value) {
        let Some(f) = self.trace.as_mut() else {
            return;
        };
        let mut line = json!({ "ts": ts, "ev": ev });
        if let (Value::Object(l), Value::Object(extra)) = (&mut line, fields) {
            l.extend(extra);
        }
        let _ = writeln!(f, "{line}");
        let _ = f.flush();
    }
}

/// Raw mode on stdin while alive, restored on drop. A no-op when stdin is
/// not a terminal.
pub struct RawMode {
    saved: Option<libc::termios>,
}

impl RawMode {
    pub fn enable() -> RawMode {
        // SAFETY: termios calls on fd 0 with a zeroed, then filled, struct.
        unsafe {
            if libc::isatty(0) != 1 {
                return RawMode { saved: None };
            }
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 {
                return RawMode { saved: None };
            }
            let saved = t;
            libc::cfmakeraw(&mut t);
            libc::tcsetattr(0, libc::TCSANOW, &t);
            RawMode { saved: Some(saved) }
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if let Some(t) = self.saved {
            // SAFETY: restores the attributes read in `enable`.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, &t);
            }
        }
    }
}

/// Read stdin on a thread and send parsed inputs. The channel closes at EOF.
pub fn spawn_reader() -> Receiver<Input> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut parser = InputParser::new();
        let mut buf = [0u8; 4096];
        loop {
            if parser.has_pending() && !readable_within(ESC_WAIT_MS) {
                for input in parser.flush() {
                    if tx.send(input).is_err() {
                        return;
                    }
                }
                continue;
            }
            // Unbuffered on purpose: poll() must see every byte not yet read.
            // SAFETY: reads into a live buffer of the given length.
            let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n <= 0 {
                return;
            }
            let n = n as usize;
            for input in parser.feed(&buf[..n]) {
                if tx.send(input).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

fn readable_within(ms: i32) -> bool {
    let mut fds = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    unsafe { libc::poll(&mut fds, 1, ms) > 0 }
}
