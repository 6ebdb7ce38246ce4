//! Split view: two tasks side by side (prefix `|`) or stacked (prefix `-`),
//! each in its own half with its own PTY size. The focused task is one of
//! the two; focusing a third task puts it in the focused task's half.
//! A remote task takes part under its pane's id
//! ([`REMOTE`](super::remote_pane::REMOTE) or
//! [`REMOTE_2`](super::remote_pane::REMOTE_2)), each pane with its own
//! `view` link: a split shows two remote tasks (of one host or two) as it
//! shows two local ones, or one beside a local task (docs/decisions.md,
//! 2026-12-07). A remote task that leaves the split has its link ended.

use super::App;
use crate::ui::layout::split_pane;
use ratatui::layout::Rect;
use termic_runtime::{TaskId, TermSize};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Runtime ids of the tasks in the first (left or top) and second half.
    pub first: u64,
    pub second: u64,
    pub stacked: bool,
}

impl Split {
    /// Keeps `focused` in the split: a task outside it takes the half of
    /// `before`, the task that had focus (the first half when unknown).
    pub fn follow(&mut self, focused: u64, before: Option<u64>) {
        if focused == self.first || focused == self.second {
            return;
        }
        if before == Some(self.second) {
            self.second = focused;
        } else {
            self.first = focused;
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        id == self.first || id == self.second
    }
}

impl App {
    /// Prefix `|` or `-`: split with the next task shown in the sidebar, or
    /// the same key again to go back to one pane (the other key turns it).
    pub fn toggle_split(&mut self, stacked: bool) {
        match self.split {
            Some(s) if s.stacked == stacked => {
                self.split = None;
                self.close_unshown_panes();
            }
            Some(s) => self.split = Some(Split { stacked, ..s }),
            None if self.remote_in_focus() => {
                // The remote task, and beside it the local task last
                // focused (the first listed when none was), or with no
                // local task the next remote one in the sidebar.
                let focus = self.remote_focus.unwrap_or(super::remote_pane::REMOTE);
                let order = self.tasks.order();
                let local = self
                    .tasks
                    .focused_display()
                    .and_then(|at| order.get(at))
                    .or(order.first())
                    .map(|&i| self.tasks.entries[i].id);
                let second = match local {
                    Some(id) => id,
                    None => match self.split_next_remote(focus, stacked) {
                        Some(id) => id,
                        None => {
                            self.message = Some(crate::ui::Message::info(
                                "A split needs two tasks: start another with n.",
                            ));
                            return;
                        }
                    },
                };
                self.split = Some(Split {
                    first: focus,
                    second,
                    stacked,
                });
            }
            None => {
                let order = self.tasks.order();
                let Some(at) = self.tasks.focused_display() else {
                    return;
                };
                if order.len() < 2 {
                    // One local task: a remote one beside it, when a host
                    // lists one (the first in the sidebar).
                    if !self.split_beside_remote(self.tasks.entries[order[at]].id, stacked) {
                        self.message = Some(crate::ui::Message::info(
                            "A split needs two tasks: start another with n.",
                        ));
                        return;
                    }
                    self.exit_copy_mode();
                    self.resize_tasks();
                    return;
                }
                let next = order[(at + 1) % order.len()];
                let first = order[at];
                self.split = Some(Split {
                    first: self.tasks.entries[first].id,
                    second: self.tasks.entries[next].id,
                    stacked,
                });
            }
        }
        self.exit_copy_mode();
        self.resize_tasks();
    }

    /// Opens, in the pane id `focus` does not use, the remote task the
    /// sidebar lists after the focused one (the focus stays); its id, or
    /// none when no other remote task is listed or its pane cannot open.
    fn split_next_remote(&mut self, focus: u64, stacked: bool) -> Option<u64> {
        let at = {
            let p = self.remote_panes.get(focus)?;
            (p.host.clone(), p.number)
        };
        let places = self
            .remote
            .as_ref()
            .map(|r| termic_runtime::lock(&r.board).places())
            .unwrap_or_default();
        let i = places.iter().position(|p| *p == at).unwrap_or(0);
        let (host, number) = places
            .iter()
            .cycle()
            .skip(i + 1)
            .take(places.len())
            .find(|p| **p != at)?
            .clone();
        let id = super::remote_pane::SLOTS
            .into_iter()
            .find(|id| *id != focus)?;
        // The new pane opens at its half's size.
        self.split = Some(Split {
            first: focus,
            second: id,
            stacked,
        });
        self.open_remote_pane(id, &host, number);
        self.split = None;
        self.remote_panes.get(id).map(|_| id)
    }

