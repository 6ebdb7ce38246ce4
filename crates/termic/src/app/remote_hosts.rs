//! Remote hosts' tasks as the workspace shows them (issue 29). The server
//! keeps one `subscribe` stream per configured host (`server/host_feeds.rs`)
//! and writes what it hears into one [`Board`], shared by every attached
//! client's app; this file is the board and what the sidebar draws from it.
//! Pure: every time is a value given in (local wall ms), no I/O.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::Receiver;

use crate::server::protocol::{HostTasks, TaskRow};
use crate::ui::sidebar::{Badge, HostGroup, HostTask};

/// Notes (a remote task that started needing you or finished) kept for the
/// apps to read, at most. Policy: the oldest goes first; an app that did
/// not look in time misses it (its sidebar still shows the badge).
pub const NOTES_KEPT: usize = 64;

/// The first retry after a failure waits this long; each failure in a row
/// doubles it, up to [`BACKOFF_MAX`].
pub const BACKOFF_FIRST: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);

/// How long to wait before connection attempt number `failures + 1`, after
/// `failures` failures in a row (at least 1): 1 s, 2 s, 4 s ... 60 s.
pub fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    (BACKOFF_FIRST * (1u32 << doublings)).min(BACKOFF_MAX)
}

/// How long ago `since` (the remote server's Unix ms) was, read at
/// `local_now` (this machine's Unix ms) when the remote clock is `skew_ms`
/// ahead of this one. A time in the remote future reads as 0.
pub fn remote_age(since: u64, local_now: u64, skew_ms: i64) -> Duration {
    let remote_now = local_now.saturating_add_signed(skew_ms);
    Duration::from_millis(remote_now.saturating_sub(since))
}

/// `HH:MM` of a Unix ms time, `utc_offset_secs` east of UTC.
pub fn clock_label(wall_ms: u64, utc_offset_secs: i64) -> String {
    let secs = (wall_ms / 1000) as i64 + utc_offset_secs;
    let day = secs.rem_euclid(86_400);
    format!("{:02}:{:02}", day / 3600, day % 3600 / 60)
}

/// How the server's link to a host is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// Not connected yet (the first attempt is under way).
    Connecting,
    Connected,
    /// Down since `since` (local Unix ms, the first failure in a row);
    /// `reachable` false when no connection was ever made (then `reason`
    /// is what ssh or the host said).
    Down {
        since: u64,
        reason: String,
        reachable: bool,
    },
}

/// One host on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostState {
    pub name: String,
    pub link: Link,
    /// The remote server's clock minus this machine's when its list came.
    pub skew_ms: i64,
    /// Its tasks by number, as last heard (kept while disconnected).
    pub rows: Vec<TaskRow>,
    /// A connection was made once.
    ever_connected: bool,
}

/// A remote task that started needing you, finished or stopped on an
/// error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub seq: u64,
    pub host: String,
    /// The task's number on its host (what a click opens).
    pub number: u64,
    pub task: String,
    pub agent: String,
    /// The remote row's state: `needs_you`, `done` or `error`.
    pub state: String,
    /// With `error`: why, when the host named a reason this termic knows
    /// (protocol 10).
    pub reason: Option<termic_signal::stop::StopReason>,
    /// What it needs you for, as the row said (its kind, its message),
    /// and its dialog's answers then: a push says why and offers them.
    pub attention: Option<Box<crate::server::protocol::RowAttention>>,
    pub choices: Vec<crate::server::protocol::Choice>,
}

/// The states a remote row's change to is a [`Note`].
pub const NOTED_STATES: [&str; 3] = ["needs_you", "done", "error"];

