//! A view of one task: its screen as terminal bytes at the client's size,
//! and input for it. What a web page (xterm.js) and a remote host use.
//!
//! The stream: `viewing`, then `view_size` and output frames holding a full
//! repaint of the screen (vt100's own formatted contents: clear, every
//! cell with its attributes, the cursor), then output frames holding what
//! changed since the last frame (vt100's diff of the two screens). A frame
//! is drawn at most once per [`FRAME_MS`](crate::app::FRAME_MS) (20 a
//! second while output
//! streams), as the attached workspace is ([`FramePacer`]): a task that
//! prints 200 MiB costs a view the frames, not the bytes. The task's input
//! modes (mouse reporting, bracketed paste, application cursor keys) stay
//! in the server: the client sends termic's input events and the server
//! encodes them the way the task asked, so the bytes carry no mode
//! switches for the client's terminal.
//!
//! Sizes: a view takes part in the size rule of attached clients (tmux's
//! `window-size latest`): opening, typing, pasting, clicking or resizing
//! makes it the latest active client, and the task takes its size. When
//! another client has the size, the view gets the screen at that size
//! (`view_size` says which) and the client shows it clipped or padded.
//!
//! Backpressure: frames have no queue; the view's thread writes each to
//! the socket itself, so a slow client slows only its own view (the next
//! diff covers everything since the last one), and a client that reads
//! nothing for 30 s is dropped. Its copy of the runtime's events is
//! bounded ([`super::CLIENT_EVENTS`]); past it events are dropped and the
//! view repaints in full. Its input is bounded ([`CLIENT_INPUT`] events),
//! then its reader waits: back-pressure on that client's socket only.

use std::io::{BufReader, BufWriter};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::select;

use super::attach::{client_size, CLIENT_INPUT, WRITE_TIMEOUT};
use super::protocol::input::{InputEvent, Size};
use super::protocol::{
    read_frame, write_frame, write_output, DetachReason, Request, Response, ViewRequest,
    VIEW_HISTORY_BYTES, VIEW_HISTORY_MAX,
};
use super::tasklist::task_of;
use super::{ClientOut, Server};
use crate::app::frame_pacer::FramePacer;
use crate::input::wire::task_bytes;
use crate::input::InputModes;
use crate::printed::errln;
use termic_runtime::{lock, RuntimeEvent, TaskId};

/// What a view sent last: the screen the client has.
#[derive(Default)]
struct Shown {
    screen: Option<vt100::Screen>,
}

impl Shown {
    /// The messages and bytes that bring the client from what it has to
    /// `screen`: a size and a full repaint the first time and after a
    /// size change, else the diff (empty when nothing changed). Pure.
    fn frame(&mut self, screen: &vt100::Screen) -> (Option<Size>, Vec<u8>) {
        let (rows, cols) = screen.size();
        let (rows, cols) = (rows.get(), cols.get());
        let bytes = match &self.screen {
            Some(prev) if prev.size() == screen.size() => screen.contents_diff(prev),
            _ => {
                self.screen = Some(screen.clone());
                return (
                    Some(Size { cols, rows }),
                    screen.contents_formatted().into_bytes(),
                );
            }
        };
        self.screen = Some(screen.clone());
        (None, bytes.into_bytes())
    }
}

/// How a view ended.
enum Ending {
    /// The task was closed: the client is told.
    Closed,
    /// The client went away, or cannot be written to.
    Gone,
}

