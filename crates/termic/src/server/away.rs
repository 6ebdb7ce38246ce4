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
use crate::server::protocol::{RowAway, RowChange};
use termic_runtime::{lock, Runtime, TaskId};

/// The most bytes kept for the next attach (a few hundred notifications);
/// older ones are dropped whole.
pub const QUEUE_LIMIT: usize = 64 * 1024;

/// The server's own notifier and each task's last badge (so a state
/// reported twice notifies once, as in a client's view).
pub struct AwayNotifier {
    notifier: Mutex<Notifier>,
    entries: Mutex<HashMap<u64, TaskEntry>>,
    /// Each badge change while no client was attached, oldest first, at
    /// most [`AWAY_LOG_LIMIT`] (the oldest go): what the next attach
    /// tells once ([`away_summary`]).
    log: Mutex<std::collections::VecDeque<AwayChange>>,
    /// Notification texts the desktop could not show.
    pub replies: Receiver<NotifyReply>,
}

impl Default for AwayNotifier {
    fn default() -> Self {
        let (tx, rx): (Sender<NotifyReply>, _) = crossbeam_channel::unbounded();
        AwayNotifier {
            notifier: Mutex::new(Notifier::from_env(tx, true)),
            entries: Mutex::new(HashMap::new()),
            log: Mutex::new(std::collections::VecDeque::new()),
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
        if away && entry.badge != badge {
            let mut log = lock(&self.log);
            if log.len() >= AWAY_LOG_LIMIT {
                log.pop_front();
            }
            log.push_back(AwayChange {
                task: id.0,
                number: info.meta.number,
                name: entry.name.clone(),
                state: badge.label(),
                stat: None,
                at: t.at,
            });
        }
        let attention = entry.set_badge(badge, t.at, false, detail)?;
        let earned = attention.clone();
        if !away {
            return Some(earned);
        }
        let notify = away_settings(paths);
        let stat = match (&attention, base) {
            (crate::notify::Attention::Done, Some(base)) => {
                crate::app::review::stat_within(base, crate::app::review::HOLD_DONE_MS)
            }
            _ => None,
        };
        let stat = stat.map(|s| s.to_string());
        // The summary of the next attach says what the turn changed too.
        if let Some(change) = lock(&self.log).iter_mut().rev().find(|c| c.task == id.0) {
            change.stat.clone_from(&stat);
        }
        let event = AttentionEvent {
            stat,
            task: entry.name.clone(),
            agent: entry.agent.clone(),
            attention,
            watched: false,
        };
        self.deliver(&decide(&event, notify), notify, id.0, queue);
        Some(earned)
    }

    /// A remote host's task changed to needs you, done or error while no
    /// client is attached (issue 29): the desktop is told, "build on
    /// devbox (claude) needs you". A click has no client to open it in.
    pub fn on_remote_note(
        &self,
        paths: &TermicPaths,
        note: &crate::app::remote_hosts::Note,
        queue: &Mutex<Vec<u8>>,
    ) {
        let notify = away_settings(paths);
        let delivery = crate::app::remote_hosts::note_delivery(note, notify);
        // 0 is no local task's id: a click focuses nothing.
        self.deliver(&delivery, notify, 0, queue);
    }

    /// Sends `delivery` about task `id`; what needs a terminal is queued.
    fn deliver(
        &self,
        delivery: &crate::notify::Delivery,
        notify: crate::notify::NotifySettings,
        id: u64,
        queue: &Mutex<Vec<u8>>,
    ) {
        let mut out = Vec::new();
        let mut notifier = lock(&self.notifier);
        notifier.osc_fallback = notify.osc_fallback;
        let _ = notifier.deliver(delivery, id, &mut out);
        drop(notifier);
        queue_bytes(queue, &out);
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
        lock(&self.log).retain(|c| c.task != id.0);
    }

    /// Task `task`'s changes while no client was attached, for its row
    /// (`wall_origin` turns the runtime's times into Unix ms), with its
    /// agent's last message as the engine has it now (a hook's message
    /// may land after the done another channel gave). Read only: the next
    /// attach still tells them.
    pub fn row_away(&self, runtime: &Runtime, task: u64, wall_origin: u64) -> Option<RowAway> {
        let message = last_message(runtime, task);
        row_away(
            lock(&self.log).iter(),
            task,
            wall_origin,
            message.as_deref(),
        )
    }

    /// What happened while no client was attached, told once: the next
    /// attach takes it (`now` on the same clock as the transitions).
    pub fn take_summary(&self, runtime: &Runtime, now: u64) -> Option<String> {
        let log: Vec<AwayChange> = lock(&self.log).drain(..).collect();
        let mut said: Vec<(u64, String)> = Vec::new();
        for change in &log {
            if !said.iter().any(|(t, _)| *t == change.task) {
                if let Some(m) = last_message(runtime, change.task) {
                    said.push((change.task, m));
                }
            }
        }
        away_summary(&log, now, &said)
    }
}

/// Task `task`'s agent's last message, as its end-of-turn hook last sent it.
fn last_message(runtime: &Runtime, task: u64) -> Option<String> {
    runtime
        .with_engine(TaskId(task), |e| e.last_message().map(str::to_owned))
        .flatten()
}

/// How the server notifies while nobody is attached: config.toml's
/// settings as it reads now, without the bell (nobody hears a bell rung
/// into no terminal, and a late one on attach would be noise).
fn away_settings(paths: &TermicPaths) -> crate::notify::NotifySettings {
    let settings = Config::load_lenient(&paths.config_dir)
        .settings
        .notifications;
    crate::notify::NotifySettings {
        bell: false,
        desktop: settings.desktop,
        osc_fallback: settings.osc_fallback,
    }
}

/// Badge changes kept while nobody is attached, at most.
pub const AWAY_LOG_LIMIT: usize = 256;
/// Tasks the summary names; the rest are counted.
pub const AWAY_TASKS_SHOWN: usize = 6;
/// States the summary lists for one task (its last ones).
pub const AWAY_STATES_SHOWN: usize = 4;

/// State changes one task's row carries, at most (its last ones; the
/// older are counted in `more`).
pub const AWAY_ROW_CHANGES: usize = 16;
/// The longest diff stat a row carries, in chars (git's own is short).
pub const AWAY_STAT_CHARS: usize = 80;
/// The longest last message a row carries, in chars (the hook sends at
/// most 300 bytes of it).
pub const AWAY_MESSAGE_CHARS: usize = 300;
/// The longest last message the one-line summary quotes, in chars.
pub const AWAY_SUMMARY_MESSAGE_CHARS: usize = 60;

/// Task `task`'s changes in `log` as its row says them: the last
/// [`AWAY_ROW_CHANGES`], times in Unix ms (`wall_origin` plus the runtime's
/// ms), states and stat cleaned and capped. `None` when it did nothing.
/// Pure.
pub fn row_away<'a>(
    log: impl Iterator<Item = &'a AwayChange>,
    task: u64,
    wall_origin: u64,
    message: Option<&str>,
) -> Option<RowAway> {
    let mine: Vec<&AwayChange> = log.filter(|c| c.task == task).collect();
    mine.last()?;
    let skip = mine.len().saturating_sub(AWAY_ROW_CHANGES);
    let clean = |s: &str, max: usize| -> String {
        crate::printed::clean_line(s).chars().take(max).collect()
    };
    Some(RowAway {
        changes: mine[skip..]
            .iter()
            .map(|c| RowChange {
                state: clean(&c.state, AWAY_STAT_CHARS),
                at: wall_origin.saturating_add(c.at),
            })
            .collect(),
        more: u32::try_from(skip).unwrap_or(u32::MAX),
        stat: mine
            .iter()
            .rev()
            .find_map(|c| c.stat.as_deref())
            .map(|s| clean(s, AWAY_STAT_CHARS)),
        message: said(message).map(|m| m.chars().take(AWAY_MESSAGE_CHARS).collect()),
    })
}

