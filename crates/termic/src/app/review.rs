//! What a task changed, in the sidebar and the done notification
//! (issue 32). The stat is read by git on a thread of its own, one at a
//! time per task, when the task goes done; the result comes back on a
//! bounded channel the app's loop waits on. A done notification waits
//! for it at most [`HOLD_DONE_MS`], then goes without it.

use std::collections::{HashMap, HashSet};

use crossbeam_channel::{Receiver, Sender};

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::remote_actions::{HostAction, HostReply};
use super::App;
use crate::notify::{decide, AttentionEvent};
use crate::review::model::Stat;
use crate::review::view::{Content, DiffView, Move};
use crate::server::protocol::{Request, Response};
use crate::ui::sidebar::Badge;
use crate::ui::{Message, Overlay};

/// How long a done notification waits for its task's stat.
pub const HOLD_DONE_MS: u64 = 1_500;

/// The stat of a task, read on a thread of its own, if it comes within
/// `ms` (the thread ends on its own, within git's bound, if not).
pub fn stat_within(base: crate::review::ReviewBase, ms: u64) -> Option<Stat> {
    let (tx, rx) = crossbeam_channel::bounded(1);
    std::thread::Builder::new()
        .name("termic-stat".into())
        .spawn(move || {
            let _ = tx.send(crate::review::stat(&base));
        })
        .ok()?;
    rx.recv_timeout(std::time::Duration::from_millis(ms))
        .ok()?
        .ok()
}

/// What a git thread read: a task's stat, or its changes for the view
/// (with the task's runtime id).
pub enum StatResult {
    Stat(u64, Result<Stat, String>),
    Changes(u64, Result<crate::review::model::Changes, String>),
    /// A merge's result, as the view says it, and what it leaves to
    /// remove (`app::merge`).
    Merged(u64, String, Option<super::merge::Removal>),
}

/// The app's side of the stat threads.
pub struct Stats {
    tx: Sender<StatResult>,
    pub rx: Receiver<StatResult>,
    /// Tasks whose stat is being read.
    pending: HashSet<u64>,
    /// Done notifications waiting for their stat, with their deadline.
    held: HashMap<u64, (AttentionEvent, u64)>,
    /// The task whose merge the diff view asked about (`app::merge`).
    pub merge_asked: Option<u64>,
    /// The merged task whose worktree and branch the view offered to
    /// remove (`app::merge`).
    pub remove_asked: Option<(u64, super::merge::Removal)>,
}

impl Default for Stats {
    fn default() -> Self {
        // One thread per task at most, each sends once: the bound is only
        // reached with 64 results not yet taken, and then a thread waits.
        let (tx, rx) = crossbeam_channel::bounded(64);
        Stats {
            tx,
            rx,
            pending: HashSet::new(),
            held: HashMap::new(),
            merge_asked: None,
            remove_asked: None,
        }
    }
}

impl Stats {
    /// The earliest deadline of a held notification.
    pub fn next_deadline(&self) -> Option<u64> {
        self.held.values().map(|(_, at)| *at).min()
    }
}

/// Why a task with this badge is not to have its files changed now
/// (`what`: Revert), if so (pure; the server's `revert` says the same).
pub fn busy_reason(badge: Option<&Badge>, what: &str) -> Option<String> {
    match badge {
        Some(Badge::Working) => Some(format!(
            "The agent is working and may change this file. {what} when it is done."
        )),
        Some(Badge::NeedsYou { .. }) => Some(format!(
            "The agent needs you and its turn is not over. {what} when it is done."
        )),
        _ => None,
    }
}

impl App {
    /// A sender for a git thread's result.
    pub(crate) fn stats_sender(&self) -> Sender<StatResult> {
        self.stats.tx.clone()
    }

    /// Reads task `id`'s stat on a thread, unless one is being read or it
    /// has no base. Returns whether a read is under way.
    pub(crate) fn request_stat(&mut self, id: u64) -> bool {
        if self.stats.pending.contains(&id) {
            return true;
        }
        let base = termic_runtime::lock(&self.specs)
            .get(&id)
            .and_then(|l| l.base.clone().ok());
        let Some(base) = base else {
            return false;
        };
        let tx = self.stats.tx.clone();
        let spawned = std::thread::Builder::new()
            .name("termic-stat".into())
            .spawn(move || {
                let result = crate::review::stat(&base).map_err(|e| e.to_string());
                let _ = tx.send(StatResult::Stat(id, result));
            });
        if spawned.is_ok() {
            self.stats.pending.insert(id);
        }
        spawned.is_ok()
    }

