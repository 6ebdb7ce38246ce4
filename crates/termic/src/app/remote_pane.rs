//! A remote task in the workspace's pane (issue 29): the screen the host's
//! `view` stream draws, kept in a screen model here, what the link is
//! doing, and the handle the app sends the pane's input through. The link
//! itself (ssh, reconnects) is the server's (`server/host_pane.rs`); this
//! file does no I/O.
//!
//! Bounds, between the link and the pane: no queue of frames. The link's
//! thread writes each output frame into the one screen model here (under
//! its lock) and wakes the app through a bounded(1) channel with
//! `try_send` (a wake already pending is enough: the app draws the screen
//! as it is then), so a flooding task costs a draw per frame, never a
//! growing buffer. The pane's input to the link is bounded to
//! [`PANE_INPUT`] events; past it an event is dropped and the pane says
//! so (a link that takes no input for that long is stalled or down).

use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::server::protocol::input::{InputEvent, Size};
use crate::server::protocol::HistoryRows;

/// Input events waiting for the link at most (see the module's policy).
pub const PANE_INPUT: usize = 256;

/// The id the remote pane takes in copy mode and in a split (no local
/// task has it).
pub const REMOTE: u64 = u64::MAX;

/// What the pane's link is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaneLink {
    Connecting,
    Live,
    /// Lost at `since` (local Unix ms, the first failure in a row): the
    /// link tries again with backoff.
    Down {
        since: u64,
        reason: String,
    },
    /// The task was closed on its host: nothing more comes.
    Closed,
}

/// The remote task's screen here and how its link is.
pub struct PaneScreen {
    /// The screen as the view stream drew it (none before the first
    /// `view_size`).
    pub parser: Option<vt100::Parser>,
    pub link: PaneLink,
    /// The answer to the last history asked for (copy mode).
    pub history: Option<Result<HistoryRows, String>>,
    /// Input events dropped because the link did not take them.
    pub dropped: u64,
    /// The pane's size (cols, rows) as last set: a new view asks for it.
    pub wanted: Option<(u16, u16)>,
}

impl Default for PaneScreen {
    fn default() -> Self {
        PaneScreen {
            parser: None,
            link: PaneLink::Connecting,
            history: None,
            dropped: 0,
            wanted: None,
        }
    }
}

impl PaneScreen {
    /// The view connected (again): its screen starts over with the next
    /// repaint.
    pub fn connected(&mut self) {
        self.parser = None;
        self.link = PaneLink::Live;
    }

    /// `view_size`: the screen has this size from the next frame on (a
    /// full repaint follows).
    pub fn sized(&mut self, size: Size) {
        let rows = std::num::NonZeroU16::new(size.rows.max(1)).unwrap_or(std::num::NonZeroU16::MIN);
        let cols = std::num::NonZeroU16::new(size.cols.max(1)).unwrap_or(std::num::NonZeroU16::MIN);
        match &mut self.parser {
            Some(parser) => parser.set_size(rows, cols),
            None => self.parser = Some(vt100::Parser::new(rows, cols, 0)),
        }
    }

    /// An output frame of the view.
    pub fn output(&mut self, bytes: &[u8]) {
        if self.parser.is_none() {
            self.sized(Size { cols: 80, rows: 24 });
        }
        if let Some(parser) = &mut self.parser {
            parser.process(bytes);
        }
    }

    /// The link failed at `now`: down since the first failure in a row.
    pub fn down(&mut self, now: u64, reason: String) {
        let since = match self.link {
            PaneLink::Down { since, .. } => since,
            _ => now,
        };
        self.link = PaneLink::Down { since, reason };
    }
}

/// What the pane asks of its link.
#[derive(Debug, Clone, PartialEq)]
pub enum PaneRequest {
    Input(InputEvent),
    /// The task's history and screen, for copy mode.
    History,
}

/// A remote task shown in the pane: dropping it ends its link (ssh killed
/// and reaped).
pub struct RemotePane {
    pub host: String,
    /// The task's number on its host.
    pub number: u64,
    pub screen: Arc<Mutex<PaneScreen>>,
    pub requests: Sender<PaneRequest>,
    /// Woken (one pending at most) when the screen or the link changed.
    pub wake: Receiver<()>,
    /// The size last sent (cols, rows).
    pub sent_size: Option<(u16, u16)>,
    /// Copy mode was asked for (a page up when true); it opens when the
    /// history comes.
    pub copy_wanted: Option<bool>,
    /// Ends the link when dropped.
    pub _link: Box<dyn Send>,
}