/// The agent's message cleaned (printed text is data) and trimmed; `None`
/// when nothing is left.
fn said(message: Option<&str>) -> Option<String> {
    let m = crate::printed::clean_line(message?);
    let m = m.trim();
    (!m.is_empty()).then(|| m.to_owned())
}

/// One badge change of a task while no client was attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwayChange {
    pub task: u64,
    pub number: u32,
    pub name: String,
    /// The badge's label (`done`, `needs you [permission]`, ...).
    pub state: String,
    /// What the task changed in its directory or worktree by then (a
    /// done's diff stat, `+10 -3, 2 files`), when git told it in time.
    pub stat: Option<String>,
    pub at: u64,
}

/// "While you were away: 1 build: working, done [+10 -3, 2 files] (12 min
/// ago); 2 review: needs you [permission] (just now)." Each task in the order it first
/// changed, its last [`AWAY_STATES_SHOWN`] states and how long ago the
/// last came, and the start of its agent's last message (`said`, by task);
/// at most [`AWAY_TASKS_SHOWN`] tasks. Names and messages are cleaned
/// (they are data). `None` when nothing changed. Pure.
pub fn away_summary(changes: &[AwayChange], now: u64, said_by: &[(u64, String)]) -> Option<String> {
    let mut tasks: Vec<(u64, Vec<&AwayChange>)> = Vec::new();
    for change in changes {
        match tasks.iter_mut().find(|(id, _)| *id == change.task) {
            Some((_, list)) => list.push(change),
            None => tasks.push((change.task, vec![change])),
        }
    }
    if tasks.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = tasks
        .iter()
        .take(AWAY_TASKS_SHOWN)
        .map(|(_, list)| {
            let last = list[list.len() - 1];
            let skip = list.len().saturating_sub(AWAY_STATES_SHOWN);
            let states: Vec<String> = list[skip..]
                .iter()
                .map(|c| match &c.stat {
                    Some(stat) => format!("{} [{stat}]", c.state),
                    None => c.state.clone(),
                })
                .collect();
            let more = if skip > 0 { "..., " } else { "" };
            let message = said_by
                .iter()
                .find(|(t, _)| *t == last.task)
                .and_then(|(_, m)| said(Some(m)));
            let said = match message {
                Some(m) => {
                    let mut cut: String = m.chars().take(AWAY_SUMMARY_MESSAGE_CHARS).collect();
                    if cut.len() < m.len() {
                        cut.push_str("...");
                    }
                    format!(", said \"{cut}\"")
                }
                None => String::new(),
            };
            format!(
                "{} {}: {more}{} ({}){said}",
                last.number,
                last.name,
                states.join(", "),
                ago(now.saturating_sub(last.at))
            )
        })
        .collect();
    if tasks.len() > AWAY_TASKS_SHOWN {
        parts.push(format!("and {} more", tasks.len() - AWAY_TASKS_SHOWN));
    }
    let text = format!("While you were away: {}.", parts.join("; "));
    Some(crate::printed::clean_line(&text).into_owned())
}