impl Server {
    /// Serve a view until the task is closed or the client goes away.
    pub(super) fn view(
        &self,
        request: ViewRequest,
        input: BufReader<UnixStream>,
        out: BufWriter<UnixStream>,
    ) {
        let _ = out.get_ref().set_write_timeout(Some(WRITE_TIMEOUT));
        let out: ClientOut = Arc::new(Mutex::new(out));
        let (id, number) = match self.resolve(&request.task).and_then(|id| {
            let info = self
                .runtime
                .info(id)
                .ok_or_else(|| anyhow::anyhow!("that task is gone"))?;
            Ok((id, u64::from(info.meta.number)))
        }) {
            Ok(found) => found,
            Err(e) => {
                let message = crate::printed::error_text(&e);
                let _ = write_frame(&mut *lock(&out), &Response::Error { message });
                return;
            }
        };
        let client = self.next_client.fetch_add(1, Ordering::SeqCst);
        // Told `detached("stopped")` if the server stops while it is here.
        self.add_client(client, &out);
        // A view is someone looking at the task: it is not pushed.
        self.push.look(client, Some(id));
        let ending = self.show_task(id, number, &request, client, input, &out);
        self.push.look(client, None);
        self.forget_client(client);
        self.release_view_size(client);
        if let Ending::Closed = ending {
            let _ = write_frame(&mut *lock(&out), &Response::Detached(DetachReason::Closed));
        }
        // The input thread is still reading: end it.
        let _ = lock(&out).get_ref().shutdown(std::net::Shutdown::Both);
    }

    fn show_task(
        &self,
        mut id: TaskId,
        number: u64,
        request: &ViewRequest,
        client: u64,
        input: BufReader<UnixStream>,
        out: &ClientOut,
    ) -> Ending {
        let lagged = Arc::new(AtomicBool::new(false));
        let events = self.subscribe_lagging(&lagged);
        let (input_tx, inputs) = crossbeam_channel::bounded(CLIENT_INPUT);
        let reader = std::thread::Builder::new()
            .name("termic-view-input".into())
            .spawn(move || forward_view_input(input, &input_tx));
        if let Err(e) = reader {
            errln!("termic server: cannot start a view's input thread: {e}");
            return Ending::Gone;
        }
        if write_frame(&mut *lock(out), &Response::Viewing { id: number }).is_err() {
            return Ending::Gone;
        }
        let mut size = client_size(request.cols, request.rows);
        self.claim_view_size(id, client, size, true);
        // The scrollback asked for goes before the first repaint only.
        let mut history = request.history.min(VIEW_HISTORY_MAX) as usize;
        let mut shown = Shown::default();
        let mut frames = FramePacer::default();
        let mut dirty = true;
        loop {
            let now = self.clock.now_ms();
            if dirty && now >= frames.next_frame_at() {
                let Some((resized, mut bytes)) = self.runtime.with_screen(id, |s| shown.frame(s))
                else {
                    return Ending::Closed;
                };
                if let (Some(size), true) = (resized, history > 0) {
                    let lines = self
                        .runtime
                        .history_tail(id, history, VIEW_HISTORY_BYTES)
                        .unwrap_or_default();
                    let mut before = scrollback_bytes(&lines, size.rows);
                    before.extend_from_slice(&bytes);
                    bytes = before;
                    history = 0;
                }
                let mut out = lock(out);
                if let Some(size) = resized {
                    if write_frame(&mut *out, &Response::ViewSize(size)).is_err() {
                        return Ending::Gone;
                    }
                }
                if !bytes.is_empty() && write_output(&mut *out, &bytes).is_err() {
                    return Ending::Gone;
                }
                frames.drew(now);
                dirty = false;
            }
            let timeout = match dirty {
                true => Duration::from_millis(frames.next_frame_at().saturating_sub(now)),
                false => Duration::from_secs(3600),
            };
            select! {
                recv(events) -> event => {
                    let Ok(event) = event else { return Ending::Gone };
                    for event in std::iter::once(event).chain(events.try_iter()) {
                        if let RuntimeEvent::Removed(gone) = event {
                            if gone == id {
                                // A view is of a number: a restart lists
                                // the new task under it before it removes
                                // the old one, and the view goes on with it.
                                match self.task_numbered(number) {
                                    Some(new) => {
                                        id = new;
                                        self.push.look(client, Some(id));
                                        self.claim_view_size(id, client, size, false);
                                    }
                                    None => return Ending::Closed,
                                }
                            }
                        }
                        // This task's, or one about every task.
                        dirty |= task_of(&event).is_none_or(|t| t == id);
                    }
                    dirty |= lagged.swap(false, Ordering::AcqRel);
                },
                recv(inputs) -> event => {
                    let Ok(event) = event else { return Ending::Gone };
                    frames.user_input();
                    let resized = match &event {
                        InputEvent::Resize(new) => {
                            size = client_size(new.cols, new.rows);
                            true
                        }
                        _ => false,
                    };
                    // Any event but a focus change makes this client the
                    // active one (the workspace app's rule).
                    if resized || !matches!(event, InputEvent::Focus(_) | InputEvent::Outer(_)) {
                        self.claim_view_size(id, client, size, true);
                    }
                    let bytes = task_bytes(&event, &InputModes::of_task(&self.runtime, id));
                    if !bytes.is_empty() {
                        if let Err(e) = self.runtime.write_input(id, &bytes) {
                            let message = e.to_string();
                            if write_frame(&mut *lock(out), &Response::Error { message }).is_err() {
                                return Ending::Gone;
                            }
                        }
                    }
                },
                default(timeout) => {},
            }
        }
    }

