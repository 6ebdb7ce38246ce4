//! Split view: two tasks side by side (prefix `|`) or stacked (prefix `-`),
//! each in its own half with its own PTY size. The focused task is one of
//! the two; focusing a third task puts it in the focused task's half.

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
                if !self.remote_focused {
                    self.remote_pane = None;
                }
            }
            Some(s) => self.split = Some(Split { stacked, ..s }),
            None => {
                let order = self.tasks.order();
                let Some(at) = self.tasks.focused_display() else {
                    return;
                };
                if order.len() < 2 {
                    self.message = Some(crate::ui::Message::info(
                        "A split needs two tasks: start another with n.",
                    ));
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
        self.request_draw();
    }

    /// Keeps the split on tasks that exist and on the focused task.
    pub(super) fn split_follow_focus(&mut self, before: Option<u64>) {
        let Some(mut split) = self.split else {
            return;
        };
        let remote = super::remote_pane::REMOTE;
        let alive = |id: u64| {
            self.tasks.index_of(id).is_some() || (id == remote && self.remote_pane.is_some())
        };
        let shown = self.tasks.entries.len() + usize::from(self.remote_pane.is_some());
        if !alive(split.first) || !alive(split.second) || shown < 2 {
            self.split = None;
            if !self.remote_focused {
                self.remote_pane = None;
            }
            self.resize_tasks();
            return;
        }
        let focused = match self.remote_in_focus() {
            true => remote,
            false => match self.tasks.focused_id() {
                Some(id) => id,
                None => return,
            },
        };
        // Back from the remote task: the local one takes the remote's half.
        let before = match before {
            _ if !self.remote_focused && split.contains(remote) && !split.contains(focused) => {
                Some(remote)
            }
            before => before,
        };
        let was = split;
        split.follow(focused, before);
        self.split = Some(split);
        // A remote task no longer shown: its link ends.
        if !split.contains(remote) && !self.remote_focused {
            self.remote_pane = None;
        }
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
