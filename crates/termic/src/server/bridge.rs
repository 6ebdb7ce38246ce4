//! `termic server bridge`: this process's stdin and stdout joined to this
//! user's server socket, byte for byte, both ways (issue 29). It is what
//! `ssh HOST termic server bridge` runs on a remote host, so the local
//! termic talks to the remote server through the user's own ssh: no
//! listening port, no network code, no crypto of termic's own.
//!
//! The bridge reads and writes nothing of the protocol itself: the
//! client's hello reaches the server as sent, so a server of another
//! protocol version refuses it with the `refused` message every version
//! understands (docs/protocol.md, "Versions").
//!
//! Bounds: one 64 KiB buffer each way and no queue; a write blocks until
//! the other side takes it, so a side that does not read slows the other
//! (back-pressure through ssh's own flow control), never grows memory.
//! Ends: the server closing the socket, or stdout failing (ssh gone), ends
//! the bridge at once. Stdin's end (the ssh channel closed) shuts the
//! socket's writing half, so the server sees the client leave and answers
//! what it already took; if the socket is still open [`DRAIN`] later, the
//! bridge ends anyway.

use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;

use super::client;
use crate::paths::TermicPaths;

/// Each direction's buffer.
const BUFFER: usize = 64 * 1024;

/// How long the server's answers may still come after stdin ended.
const DRAIN: Duration = Duration::from_secs(5);

pub fn run(paths: &TermicPaths) -> Result<ExitCode> {
    let socket = client::connect_raw(paths)?;
    pump(std::io::stdin(), std::io::stdout().lock(), socket, DRAIN);
    Ok(ExitCode::SUCCESS)
}

/// Copy `input` to `socket` and `socket` to `output` until the socket
/// ends or `output` fails, or `drain` after `input` ended (pure of the
/// process: the tests run it on pipes and socket pairs).
pub fn pump(
    input: impl Read + Send + 'static,
    mut output: impl Write,
    socket: UnixStream,
    drain: Duration,
) {
    let Ok(to_server) = socket.try_clone() else {
        return;
    };
    let (done_tx, done_rx) = mpsc::channel::<()>();
    // The thread is not joined: when the socket side ends first it may
    // still be blocked reading stdin, and the process ends with it.
    let _ = std::thread::Builder::new()
        .name("bridge-in".into())
        .spawn(move || {
            let mut input = input;
            let mut to_server = to_server;
            let mut buf = vec![0u8; BUFFER];
            loop {
                match input.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if to_server.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = to_server.shutdown(Shutdown::Write);
            // The server answers what it took, then closes; one that keeps
            // the socket open is cut after `drain`.
            if done_rx.recv_timeout(drain).is_err() {
                let _ = to_server.shutdown(Shutdown::Both);
            }
        });
    let mut from_server = socket;
    let mut buf = vec![0u8; BUFFER];
    loop {
        match from_server.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if output.write_all(&buf[..n]).is_err() || output.flush().is_err() {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = from_server.shutdown(Shutdown::Both);
    let _ = done_tx.send(());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;

    /// Bytes go through both ways unchanged; the server closing ends the
    /// bridge even while stdin stays open.
    #[test]
    fn bytes_pass_both_ways_and_the_server_closing_ends_it() {
        let (ours, server) = UnixStream::pair().unwrap();
        let (stdin_r, mut stdin_w) = UnixStream::pair().unwrap();
        let (mut out_r, out_w) = UnixStream::pair().unwrap();
        let bridge = std::thread::spawn(move || pump(stdin_r, out_w, ours, DRAIN));
        let all: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
        stdin_w.write_all(&all[..100]).unwrap();
        let mut server_in = std::io::BufReader::new(server.try_clone().unwrap());
        let mut got = vec![0u8; 100];
        server_in.read_exact(&mut got).unwrap();
        assert_eq!(got, all[..100]);
        let mut server_out = server;
        server_out.write_all(&all).unwrap();
        let mut back = vec![0u8; all.len()];
        out_r.read_exact(&mut back).unwrap();
        assert_eq!(back, all);
        server_out.shutdown(Shutdown::Both).unwrap();
        bridge.join().unwrap(); // stdin_w still open
        let _ = server_in.fill_buf();
    }

    /// Stdin's end reaches the server as the end of its input; the
    /// server's last answer still comes through, then the bridge ends.
    #[test]
    fn stdin_ending_lets_the_last_answer_through() {
        let (ours, mut server) = UnixStream::pair().unwrap();
        let (stdin_r, mut stdin_w) = UnixStream::pair().unwrap();
        let (mut out_r, out_w) = UnixStream::pair().unwrap();
        let bridge = std::thread::spawn(move || pump(stdin_r, out_w, ours, DRAIN));
        stdin_w.write_all(b"question").unwrap();
        drop(stdin_w);
        let mut asked = Vec::new();
        server.read_to_end(&mut asked).unwrap(); // EOF: the write half shut
        assert_eq!(asked, b"question");
        server.write_all(b"answer").unwrap();
        drop(server);
        bridge.join().unwrap();
        let mut answer = Vec::new();
        out_r.read_to_end(&mut answer).unwrap();
        assert_eq!(answer, b"answer");
    }

    /// A server that never closes after stdin ended is cut after the
    /// drain time.
    #[test]
    fn a_server_that_stays_open_is_cut_after_the_drain() {
        let (ours, _server) = UnixStream::pair().unwrap();
        let (stdin_r, stdin_w) = UnixStream::pair().unwrap();
        let (_out_r, out_w) = UnixStream::pair().unwrap();
        drop(stdin_w);
        let started = std::time::Instant::now();
        pump(stdin_r, out_w, ours, Duration::from_millis(200));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
