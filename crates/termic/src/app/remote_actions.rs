//! The workspace's task commands on a remote task in the pane (issue 29):
//! rename, close, restart, details and the Inspector do what they do on a
//! local task, acting on the host. Each request goes over the user's ssh
//! through the server's [`HostActor`] (the connection `termic kill
//! HOST:TASK` makes, `remote::with_host`), on a thread of its own, so a
//! slow host never holds the workspace; its answer comes back on the
//! app's channel. Details come from the task's row the host's feed
//! already sent, at once, then the host's `details` (protocol 9: command,
//! branch, status channel, pid) fill in the rest when they come (a host
//! that cannot tell them leaves the rest shown, with no error); the Inspector asks the host for the task's timeline
//! (`timeline`, protocol 8) when it opens and again each time the task's
//! row changes while it is open. The diff view's revert, comments and
//! merge on a remote task (2026-12-06) are requests to the host too
//! (`app::review`, `app::merge`): the host's server changes its files.
//!
//! Bound: at most [`HOST_ACTIONS`] requests under way per app; past it a
//! command says so and sends nothing. The answer channel holds that many,
//! so an answer is never dropped.

use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use super::remote_pane::REMOTE;
use super::App;
use crate::keymap::PrefixCommand;
use crate::server::protocol::{self, Request, Response, TaskDetails, TaskRow, TimelineEntry};
use crate::ui::dialog::ConfirmView;
use crate::ui::inspector::{EntryKind, InspectorEntry, InspectorView};
use crate::ui::task_dialogs::{DetailsView, RenameView};
use crate::ui::{Message, Overlay};

/// Requests to hosts under way at most, per app (see the module's policy).
pub const HOST_ACTIONS: usize = 8;

/// What a request to a host was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostAction {
    Rename,
    Close,
    Restart,
    Timeline,
    /// The diff view's changes (`changes`).
    Changes,
    /// The details panel's command, branch, channel and pid (`details`).
    Details,
    /// The diff view's comments, typed in (`send`).
    Send,
    /// The diff view's revert of a hunk (`revert`, protocol 9).
    Revert,
    /// The diff view's merge (`merge`, protocol 9).
    Merge,
    /// The diff view's removal after a merge (`remove_merged`, protocol 9).
    RemoveMerged,
}

impl HostAction {
    /// An action of the diff view, which says its answer itself.
    pub fn of_diff_view(self) -> bool {
        matches!(
            self,
            HostAction::Changes
                | HostAction::Send
                | HostAction::Revert
                | HostAction::Merge
                | HostAction::RemoveMerged
        )
    }
}

/// A host's answer to one request: `Err` is the message, naming the host.
#[derive(Debug, Clone, PartialEq)]
pub struct HostReply {
    pub host: String,
    pub number: u64,
    pub action: HostAction,
    pub answer: Result<Response, String>,
}

/// Runs `request` on host `host` off the caller's thread and hands the
/// answer (or the error, naming the host) to the callback.
pub type HostActor =
    Arc<dyn Fn(String, Request, Box<dyn FnOnce(Result<Response, String>) + Send>) + Send + Sync>;

/// A remote task's Inspector while it is open.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteInspect {
    pub host: String,
    pub number: u64,
    /// The task's row when the timeline was last asked for.
    pub row: Option<TaskRow>,
    /// A `timeline` request is under way.
    pub asking: bool,
}

/// The app's requests to hosts.
pub struct HostActions {
    tx: Sender<HostReply>,
    pub replies: Receiver<HostReply>,
    pub in_flight: usize,
    /// The remote task the open rename or close dialog is for.
    pub target: Option<(String, u64)>,
    pub inspect: Option<RemoteInspect>,
    /// The remote task the open diff view is of.
    pub diff: Option<(String, u64)>,
    /// The remote task the open details panel is of.
    pub details: Option<(String, u64)>,
}

impl Default for HostActions {
    fn default() -> Self {
        let (tx, replies) = crossbeam_channel::bounded(HOST_ACTIONS);
        HostActions {
            tx,
            replies,
            in_flight: 0,
            target: None,
            inspect: None,
            diff: None,
            details: None,
        }
    }
}