    /// A done notification: held for the stat when one is being read.
    pub(crate) fn deliver_done(&mut self, id: u64, event: AttentionEvent) {
        if self.stats.pending.contains(&id) {
            let at = self.now_ms() + HOLD_DONE_MS;
            self.stats.held.insert(id, (event, at));
        } else {
            self.deliver(id, &event);
        }
    }

    fn deliver(&mut self, id: u64, event: &AttentionEvent) {
        let delivery = decide(event, self.notify);
        let _ = self.notifier.deliver(&delivery, id, &mut self.pending_out);
    }

    /// A stat came back: the sidebar shows it, a held notification says it.
    pub(crate) fn on_stat(&mut self, reply: StatResult) {
        let (id, result) = match reply {
            StatResult::Stat(id, result) => (id, result),
            StatResult::Changes(id, result) => return self.on_changes(id, result),
            StatResult::Merged(id, text, removal) => return self.on_merged(id, text, removal),
        };
        self.stats.pending.remove(&id);
        let stat = result.ok();
        if let Some(entry) = self.tasks.get_mut(id) {
            entry.stat = stat;
            self.needs_draw = true;
        }
        if let Some((mut event, _)) = self.stats.held.remove(&id) {
            event.stat = stat.map(|s| s.to_string());
            self.deliver(id, &event);
        }
    }

    /// Sends the held notifications whose wait is over, without a stat.
    pub(crate) fn flush_held(&mut self, now: u64) {
        let due: Vec<u64> = self
            .stats
            .held
            .iter()
            .filter(|(_, (_, at))| *at <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some((event, _)) = self.stats.held.remove(&id) {
                self.deliver(id, &event);
            }
        }
    }
}

impl App {
    /// Prefix `v`: the focused task's changes, read on a thread.
    pub(crate) fn open_diff(&mut self) {
        let Some(entry) = self.tasks.focused_entry() else {
            self.message = Some(Message::info("No task is open."));
            return;
        };
        let (id, name) = (entry.id, entry.name.clone());
        let base = termic_runtime::lock(&self.specs)
            .get(&id)
            .map(|l| l.base.clone());
        let mut view = DiffView::new(id, name);
        view.syntax = self.diff_syntax;
        match base {
            Some(Ok(base)) => {
                if let Err(e) = self.read_changes(id, base) {
                    view.content = Content::Failed(format!("Cannot read the changes: {e}"));
                }
            }
            Some(Err(why)) => view.content = Content::Failed(format!("No changes to show: {why}")),
            None => {
                view.content = Content::Failed(
                    "No changes to show: termic did not start this task, so it took no snapshot"
                        .into(),
                );
            }
        }
        self.overlay = Some(Overlay::Diff(view));
        self.needs_draw = true;
    }

    /// Reads task `id`'s changes on a thread; they come back as
    /// [`StatResult::Changes`].
    fn read_changes(&self, id: u64, base: crate::review::ReviewBase) -> std::io::Result<()> {
        let tx = self.stats.tx.clone();
        std::thread::Builder::new()
            .name("termic-diff".into())
            .spawn(move || {
                let result = crate::review::changes(&base).map_err(|e| e.to_string());
                let _ = tx.send(StatResult::Changes(id, result));
            })
            .map(|_| ())
    }

    fn task_base(&self, id: u64) -> Option<crate::review::ReviewBase> {
        termic_runtime::lock(&self.specs)
            .get(&id)
            .and_then(|l| l.base.clone().ok())
    }

    /// Reads the view's changes again (`R`, after a revert, at the
    /// task's turn end); the old ones stay shown until the new come.
    fn refresh_diff(&mut self, view: &mut DiffView) {
        if view.refreshing {
            return;
        }
        if let Some((host, number)) = self.remote_of(view) {
            let task = number.to_string();
            view.refreshing =
                self.act(host, number, HostAction::Changes, Request::Changes { task });
            return;
        }
        let Some(base) = self.task_base(view.task) else {
            return;
        };
        match self.read_changes(view.task, base) {
            Ok(()) => view.refreshing = true,
            Err(e) => view.note = Some(format!("Cannot read the changes: {e}")),
        }
    }

