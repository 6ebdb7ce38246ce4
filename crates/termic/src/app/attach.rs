//! The app as an attached client's view in the server: it adopts the tasks
//! the server already runs, and the latest active client's size is every
//! task's PTY size.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::ui::sidebar::Badge;
use termic_runtime::{TaskId, TaskStatus};

use super::tasks::TaskEntry;
use super::App;

/// Which attached client last typed or resized: its size is the tasks'
/// (tmux's `window-size latest`).
#[derive(Debug, Clone)]
pub struct SizeClaim {
    pub latest: Arc<AtomicU64>,
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
            .is_none_or(|c| c.latest.load(Ordering::SeqCst) == c.client)
    }

    /// This client typed or resized: when another client had the tasks'
    /// size, every task takes this client's.
    pub fn claim_size(&mut self) {
        let Some(claim) = &self.size_claim else {
            return;
        };
        if claim.latest.swap(claim.client, Ordering::SeqCst) != claim.client {
            self.resize_tasks();
        }
    }
}
