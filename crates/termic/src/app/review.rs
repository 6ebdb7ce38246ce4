//! What a task changed, in the sidebar and the done notification
//! (issue 32). The stat is read by git on a thread of its own, one at a
//! time per task, when the task goes done; the result comes back on a
//! bounded channel the app's loop waits on. A done notification waits
//! for it at most [`HOLD_DONE_MS`], then goes without it.

use std::collections::{HashMap, HashSet};

use crossbeam_channel::{Receiver, Sender};

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::App;
use crate::notify::{decide, AttentionEvent};
use crate::review::model::Stat;
use crate::review::view::{Content, DiffView, Move};
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
    /// A merge's result, as the view says it (`app::merge`).
    Merged(u64, String),
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
        }
    }
}

impl Stats {
    /// The earliest deadline of a held notification.
    pub fn next_deadline(&self) -> Option<u64> {
        self.held.values().map(|(_, at)| *at).min()
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
            StatResult::Merged(id, text) => return self.on_merged(id, text),
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
    fn refresh_diff(&self, view: &mut DiffView) {
        if view.refreshing {
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
    /// revert (then the view says so, and `R` reads them).
    pub(crate) fn refresh_diff_of(&mut self, id: u64) {
        if !matches!(&self.overlay, Some(Overlay::Diff(v)) if v.task == id) {
            return;
        }
        let Some(Overlay::Diff(mut view)) = self.overlay.take() else {
            return;
        };
        if view.changes().is_some() {
            if view.editing.is_some() || view.confirm.is_some() {
                view.note = Some("The task's turn ended: R reads its changes again.".into());
            } else {
                self.refresh_diff(&mut view);
            }
            self.needs_draw = true;
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
        if let Some(why) = self.busy(view.task, "Revert") {
            view.note = Some(why);
            return;
        }
        let (Some(base), Some(file)) = (
            self.task_base(view.task),
            view.changes().and_then(|c| c.files.get(f)).cloned(),
        ) else {
            return;
        };
        view.note = Some(match revert_hunk(&base.dir, &file, h) {
            Ok(Reverted::WorkTree) => format!("Reverted the hunk in {}.", file.path),
            Ok(Reverted::IndexAndWorkTree) => {
                format!(
                    "Reverted the hunk in {} (staged and in the file).",
                    file.path
                )
            }
            Err(e) => format!("Not reverted: {e}"),
        });
        self.refresh_diff(view);
    }

    /// Why the files of task `id` are not to be changed now, if so.
    fn busy(&mut self, id: u64, what: &str) -> Option<String> {
        use crate::ui::sidebar::Badge;
        match self.tasks.get_mut(id).map(|e| e.badge.clone()) {
            Some(Badge::Working) => Some(format!(
                "The agent is working and may change this file. {what} when it is done."
            )),
            Some(Badge::NeedsYou { .. }) => Some(format!(
                "The agent needs you and its turn is not over. {what} when it is done."
            )),
            _ => None,
        }
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
                if let Some(why) = self.busy(view.task, "Revert") {
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
    /// paste, then Enter. Refused while the agent works or needs you.
    fn send_comments(&mut self, mut view: DiffView) -> Option<Overlay> {
        use crate::ui::sidebar::Badge;
        let badge = self.tasks.get_mut(view.task).map(|e| e.badge.clone());
        let refusal = match badge {
            _ if view.comments.is_empty() => {
                Some("No comments yet: c comments on the line or hunk under the cursor.")
            }
            None | Some(Badge::Exited(_)) => Some("The task has exited: nothing to send to."),
            Some(Badge::Working) => Some("The agent is working. Send when it is done."),
            Some(Badge::NeedsYou { .. }) => {
                Some("The agent needs you. Answer it first, then send.")
            }
            Some(_) => None,
        };
        if let Some(why) = refusal {
            view.note = Some(why.to_owned());
            return Some(Overlay::Diff(view));
        }
        // One bracketed paste whatever the agent's mode, so the newlines
        // inside do not submit; ESC and other controls are cleaned out,
        // so nothing inside can end it.
        let text = termic_signal::text::clean_lines(&view.prompt()).into_owned();
        let modes = crate::input::InputModes {
            bracketed_paste: true,
            ..Default::default()
        };
        let id = termic_runtime::TaskId(view.task);
        let sent = self
            .runtime
            .write_input(id, &crate::input::encode_paste(&text, &modes))
            .and_then(|()| self.runtime.write_input(id, b"\r"));
        match sent {
            Ok(()) => {
                let n = view.comments.len();
                let s = if n == 1 { "" } else { "s" };
                self.message = Some(Message::info(format!(
                    "Sent {n} comment{s} to {}.",
                    view.name
                )));
                None
            }
            Err(e) => {
                view.note = Some(format!("Not sent: {e}"));
                Some(Overlay::Diff(view))
            }
        }
    }
}
