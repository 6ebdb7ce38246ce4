//! How the server ends: whoever decides it (`termic server stop`, prefix `q`
//! in a client, the idle timer, a fatal signal) asks [`Stop::request`] with
//! the exit status, and the accept loop, which waits on the listener and on
//! this, returns it from `serve`. The process then ends from `main`, like
//! every command: nothing here ends the process itself.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

/// A stop request: the status to exit with and a pipe that wakes the
/// accept loop.
pub struct Stop {
    read: OwnedFd,
    write: OwnedFd,
    status: Mutex<Option<u8>>,
}

/// What [`Stop::wait`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// A connection is waiting on the listener.
    Connection,
    /// The server is to end with this exit status.
    Stop(u8),
}

impl Stop {
    pub fn new() -> io::Result<Stop> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: fds has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both were just created and are owned by nothing else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Stop {
            read,
            write,
            status: Mutex::new(None),
        })
    }

    /// End the server with `status` (the first request wins). Never blocks:
    /// safe from any thread, the signal thread included.
    pub fn request(&self, status: u8) {
        {
            let mut held = self.status.lock().unwrap_or_else(|e| e.into_inner());
            if held.is_none() {
                *held = Some(status);
            }
        }
        let byte = 1u8;
        // SAFETY: one byte from a live buffer to our own pipe; a full pipe
        // (requests piling up) already wakes the loop.
        unsafe {
            libc::write(self.write.as_raw_fd(), (&byte as *const u8).cast(), 1);
        }
    }

    /// The status asked for, if the server is to end.
    pub fn requested(&self) -> Option<u8> {
        *self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait until `listener` has a connection or a stop is requested (a stop
    /// first, when both are).
    pub fn wait(&self, listener: &impl AsRawFd) -> Woken {
        loop {
            if let Some(status) = self.requested() {
                return Woken::Stop(status);
            }
            let mut fds = [
                libc::pollfd {
                    fd: listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.read.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: two pollfds from a live array.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if ready < 0 {
                // EINTR (a signal's handler ran): look again. Any other
                // error: let accept report it, as before.
                if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Woken::Connection;
            }
            if fds[1].revents != 0 {
                continue;
            }
            if fds[0].revents != 0 {
                return Woken::Connection;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn a_request_from_another_thread_wakes_the_wait_with_the_first_status() {
        let dir = tempfile::tempdir().unwrap();
        let listener = UnixListener::bind(dir.path().join("s")).unwrap();
        let stop = Arc::new(Stop::new().unwrap());
        let asker = Arc::clone(&stop);
        let start = Instant::now();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            asker.request(143);
            asker.request(0);
        });
        assert_eq!(stop.wait(&listener), Woken::Stop(143));
        assert!(start.elapsed() >= Duration::from_millis(50));
        thread.join().unwrap();
        // Asked again: still the first status.
        assert_eq!(stop.wait(&listener), Woken::Stop(143));
    }

    #[test]
    fn a_waiting_connection_wakes_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let listener = UnixListener::bind(&path).unwrap();
        let stop = Stop::new().unwrap();
        let _client = std::os::unix::net::UnixStream::connect(&path).unwrap();
        assert_eq!(stop.wait(&listener), Woken::Connection);
    }
}