/// What to ring and show for `note` with the user's `settings`:
/// "build on devbox (claude) needs you". Every name is cleaned
/// ([`crate::app::tasks::shown`]); an error says its reason when the host
/// named one this termic knows ("stopped: auth failed"), else "stopped on
/// an error".
pub fn note_delivery(
    note: &Note,
    settings: crate::notify::NotifySettings,
) -> crate::notify::Delivery {
    use crate::notify::Attention;
    let task = format!(
        "{} on {}",
        crate::app::tasks::shown(&note.task),
        crate::app::tasks::shown(&note.host)
    );
    let agent = crate::app::tasks::shown(&note.agent);
    let attention = match note.state.as_str() {
        "needs_you" => Attention::NeedsYou { detail: None },
        "done" => Attention::Done,
        _ => Attention::Stopped {
            reason: note.reason,
        },
    };
    let event = crate::notify::AttentionEvent {
        task,
        agent,
        attention,
        watched: false,
        stat: None,
    };
    crate::notify::decide(&event, settings)
}

/// An attached app's view of the board: woken (a pending wake at most)
/// when it changed; `seen` is the last note it delivered.
pub struct RemoteFeed {
    pub board: Arc<Mutex<Board>>,
    pub wake: Receiver<()>,
    pub seen: u64,
    /// Opens a remote task in the pane (its link is the server's).
    pub open: crate::app::remote_pane::PaneOpener,
    /// Runs a request on a host (rename, close, restart, the Inspector's
    /// timeline), over the connection `termic kill HOST:TASK` makes.
    pub act: crate::app::remote_actions::HostActor,
}

/// Every configured host's tasks and link, in config order.
#[derive(Debug, Default)]
pub struct Board {
    pub hosts: Vec<HostState>,
    notes: VecDeque<Note>,
    next_seq: u64,
    /// The last note told the user (by an attached client or by the
    /// server while nobody is attached): [`Board::claim`] gives each note
    /// to one teller only.
    claimed: u64,
    /// The last note pushed (web push, ntfy, the webhook): pushed by the
    /// server alone, whoever is attached ([`Board::claim_push`]).
    pushed: u64,
}

impl Board {
    /// Keep the hosts named, in this order: a host already here keeps what
    /// it has, a new one is connecting, one no longer named goes.
    pub fn set_hosts(&mut self, names: &[String]) {
        let mut old = std::mem::take(&mut self.hosts);
        for name in names {
            let kept = old
                .iter()
                .position(|h| &h.name == name)
                .map(|i| old.remove(i));
            self.hosts.push(kept.unwrap_or_else(|| HostState {
                name: name.clone(),
                link: Link::Connecting,
                skew_ms: 0,
                rows: Vec::new(),
                ever_connected: false,
            }));
        }
    }

    fn host(&mut self, name: &str) -> Option<&mut HostState> {
        self.hosts.iter_mut().find(|h| h.name == name)
    }

    /// The host's list came (`subscribed`): its clock `remote_now` read at
    /// `local_now`. A task that changed to needs-you or done since the last
    /// list (a reconnect) is a note; a first list makes none.
    pub fn subscribed(&mut self, host: &str, remote_now: u64, local_now: u64, rows: Vec<TaskRow>) {
        let Some(h) = self.host(host) else { return };
        h.skew_ms = (remote_now as i128 - local_now as i128)
            .clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        h.link = Link::Connected;
        let first = !h.ever_connected;
        h.ever_connected = true;
        let old = std::mem::replace(&mut h.rows, rows);
        let mut rows = h.rows.clone();
        rows.sort_by_key(|r| r.id);
        h.rows = rows.clone();
        if first {
            return;
        }
        for row in rows {
            let before = old.iter().find(|r| r.id == row.id);
            self.maybe_note(host, before, &row);
        }
    }

    /// A row pushed on the host's stream.
    pub fn task(&mut self, host: &str, row: TaskRow) {
        let Some(h) = self.host(host) else { return };
        let before = match h.rows.iter().position(|r| r.id == row.id) {
            Some(i) => Some(std::mem::replace(&mut h.rows[i], row.clone())),
            None => {
                let at = h.rows.partition_point(|r| r.id < row.id);
                h.rows.insert(at, row.clone());
                None
            }
        };
        self.maybe_note(host, before.as_ref(), &row);
    }

    /// The task with this number was closed on the host.
    pub fn removed(&mut self, host: &str, id: u64) {
        if let Some(h) = self.host(host) {
            h.rows.retain(|r| r.id != id);
        }
    }