    /// Task `id` ended its turn: an open diff view of it reads its
    /// changes again, unless the user is typing a comment or answering a
    /// revert (then the view says so, and `R` reads them). A remote
    /// task's view (`id` [`REMOTE`](super::remote_pane::REMOTE)) asks its
    /// host, when its row turns done ([`App::on_remote`]).
    pub(crate) fn refresh_diff_of(&mut self, id: u64) {
        if !matches!(&self.overlay, Some(Overlay::Diff(v)) if v.task == id) {
            return;
        }
        let Some(Overlay::Diff(mut view)) = self.overlay.take() else {
            return;
        };
        match at_turn_end(&view) {
            AtTurnEnd::Nothing => {}
            AtTurnEnd::SayR => {
                view.note = Some(TURN_ENDED_R.into());
                self.needs_draw = true;
            }
            AtTurnEnd::Reload => {
                self.refresh_diff(&mut view);
                self.needs_draw = true;
            }
        }
        self.overlay = Some(Overlay::Diff(view));
    }

    fn on_changes(&mut self, id: u64, result: Result<crate::review::model::Changes, String>) {
        let page = crate::ui::diff::page_rows(self.size.1);
        if let Some(Overlay::Diff(view)) = self.overlay.as_mut() {
            if view.task == id && view.content == Content::Loading {
                view.content = match result {
                    Ok(changes) => Content::Ready(changes),
                    Err(why) => Content::Failed(format!("Cannot read the changes: {why}")),
                };
                self.needs_draw = true;
            } else if view.task == id && view.refreshing {
                match result {
                    Ok(changes) => view.replace(changes, page),
                    Err(why) => {
                        view.refreshing = false;
                        view.note = Some(format!("Cannot read the changes again: {why}"));
                    }
                }
                self.needs_draw = true;
            }
        }
    }

    /// `y` after `r`: reverts the hunk, then reads the changes again.
    fn revert_confirmed(&mut self, view: &mut DiffView, (f, h): (usize, usize)) {
        use crate::review::revert::{revert_hunk, Reverted};
        if let Some(why) = self.busy(view, "Revert") {
            view.note = Some(why);
            return;
        }
        let file = view.changes().and_then(|c| c.files.get(f)).cloned();
        if let (Some((host, number)), Some(file)) = (self.remote_of(view), file.clone()) {
            let task = number.to_string();
            let request = Request::Revert {
                task,
                file,
                hunk: h,
            };
            if self.act(host, number, HostAction::Revert, request) {
                view.note = Some("Reverting the hunk...".into());
            }
            return;
        }
        let (Some(base), Some(file)) = (self.task_base(view.task), file) else {
            return;
        };
        view.note = Some(reverted_text(
            &file.path,
            revert_hunk(&base.dir, &file, h)
                .map(|r| r == Reverted::IndexAndWorkTree)
                .map_err(|e| e.to_string()),
        ));
        self.refresh_diff(view);
    }

    /// Why the files of the view's task are not to be changed now, if so.
    fn busy(&mut self, view: &DiffView, what: &str) -> Option<String> {
        busy_reason(self.view_badge(view).as_ref(), what)
    }

    /// The badge of the view's task: a local task's, or a remote task's
    /// from its host's row (issue 29).
    pub(crate) fn view_badge(&mut self, view: &DiffView) -> Option<Badge> {
        if view.task == super::remote_pane::REMOTE {
            let (host, number) = self.host_actions.diff.clone()?;
            return self
                .remote_row(&host, number)
                .map(|r| super::remote_hosts::badge_of_row(&r));
        }
        self.tasks.get_mut(view.task).map(|e| e.badge.clone())
    }

