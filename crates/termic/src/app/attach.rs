//! The app as an attached client's view in the server: it adopts the tasks
//! the server already runs, and the size every task's PTY gets is chosen
//! among the attached clients' sizes by the `[server] window_size` policy
//! ([`SizeBoard`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::config::WindowSize;
use crate::ui::sidebar::Badge;
use termic_runtime::{TaskId, TaskStatus, TermSize};

use super::tasks::TaskEntry;
use super::App;

/// What each attached client wants and which was active last: the one
/// place a task's size is chosen (tmux's `window-size`). Pure: it takes
/// values and chooses; the apps resize the tasks with what it says.
#[derive(Debug, Default)]
pub struct SizeBoard {
    pub policy: WindowSize,
    clients: BTreeMap<u64, Wants>,
    /// Counts activity: a higher stamp is a later one.
    clock: u64,
}

#[derive(Debug, Default)]
struct Wants {
    /// When the client last typed, resized or attached.
    active: u64,
    /// A task's view (protocol 4), not a workspace: it has a size and
    /// input, but no notifier.
    view: bool,
    /// The size of each task where this client draws it (its pane, or its
    /// half of a split).
    sizes: HashMap<u64, TermSize>,
}

impl SizeBoard {
    pub fn new(policy: WindowSize) -> Self {
        SizeBoard {
            policy,
            ..SizeBoard::default()
        }
    }

    /// `client` typed, resized or attached; whether the client active
    /// last changed (under `latest`, the tasks then change size).
    pub fn active(&mut self, client: u64) -> bool {
        let before = self.latest();
        self.clock += 1;
        self.clients.entry(client).or_default().active = self.clock;
        before != Some(client)
    }

    /// The client active last.
    pub fn latest(&self) -> Option<u64> {
        self.clients
            .iter()
            .max_by_key(|(_, w)| w.active)
            .map(|(&id, _)| id)
    }

    /// `client` is a task's view (it never notifies).
    pub fn is_view(&mut self, client: u64) {
        self.clients.entry(client).or_default().view = true;
    }

    /// The workspace client active last: the one that notifies (bell,
    /// desktop, OSC 777), once for every terminal. A view typing does not
    /// take it: a view is no workspace and notifies by its own means (the
    /// web client's push).
    pub fn notifier(&self) -> Option<u64> {
        self.clients
            .iter()
            .filter(|(_, w)| !w.view)
            .max_by_key(|(_, w)| w.active)
            .map(|(&id, _)| id)
    }

    /// `client` draws these tasks at these sizes (and no others).
    pub fn want(&mut self, client: u64, sizes: impl IntoIterator<Item = (u64, TermSize)>) {
        let wants = self.clients.entry(client).or_default();
        wants.sizes.clear();
        wants.sizes.extend(sizes);
    }

    /// `client` left; the tasks it drew, which may now take another size.
    pub fn leave(&mut self, client: u64) -> Vec<u64> {
        let mut tasks: Vec<u64> = self
            .clients
            .remove(&client)
            .map(|w| w.sizes.into_keys().collect())
            .unwrap_or_default();
        tasks.sort_unstable();
        tasks
    }

    /// `client` left: each task it drew, with the size the remaining
    /// clients now choose for it (a task no client draws keeps its size).
    pub fn release(&mut self, client: u64) -> Vec<(u64, TermSize)> {
        self.leave(client)
            .into_iter()
            .filter_map(|id| Some((id, self.size_of(id)?)))
            .collect()
    }

    /// The size task `task` takes under the policy, among the clients
    /// that draw it; `None` when none does.
    pub fn size_of(&self, task: u64) -> Option<TermSize> {
        let wanted = self
            .clients
            .values()
            .filter_map(|w| Some((w.active, *w.sizes.get(&task)?)));
        match self.policy {
            WindowSize::Latest => wanted.max_by_key(|&(active, _)| active).map(|(_, s)| s),
            WindowSize::Smallest => wanted.map(|(_, s)| s).reduce(|a, b| TermSize {
                rows: a.rows.min(b.rows),
                cols: a.cols.min(b.cols),
            }),
            WindowSize::Largest => wanted.map(|(_, s)| s).reduce(|a, b| TermSize {
                rows: a.rows.max(b.rows),
                cols: a.cols.max(b.cols),
            }),
        }
    }
}

