//! Helpers shared by the integration tests: a real pty pair whose slave path
//! stands in for `TERMIC_PTY`, and reading back what landed on the master.

#![allow(dead_code)]

pub mod tree;

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use termic_fakemodel::pty::open_pty;

/// A pty (termic-fakemodel's `open_pty`), slave in raw mode so bytes pass unchanged.
pub struct Pty {
    master: File,
    _slave: OwnedFd,
    pub slave_path: String,
}

impl Pty {
    pub fn open() -> Pty {
        let pair = open_pty(80, 24).expect("openpty failed");
        let (master, slave) = (File::from(pair.master), pair.slave);
        // SAFETY: termios is plain data; tcgetattr fills it.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(slave.as_raw_fd(), &mut t), 0);
            libc::cfmakeraw(&mut t);
            assert_eq!(libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t), 0);
            let flags = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(master.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Pty {
            master,
            _slave: slave,
            slave_path: pair.tty.display().to_string(),
        }
    }

    /// Fills the slave's output buffer (nobody reads the master until
    /// `drain`), so the next write to the slave blocks; returns the bytes it
    /// took. A fresh non-blocking fd of the slave, so `_slave` stays blocking.
    pub fn fill(&self) -> usize {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&self.slave_path)
            .expect("open the slave");
        let chunk = [b'x'; 4096];
        let mut total = 0;
        // The line discipline can take more after a moment (the work queue
        // moves bytes on), so fill until it refuses several times in a row.
        let mut refusals = 0;
        while refusals < 5 {
            match w.write(&chunk) {
                Ok(n) => {
                    total += n;
                    refusals = 0;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    refusals += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("filling the pty: {e}"),
            }
        }
        total
    }

    /// Everything written to the slave so far. Linux hands pty output to
    /// the master through a work queue, so bytes can trail the writer's
    /// exit: this waits up to 100 ms of quiet.
    pub fn drain(&mut self) -> Vec<u8> {
        self.drain_within(Duration::from_millis(100))
    }

    /// Like `drain`, but waits up to `first` for the first byte (for a
    /// loaded machine, when bytes are expected).
    pub fn drain_within(&mut self, first: Duration) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        let mut deadline = Instant::now() + first;
        loop {
            match self.master.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    deadline = Instant::now() + Duration::from_millis(100);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => panic!("reading the pty master: {e}"),
            }
        }
        out
    }
}