    /// A key in the diff view: move, fold, or close.
    pub(crate) fn diff_key(&mut self, key: KeyEvent, mut view: DiffView) -> Option<Overlay> {
        let page = crate::ui::diff::page_rows(self.size.1);
        if let Some((_, text)) = view.editing.as_mut() {
            match key.code {
                KeyCode::Esc => view.editing = None,
                KeyCode::Enter => view.finish_comment(),
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c)
                    if !key
                        .modifiers
                        .contains(ratatui::crossterm::event::KeyModifiers::CONTROL)
                        && text.len() < 4096 =>
                {
                    text.push(c);
                }
                _ => {}
            }
            return Some(Overlay::Diff(view));
        }
        if let Some((id, removal)) = self.stats.remove_asked.take() {
            if id == view.task {
                return self.remove_answer(key, view, removal);
            }
        }
        if self.merge_answer(key, &mut view) {
            return Some(Overlay::Diff(view));
        }
        if let Some(hunk) = view.confirm.take() {
            match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.revert_confirmed(&mut view, hunk),
                _ => view.note = Some("Kept the hunk.".into()),
            }
            return Some(Overlay::Diff(view));
        }
        view.note = None;
        let m = match key.code {
            KeyCode::Char('r') => {
                if let Some(why) = self.busy(&view, "Revert") {
                    view.note = Some(why);
                } else if view.refreshing {
                    view.note = Some("Reading the changes again; revert once they show.".into());
                } else {
                    match view.hunk_at_cursor() {
                        Some(hunk) => view.confirm = Some(hunk),
                        None => view.note = Some("Revert works on a hunk: move onto one.".into()),
                    }
                }
                return Some(Overlay::Diff(view));
            }
            KeyCode::Char('R') => {
                self.refresh_diff(&mut view);
                return Some(Overlay::Diff(view));
            }
            KeyCode::Char('c') => {
                if !view.start_comment() {
                    view.note = Some("Comments go on a line or a hunk.".into());
                }
                return Some(Overlay::Diff(view));
            }
            KeyCode::Char('S') => return self.send_comments(view),
            KeyCode::Char('m') => return self.ask_merge(view),
            KeyCode::Esc | KeyCode::Char('q') => return None,
            KeyCode::Char('j') | KeyCode::Down => Move::Down,
            KeyCode::Char('k') | KeyCode::Up => Move::Up,
            KeyCode::PageDown | KeyCode::Char('f') => Move::PageDown,
            KeyCode::PageUp | KeyCode::Char('b') => Move::PageUp,
            KeyCode::Home | KeyCode::Char('g') => Move::Top,
            KeyCode::End | KeyCode::Char('G') => Move::Bottom,
            KeyCode::Char('n') | KeyCode::Char('@') => Move::NextHunk,
            KeyCode::Char('N') => Move::PreviousHunk,
            KeyCode::Char('}') | KeyCode::Tab => Move::NextFile,
            KeyCode::Char('{') | KeyCode::BackTab => Move::PreviousFile,
            KeyCode::Char(' ') | KeyCode::Enter | KeyCode::Char('o') => Move::Toggle,
            KeyCode::Char('z') => Move::ToggleAll,
            _ => return Some(Overlay::Diff(view)),
        };
        view.apply(m, page);
        Some(Overlay::Diff(view))
    }
}

impl App {
    /// `S` in the diff view: every comment into the task as one bracketed
    /// paste, then Enter. Refused while the agent works or needs you. A
    /// remote task (issue 29) gets the same bytes through its host's
    /// `send`; the view stays until the host answers.
    fn send_comments(&mut self, mut view: DiffView) -> Option<Overlay> {
        let badge = self.view_badge(&view);
        if let Some(why) = send_refusal(view.comments.is_empty(), badge.as_ref()) {
            view.note = Some(why.to_owned());
            return Some(Overlay::Diff(view));
        }
        let text = comments_paste(&view);
        if let Some((host, number)) = self.remote_of(&view) {
            let request = Request::Send {
                task: number.to_string(),
                text,
                enter: true,
            };
            if self.act(host, number, HostAction::Send, request) {
                view.note = Some("Sending...".into());
            }
            return Some(Overlay::Diff(view));
        }
        let id = termic_runtime::TaskId(view.task);
        let sent = self
            .runtime
            .write_input(id, text.as_bytes())
            .and_then(|()| self.runtime.write_input(id, b"\r"));
        match sent {
            Ok(()) => {
                self.message = Some(Message::info(sent_text(&view)));
                None
            }
            Err(e) => {
                view.note = Some(format!("Not sent: {e}"));
                Some(Overlay::Diff(view))
            }
        }
    }

    /// The remote task (host, number) the view is of, if it is one.
    pub(crate) fn remote_of(&self, view: &DiffView) -> Option<(String, u64)> {
        (view.task == super::remote_pane::REMOTE)
            .then(|| self.host_actions.diff.clone())
            .flatten()
    }