/// An attached client's place on the server's [`SizeBoard`].
#[derive(Debug, Clone)]
pub struct SizeClaim {
    pub board: Arc<Mutex<SizeBoard>>,
    pub client: u64,
}

impl App {
    /// Adds to the sidebar every task of the runtime this app does not
    /// show yet (started before the attach, by another client or by
    /// `termic run --detach`). A task that reached needs-you, done or an
    /// error after `away_since_ms` is marked unseen: it changed while
    /// nobody was looking. The worktree row comes from what the task was
    /// launched with, whichever client (or `run --detach`) launched it.
    pub fn adopt_tasks(&mut self, away_since_ms: u64) {
        let focused = self.tasks.focused;
        let mut adopted = false;
        let infos = self.runtime.tasks();
        for info in &infos {
            let id = info.meta.id;
            if self.tasks.index_of(id.0).is_some() {
                continue;
            }
            // A restart elsewhere: the new task took the number of one
            // this sidebar shows that the runtime no longer has. It takes
            // that row in place (and its focus), as in the client that
            // restarted it.
            let replaced = self.tasks.entries.iter().position(|e| {
                e.number == info.meta.number && !infos.iter().any(|i| i.meta.id.0 == e.id)
            });
            if let Some(index) = replaced {
                let old = self.tasks.entries[index].id;
                self.replaced_task(old, id);
            }
            let mut entry = TaskEntry::new(
                id.0,
                info.meta.number,
                info.meta.name.clone(),
                info.meta.agent.clone(),
                info.meta.started_ms,
            );
            let engine = self.runtime.with_engine(id, |e| {
                (e.state(), e.attention().cloned(), e.config().agent.clone())
            });
            // Ages are the runtime's: the time each task entered its state,
            // whenever this client attached.
            let since = info.state_since_ms;
            if let Some((state, attention, profile)) = engine {
                entry.profile = profile;
                if let Some((badge, _)) = super::badge_for(state, attention.as_ref()) {
                    entry.set_badge(badge, since, false, None);
                }
                entry.unseen = entry.unseen && since > away_since_ms;
            }
            if let TaskStatus::Exited(code) = info.status {
                entry.set_badge(Badge::Exited(code), since, true, None);
            }
            entry.since_ms = since;
            entry.worktree = termic_runtime::lock(&self.specs)
                .get(&id.0)
                .and_then(|l| l.worktree.clone());
            // Done before this client saw it: its stat as when it went done.
            if entry.badge == Badge::Done {
                self.request_stat(id.0);
            }
            match replaced {
                Some(index) => {
                    entry.unseen = false;
                    self.tasks.entries[index] = entry;
                }
                None => self.tasks.entries.push(entry),
            }
            adopted = true;
        }
        if !adopted {
            return;
        }
        match focused {
            Some(index) => self.tasks.focus(index),
            None => self.tasks.focus(0),
        }
        self.after_focus_change();
        // The new tasks take the tasks' size: the latest active client's,
        // not this one's when another client is in use.
        if self.is_latest_client() {
            self.resize_tasks();
        }
        self.request_draw();
    }

    /// Focuses the task with runtime id `id`.
    pub fn focus_task(&mut self, id: TaskId) {
        if let Some(index) = self.tasks.index_of(id.0) {
            self.tasks.focus(index);
            self.after_focus_change();
        }
    }

    /// Not attached, or the attached client that typed or resized last.
    pub fn is_latest_client(&self) -> bool {
        self.size_claim
            .as_ref()
            .is_none_or(|c| termic_runtime::lock(&c.board).latest() == Some(c.client))
    }