impl RemotePane {
    /// Sends `request` to the link, or counts it dropped when the link
    /// has [`PANE_INPUT`] waiting.
    pub fn request(&self, request: PaneRequest) {
        match self.requests.try_send(request) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => {
                termic_runtime::lock(&self.screen).dropped += 1;
            }
        }
    }

    /// The pane is `cols` x `rows`: the host hears it once per change.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        if self.sent_size != Some((cols, rows)) {
            self.sent_size = Some((cols, rows));
            termic_runtime::lock(&self.screen).wanted = Some((cols, rows));
            self.request(PaneRequest::Input(InputEvent::Resize(Size { cols, rows })));
        }
    }

    /// The line the status bar shows while the link is not live.
    pub fn status(&self, utc_offset_secs: i64) -> Option<String> {
        let host = crate::app::tasks::shown(&self.host);
        match &termic_runtime::lock(&self.screen).link {
            PaneLink::Live => None,
            PaneLink::Connecting => Some(format!("{host}: connecting")),
            PaneLink::Down { since, .. } => Some(format!(
                "{host}: disconnected since {}, reconnecting",
                super::remote_hosts::clock_label(*since, utc_offset_secs)
            )),
            PaneLink::Closed => Some(format!("{host}: this task was closed")),
        }
    }
}

/// Opens a remote task's pane: host name, task number, pane size.
pub type PaneOpener = Arc<dyn Fn(&str, u64, (u16, u16)) -> Option<RemotePane> + Send + Sync>;

/// A place in the sidebar's order: a local task (its display index) or
/// a remote one (its index among every host's tasks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    Local(usize),
    Remote(usize),
}

/// The next (`forward`) or previous place from `at`, through the local
/// tasks then every host's, wrapping.
pub fn step(at: Option<At>, locals: usize, remotes: usize, forward: bool) -> Option<At> {
    let total = locals + remotes;
    if total == 0 {
        return None;
    }
    let pos = match at {
        Some(At::Local(i)) => i.min(total - 1),
        Some(At::Remote(i)) => (locals + i).min(total - 1),
        None if forward => total - 1,
        None => 0,
    };
    let next = match forward {
        true => (pos + 1) % total,
        false => (pos + total - 1) % total,
    };
    Some(match next < locals {
        true => At::Local(next),
        false => At::Remote(next - locals),
    })
}

impl super::App {
    /// Prefix Tab / `]` and back: the focus walks the local tasks then
    /// the hosts' (issue 29).
    pub(crate) fn cycle_focus(&mut self, forward: bool) {
        let places = self
            .remote
            .as_ref()
            .map(|r| termic_runtime::lock(&r.board).places())
            .unwrap_or_default();
        let at = match self.remote_pane.as_ref().filter(|_| self.remote_focused) {
            Some(p) => places
                .iter()
                .position(|(h, n)| *h == p.host && *n == p.number)
                .map(At::Remote),
            None => self.tasks.focused_display().map(At::Local),
        };
        match step(at, self.tasks.entries.len(), places.len(), forward) {
            Some(At::Local(i)) => {
                self.leave_remote();
                self.tasks.focus_display(i);
                self.after_focus_change();
            }
            Some(At::Remote(i)) => {
                let (host, number) = places[i].clone();
                self.focus_remote(&host, number);
            }
            None => {}
        }
    }

    /// Show task `number` of `host` in the pane (a split ends: the pane
    /// is the remote task's).
    pub fn focus_remote(&mut self, host: &str, number: u64) {
        self.copy = None;
        // In a split, the remote task takes the half that had focus.
        if let Some(split) = &mut self.split {
            if !split.contains(REMOTE) {
                split.follow(REMOTE, self.tasks.focused_id());
            }
        }
        self.remote_focused = true;
        if !self
            .remote_pane
            .as_ref()
            .is_some_and(|p| p.host == host && p.number == number)
        {
            // The old link ends before the new one starts.
            self.remote_pane = None;
            let area = self.task_area(REMOTE);
            let size = (area.width.max(1), area.height.max(1));
            let open = self.remote.as_ref().map(|r| Arc::clone(&r.open));
            self.remote_pane = open.and_then(|open| open(host, number, size));
        }
        if self.remote_pane.is_none() {
            self.remote_focused = false;
            self.message = Some(crate::ui::Message::error(format!(
                "cannot show that task of {}",
                crate::app::tasks::shown(host)
            )));
        }
        self.resize_tasks();
        self.after_focus_change();
    }

    /// Back to the local tasks: the remote pane's link ends, unless the
    /// remote task stays in the split's other half.
    pub fn leave_remote(&mut self) {
        let was = std::mem::take(&mut self.remote_focused);
        if self.copy.as_ref().is_some_and(|c| c.task == REMOTE) {
            self.copy = None;
        }
        if !self.split.is_some_and(|s| s.contains(REMOTE)) {
            self.remote_pane = None;
        }
        if was {
            self.request_draw();
        }
    }

    /// The remote task has the focus (keys, copy mode, the status line).
    pub fn remote_in_focus(&self) -> bool {
        self.remote_focused && self.remote_pane.is_some()
    }

    /// An event for the remote task in the pane; false when none is shown.
    pub(crate) fn send_remote(&mut self, event: ratatui::crossterm::event::Event) -> bool {
        let Some(pane) = self.remote_pane.as_ref().filter(|_| self.remote_focused) else {
            return false;
        };
        if let Some(event) = crate::input::wire::from_crossterm(event) {
            pane.request(PaneRequest::Input(event));
        }
        true
    }