    /// The link to `host` failed at `local_now`: down since the first
    /// failure in a row, with the latest reason.
    pub fn down(&mut self, host: &str, local_now: u64, reason: String) {
        let Some(h) = self.host(host) else { return };
        let since = match h.link {
            Link::Down { since, .. } => since,
            _ => local_now,
        };
        h.link = Link::Down {
            since,
            reason,
            reachable: h.ever_connected,
        };
    }

    fn maybe_note(&mut self, host: &str, before: Option<&TaskRow>, row: &TaskRow) {
        let changed = before.is_none_or(|b| b.state != row.state);
        if !changed || !NOTED_STATES.contains(&row.state.as_str()) {
            return;
        }
        self.next_seq += 1;
        if self.notes.len() == NOTES_KEPT {
            self.notes.pop_front();
        }
        self.notes.push_back(Note {
            seq: self.next_seq,
            host: host.to_owned(),
            number: row.id,
            task: row.name.clone(),
            agent: row.agent.clone(),
            state: row.state.clone(),
            reason: row.stop_reason(),
            attention: row.attention.clone(),
            choices: row.choices.clone(),
        });
    }

    /// The notes after `seq` (0: every one kept), oldest first.
    pub fn notes_after(&self, seq: u64) -> Vec<Note> {
        self.notes.iter().filter(|n| n.seq > seq).cloned().collect()
    }

    /// The notes after `seq` that nobody told yet, now told by the
    /// caller: a note is claimed once, so an attached client and the
    /// server never both notify one change.
    pub fn claim(&mut self, seq: u64) -> Vec<Note> {
        let after = seq.max(self.claimed);
        let notes: Vec<Note> = self
            .notes
            .iter()
            .filter(|n| n.seq > after)
            .cloned()
            .collect();
        self.claimed = self.claimed.max(self.next_seq);
        notes
    }

    /// The notes not pushed yet, now pushed by the caller (the server's
    /// teller): a change is pushed once, however many clients are
    /// attached, apart from who tells the desktop ([`Board::claim`]).
    pub fn claim_push(&mut self) -> Vec<Note> {
        let after = self.pushed;
        self.pushed = self.next_seq;
        self.notes_after(after)
    }

    /// Any host's task is still running (not exited): the server stays up
    /// to tell of it, as for a local task.
    pub fn has_running_tasks(&self) -> bool {
        self.hosts
            .iter()
            .any(|h| h.rows.iter().any(|r| r.state != "exited"))
    }

    /// The last note's number (0: none yet).
    pub fn last_seq(&self) -> u64 {
        self.next_seq
    }

    /// The sidebar's groups at `local_now` (this machine's Unix ms).
    pub fn groups(&self, local_now: u64, utc_offset_secs: i64) -> Vec<HostGroup> {
        self.hosts
            .iter()
            .map(|h| HostGroup {
                name: crate::app::tasks::shown(&h.name),
                status: match &h.link {
                    Link::Connected => None,
                    Link::Connecting => Some("connecting".into()),
                    Link::Down {
                        reachable: false,
                        reason,
                        ..
                    } => Some(format!("unreachable: {}", short_reason(reason))),
                    Link::Down { since, .. } => Some(format!(
                        "disconnected since {}",
                        clock_label(*since, utc_offset_secs)
                    )),
                },
                tasks: h
                    .rows
                    .iter()
                    .map(|r| HostTask {
                        number: r.id,
                        name: crate::app::tasks::shown(&r.name),
                        agent: crate::app::tasks::shown(&r.agent),
                        badge: badge_of_row(r),
                        in_state: remote_age(r.since, local_now, h.skew_ms),
                        focused: false,
                    })
                    .collect(),
            })
            .collect()
    }

