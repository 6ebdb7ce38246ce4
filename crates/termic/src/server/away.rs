//! Notifications while no client is attached: the server tells the desktop
//! itself, and what needs a terminal (the OSC 777 fallback, where there is
//! no desktop notification service or it failed) is queued for the next
//! client that attaches. An attached client's view notifies as before.

use std::collections::HashMap;
use std::sync::Mutex;

use crossbeam_channel::{Receiver, Sender};
use termic_signal::engine::Transition;

use crate::app::tasks::TaskEntry;
use crate::config::Config;
use crate::notify::{decide, osc_notification, AttentionEvent, Notifier, NotifyReply};
use crate::paths::TermicPaths;
use termic_runtime::{lock, Runtime, TaskId};

/// The most bytes kept for the next attach (a few hundred notifications);
/// older ones are dropped whole.
pub const QUEUE_LIMIT: usize = 64 * 1024;

/// The server's own notifier and each task's last badge (so a state
/// reported twice notifies once, as in a client's view).
pub struct AwayNotifier {
    notifier: Mutex<Notifier>,
    entries: Mutex<HashMap<u64, TaskEntry>>,
    /// Notification texts the desktop could not show.
    pub replies: Receiver<NotifyReply>,
}

impl Default for AwayNotifier {
    fn default() -> Self {
        let (tx, rx): (Sender<NotifyReply>, _) = crossbeam_channel::unbounded();
        AwayNotifier {
            notifier: Mutex::new(Notifier::from_env(tx, true)),
            entries: Mutex::new(HashMap::new()),
            replies: rx,
        }
    }
}

impl AwayNotifier {
    /// A transition of task `id`: tracks its badge and, when `away` (no
    /// client attached), notifies with the settings config.toml has now.
    /// Bytes for a terminal go to `queue`. A done notification says what
    /// the task changed when `base` is known and git answers within
    /// [`crate::app::review::HOLD_DONE_MS`]. Returns the attention the
    /// transition earned (attached or not), for the push dispatcher.
    pub fn on_transition(
        &self,
        runtime: &Runtime,
        paths: &TermicPaths,
        (id, base): (TaskId, Option<crate::review::ReviewBase>),
        t: &Transition,
        away: bool,
        queue: &Mutex<Vec<u8>>,
    ) -> Option<crate::notify::Attention> {
        let (badge, detail) = crate::app::badge_of(t)?;
        let info = runtime.info(id)?;
        let mut entries = lock(&self.entries);
        let entry = entries.entry(id.0).or_insert_with(|| {
            TaskEntry::new(
                id.0,
                info.meta.number,
                info.meta.name.clone(),
                info.meta.agent,
                info.meta.started_ms,
            )
        });
        // The name now: a notification names a renamed task as renamed.
        entry.name = crate::app::tasks::shown(&info.meta.name);
        let attention = entry.set_badge(badge, t.at, false, detail)?;
        let earned = attention.clone();
        if !away {
            return Some(earned);
        }
        let settings = Config::load_lenient(&paths.config_dir)
            .settings
            .notifications;
        let notify = crate::notify::NotifySettings {
            // Nobody hears a bell rung into no terminal, and a late one on
            // attach would be noise.
            bell: false,
            desktop: settings.desktop,
            osc_fallback: settings.osc_fallback,
        };
        let stat = match (&attention, base) {
            (crate::notify::Attention::Done, Some(base)) => {
                crate::app::review::stat_within(base, crate::app::review::HOLD_DONE_MS)
            }
            _ => None,
        };
        let event = AttentionEvent {
            stat: stat.map(|s| s.to_string()),
            task: entry.name.clone(),
            agent: entry.agent.clone(),
            attention,
            watched: false,
        };
        let mut out = Vec::new();
        let mut notifier = lock(&self.notifier);
        notifier.osc_fallback = notify.osc_fallback;
        let _ = notifier.deliver(&decide(&event, notify), id.0, &mut out);
        drop(notifier);
        queue_bytes(queue, &out);
        Some(earned)
    }

    /// A text the desktop could not show, queued as OSC 777.
    pub fn on_reply(&self, reply: NotifyReply, queue: &Mutex<Vec<u8>>) {
        if let NotifyReply::Fallback(text) = reply {
            let in_tmux = lock(&self.notifier).in_tmux;
            queue_bytes(queue, &osc_notification(&text, in_tmux));
        }
    }

    /// A closed task is forgotten.
    pub fn forget(&self, id: TaskId) {
        lock(&self.entries).remove(&id.0);
    }
}

/// Appends `bytes` to the queue, dropping the oldest whole notifications
/// past [`QUEUE_LIMIT`].
pub fn queue_bytes(queue: &Mutex<Vec<u8>>, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    let mut q = lock(queue);
    q.extend_from_slice(bytes);
    while q.len() > QUEUE_LIMIT {
        // Each notification starts with ESC; drop up to the next one.
        let next = q[1..].iter().position(|&b| b == 0x1b).map(|i| i + 1);
        match next {
            Some(at) => {
                q.drain(..at);
            }
            None => q.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_keeps_the_newest_whole_notifications() {
        let q = Mutex::new(Vec::new());
        let one = osc_notification("t (claude) needs you", false);
        for _ in 0..(QUEUE_LIMIT / one.len() + 10) {
            queue_bytes(&q, &one);
        }
        let q = q.into_inner().unwrap();
        assert!(q.len() <= QUEUE_LIMIT);
        assert!(q.starts_with(b"\x1b]777;"), "starts at a notification");
        assert_eq!(q.len() % one.len(), 0, "only whole notifications");
    }
}