/// What the message line says of a host's answer (pure). `None`: nothing
/// to say (the host's feed shows the change in the sidebar).
pub fn reply_message(reply: &HostReply) -> Option<Message> {
    let answer = match &reply.answer {
        // The diff view shows what came, or why nothing did; the details
        // panel shows the row's fields when the host tells no more.
        _ if reply.action.of_diff_view() || reply.action == HostAction::Details => return None,
        Err(why) => {
            let why = crate::printed::clean_line(why).into_owned();
            let what = match reply.action {
                HostAction::Rename => "Not renamed",
                HostAction::Close => "Not closed",
                HostAction::Restart => "Not restarted",
                HostAction::Timeline => "No timeline",
                HostAction::Details => return None,
                _ => "Not done",
            };
            return Some(Message::error(format!("{what}: {why}")));
        }
        Ok(answer) => answer,
    };
    match (reply.action, answer) {
        (HostAction::Rename, Response::Renamed(_))
        | (HostAction::Restart, Response::Started(_))
        | (HostAction::Close, Response::Killed { worktree: None })
        | (HostAction::Timeline, Response::Timeline(_)) => None,
        (HostAction::Close, Response::Killed { worktree: Some(w) }) => Some(Message::info(
            crate::printed::clean_line(&crate::commands::kill::worktree_line(w)).into_owned(),
        )),
        (_, other) => {
            let from = format!("host {}", crate::app::tasks::shown(&reply.host));
            Some(Message::error(
                crate::printed::clean_line(&protocol::unexpected(&from, other).to_string())
                    .into_owned(),
            ))
        }
    }
}

/// A host's timeline as the Inspector shows it, cleaned (pure).
pub fn inspector_entries(entries: &[TimelineEntry]) -> Vec<InspectorEntry> {
    entries
        .iter()
        .map(|e| InspectorEntry {
            at: Duration::from_millis(e.at_ms),
            kind: match e.transition {
                true => EntryKind::Transition,
                false => EntryKind::Signal,
            },
            text: crate::printed::clean_line(&e.text).into_owned(),
        })
        .collect()
}

/// What the diff view of a remote task shows for the host's answer
/// (pure): its changes, or why there are none (cleaned).
pub fn diff_content(answer: &Result<Response, String>) -> crate::review::view::Content {
    use crate::review::view::Content;
    match answer {
        Ok(Response::Changes(changes)) => Content::Ready(changes.clone()),
        Ok(other) => Content::Failed(
            crate::printed::clean_line(&protocol::unexpected("the host", other).to_string())
                .into_owned(),
        ),
        Err(why) => Content::Failed(crate::printed::clean_line(why).into_owned()),
    }
}

/// The details panel of a remote task, from its row and, once the host
/// told them, its `details` (pure).
pub fn remote_details(host: &str, row: &TaskRow, more: Option<&TaskDetails>) -> DetailsView {
    let shown = crate::app::tasks::shown;
    let mut rows = vec![
        (
            "state".to_owned(),
            super::remote_hosts::badge_of_row(row).label(),
        ),
        ("agent".to_owned(), shown(&row.agent)),
        ("host".to_owned(), shown(host)),
        ("number".to_owned(), row.id.to_string()),
    ];
    if let Some(more) = more.filter(|m| !m.command.is_empty()) {
        rows.push(("command".to_owned(), shown(&more.command)));
    }
    rows.push(("directory".to_owned(), shown(&row.cwd)));
    if let Some(more) = more {
        let branch = more
            .branch
            .as_deref()
            .map_or("not a git repository".into(), shown);
        rows.push(("branch".to_owned(), branch));
    }
    rows.push((
        "worktree".to_owned(),
        row.worktree.as_deref().map_or("none".into(), shown),
    ));
    if let Some(more) = more {
        rows.push(("status from".to_owned(), shown(&more.channel)));
        let pid = match more.exited {
            true => format!("{} (exited)", more.pid),
            false => more.pid.to_string(),
        };
        rows.push(("pid".to_owned(), pid));
    }
    if let Some(a) = &row.attention {
        let asks = a
            .message
            .as_deref()
            .map_or(a.kind.clone(), |m| format!("{}: {m}", a.kind));
        rows.push(("needs you for".to_owned(), shown(&asks)));
    }
    DetailsView {
        title: format!(
            "{} ({}) on {}",
            shown(&row.name),
            shown(&row.agent),
            shown(host)
        ),
        rows,
    }
}

impl App {
    /// The row the host's feed last sent for task `number` of `host`.
    pub(crate) fn remote_row(&self, host: &str, number: u64) -> Option<TaskRow> {
        let board = termic_runtime::lock(&self.remote.as_ref()?.board);
        let h = board.hosts.iter().find(|h| h.name == host)?;
        h.rows.iter().find(|r| r.id == number).cloned()
    }

