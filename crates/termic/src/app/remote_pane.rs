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

/// The id the first remote pane takes in copy mode and in a split (no
/// local task has it). Overlays about the focused remote task (rename,
/// close, diff) carry it too, whichever pane the task is in.
pub const REMOTE: u64 = u64::MAX;

/// The second remote pane's id: a split can show two remote tasks.
pub const REMOTE_2: u64 = u64::MAX - 1;

/// Every remote pane's id, in slot order.
pub const SLOTS: [u64; 2] = [REMOTE, REMOTE_2];

/// `id` is a remote pane's, not a local task's.
pub fn is_remote(id: u64) -> bool {
    SLOTS.contains(&id)
}

/// The id the remote task about to be focused takes when no pane shows
/// it yet: unsplit, [`REMOTE`]; in a split, the task goes to the half
/// [`Split::follow`](super::split::Split::follow) gives it (the half of
/// `before`, the task that had focus), so it takes that half's id when
/// the half is remote (its old link ends), else the id the other half
/// does not use.
pub fn slot_for(split: Option<super::split::Split>, before: Option<u64>) -> u64 {
    let Some(split) = split else {
        return REMOTE;
    };
    let (half, other) = match before == Some(split.second) {
        true => (split.second, split.first),
        false => (split.first, split.second),
    };
    match is_remote(half) {
        true => half,
        false => SLOTS.into_iter().find(|id| *id != other).unwrap_or(REMOTE),
    }
}

/// The remote pane `id` stays open: its task is in the split, or it is
/// the focused one. Any other pane's link ends.
pub fn stays(id: u64, split: Option<super::split::Split>, focus: Option<u64>) -> bool {
    focus == Some(id) || split.is_some_and(|s| s.contains(id))
}

/// The remote panes shown: at most two (one per [`SLOTS`] id), so at
/// most two `view` links per workspace.
#[derive(Default)]
pub struct RemotePanes {
    slots: [Option<RemotePane>; 2],
}

impl RemotePanes {
    fn index(id: u64) -> Option<usize> {
        SLOTS.iter().position(|s| *s == id)
    }

    pub fn get(&self, id: u64) -> Option<&RemotePane> {
        self.slots[Self::index(id)?].as_ref()
    }

    pub fn get_mut(&mut self, id: u64) -> Option<&mut RemotePane> {
        self.slots[Self::index(id)?].as_mut()
    }

    /// Pane `id` shows `pane` (or nothing): the link it had ends first.
    pub fn set(&mut self, id: u64, pane: Option<RemotePane>) {
        if let Some(i) = Self::index(id) {
            self.slots[i] = None;
            self.slots[i] = pane;
        }
    }

    /// The id of the pane showing task `number` of `host`.
    pub fn find(&self, host: &str, number: u64) -> Option<u64> {
        self.iter()
            .find(|(_, p)| p.host == host && p.number == number)
            .map(|(id, _)| id)
    }

    /// The open panes with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &RemotePane)> {
        SLOTS
            .into_iter()
            .zip(&self.slots)
            .filter_map(|(id, p)| p.as_ref().map(|p| (id, p)))
    }

    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends the link of every pane `keep` does not want.
    pub fn retain(&mut self, keep: impl Fn(u64) -> bool) {
        for (id, slot) in SLOTS.into_iter().zip(&mut self.slots) {
            if !keep(id) {
                *slot = None;
            }
        }
    }
}

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