/// "just now", "12 min ago", "2 h 5 min ago".
fn ago(ms: u64) -> String {
    let min = ms / 60_000;
    match min {
        0 => "just now".to_owned(),
        1..=59 => format!("{min} min ago"),
        _ => format!("{} h {} min ago", min / 60, min % 60),
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

    fn change(task: u64, name: &str, state: &str, at: u64) -> AwayChange {
        AwayChange {
            task,
            number: task as u32,
            name: name.into(),
            state: state.into(),
            stat: None,
            at,
        }
    }

    /// Each task once, in the order it first changed, with its states and
    /// how long ago the last one came; long histories and many tasks are
    /// cut and counted; names are cleaned.
    #[test]
    fn the_away_summary_tells_each_task_its_states_and_when() {
        assert_eq!(away_summary(&[], 0, &[]), None);
        let min = 60_000;
        let done = AwayChange {
            stat: Some("+10 -3, 2 files".into()),
            ..change(1, "build", "done", 3 * min)
        };
        let changes = [
            change(1, "build", "working", 0),
            change(2, "review", "working", min),
            done,
            change(2, "review", "needs you [permission]", 15 * min - 10),
        ];
        assert_eq!(
            away_summary(&changes, 15 * min, &[]).unwrap(),
            "While you were away: 1 build: working, done [+10 -3, 2 files] (12 min ago); \
             2 review: working, needs you [permission] (just now)."
        );
        let long: Vec<AwayChange> = (0..6)
            .map(|i| change(1, "b", if i % 2 == 0 { "working" } else { "done" }, i))
            .collect();
        assert_eq!(
            away_summary(&long, 125 * min, &[]).unwrap(),
            "While you were away: 1 b: ..., working, done, working, done (2 h 4 min ago)."
        );
        let many: Vec<AwayChange> = (1..=9)
            .map(|i| change(i, "t\x1b]0;pwned\x07", "done", 0))
            .collect();
        let text = away_summary(&many, 0, &[]).unwrap();
        assert!(text.ends_with("; and 3 more."), "{text}");
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text}");
    }

    /// A row carries its own task's changes only, with Unix times, the
    /// last done's stat, the last [`AWAY_ROW_CHANGES`] and how many older
    /// ones were left out; hostile text is cleaned; a task that did
    /// nothing has no `away`.
    #[test]
    fn a_row_carries_its_own_changes_bounded_and_clean() {
        let origin = 1_800_000_000_000;
        let log = [
            change(1, "build", "working", 10),
            change(2, "review", "needs you [permission]", 20),
            AwayChange {
                stat: Some("+10 -3, 2 files\x1b[2J".into()),
                ..change(1, "build", "done", 30)
            },
        ];
        let away = row_away(log.iter(), 1, origin, None).unwrap();
        assert_eq!(
            away,
            RowAway {
                changes: vec![
                    RowChange {
                        state: "working".into(),
                        at: origin + 10
                    },
                    RowChange {
                        state: "done".into(),
                        at: origin + 30
                    },
                ],
                more: 0,
                // The escape goes; what is left prints as text.
                stat: Some("+10 -3, 2 files[2J".into()),
                message: None,
            }
        );
        assert_eq!(row_away(log.iter(), 3, origin, None), None);
        let long: Vec<AwayChange> = (0..40)
            .map(|i| change(5, "b", "working\u{202e}\x07", i))
            .collect();
        let away = row_away(long.iter(), 5, 0, None).unwrap();
        assert_eq!(away.changes.len(), AWAY_ROW_CHANGES);
        assert_eq!(away.more, 40 - AWAY_ROW_CHANGES as u32);
        assert_eq!(away.changes[0].at, 40 - AWAY_ROW_CHANGES as u64);
        assert!(
            away.changes.iter().all(|c| c.state == "working"),
            "{away:?}"
        );
        assert_eq!(away.stat, None);
    }

    /// The agent's last message rides the row and the summary, cleaned
    /// (an ESC, a BEL, a bidi override are data), capped, and quoted short
    /// in the summary; a message that is blank once cleaned is none, and a
    /// task that did nothing has no row however much its agent said.
    #[test]
    fn the_last_message_is_carried_clean_and_capped() {
        let log = [
            change(1, "build", "done", 30),
            change(2, "review", "done", 40),
        ];
        let hostile = "All 12 tests pass.\x1b]0;pwned\x07\u{202e} Done\n";
        let message = row_away(log.iter(), 1, 0, Some(hostile))
            .unwrap()
            .message
            .unwrap();
        assert!(message.starts_with("All 12 tests pass."), "{message}");
        assert!(message.ends_with("Done"), "{message}");
        assert!(
            !message.contains(['\x1b', '\x07', '\u{202e}', '\n']),
            "{message:?}"
        );
        assert_eq!(row_away(log.iter(), 2, 0, None).unwrap().message, None);
        assert_eq!(row_away(log.iter(), 3, 0, Some("hi")), None);
        let said = vec![(1, hostile.to_owned())];
        let text = away_summary(&log, 60_000, &said).unwrap();
        assert!(
            text.contains("(just now), said \"All 12 tests pass."),
            "{text}"
        );
        assert!(text.contains("2 review: done (just now)."), "{text}");
        assert!(
            !text.contains('\x1b') && !text.contains('\u{202e}'),
            "{text}"
        );
        let long = "word ".repeat(200);
        let away = row_away(log.iter(), 1, 0, Some(&long)).unwrap();
        assert_eq!(away.message.unwrap().chars().count(), AWAY_MESSAGE_CHARS);
        let text = away_summary(&log, 0, &[(1, long)]).unwrap();
        assert!(
            text.contains("said \"word word") && text.contains("...\";"),
            "{text}"
        );
        let blank = "\x1b\x07 \t";
        assert_eq!(
            row_away(log.iter(), 1, 0, Some(blank)).unwrap().message,
            None
        );
        assert!(!away_summary(&log, 0, &[(1, blank.into())])
            .unwrap()
            .contains("said"));
    }
}