    /// A task command on the remote task in the pane.
    pub(crate) fn remote_command(&mut self, command: PrefixCommand) {
        let Some((host, number)) = self.focused_remote().map(|p| (p.host.clone(), p.number)) else {
            return;
        };
        let shown_host = crate::app::tasks::shown(&host);
        let Some(row) = self.remote_row(&host, number) else {
            self.message = Some(Message::info(format!(
                "That task of {shown_host} is not listed now."
            )));
            return;
        };
        let name = crate::app::tasks::shown(&row.name);
        match command {
            PrefixCommand::Rename => {
                let mut view = RenameView::new(REMOTE, &name);
                view.name.clear();
                self.host_actions.target = Some((host, number));
                self.overlay = Some(Overlay::Rename(view));
            }
            PrefixCommand::Close => {
                let worktree = row.worktree.as_deref().map(crate::app::tasks::shown);
                self.host_actions.target = Some((host, number));
                self.overlay = Some(Overlay::Confirm(ConfirmView::close_task(
                    REMOTE,
                    &format!("{name} on {shown_host}"),
                    worktree.as_deref(),
                )));
            }
            PrefixCommand::Restart if row.state != "exited" => {
                self.message = Some(Message::warning(super::task_basics::still_running(&name)));
            }
            PrefixCommand::Restart => {
                let task = number.to_string();
                self.act(host, number, HostAction::Restart, Request::Restart { task });
            }
            PrefixCommand::Diff => {
                let mut view =
                    crate::review::view::DiffView::new(REMOTE, format!("{name} on {shown_host}"));
                view.syntax = self.diff_syntax;
                let task = number.to_string();
                if self.act(
                    host.clone(),
                    number,
                    HostAction::Changes,
                    Request::Changes { task },
                ) {
                    self.host_actions.diff = Some((host, number));
                    self.overlay = Some(Overlay::Diff(view));
                }
            }
            PrefixCommand::Details => {
                self.overlay = Some(Overlay::Details(remote_details(&host, &row, None)));
                let task = number.to_string();
                if self.act(
                    host.clone(),
                    number,
                    HostAction::Details,
                    Request::Details { task },
                ) {
                    self.host_actions.details = Some((host, number));
                }
            }
            PrefixCommand::Inspector => {
                self.overlay = Some(Overlay::Inspector(InspectorView::new(
                    format!("{name} on {shown_host}"),
                    crate::app::tasks::shown(&row.agent),
                    Vec::new(),
                )));
                self.host_actions.inspect = Some(RemoteInspect {
                    host,
                    number,
                    row: None,
                    asking: false,
                });
                self.refresh_remote_inspector();
            }
            _ => {
                self.message = Some(Message::info(format!(
                    "Not for a task on a host yet: run termic on {shown_host}, or the CLI with {shown_host}:{}.",
                    row.id
                )));
            }
        }
    }

    /// Enter in the rename dialog of a remote task.
    pub(crate) fn rename_remote(&mut self, name: &str) {
        if let Some((host, number)) = self.host_actions.target.take() {
            let request = Request::Rename {
                task: number.to_string(),
                name: name.to_owned(),
            };
            self.act(host, number, HostAction::Rename, request);
        }
    }

    /// `y` (or `w`) in the close dialog of a remote task.
    pub(crate) fn close_remote(&mut self, remove_worktree: bool) {
        if let Some((host, number)) = self.host_actions.target.take() {
            let request = Request::Kill {
                task: number.to_string(),
                remove_worktree,
            };
            self.act(host, number, HostAction::Close, request);
        }
    }

    /// Sends `request` to `host` through the server's actor; past the
    /// bound, says so and sends nothing.
    pub(crate) fn act(
        &mut self,
        host: String,
        number: u64,
        action: HostAction,
        request: Request,
    ) -> bool {
        let Some(actor) = self.remote.as_ref().map(|r| Arc::clone(&r.act)) else {
            return false;
        };
        if self.host_actions.in_flight >= HOST_ACTIONS {
            self.message = Some(Message::warning(format!(
                "{HOST_ACTIONS} requests to hosts are under way: try again when they end."
            )));
            return false;
        }
        self.host_actions.in_flight += 1;
        let tx = self.host_actions.tx.clone();
        let name = host.clone();
        actor(
            host,
            request,
            Box::new(move |answer| {
                // Never full: no more are under way than it holds.
                let _ = tx.try_send(HostReply {
                    host: name,
                    number,
                    action,
                    answer,
                });
            }),
        );
        true
    }