    /// Not attached, or the attached workspace that typed or resized last
    /// (views left out): the one that notifies.
    pub fn is_notifying_client(&self) -> bool {
        self.size_claim
            .as_ref()
            .is_none_or(|c| termic_runtime::lock(&c.board).notifier() == Some(c.client))
    }

    /// This client typed, resized or attached: under `latest`, when
    /// another client was active last, every task takes this client's size.
    pub fn claim_size(&mut self) {
        let Some(claim) = &self.size_claim else {
            return;
        };
        if termic_runtime::lock(&claim.board).active(claim.client) {
            self.resize_tasks();
        }
    }

    /// The size each of `wanted` (task, the size this client draws it at)
    /// gets: this client's own when not attached, else the board's choice
    /// among every attached client's.
    pub(super) fn chosen_sizes(&self, wanted: Vec<(u64, TermSize)>) -> Vec<(u64, TermSize)> {
        let Some(claim) = &self.size_claim else {
            return wanted;
        };
        let mut board = termic_runtime::lock(&claim.board);
        board.want(claim.client, wanted.iter().copied());
        wanted
            .into_iter()
            .map(|(id, own)| (id, board.size_of(id).unwrap_or(own)))
            .collect()
    }

    /// This client leaves: the tasks it drew take the size the remaining
    /// clients choose (under `latest`, the one active last before it), so
    /// a small client that attached for a moment gives the others their
    /// size back, and reflow gives them their lines back.
    pub fn release_size(&mut self) {
        let Some(claim) = self.size_claim.take() else {
            return;
        };
        let sizes = termic_runtime::lock(&claim.board).release(claim.client);
        for (id, size) in sizes {
            // An exited task has no PTY to resize; nothing to report.
            let _ = self.runtime.resize(TaskId(id), size);
        }
    }
}

/// The remote hosts' part of an attached app (issue 29): the board is the
/// server's, this draws from it and tells the user.
impl App {
    /// The hosts' groups to draw now.
    pub(crate) fn remote_groups(&self) -> Vec<crate::ui::sidebar::HostGroup> {
        let Some(remote) = &self.remote else {
            return Vec::new();
        };
        let wall = self.clock.wall_ms();
        termic_runtime::lock(&remote.board).groups(wall, utc_offset_secs(wall))
    }

    /// When (on the app's clock) a remote age label changes next.
    pub(crate) fn remote_label_change(&self, now: u64) -> Option<u64> {
        let remote = self.remote.as_ref()?;
        let wall = self.clock.wall_ms();
        let at = termic_runtime::lock(&remote.board).next_label_change(wall)?;
        Some(now + at.saturating_sub(wall))
    }

    /// The board changed: draw, and tell the user of each remote task that
    /// started needing you, finished or stopped on an error ("build on
    /// devbox needs you"). Only the notifying client tells, and only what
    /// nobody told yet ([`super::remote_hosts::Board::claim`]); a click
    /// on the desktop notification opens that remote task here.
    ///
    /// An open diff view of a remote task whose row turned done reads its
    /// changes again, as a local task's does at its turn end.
    pub(crate) fn on_remote(&mut self) {
        self.needs_draw = true;
        self.refresh_remote_inspector();
        let notifying = self.is_notifying_client();
        let diff = self.host_actions.diff.clone();
        let Some(remote) = self.remote.as_mut() else {
            return;
        };
        let mut board = termic_runtime::lock(&remote.board);
        let seen = std::mem::replace(&mut remote.seen, board.last_seq());
        let turn_ended = diff.as_ref().is_some_and(|(host, number)| {
            super::review::remote_turn_ended(&board.notes_after(seen), (host, *number))
        });
        let notes = match notifying {
            true => board.claim(seen),
            false => Vec::new(),
        };
        drop(board);
        if turn_ended {
            self.refresh_diff_of(super::remote_pane::REMOTE);
        }
        // The remote task in the pane, when the user looks at it: its
        // change is seen, not told (as a watched local task's).
        let watched = self
            .focused_remote()
            .filter(|_| self.outer_focused)
            .map(|p| (p.host.clone(), p.number));
        for note in notes {
            if watched.as_ref() == Some(&(note.host.clone(), note.number)) {
                continue;
            }
            let delivery = super::remote_hosts::note_delivery(&note, self.notify);
            let click = crate::notify::NotifyReply::FocusRemote {
                host: note.host,
                number: note.number,
            };
            let _ = self
                .notifier
                .deliver_for(&delivery, click, &mut self.pending_out);
        }
    }
}