    /// A host answered the diff view's request (issue 29): the open view
    /// of that task says it, else the message line.
    pub(crate) fn on_remote_review(&mut self, reply: &HostReply) {
        let page = crate::ui::diff::page_rows(self.size.1);
        let ours = self.host_actions.diff.as_ref() == Some(&(reply.host.clone(), reply.number));
        let Some(Overlay::Diff(mut view)) = self.overlay.take_if(|o| {
            ours && matches!(o, Overlay::Diff(v) if v.task == super::remote_pane::REMOTE)
        }) else {
            if let Some(text) = remote_review_text(reply) {
                self.message = Some(Message::info(text));
            }
            return;
        };
        self.needs_draw = true;
        let shown = |why: &str| crate::printed::clean_line(why).into_owned();
        match (reply.action, &reply.answer) {
            (HostAction::Changes, answer) if view.refreshing => match answer {
                Ok(Response::Changes(changes)) => view.replace(changes.clone(), page),
                other => {
                    view.refreshing = false;
                    if let Content::Failed(why) = super::remote_actions::diff_content(other) {
                        view.note = Some(format!("Cannot read the changes again: {why}"));
                    }
                }
            },
            (HostAction::Changes, answer) => {
                view.content = super::remote_actions::diff_content(answer);
            }
            (HostAction::Send, Ok(_)) => {
                self.message = Some(Message::info(sent_text(&view)));
                return;
            }
            (HostAction::Send, Err(why)) => view.note = Some(format!("Not sent: {}", shown(why))),
            (HostAction::Revert, answer) => {
                view.note = remote_review_text(reply);
                if answer.is_ok() {
                    self.refresh_diff(&mut view);
                }
            }
            (HostAction::Merge, answer) => {
                let (text, removal) = super::merge::remote_merged(answer);
                self.overlay = Some(Overlay::Diff(view));
                return self.on_merged(super::remote_pane::REMOTE, text, removal);
            }
            (HostAction::RemoveMerged, Ok(_)) => {
                self.message = remote_review_text(reply).map(Message::info);
                return;
            }
            (HostAction::RemoveMerged, Err(why)) => {
                view.note = Some(format!("Not removed: {}", shown(why)));
            }
            _ => {}
        }
        self.overlay = Some(Overlay::Diff(view));
    }
}

/// What the diff view says when its task's turn ended while the user
/// types a comment or answers a revert.
pub const TURN_ENDED_R: &str = "The task's turn ended: R reads its changes again.";

/// What an open diff view does when its task's turn ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtTurnEnd {
    /// No changes shown yet (they are being read, or could not be).
    Nothing,
    /// Read the changes again.
    Reload,
    /// The user is typing a comment or answering a revert: the view says
    /// R reads them ([`TURN_ENDED_R`]), and changes nothing under them.
    SayR,
}

/// What `view` does at its task's turn end (pure; a local task's and a
/// remote one's alike).
pub fn at_turn_end(view: &DiffView) -> AtTurnEnd {
    match view.changes() {
        None => AtTurnEnd::Nothing,
        Some(_) if view.editing.is_some() || view.confirm.is_some() => AtTurnEnd::SayR,
        Some(_) => AtTurnEnd::Reload,
    }
}

/// Whether remote task `number` of `host` ended a turn among `notes`, the
/// board's notes since the app last looked (pure): a change of its row to
/// done. Notes, not the row now: a turn that began and ended between two
/// looks still counts.
pub fn remote_turn_ended(notes: &[super::remote_hosts::Note], (host, number): (&str, u64)) -> bool {
    notes
        .iter()
        .any(|n| n.state == "done" && n.host == host && n.number == number)
}

/// Why the comments are not sent now, if so (pure): none yet, or the
/// task's badge (a local task's, or a remote one's from its host's row).
pub fn send_refusal(empty: bool, badge: Option<&Badge>) -> Option<&'static str> {
    match badge {
        _ if empty => Some("No comments yet: c comments on the line or hunk under the cursor."),
        None | Some(Badge::Exited(_)) => Some("The task has exited: nothing to send to."),
        Some(Badge::Working) => Some("The agent is working. Send when it is done."),
        Some(Badge::NeedsYou { .. }) => Some("The agent needs you. Answer it first, then send."),
        Some(_) => None,
    }
}

/// The view's comments as the bytes typed into the task (pure): one
/// bracketed paste whatever the agent's mode, so the newlines inside do
/// not submit; ESC and other controls are cleaned out, so nothing inside
/// can end it. The agent's submit key (Enter) follows on its own.
pub fn comments_paste(view: &DiffView) -> String {
    let text = termic_signal::text::clean_lines(&view.prompt()).into_owned();
    let modes = crate::input::InputModes {
        bracketed_paste: true,
        ..Default::default()
    };
    String::from_utf8_lossy(&crate::input::encode_paste(&text, &modes)).into_owned()
}