    /// Asks the host for the open remote Inspector's timeline when the
    /// task's row changed since it was last asked (or never was).
    pub(crate) fn refresh_remote_inspector(&mut self) {
        if !matches!(self.overlay, Some(Overlay::Inspector(_))) {
            self.host_actions.inspect = None;
            return;
        }
        let Some(inspect) = &self.host_actions.inspect else {
            return;
        };
        let (host, number) = (inspect.host.clone(), inspect.number);
        let row = self.remote_row(&host, number);
        if inspect.asking || (inspect.row.is_some() && inspect.row == row) {
            return;
        }
        let task = number.to_string();
        if self.act(
            host,
            number,
            HostAction::Timeline,
            Request::Timeline { task },
        ) {
            if let Some(inspect) = &mut self.host_actions.inspect {
                inspect.asking = true;
                inspect.row = row;
            }
        }
    }

    /// A host answered one of this app's requests.
    pub(crate) fn on_host_reply(&mut self, reply: HostReply) {
        self.host_actions.in_flight = self.host_actions.in_flight.saturating_sub(1);
        self.request_draw();
        let ours = |i: &RemoteInspect| i.host == reply.host && i.number == reply.number;
        if reply.action == HostAction::Timeline {
            if let Some(inspect) = self.host_actions.inspect.as_mut().filter(|i| ours(i)) {
                inspect.asking = false;
                if let (Ok(Response::Timeline(entries)), Some(Overlay::Inspector(view))) =
                    (&reply.answer, &mut self.overlay)
                {
                    view.entries = inspector_entries(entries);
                }
            }
        }
        if reply.action.of_diff_view() {
            self.on_remote_review(&reply);
        }
        if reply.action == HostAction::Details
            && self.host_actions.details.as_ref() == Some(&(reply.host.clone(), reply.number))
        {
            if let (Ok(Response::Details(more)), Some(row)) =
                (&reply.answer, self.remote_row(&reply.host, reply.number))
            {
                let view = remote_details(&reply.host, &row, Some(more));
                // Only the panel of that task, still open, is filled in.
                if matches!(&self.overlay, Some(Overlay::Details(open)) if open.title == view.title)
                {
                    self.overlay = Some(Overlay::Details(view));
                }
            }
        }
        let closed = matches!(reply.action, HostAction::Close | HostAction::RemoveMerged)
            && matches!(reply.answer, Ok(Response::Killed { .. }));
        if let Some(message) = reply_message(&reply) {
            self.message = Some(message);
        }
        // The closed task was in the pane: the focus goes back here.
        let shown = self
            .focused_remote()
            .is_some_and(|p| p.host == reply.host && p.number == reply.number);
        if closed && shown {
            self.leave_remote();
            self.after_focus_change();
        }
        // The row may have changed while the answer was on its way.
        self.refresh_remote_inspector();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::protocol::KilledWorktree;

    fn reply(action: HostAction, answer: Result<Response, String>) -> HostReply {
        HostReply {
            host: "far".into(),
            number: 3,
            action,
            answer,
        }
    }

    #[test]
    fn a_refused_request_says_what_was_not_done_and_the_hosts_words_cleaned() {
        let m = reply_message(&reply(
            HostAction::Rename,
            Err("host far: a task is already named \x1b[31mx\u{202e}".into()),
        ))
        .unwrap();
        assert!(m.text.starts_with("Not renamed: host far: "), "{}", m.text);
        assert!(!m.text.contains('\x1b') && !m.text.contains('\u{202e}'));
        let m = reply_message(&reply(HostAction::Close, Err("host far: gone".into()))).unwrap();
        assert_eq!(m.text, "Not closed: host far: gone");
        let m = reply_message(&reply(
            HostAction::Restart,
            Err("host far: its termic does not speak protocol 8".into()),
        ))
        .unwrap();
        assert_eq!(
            m.text,
            "Not restarted: host far: its termic does not speak protocol 8"
        );
    }

    #[test]
    fn done_requests_say_nothing_but_a_kept_worktree_and_a_wrong_answer_is_named() {
        let row = TaskRow::for_test(3, "t", "claude", "working");
        assert_eq!(
            reply_message(&reply(
                HostAction::Rename,
                Ok(Response::Renamed(row.clone()))
            )),
            None
        );
        assert_eq!(
            reply_message(&reply(HostAction::Restart, Ok(Response::Started(row)))),
            None
        );
        assert_eq!(
            reply_message(&reply(
                HostAction::Close,
                Ok(Response::Killed { worktree: None })
            )),
            None
        );
        let kept = reply_message(&reply(
            HostAction::Close,
            Ok(Response::Killed {
                worktree: Some(KilledWorktree {
                    path: "/w/t".into(),
                    branch: Some("termic/t".into()),
                    removed: false,
                    error: None,
                }),
            }),
        ))
        .unwrap();
        assert!(
            kept.text.starts_with("Kept its worktree /w/t"),
            "{}",
            kept.text
        );
        let odd = reply_message(&reply(HostAction::Rename, Ok(Response::Ok))).unwrap();
        assert_eq!(odd.text, "host far answered something else (ok)");
    }

    #[test]
    fn a_hosts_timeline_is_cleaned_and_keeps_its_kinds() {
        let entries = inspector_entries(&[
            TimelineEntry {
                at_ms: 1500,
                transition: false,
                text: "hook: Stop\x1b]0;x\x07".into(),
            },
            TimelineEntry {
                at_ms: 2000,
                transition: true,
                text: "working -> done".into(),
            },
        ]);
        assert_eq!(entries[0].at, Duration::from_millis(1500));
        assert_eq!(entries[0].kind, EntryKind::Signal);
        assert!(!entries[0].text.contains('\x1b'), "{:?}", entries[0].text);
        assert_eq!(entries[1].kind, EntryKind::Transition);
        assert_eq!(entries[1].text, "working -> done");
    }

    #[test]
    fn a_remote_diff_shows_the_hosts_changes_or_why_not() {
        use crate::review::view::Content;
        let changes = termic_review::model::Changes::default();
        assert_eq!(
            diff_content(&Ok(Response::Changes(changes.clone()))),
            Content::Ready(changes)
        );
        assert_eq!(
            diff_content(&Err(
                "host far: no changes to show: not a git repository\x1b[2J".into()
            )),
            Content::Failed("host far: no changes to show: not a git repository[2J".into())
        );
        assert!(matches!(
            diff_content(&Ok(Response::Ok)),
            Content::Failed(_)
        ));
        // The diff view shows its own failure: no message line too.
        let r = reply(HostAction::Changes, Err("host far: gone".into()));
        assert_eq!(reply_message(&r), None);
    }

    #[test]
    fn remote_details_name_the_host_and_clean_the_rows() {
        let mut row = TaskRow::for_test(4, "fix\x1b[2J", "claude", "needs_you");
        row.cwd = "/home/far/repo".into();
        row.worktree = Some("/home/far/wt".into());
        let d = remote_details("far", &row, None);
        assert!(d.title.starts_with("fix") && d.title.ends_with(" (claude) on far"));
        assert!(!d.title.contains('\x1b'), "{:?}", d.title);
        let get = |k: &str| d.rows.iter().find(|(l, _)| l == k).map(|(_, v)| v.clone());
        assert_eq!(get("host").as_deref(), Some("far"));
        assert_eq!(get("number").as_deref(), Some("4"));
        assert_eq!(get("directory").as_deref(), Some("/home/far/repo"));
        assert_eq!(get("worktree").as_deref(), Some("/home/far/wt"));
        assert_eq!(get("state").as_deref(), Some("needs you"));
        // Before the host's `details` came (or from a host that cannot
        // tell them): the row's fields, none of the host's.
        for label in ["command", "branch", "status from", "pid"] {
            assert_eq!(get(label), None, "{label}");
        }
    }

    #[test]
    fn a_hosts_details_add_command_branch_channel_and_pid_cleaned() {
        let row = TaskRow::for_test(4, "fix", "claude", "working");
        let more = TaskDetails {
            command: "claude --resume \x1b]0;x\x07".into(),
            branch: Some("feature\u{202e}".into()),
            channel: "hooks".into(),
            pid: 4242,
            exited: false,
        };
        let d = remote_details("far", &row, Some(&more));
        let labels: Vec<&str> = d.rows.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "state",
                "agent",
                "host",
                "number",
                "command",
                "directory",
                "branch",
                "worktree",
                "status from",
                "pid"
            ]
        );
        let get = |k: &str| d.rows.iter().find(|(l, _)| l == k).map(|(_, v)| v.clone());
        assert!(!get("command").unwrap().contains('\x1b'));
        assert_eq!(get("branch").as_deref(), Some("feature"));
        assert_eq!(get("status from").as_deref(), Some("hooks"));
        assert_eq!(get("pid").as_deref(), Some("4242"));
        let gone = TaskDetails {
            branch: None,
            exited: true,
            ..more
        };
        let d = remote_details("far", &row, Some(&gone));
        let get = |k: &str| d.rows.iter().find(|(l, _)| l == k).map(|(_, v)| v.clone());
        assert_eq!(get("branch").as_deref(), Some("not a git repository"));
        assert_eq!(get("pid").as_deref(), Some("4242 (exited)"));
        // An answer without the optional fields reads.
        let read: Response =
            serde_json::from_str(r#"{"details":{"command":"sh","channel":"hooks","pid":7}}"#)
                .unwrap();
        assert!(matches!(
            read,
            Response::Details(TaskDetails {
                pid: 7,
                exited: false,
                branch: None,
                ..
            })
        ));
    }
}