/// What the half of a split that shows `pane` without the focus draws in
/// `area`: the remote screen as last seen (nothing before the link
/// brought it) and, while the link is not live, what it is doing on the
/// half's last row. The focused half says that on the status line; this
/// one would otherwise show a stale screen as if it were live
/// (2026-12-07).
pub fn unfocused_snapshot(
    pane: &RemotePane,
    area: ratatui::layout::Rect,
    utc_offset_secs: i64,
) -> crate::ui::pane::PaneSnapshot {
    use crate::ui::pane::PaneSnapshot;
    let mut snapshot = match termic_runtime::lock(&pane.screen).parser.as_ref() {
        Some(parser) => PaneSnapshot::capture(parser.screen(), area, false),
        None => PaneSnapshot::blank(area),
    };
    snapshot.wants_mouse = false;
    if let Some(status) = pane.status(utc_offset_secs) {
        snapshot.banner(&status);
    }
    snapshot
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
        let at = match self.focused_remote() {
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

    /// The remote pane that has the focus.
    pub(crate) fn focused_remote(&self) -> Option<&RemotePane> {
        self.remote_panes.get(self.remote_focus?)
    }

    /// The id of the focused task: a local task's, or the focused remote
    /// pane's.
    pub(crate) fn focused_any(&self) -> Option<u64> {
        match self.remote_in_focus() {
            true => self.remote_focus,
            false => self.tasks.focused_id(),
        }
    }

    /// Ends the link of each remote pane neither in the split nor focused.
    pub(crate) fn close_unshown_panes(&mut self) {
        let (split, focus) = (self.split, self.remote_focus);
        self.remote_panes.retain(|id| stays(id, split, focus));
    }

    /// Show task `number` of `host` in the pane; in a split, in the half
    /// that had focus, unless the other half shows it already.
    pub fn focus_remote(&mut self, host: &str, number: u64) {
        self.copy = None;
        let before = self.focused_any();
        let id = self
            .remote_panes
            .find(host, number)
            .unwrap_or_else(|| slot_for(self.split, before));
        if let Some(split) = &mut self.split {
            split.follow(id, before);
        }
        self.remote_focus = Some(id);
        // A link no longer wanted ends before the new one starts.
        self.close_unshown_panes();
        self.open_remote_pane(id, host, number);
        if self.remote_panes.get(id).is_none() {
            self.remote_focus = None;
            self.message = Some(crate::ui::Message::error(format!(
                "cannot show that task of {}",
                crate::app::tasks::shown(host)
            )));
        }
        self.close_unshown_panes();
        self.resize_tasks();
        self.after_focus_change();
    }

    /// Pane `id` shows task `number` of `host` (its link started at the
    /// size of where it is drawn), unless it already does.
    pub(super) fn open_remote_pane(&mut self, id: u64, host: &str, number: u64) {
        if self
            .remote_panes
            .get(id)
            .is_some_and(|p| p.host == host && p.number == number)
        {
            return;
        }
        // The old link ends before the new one starts.
        self.remote_panes.set(id, None);
        let area = self.task_area(id);
        let size = (area.width.max(1), area.height.max(1));
        let open = self.remote.as_ref().map(|r| Arc::clone(&r.open));
        let pane = open.and_then(|open| open(host, number, size));
        self.remote_panes.set(id, pane);
    }

    /// Back to the local tasks: the remote panes' links end, but for the
    /// remote tasks that stay in the split.
    pub fn leave_remote(&mut self) {
        let was = self.remote_focus.take();
        if self.copy.as_ref().is_some_and(|c| is_remote(c.task)) {
            self.copy = None;
        }
        self.close_unshown_panes();
        if was.is_some() {
            self.request_draw();
        }
        self.tell_watched_remote();
    }

    /// Tells `on_watched_remote` when the remote task the user looks at
    /// (in the pane, focused, the outer terminal focused) changed.
    pub(crate) fn tell_watched_remote(&mut self) {
        let watched = self
            .focused_remote()
            .filter(|_| self.outer_focused)
            .map(|p| (p.host.clone(), p.number));
        if watched != self.watched_remote {
            self.watched_remote.clone_from(&watched);
            if let Some(tell) = &mut self.on_watched_remote {
                tell(watched);
            }
        }
    }

    /// A remote task has the focus (keys, copy mode, the status line).
    pub fn remote_in_focus(&self) -> bool {
        self.focused_remote().is_some()
    }

    /// An event for the focused remote task; false when none has focus.
    pub(crate) fn send_remote(&mut self, event: ratatui::crossterm::event::Event) -> bool {
        let Some(pane) = self.focused_remote() else {
            return false;
        };
        if let Some(event) = crate::input::wire::from_crossterm(event) {
            pane.request(PaneRequest::Input(event));
        }
        true
    }

    /// Remote pane `id`'s link woke: draw, and open copy mode when the
    /// history it waited for came (and the pane still has the focus).
    pub(crate) fn on_remote_pane(&mut self, id: u64) {
        self.request_draw();
        let focused = self.remote_focus == Some(id);
        let Some(pane) = self.remote_panes.get_mut(id) else {
            return;
        };
        if pane.copy_wanted.is_none() {
            return;
        }
        let Some(answer) = termic_runtime::lock(&pane.screen).history.take() else {
            return;
        };
        let page_up = pane.copy_wanted.take().unwrap_or(false);
        if !focused {
            return;
        }
        match answer {
            Ok(rows) => {
                let all = termic_runtime::history::AllRows {
                    formatted: rows.formatted,
                    plain: rows.plain,
                    rows: rows.rows,
                    cols: rows.cols,
                };
                let mut copy = super::copy_mode::CopyMode::new(id, self.copy_keys, all);
                if page_up {
                    let page = copy.view_rows() as isize;
                    copy.scroll(-page);
                }
                self.copy = Some(copy);
            }
            Err(e) => self.message = Some(crate::ui::Message::error(e)),
        }
    }

    /// Copy mode on the focused remote task: its history is asked for,
    /// and copy mode opens when it comes.
    pub(crate) fn remote_copy_mode(&mut self, page_up: bool) -> bool {
        let Some(id) = self.remote_focus else {
            return false;
        };
        let idle = self.copy.is_none();
        let Some(pane) = self.remote_panes.get_mut(id) else {
            return false;
        };
        if idle && pane.copy_wanted.is_none() {
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

    /// A pane whose link says when it ended.
    fn pane(host: &str, number: u64, ended: &Arc<std::sync::atomic::AtomicUsize>) -> RemotePane {
        struct Link(Arc<std::sync::atomic::AtomicUsize>);
        impl Drop for Link {
            fn drop(&mut self) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let (requests, _) = crossbeam_channel::bounded(1);
        let (_, wake) = crossbeam_channel::bounded(1);
        RemotePane {
            host: host.into(),
            number,
            screen: Arc::default(),
            requests,
            wake,
            sent_size: None,
            copy_wanted: None,
            _link: Box::new(Link(Arc::clone(ended))),
        }
    }

    #[test]
    fn a_focused_remote_task_takes_the_focused_half_and_a_task_that_leaves_ends_its_link() {
        use super::super::split::Split;
        let split = |first, second| {
            Some(Split {
                first,
                second,
                stacked: false,
            })
        };
        // Unsplit: the first pane.
        assert_eq!(slot_for(None, Some(7)), REMOTE);
        assert_eq!(slot_for(None, Some(REMOTE_2)), REMOTE);
        // Beside a local task, from the local half: the id the remote
        // half does not use.
        assert_eq!(slot_for(split(7, REMOTE), Some(7)), REMOTE_2);
        assert_eq!(slot_for(split(REMOTE_2, 7), Some(7)), REMOTE);
        // From a remote half: that half's id (its old task's link ends).
        assert_eq!(slot_for(split(7, REMOTE_2), Some(REMOTE_2)), REMOTE_2);
        assert_eq!(slot_for(split(REMOTE, REMOTE_2), Some(REMOTE)), REMOTE);
        assert_eq!(slot_for(split(REMOTE, REMOTE_2), Some(REMOTE_2)), REMOTE_2);
        // Two local halves: the first pane, in the focused half.
        assert_eq!(slot_for(split(7, 8), Some(8)), REMOTE);
        // Focus unknown: the first half, as Split::follow does.
        assert_eq!(slot_for(split(7, REMOTE), None), REMOTE_2);
        let mut s = split(7, REMOTE).unwrap();
        s.follow(slot_for(Some(s), Some(7)), Some(7));
        assert_eq!((s.first, s.second), (REMOTE_2, REMOTE));

        // Which links end: a pane stays in the split or focused.
        let ended = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = || ended.load(std::sync::atomic::Ordering::SeqCst);
        let mut panes = RemotePanes::default();
        panes.set(REMOTE, Some(pane("far", 1, &ended)));
        panes.set(REMOTE_2, Some(pane("near", 1, &ended)));
        assert_eq!((panes.len(), panes.find("near", 1)), (2, Some(REMOTE_2)));
        assert_eq!(panes.find("far", 2), None);
        let both = split(REMOTE, REMOTE_2);
        panes.retain(|id| stays(id, both, Some(REMOTE)));
        assert_eq!(count(), 0);
        // The local task 7 focused takes far's half: far's link ends.
        let s = split(7, REMOTE_2);
        panes.retain(|id| stays(id, s, None));
        assert_eq!((count(), panes.len()), (1, 1));
        assert!(panes.get(REMOTE).is_none() && panes.get(REMOTE_2).is_some());
        // Another task in the same pane: the old link ends first.
        panes.set(REMOTE_2, Some(pane("near", 2, &ended)));
        assert_eq!((count(), panes.find("near", 2)), (2, Some(REMOTE_2)));
        // Unsplit, focused: it stays; unfocused, it ends.
        panes.retain(|id| stays(id, None, Some(REMOTE_2)));
        assert_eq!(count(), 2);
        panes.retain(|id| stays(id, None, None));
        assert_eq!((count(), panes.is_empty()), (3, true));
        // A local id is no pane's.
        assert!(!is_remote(7) && is_remote(REMOTE) && is_remote(REMOTE_2));
        panes.set(7, Some(pane("far", 3, &ended)));
        assert_eq!((count(), panes.len()), (4, 0));
    }

    #[test]
    fn an_unfocused_half_says_when_its_link_is_not_live() {
        let ended = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let pane = pane("far", 1, &ended);
        let area = ratatui::layout::Rect::new(0, 0, 50, 3);
        let rows = |s: &crate::ui::pane::PaneSnapshot| -> Vec<String> {
            (0..3)
                .map(|y| {
                    let row: String = (0..50).map(|x| s.buffer[(x, y)].symbol()).collect();
                    row.trim_end().to_owned()
                })
                .collect()
        };
        // Before the link brought a screen: blank, and connecting.
        let s = unfocused_snapshot(&pane, area, 0);
        assert_eq!(rows(&s), ["", "", "far: connecting"]);
        // Live: the screen alone.
        {
            let mut screen = termic_runtime::lock(&pane.screen);
            screen.connected();
            screen.sized(Size { cols: 50, rows: 3 });
            screen.output(b"far got it");
        }
        let s = unfocused_snapshot(&pane, area, 0);
        assert_eq!(rows(&s), ["far got it", "", ""]);
        assert!(!s.wants_mouse && s.cursor.is_none());
        // Down: the last screen stays, and the half says so.
        termic_runtime::lock(&pane.screen).down(3_600_000, "ssh ended".into());
        let s = unfocused_snapshot(&pane, area, 0);
        assert_eq!(
            rows(&s),
            [
                "far got it",
                "",
                "far: disconnected since 01:00, reconnecting"
            ]
        );
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