/// "Sent 2 comments to NAME." (pure).
fn sent_text(view: &DiffView) -> String {
    let n = view.comments.len();
    let s = if n == 1 { "" } else { "s" };
    format!("Sent {n} comment{s} to {}.", view.name)
}

/// What a revert did (pure): `Ok(true)` staged and in the file.
pub fn reverted_text(path: &str, result: Result<bool, String>) -> String {
    let path = crate::printed::clean_line(path);
    match result {
        Ok(false) => format!("Reverted the hunk in {path}."),
        Ok(true) => format!("Reverted the hunk in {path} (staged and in the file)."),
        Err(e) => format!("Not reverted: {}", crate::printed::clean_line(&e)),
    }
}

/// What a host's answer to a diff view request says (pure), when the
/// view is not there to say it (or for a revert and a removal, always).
pub fn remote_review_text(reply: &HostReply) -> Option<String> {
    use crate::server::protocol::RevertedIn;
    let clean = |s: &str| crate::printed::clean_line(s).into_owned();
    Some(match (reply.action, &reply.answer) {
        (HostAction::Revert, Ok(Response::Reverted(r))) => {
            let staged = match r {
                RevertedIn::WorkTree => "",
                RevertedIn::IndexAndWorkTree => " (staged and in the file)",
            };
            format!("Reverted the hunk on {}{staged}.", clean(&reply.host))
        }
        (HostAction::Revert, Err(e)) => reverted_text("", Err(e.clone())),
        (HostAction::Send, Ok(_)) => "Sent the comments.".to_owned(),
        (HostAction::Send, Err(e)) => format!("Not sent: {}", clean(e)),
        (HostAction::Merge, answer) => super::merge::remote_merged(answer).0,
        (HostAction::RemoveMerged, Ok(Response::Killed { worktree: Some(w) })) => {
            let branch = w.branch.as_deref().map(clean).unwrap_or_default();
            let mut text = format!(
                "Closed the task on {} and removed its worktree {} and branch {branch}.",
                clean(&reply.host),
                clean(&w.path.to_string_lossy())
            );
            if let Some(e) = &w.error {
                text = format!(
                    "Closed the task on {} and removed its worktree: {}",
                    clean(&reply.host),
                    clean(e)
                );
            }
            text
        }
        (HostAction::RemoveMerged, Err(e)) => format!("Not removed: {}", clean(e)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::view::Comment;

    fn reply(action: HostAction, answer: Result<Response, String>) -> HostReply {
        HostReply {
            host: "far".into(),
            number: 2,
            action,
            answer,
        }
    }

    #[test]
    fn comments_wait_for_a_done_agent_local_or_remote_alike() {
        assert!(send_refusal(true, Some(&Badge::Done))
            .unwrap()
            .starts_with("No comments yet"));
        assert_eq!(send_refusal(false, Some(&Badge::Done)), None);
        assert_eq!(send_refusal(false, Some(&Badge::Idle)), None);
        assert_eq!(
            send_refusal(false, Some(&Badge::Working)),
            Some("The agent is working. Send when it is done.")
        );
        assert_eq!(
            send_refusal(false, Some(&Badge::NeedsYou { kind: None })),
            Some("The agent needs you. Answer it first, then send.")
        );
        // A remote row's "exited", or a task no longer listed.
        let row = crate::server::protocol::TaskRow::for_test(2, "t", "claude", "exited");
        let exited = super::super::remote_hosts::badge_of_row(&row);
        assert!(send_refusal(false, Some(&exited))
            .unwrap()
            .contains("exited"));
        assert!(send_refusal(false, None).unwrap().contains("exited"));
        // The same words for a revert, by the server's `revert` too.
        assert!(busy_reason(Some(&Badge::Working), "Revert")
            .unwrap()
            .ends_with("Revert when it is done."));
        assert_eq!(busy_reason(Some(&Badge::Done), "Revert"), None);
    }

    /// Issue 29 with 32 (2026-12-07): at a turn's end an open diff view
    /// reads the changes again, a remote task's as a local one's, unless
    /// the user is typing a comment or answering a revert; a remote task's
    /// turn ends when a note says its row turned done.
    #[test]
    fn a_turns_end_reloads_the_diff_view_unless_the_user_is_typing_or_answering() {
        use crate::app::remote_hosts::Note;
        let mut view = DiffView::new(super::super::remote_pane::REMOTE, "wt on far".into());
        assert_eq!(at_turn_end(&view), AtTurnEnd::Nothing, "still loading");
        view.content = Content::Failed("gone".into());
        assert_eq!(at_turn_end(&view), AtTurnEnd::Nothing);
        view.content = Content::Ready(crate::review::model::Changes::default());
        assert_eq!(at_turn_end(&view), AtTurnEnd::Reload);
        view.confirm = Some((0, 0));
        assert_eq!(at_turn_end(&view), AtTurnEnd::SayR);
        view.confirm = None;
        view.editing = Some((crate::review::view::Row::File(0), "half a comm".into()));
        assert_eq!(at_turn_end(&view), AtTurnEnd::SayR);
        assert!(TURN_ENDED_R.contains("R reads"));

        let note = |host: &str, number: u64, state: &str| Note {
            seq: 1,
            host: host.into(),
            number,
            task: "wt".into(),
            agent: "claude".into(),
            state: state.into(),
            attention: None,
            reason: None,
            choices: Vec::new(),
        };
        let ours = ("far", 2);
        assert!(!remote_turn_ended(&[], ours));
        assert!(remote_turn_ended(&[note("far", 2, "done")], ours));
        // Another task, another host's task of that number, or a change
        // that is no turn's end: no reload.
        for other in [
            note("far", 3, "done"),
            note("near", 2, "done"),
            note("far", 2, "needs_you"),
            note("far", 2, "error"),
        ] {
            assert!(
                !remote_turn_ended(std::slice::from_ref(&other), ours),
                "{other:?}"
            );
        }
        // A turn that ended between two looks counts, whatever came after.
        assert!(remote_turn_ended(
            &[note("far", 2, "done"), note("far", 2, "needs_you")],
            ours
        ));
    }

    #[test]
    fn the_comments_are_one_bracketed_paste_with_no_escape_inside() {
        let mut view = DiffView::new(1, "t".into());
        view.comments.push(Comment {
            row: None,
            path: "a.txt".into(),
            line: Some(2),
            quoted: "agent a".into(),
            text: "fix\x1b[201~ this".into(),
        });
        let paste = comments_paste(&view);
        assert!(paste.starts_with("\x1b[200~"), "{paste:?}");
        assert!(paste.ends_with("\x1b[201~"), "{paste:?}");
        let inside = &paste["\x1b[200~".len()..paste.len() - "\x1b[201~".len()];
        assert!(!inside.contains('\x1b'), "{inside:?}");
        assert!(inside.contains("a.txt line 2"), "{inside:?}");
        assert_eq!(sent_text(&view), "Sent 1 comment to t.");
    }

    #[test]
    fn a_hosts_answers_to_the_diff_view_say_what_was_done_cleaned() {
        use crate::server::protocol::{KilledWorktree, RevertedIn};
        let r = reply(
            HostAction::Revert,
            Ok(Response::Reverted(RevertedIn::IndexAndWorkTree)),
        );
        assert_eq!(
            remote_review_text(&r).unwrap(),
            "Reverted the hunk on far (staged and in the file)."
        );
        let r = reply(
            HostAction::Revert,
            Err("host far: the hunk no longer applies\x1b[2J".into()),
        );
        assert_eq!(
            remote_review_text(&r).unwrap(),
            "Not reverted: host far: the hunk no longer applies[2J"
        );
        let r = reply(
            HostAction::RemoveMerged,
            Ok(Response::Killed {
                worktree: Some(KilledWorktree {
                    path: "/w/wt".into(),
                    branch: Some("termic/wt".into()),
                    removed: true,
                    error: None,
                }),
            }),
        );
        assert_eq!(
            remote_review_text(&r).unwrap(),
            "Closed the task on far and removed its worktree /w/wt and branch termic/wt."
        );
        let r = reply(HostAction::Send, Err("host far: gone".into()));
        assert_eq!(remote_review_text(&r).unwrap(), "Not sent: host far: gone");
        assert_eq!(
            remote_review_text(&reply(HostAction::Rename, Ok(Response::Ok))),
            None
        );
        assert_eq!(
            reverted_text("a\x1b.txt", Ok(false)),
            "Reverted the hunk in a.txt."
        );
    }
}