    /// Every host as the `hosts` stream sends it, at `local_now` (this
    /// machine's Unix ms): its link, its clock now, its rows.
    pub fn host_tasks(&self, local_now: u64) -> Vec<HostTasks> {
        self.hosts
            .iter()
            .map(|h| {
                let (link, reason, down_since) = match &h.link {
                    Link::Connecting => ("connecting", None, None),
                    Link::Connected => ("connected", None, None),
                    Link::Down { since, reason, .. } => {
                        ("down", Some(short_reason(reason)), Some(*since))
                    }
                };
                HostTasks {
                    name: h.name.clone(),
                    link: link.into(),
                    reason,
                    down_since,
                    now: local_now.saturating_add_signed(h.skew_ms),
                    tasks: h.rows.clone(),
                }
            })
            .collect()
    }

    /// Every remote task as the sidebar lists it: (host, number), hosts in
    /// config order, tasks by number.
    pub fn places(&self) -> Vec<(String, u64)> {
        self.hosts
            .iter()
            .flat_map(|h| h.rows.iter().map(move |r| (h.name.clone(), r.id)))
            .collect()
    }

    /// When the next remote age label changes (local Unix ms), if any task
    /// is listed: each second under a minute, then each minute.
    pub fn next_label_change(&self, local_now: u64) -> Option<u64> {
        self.hosts
            .iter()
            .flat_map(|h| h.rows.iter().map(move |r| (r, h.skew_ms)))
            .map(|(r, skew)| {
                let age = remote_age(r.since, local_now, skew).as_millis() as u64;
                let step = if age < 60_000 { 1_000 } else { 60_000 };
                local_now + (step - age % step)
            })
            .min()
    }
}

/// A remote row's state as a badge (a state a later version adds shows as
/// idle; an error whose reason this termic does not know, a plain error).
pub fn badge_of_row(row: &TaskRow) -> Badge {
    match row.state.as_str() {
        "working" => Badge::Working,
        "needs_you" => Badge::NeedsYou { kind: None },
        "done" => Badge::Done,
        "interrupted" => Badge::Interrupted,
        "error" => Badge::Error(row.stop_reason()),
        "rate_limited" => Badge::RateLimited(
            row.until
                .as_deref()
                .and_then(termic_signal::limit::ResetAt::from_wire),
        ),
        "exited" => Badge::Exited(row.exit_code),
        _ => Badge::Idle,
    }
}