    /// The remote pane's link woke: draw, and open copy mode when the
    /// history it waited for came.
    pub(crate) fn on_remote_pane(&mut self) {
        self.request_draw();
        let Some(pane) = &mut self.remote_pane else {
            return;
        };
        if pane.copy_wanted.is_none() {
            return;
        }
        let Some(answer) = termic_runtime::lock(&pane.screen).history.take() else {
            return;
        };
        let page_up = pane.copy_wanted.take().unwrap_or(false);
        match answer {
            Ok(rows) => {
                let all = termic_runtime::history::AllRows {
                    formatted: rows.formatted,
                    plain: rows.plain,
                    rows: rows.rows,
                    cols: rows.cols,
                };
                let mut copy = super::copy_mode::CopyMode::new(REMOTE, self.copy_keys, all);
                if page_up {
                    let page = copy.view_rows() as isize;
                    copy.scroll(-page);
                }
                self.copy = Some(copy);
            }
            Err(e) => self.message = Some(crate::ui::Message::error(e)),
        }
    }

    /// Copy mode on the remote task: its history is asked for, and copy
    /// mode opens when it comes.
    pub(crate) fn remote_copy_mode(&mut self, page_up: bool) -> bool {
        if !self.remote_focused {
            return false;
        }
        let Some(pane) = &mut self.remote_pane else {
            return false;
        };
        if self.copy.is_none() && pane.copy_wanted.is_none() {
            termic_runtime::lock(&pane.screen).history = None;
            pane.copy_wanted = Some(page_up);
            pane.request(PaneRequest::History);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_focus_walks_the_local_tasks_then_the_hosts_and_wraps() {
        let next = |at| step(at, 2, 3, true);
        let prev = |at| step(at, 2, 3, false);
        assert_eq!(next(Some(At::Local(0))), Some(At::Local(1)));
        assert_eq!(next(Some(At::Local(1))), Some(At::Remote(0)));
        assert_eq!(next(Some(At::Remote(2))), Some(At::Local(0)));
        assert_eq!(prev(Some(At::Local(0))), Some(At::Remote(2)));
        assert_eq!(prev(Some(At::Remote(0))), Some(At::Local(1)));
        assert_eq!(next(None), Some(At::Local(0)));
        assert_eq!(step(None, 0, 1, true), Some(At::Remote(0)));
        assert_eq!(step(Some(At::Remote(0)), 0, 1, true), Some(At::Remote(0)));
        assert_eq!(step(None, 0, 0, true), None);
        // A remote task that went: the nearest place.
        assert_eq!(step(Some(At::Remote(9)), 2, 3, true), Some(At::Local(0)));
    }

    #[test]
    fn a_reconnect_starts_the_screen_over_and_down_keeps_its_first_time() {
        let mut s = PaneScreen::default();
        s.connected();
        s.sized(Size { cols: 20, rows: 4 });
        s.output(b"hello");
        assert_eq!(s.parser.as_ref().unwrap().screen().contents(), "hello");
        s.down(100, "gone".into());
        s.down(500, "again".into());
        assert_eq!(
            s.link,
            PaneLink::Down {
                since: 100,
                reason: "again".into()
            }
        );
        // The screen stays shown while down.
        assert!(s.parser.is_some());
        s.connected();
        assert!(s.parser.is_none());
        assert_eq!(s.link, PaneLink::Live);
        s.sized(Size { cols: 30, rows: 5 });
        s.output(b"again");
        assert_eq!(s.parser.as_ref().unwrap().screen().size().1.get(), 30);
    }

    #[test]
    fn input_past_the_bound_is_dropped_and_counted() {
        let (tx, rx) = crossbeam_channel::bounded(PANE_INPUT);
        let (_wake_tx, wake) = crossbeam_channel::bounded(1);
        let mut pane = RemotePane {
            host: "far".into(),
            number: 1,
            screen: Arc::default(),
            requests: tx,
            wake,
            sent_size: None,
            copy_wanted: None,
            _link: Box::new(()),
        };
        for _ in 0..PANE_INPUT + 3 {
            pane.request(PaneRequest::History);
        }
        assert_eq!(rx.len(), PANE_INPUT);
        assert_eq!(termic_runtime::lock(&pane.screen).dropped, 3);
        // A resize is sent once per change.
        assert_eq!(rx.try_iter().count(), PANE_INPUT);
        pane.resize(80, 24);
        pane.resize(80, 24);
        pane.resize(81, 24);
        assert_eq!(rx.len(), 2);
        assert_eq!(pane.status(0).as_deref(), Some("far: connecting"));
        termic_runtime::lock(&pane.screen).down(3_600_000, "x".into());
        assert_eq!(
            pane.status(0).as_deref(),
            Some("far: disconnected since 01:00, reconnecting")
        );
    }
}