/// This machine's offset from UTC at `wall_ms`, in seconds (0 when the C
/// library cannot say).
pub(crate) fn utc_offset_secs(wall_ms: u64) -> i64 {
    let t = (wall_ms / 1000) as libc::time_t;
    // SAFETY: localtime_r writes only into `tm`, which lives here.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(cols: u16, rows: u16) -> TermSize {
        TermSize { rows, cols }
    }

    /// A laptop (client 1, pane 160x40) and a phone (client 2, 50x20)
    /// drawing task 7; the phone attached last.
    fn laptop_and_phone(policy: WindowSize) -> SizeBoard {
        let mut board = SizeBoard::new(policy);
        board.active(1);
        board.want(1, [(7, size(160, 40))]);
        board.active(2);
        board.want(2, [(7, size(50, 45))]);
        board
    }

    #[test]
    fn latest_is_the_client_active_last_and_passes_back_when_it_leaves() {
        let mut board = laptop_and_phone(WindowSize::Latest);
        assert_eq!(board.size_of(7), Some(size(50, 45)));
        assert!(board.active(1), "the laptop typed: it is the latest now");
        assert!(!board.active(1), "and typing again changes nothing");
        assert_eq!(board.size_of(7), Some(size(160, 40)));
        board.active(2);
        // the phone leaves: the laptop's size comes back without a key
        assert_eq!(board.leave(2), [7]);
        assert_eq!(board.latest(), Some(1));
        assert_eq!(board.size_of(7), Some(size(160, 40)));
    }

    #[test]
    fn smallest_and_largest_take_each_direction_on_its_own() {
        let board = laptop_and_phone(WindowSize::Smallest);
        assert_eq!(board.size_of(7), Some(size(50, 40)));
        let board = laptop_and_phone(WindowSize::Largest);
        assert_eq!(board.size_of(7), Some(size(160, 45)));
    }

    #[test]
    fn only_the_clients_that_draw_a_task_choose_its_size() {
        let mut board = laptop_and_phone(WindowSize::Smallest);
        // the phone no longer shows task 7 (its app dropped it)
        board.want(2, [(8, size(50, 45))]);
        assert_eq!(board.size_of(7), Some(size(160, 40)));
        assert_eq!(board.size_of(8), Some(size(50, 45)));
        assert_eq!(board.size_of(9), None);
        board.leave(1);
        board.leave(2);
        assert_eq!((board.size_of(7), board.latest()), (None, None));
    }

    #[test]
    fn a_view_typing_takes_the_size_but_not_the_notifications() {
        let mut board = laptop_and_phone(WindowSize::Latest);
        assert_eq!(
            board.notifier(),
            Some(2),
            "the phone's workspace typed last"
        );
        board.active(1);
        // a web page's view of task 7 types
        board.is_view(3);
        board.active(3);
        board.want(3, [(7, size(90, 30))]);
        assert_eq!(board.latest(), Some(3));
        assert_eq!(board.size_of(7), Some(size(90, 30)), "the view's size");
        assert_eq!(board.notifier(), Some(1), "the laptop still notifies");
        board.leave(1);
        assert_eq!(board.notifier(), Some(2));
        board.leave(2);
        assert_eq!(board.notifier(), None, "a view alone is no notifier");
    }
}