/// ssh's or the host's message, cut to what a sidebar line holds: its
/// last clause, without the `host NAME: ` the board already says.
pub fn short_reason(reason: &str) -> String {
    let cleaned = crate::printed::clean_line(reason).into_owned();
    let rest = cleaned
        .strip_prefix("host ")
        .and_then(|r| r.split_once(": ").map(|(_, rest)| rest))
        .unwrap_or(&cleaned);
    let rest = rest.strip_prefix("cannot reach it: ").unwrap_or(rest);
    // The fix in parentheses is for `hosts ls`, too long here.
    let rest = rest.split(" (").next().unwrap_or(rest).trim();
    rest.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, state: &str, since: u64) -> TaskRow {
        TaskRow {
            since,
            started: since,
            ..TaskRow::for_test(id, &format!("t{id}"), "claude", state)
        }
    }

    #[test]
    fn the_backoff_doubles_from_one_second_to_a_minute() {
        let secs: Vec<u64> = (1..=9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff(0), Duration::from_secs(1));
        assert_eq!(backoff(u32::MAX), BACKOFF_MAX);
    }

    /// A host whose clock is an hour ahead (or behind) shows the age its
    /// own clock says, not this machine's reading of its `since`.
    #[test]
    fn ages_come_from_the_remote_clock_whatever_the_skew() {
        let local_now = 1_800_000_000_000;
        for skew in [3_600_000i64, -3_600_000, 0, 17] {
            let remote_now = (local_now as i64 + skew) as u64;
            let mut b = Board::default();
            b.set_hosts(&["far".into()]);
            b.subscribed(
                "far",
                remote_now,
                local_now,
                vec![row(1, "working", remote_now - 12_000)],
            );
            let g = b.groups(local_now, 0);
            assert_eq!(
                g[0].tasks[0].in_state,
                Duration::from_secs(12),
                "skew {skew}"
            );
            // Five seconds later on this machine: five seconds older.
            let g = b.groups(local_now + 5_000, 0);
            assert_eq!(
                g[0].tasks[0].in_state,
                Duration::from_secs(17),
                "skew {skew}"
            );
        }
        assert_eq!(remote_age(10_000, 5_000, 0), Duration::ZERO);
    }

    #[test]
    fn hosts_are_grouped_in_config_order_with_their_tasks_by_number() {
        let mut b = Board::default();
        b.set_hosts(&["devbox".into(), "cloud".into()]);
        b.subscribed(
            "cloud",
            1_000,
            1_000,
            vec![row(2, "done", 0), row(1, "working", 0)],
        );
        b.task("cloud", row(3, "needs_you", 0));
        b.task("devbox", row(5, "idle", 0));
        b.removed("cloud", 2);
        let g = b.groups(1_000, 0);
        assert_eq!(g[0].name, "devbox");
        assert_eq!(g[0].status.as_deref(), Some("connecting"));
        assert_eq!(g[1].name, "cloud");
        assert_eq!(g[1].status, None);
        let numbers: Vec<u64> = g[1].tasks.iter().map(|t| t.number).collect();
        assert_eq!(numbers, [1, 3]);
        assert_eq!(g[1].tasks[1].badge, Badge::NeedsYou { kind: None });
        // A host dropped from the config goes; one kept keeps its rows.
        b.set_hosts(&["cloud".into()]);
        assert_eq!(b.hosts.len(), 1);
        assert_eq!(b.hosts[0].rows.len(), 2);
    }

    /// The web page's `hosts` stream: each host in config order with its
    /// link, its clock (the skew applied) and its rows by number.
    #[test]
    fn the_hosts_stream_gives_each_host_its_link_clock_and_rows() {
        let mut b = Board::default();
        b.set_hosts(&["devbox".into(), "cloud".into()]);
        b.subscribed(
            "cloud",
            5_000,
            1_000,
            vec![row(4, "needs_you", 0), row(1, "working", 0)],
        );
        b.down(
            "devbox",
            900,
            "host devbox: cannot reach it: ssh: refused".into(),
        );
        let h = b.host_tasks(2_000);
        assert_eq!(h.len(), 2);
        assert_eq!(
            (
                h[0].name.as_str(),
                h[0].link.as_str(),
                h[0].reason.as_deref()
            ),
            ("devbox", "down", Some("ssh: refused"))
        );
        assert_eq!(h[0].down_since, Some(900));
        assert!(h[0].tasks.is_empty());
        assert_eq!(
            (h[1].name.as_str(), h[1].link.as_str()),
            ("cloud", "connected")
        );
        assert_eq!(h[1].now, 6_000, "the host's clock is 4 s ahead");
        let numbers: Vec<u64> = h[1].tasks.iter().map(|t| t.id).collect();
        assert_eq!(numbers, [1, 4]);
        assert_eq!(h[1].tasks[1].state, "needs_you");
    }

    #[test]
    fn a_down_host_says_since_when_or_why_it_was_never_reached() {
        let mut b = Board::default();
        b.set_hosts(&["far".into()]);
        b.down(
            "far",
            3_600_000 * 9 + 60_000 * 5,
            "host far: cannot reach it: ssh: connect to host x port 22: Connection refused (ssh runs with BatchMode=yes: ...)".into(),
        );
        assert_eq!(
            b.groups(0, 0)[0].status.as_deref(),
            Some("unreachable: ssh: connect to host x port 22: Connection refused")
        );
        b.subscribed("far", 0, 0, vec![row(1, "working", 0)]);
        let at = 3_600_000 * 13 + 60_000 * 7;
        b.down("far", at, "host far: lost the connection to it".into());
        // A later failure in the same run keeps the first one's time.
        b.down("far", at + 8_000_000, "again".into());
        let g = b.groups(at, 3600);
        assert_eq!(g[0].status.as_deref(), Some("disconnected since 14:07"));
        assert_eq!(g[0].tasks.len(), 1, "the last rows stay shown");
    }

    #[test]
    fn a_change_to_needs_you_or_done_is_a_note_and_the_first_list_is_not() {
        let mut b = Board::default();
        b.set_hosts(&["far".into()]);
        b.subscribed(
            "far",
            0,
            0,
            vec![row(1, "needs_you", 0), row(2, "working", 0)],
        );
        assert!(b.notes_after(0).is_empty());
        b.task("far", row(2, "needs_you", 0));
        b.task("far", row(2, "needs_you", 5));
        b.task("far", row(1, "working", 0));
        let notes = b.notes_after(0);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            (notes[0].task.as_str(), notes[0].state.as_str()),
            ("t2", "needs_you")
        );
        // A reconnect: what changed while down is a note.
        b.down("far", 10, "gone".into());
        b.subscribed("far", 0, 0, vec![row(1, "done", 0), row(2, "needs_you", 0)]);
        let notes = b.notes_after(notes[0].seq);
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].state, "done");
        // Bounded: the oldest go.
        for i in 0..200 {
            b.task(
                "far",
                row(1, if i % 2 == 0 { "working" } else { "done" }, 0),
            );
        }
        assert_eq!(b.notes_after(0).len(), NOTES_KEPT);
        assert_eq!(b.last_seq(), b.notes_after(0).last().unwrap().seq);
    }

    /// One note, one teller: whoever claims it first (an attached client
    /// after its `seen`, or the server while nobody is attached) has it,
    /// and nobody else gets it again.
    #[test]
    fn a_note_is_claimed_once_by_the_client_or_the_server() {
        let mut b = Board::default();
        b.set_hosts(&["far".into()]);
        b.subscribed("far", 0, 0, vec![row(1, "working", 0)]);
        b.task("far", row(1, "needs_you", 0));
        let seen_at_attach = b.last_seq();
        b.task("far", row(1, "done", 0));
        // The client attached after the first: it tells the second only.
        let client = b.claim(seen_at_attach);
        assert_eq!(client.len(), 1);
        assert_eq!((client[0].number, client[0].state.as_str()), (1, "done"));
        // The server, later: nothing left for it.
        assert!(b.claim(0).is_empty());
        // An error is a note too; the server takes it first this time.
        b.task("far", row(1, "error", 0));
        let server = b.claim(0);
        assert_eq!(server.len(), 1);
        assert!(b.claim(client[0].seq).is_empty());
        assert_eq!(b.notes_after(0).len(), 3, "claims keep the notes");
        // Pushing is apart from telling: each change is pushed once, the
        // ones told already too.
        let pushed = b.claim_push();
        let states: Vec<&str> = pushed.iter().map(|n| n.state.as_str()).collect();
        assert_eq!(states, ["needs_you", "done", "error"]);
        assert!(b.claim_push().is_empty());
        let mut asks = row(1, "needs_you", 0);
        asks.attention = Some(Box::new(crate::server::protocol::RowAttention {
            kind: "permission".into(),
            message: Some("Write x".into()),
            from_output: false,
        }));
        b.task("far", asks);
        let pushed = b.claim_push();
        assert_eq!(pushed.len(), 1);
        assert_eq!(pushed[0].attention.as_ref().unwrap().kind, "permission");
    }

    /// A host's task that has not exited keeps the server from its idle
    /// exit, listed while the host is down too; exited ones do not.
    #[test]
    fn a_running_remote_task_keeps_the_server_up() {
        let mut b = Board::default();
        b.set_hosts(&["far".into()]);
        assert!(!b.has_running_tasks());
        b.subscribed("far", 0, 0, vec![row(1, "exited", 0)]);
        assert!(!b.has_running_tasks());
        b.task("far", row(2, "idle", 0));
        b.down("far", 5, "gone".into());
        assert!(b.has_running_tasks());
        b.removed("far", 2);
        assert!(!b.has_running_tasks());
    }

    #[test]
    fn a_note_names_the_task_its_host_and_agent() {
        let settings = crate::notify::NotifySettings {
            bell: true,
            desktop: true,
            osc_fallback: true,
        };
        let note = |state: &str| Note {
            seq: 1,
            host: "dev\u{1b}box\u{202e}".into(),
            number: 3,
            task: "build".into(),
            agent: "claude".into(),
            state: state.into(),
            reason: None,
            attention: None,
            choices: Vec::new(),
        };
        let text = |state: &str| note_delivery(&note(state), settings).notification.unwrap();
        assert_eq!(text("needs_you"), "build on devbox (claude) needs you");
        assert_eq!(text("done"), "build on devbox (claude) is done");
        assert_eq!(
            text("error"),
            "build on devbox (claude) stopped on an error"
        );
        let auth = Note {
            reason: Some(termic_signal::stop::StopReason::AuthFailed),
            ..note("error")
        };
        assert_eq!(
            note_delivery(&auth, settings).notification.as_deref(),
            Some("build on devbox (claude) stopped: auth failed")
        );
        let quiet = crate::notify::NotifySettings {
            bell: false,
            desktop: false,
            osc_fallback: true,
        };
        assert_eq!(
            note_delivery(&note("error"), quiet),
            crate::notify::Delivery::default()
        );
    }

    /// Protocol 10: a remote error row says its reason as the local
    /// sidebar does; one the host did not name, or named with a word this
    /// termic does not know (a newer or hostile host), is a plain error,
    /// and its note carries the reason the same way.
    #[test]
    fn a_remote_error_row_says_its_reason_and_an_unknown_one_is_a_plain_error() {
        use termic_signal::stop::StopReason;
        // As the host's stream gives it: the wire's row, read.
        let read = |state: &str, reason: &str| -> TaskRow {
            let mut v = serde_json::to_value(row(1, state, 0)).unwrap();
            v["reason"] = serde_json::Value::from(reason);
            serde_json::from_value(v).unwrap()
        };
        assert_eq!(badge_of_row(&row(1, "error", 0)).label(), "error");
        assert_eq!(
            badge_of_row(&read("error", "auth_failed")).label(),
            "error: auth failed"
        );
        for odd in ["quota_gone", "\u{1b}[2J<b>x</b>", "auth failed", ""] {
            assert_eq!(
                badge_of_row(&read("error", odd)),
                Badge::Error(None),
                "{odd:?}"
            );
        }
        // A reason beside another state is not read.
        let done = read("done", "overloaded");
        assert_eq!(done.stop_reason(), None);
        assert_eq!(badge_of_row(&done), Badge::Done);

        let mut b = Board::default();
        b.set_hosts(&["far".into()]);
        b.subscribed("far", 0, 0, vec![row(1, "working", 0)]);
        b.task(
            "far",
            TaskRow {
                reason: Some(StopReason::Overloaded),
                ..row(1, "error", 0)
            },
        );
        let notes = b.notes_after(0);
        assert_eq!(notes[0].reason, Some(StopReason::Overloaded));
    }

    #[test]
    fn a_remote_rate_limited_row_keeps_its_reset_time() {
        let mut r = row(1, "rate_limited", 0);
        assert_eq!(badge_of_row(&r), Badge::RateLimited(None));
        r.until = Some("15:00".into());
        assert_eq!(badge_of_row(&r).label(), "rate limited until 15:00");
        // A time that is not HH:MM is dropped, never shown.
        r.until = Some("\u{1b}[2J".into());
        assert_eq!(badge_of_row(&r), Badge::RateLimited(None));
    }

    #[test]
    fn clock_labels_and_reasons_are_short() {
        assert_eq!(clock_label(0, 0), "00:00");
        assert_eq!(clock_label(0, -3600), "23:00");
        assert_eq!(clock_label(86_399_000, 0), "23:59");
        assert_eq!(
            short_reason("host a: its termic does not speak protocol 6; install"),
            "its termic does not speak protocol 6; install"
        );
        let cleaned = short_reason("\x1b]0;x\x07boom\u{202e}");
        assert!(cleaned.ends_with("boom"), "{cleaned:?}");
        assert!(
            !cleaned.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{cleaned:?}"
        );
        assert_eq!(short_reason(&"x".repeat(500)).chars().count(), 60);
    }
}