    /// The view draws its task at `size` (and, when `active`, it typed or
    /// resized): the task takes the size the server's board chooses among
    /// every client that draws it (`[server] window_size`), as a
    /// workspace's tasks do.
    fn claim_view_size(&self, id: TaskId, client: u64, size: (u16, u16), active: bool) {
        let (cols, rows) = size;
        let chosen = {
            let mut board = lock(&self.sizes);
            board.is_view(client);
            if active {
                board.active(client);
            }
            board.want(client, [(id.0, super::task_size(cols, rows))]);
            board.size_of(id.0)
        };
        if let Some(size) = chosen {
            let _ = self.runtime.resize(id, size);
        }
    }

    /// The view left: its task takes the remaining clients' choice.
    fn release_view_size(&self, client: u64) {
        let sizes = lock(&self.sizes).release(client);
        for (id, size) in sizes {
            // An exited task has no PTY to resize; nothing to report.
            let _ = self.runtime.resize(TaskId(id), size);
        }
    }
}

/// The bytes that put `lines` (formatted, oldest first) into the
/// scrollback of a terminal `rows` high that starts blank with its cursor
/// at the top: each line, attributes reset, then enough line feeds to
/// scroll the last of them off the screen, which the repaint then clears.
/// Pure. Nothing when there are no lines.
fn scrollback_bytes(lines: &[String], rows: u16) -> Vec<u8> {
    if lines.is_empty() {
        return Vec::new();
    }
    let mut out =
        Vec::with_capacity(lines.iter().map(|l| l.len() + 5).sum::<usize>() + 2 * rows as usize);
    for line in lines {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\x1b[m\r\n");
    }
    for _ in 1..rows {
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// A view's input events, until the client goes away. Anything that is
/// not `input` is ignored.
fn forward_view_input(
    mut input: BufReader<UnixStream>,
    events: &crossbeam_channel::Sender<InputEvent>,
) {
    loop {
        match read_frame::<Request>(&mut input) {
            Ok(Request::Input(event)) => {
                if events.send(event).is_err() {
                    return;
                }
            }
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nz(n: u16) -> std::num::NonZeroU16 {
        std::num::NonZeroU16::new(n).unwrap()
    }

    fn screen(cols: u16, rows: u16, text: &[u8]) -> vt100::Screen {
        let mut parser = vt100::Parser::new(nz(rows), nz(cols), 0);
        parser.process(text);
        parser.screen().clone()
    }

    /// History before the first repaint lands in the client's scrollback,
    /// oldest first and with its colours, and the screen shows the repaint
    /// alone (nothing of the history left on it).
    #[test]
    fn history_goes_to_the_scrollback_and_the_repaint_shows_the_screen_alone() {
        let lines: Vec<String> = (1..=30).map(|i| format!("\x1b[31mold {i}")).collect();
        let live = screen(20, 5, b"live 1\r\nlive 2");
        let mut bytes = scrollback_bytes(&lines, 5);
        bytes.extend_from_slice(&Shown::default().frame(&live).1);
        let mut client = vt100::Parser::new(nz(5), nz(20), 100);
        client.process(&bytes);
        assert_eq!(client.screen().contents(), "live 1\nlive 2");
        client.screen_mut().set_scrollback(100);
        let back = client.screen().scrollback();
        // Every line scrolled off: the 30 lines and the blank rows that
        // pushed the last ones off (the repaint's clear keeps the rest).
        assert!(back >= 30, "{back} lines back");
        let top: Vec<String> = client.screen().rows(0, 20).take(2).collect();
        assert_eq!(top, ["old 1", "old 2"]);
        assert!(client.screen().cell(0, 0).unwrap().fgcolor() == vt100::Color::Idx(1));
        assert!(scrollback_bytes(&[], 5).is_empty());
        // Nothing of the history is on the screen (a short history too).
        let mut short = vt100::Parser::new(nz(5), nz(20), 100);
        let mut bytes = scrollback_bytes(&lines[..2], 5);
        bytes.extend_from_slice(&Shown::default().frame(&live).1);
        short.process(&bytes);
        assert_eq!(short.screen().contents(), "live 1\nlive 2");
        short.screen_mut().set_scrollback(100);
        let top: Vec<String> = short.screen().rows(0, 20).take(2).collect();
        assert_eq!(top, ["old 1", "old 2"]);
    }

    /// What a terminal of the view's size shows after `bytes`.
    fn replay(cols: u16, rows: u16, bytes: &[u8]) -> vt100::Parser {
        let mut parser = vt100::Parser::new(nz(rows), nz(cols), 0);
        parser.process(bytes);
        parser
    }

    /// Output made of text, line ends, colours, cursor moves and erases.
    fn output() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            "[ -~]{0,30}".prop_map(String::into_bytes),
            Just(b"\r\n".to_vec()),
            Just(b"\x1b[1;31m".to_vec()),
            Just(b"\x1b[m".to_vec()),
            Just(b"\x1b[7m".to_vec()),
            (1u8..12, 1u8..30).prop_map(|(r, c)| format!("\x1b[{r};{c}H").into_bytes()),
            Just(b"\x1b[K".to_vec()),
            Just(b"\x1b[2J".to_vec()),
            Just("\u{e9}\u{4e2d}".as_bytes().to_vec()),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        /// Whatever two screens are, the client that replays the repaint of
        /// the first and the diff to the second shows the second, cell for
        /// cell with its attributes, and its cursor.
        #[test]
        fn a_repaint_then_a_diff_shows_what_the_server_shows(a in output(), b in output()) {
            let mut shown = Shown::default();
            let mut server = vt100::Parser::new(nz(10), nz(30), 0);
            server.process(&a);
            let (_, repaint) = shown.frame(server.screen());
            server.process(&b);
            let (size, diff) = shown.frame(server.screen());
            proptest::prop_assert_eq!(size, None);
            let mut client = replay(30, 10, &repaint);
            client.process(&diff);
            proptest::prop_assert_eq!(
                client.screen().contents_formatted(),
                server.screen().contents_formatted()
            );
            proptest::prop_assert_eq!(
                client.screen().cursor_position(),
                server.screen().cursor_position()
            );
        }
    }

    #[test]
    fn a_view_repaints_in_full_then_sends_only_what_changed() {
        let mut shown = Shown::default();
        let first = screen(20, 5, b"hello\r\n\x1b[31mred\x1b[m");
        let (size, repaint) = shown.frame(&first);
        assert_eq!(size, Some(Size { cols: 20, rows: 5 }));
        let mut client = replay(20, 5, &repaint);
        assert_eq!(client.screen().contents(), first.contents());

        let second = screen(20, 5, b"hello\r\n\x1b[31mred\x1b[m and more");
        let (size, diff) = shown.frame(&second);
        assert_eq!(size, None);
        assert!(diff.len() < repaint.len(), "{diff:?}");
        client.process(&diff);
        assert_eq!(client.screen().contents(), second.contents());
        assert_eq!(client.screen().cursor_position(), second.cursor_position());
        // Nothing changed: nothing sent.
        assert!(shown.frame(&second).1.is_empty());

        // Another size: said, and repainted in full.
        let wide = screen(40, 8, b"wide");
        let (size, bytes) = shown.frame(&wide);
        assert_eq!(size, Some(Size { cols: 40, rows: 8 }));
        assert_eq!(replay(40, 8, &bytes).screen().contents(), "wide");
    }
}