    /// Splits local task `local` with the first remote task the hosts
    /// list, shown in the second half (the focus stays on `local`); false
    /// when no host lists one or its pane cannot open.
    fn split_beside_remote(&mut self, local: u64, stacked: bool) -> bool {
        let first = self
            .remote
            .as_ref()
            .and_then(|r| termic_runtime::lock(&r.board).places().into_iter().next());
        let Some((host, number)) = first else {
            return false;
        };
        self.split = Some(Split {
            first: local,
            second: super::remote_pane::REMOTE,
            stacked,
        });
        let id = super::remote_pane::REMOTE;
        self.open_remote_pane(id, &host, number);
        if self.remote_panes.get(id).is_none() {
            self.split = None;
            return false;
        }
        true
    }

    /// The split's halves (first, second), when split.
    pub fn split_areas(&self) -> Option<(Rect, Rect)> {
        let split = self.split?;
        Some(split_pane(self.layout().pane, split.stacked))
    }

    /// Where task `id` is drawn: its half when split, else the whole pane.
    pub fn task_area(&self, id: u64) -> Rect {
        match (self.split, self.split_areas()) {
            (Some(s), Some((a, _))) if s.first == id => a,
            (Some(s), Some((_, b))) if s.second == id => b,
            _ => self.layout().pane,
        }
    }

    /// The PTY size task `id` gets.
    pub fn task_size(&self, id: u64) -> TermSize {
        let area = self.task_area(id);
        TermSize {
            rows: area.height.max(1),
            cols: area.width.max(1),
        }
    }

    /// Gives every task the size of where it is drawn, or, attached with
    /// other clients, the size the `window_size` policy chooses among them.
    pub fn resize_tasks(&mut self) {
        let wanted = self
            .tasks
            .entries
            .iter()
            .map(|entry| (entry.id, self.task_size(entry.id)))
            .collect();
        for (id, size) in self.chosen_sizes(wanted) {
            // An exited task has no PTY to resize; nothing to report.
            let _ = self.runtime.resize(TaskId(id), size);
        }
        // A remote pane's host hears its new size now, ahead of any key
        // typed after the change (the draw would tell it a frame later).
        for id in super::remote_pane::SLOTS {
            let area = self.task_area(id);
            if let Some(pane) = self.remote_panes.get_mut(id) {
                pane.resize(area.width.max(1), area.height.max(1));
            }
        }
        self.request_draw();
    }

    /// Keeps the split on tasks that exist and on the focused task; a
    /// remote task no longer shown has its link ended.
    pub(super) fn split_follow_focus(&mut self, before: Option<u64>) {
        let Some(mut split) = self.split else {
            return;
        };
        let alive =
            |id: u64| self.tasks.index_of(id).is_some() || self.remote_panes.get(id).is_some();
        let shown = self.tasks.entries.len() + self.remote_panes.len();
        if !alive(split.first) || !alive(split.second) || shown < 2 {
            self.split = None;
            self.close_unshown_panes();
            self.resize_tasks();
            return;
        }
        let Some(focused) = self.focused_any() else {
            return;
        };
        // The task that had focus is not known to be in the split (back
        // from a remote task): the focused one takes a remote half.
        let before = match before {
            Some(b) if split.contains(b) => Some(b),
            before => [split.first, split.second]
                .into_iter()
                .find(|id| super::remote_pane::is_remote(*id))
                .or(before),
        };
        let was = split;
        split.follow(focused, before);
        self.split = Some(split);
        self.close_unshown_panes();
        if split != was {
            self.resize_tasks();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_third_task_takes_the_half_that_had_focus() {
        let mut s = Split {
            first: 1,
            second: 2,
            stacked: false,
        };
        s.follow(2, Some(1));
        assert_eq!((s.first, s.second), (1, 2));
        s.follow(3, Some(2));
        assert_eq!((s.first, s.second), (1, 3));
        s.follow(4, Some(1));
        assert_eq!((s.first, s.second), (4, 3));
        assert!(s.contains(3) && !s.contains(2));
    }
}
