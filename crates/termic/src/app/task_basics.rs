//! Rename, restart, details, copy mode and the sidebar's width: what the
//! app does for them, through the task list and the runtime's interface.

use ratatui::crossterm::event::KeyEvent;

use super::clipboard;
use super::copy_mode::{CopyMode, CopyOutcome};
use super::App;
use crate::ui::task_dialogs::{DetailsView, RenameView};
use crate::ui::Message;
use crate::ui::Overlay;
use termic_runtime::{TaskId, TaskStatus};

/// Lines one mouse wheel step scrolls (tmux's default).
pub const WHEEL_LINES: isize = 3;

/// What the user reads when restart is asked of a task still running.
pub fn still_running(name: &str) -> String {
    format!("{name} is still running. Restart is for a task that has exited.")
}

/// Why a restart did not happen.
#[derive(Debug)]
pub enum RestartError {
    Running,
    /// termic did not start it (no spec to start it from).
    NotStarted,
    Spawn(String),
}

impl std::fmt::Display for RestartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RestartError::Running => {
                f.write_str("it is still running; restart is for a task that has exited")
            }
            RestartError::NotStarted => f.write_str("termic did not start it"),
            RestartError::Spawn(why) => f.write_str(why),
        }
    }
}

/// Starts exited task `old` again in its place (the runtime gives it the
/// old one's number): its spec, at `size` when given, under the name the
/// runtime has now (a rename in any client changed it). The workspace's
/// restart and the server's `restart` (protocol 8) share it.
pub fn restart_task(
    runtime: &termic_runtime::Runtime,
    specs: &super::TaskSpecs,
    old: TaskId,
    size: Option<termic_runtime::TermSize>,
) -> Result<TaskId, RestartError> {
    let info = runtime.info(old);
    if info
        .as_ref()
        .is_some_and(|i| i.status == TaskStatus::Running)
    {
        return Err(RestartError::Running);
    }
    let Some(mut launched) = termic_runtime::lock(specs).get(&old.0).cloned() else {
        return Err(RestartError::NotStarted);
    };
    if let Some(size) = size {
        launched.spec.size = size;
    }
    if let Some(info) = info {
        launched.spec.name = info.meta.name;
    }
    let id = runtime
        .spawn_with(launched.spec.clone(), &launched.outputs, Some(old))
        .map_err(|e| RestartError::Spawn(e.to_string()))?;
    let mut specs = termic_runtime::lock(specs);
    specs.remove(&old.0);
    specs.insert(id.0, launched);
    Ok(id)
}

impl App {
    pub fn open_rename(&mut self) {
        if let Some(entry) = self.tasks.focused_entry() {
            let mut view = RenameView::new(entry.id, &entry.name);
            view.name.clear();
            self.overlay = Some(Overlay::Rename(view));
        }
    }

    /// Renames task `task` in the runtime, so every client, `termic ls`
    /// and the verbs' TASK take the new name (each sidebar changes on the
    /// `Renamed` event). An empty name keeps the old one; a name the
    /// runtime refuses says why on the message line.
    pub fn rename(&mut self, task: u64, name: &str) {
        if name.trim().is_empty() {
            return;
        }
        if task == super::remote_pane::REMOTE {
            self.rename_remote(name);
            return;
        }
        match self.runtime.rename(TaskId(task), name) {
            Ok(name) => {
                if let Some(entry) = self.tasks.get_mut(task) {
                    entry.name = super::tasks::shown(&name);
                }
            }
            Err(err) => self.message = Some(Message::error(format!("Not renamed: {err}"))),
        }
        self.request_draw();
    }

    /// Task `old` was replaced by task `new` (a restart, in this client or
    /// another): the split and the last focus follow it to its new id.
    pub(super) fn replaced_task(&mut self, old: u64, new: TaskId) {
        if let Some(split) = &mut self.split {
            for half in [&mut split.first, &mut split.second] {
                if *half == old {
                    *half = new.0;
                }
            }
        }
        if self.last_focused == Some(old) {
            self.last_focused = Some(new.0);
        }
        if self.copy.as_ref().is_some_and(|c| c.task == old) {
            self.copy = None;
        }
    }

    /// Starts an exited task again: the same command, directory, env,
    /// worktree, event log and recording, in its place in the list (the
    /// runtime gives it the old one's number), under its current name.
    pub fn restart_focused(&mut self) {
        let Some(entry) = self.tasks.focused_entry() else {
            return;
        };
        let (old, name) = (entry.id, entry.name.clone());
        if entry.is_running() {
            self.message = Some(Message::warning(still_running(&name)));
            return;
        }
        let size = Some(self.task_size(old));
        match restart_task(&self.runtime, &self.specs, TaskId(old), size) {
            // The row is replaced as any client replaces it on the
            // runtime's event: a fresh entry for the new task, where the
            // old one was.
            Ok(_) => self.adopt_tasks(0),
            Err(RestartError::NotStarted) => {}
            Err(err) => {
                self.message = Some(Message::error(format!("Cannot restart {name}: {err}")))
            }
        }
    }

    /// The details panel for the focused task.
    pub fn open_details(&mut self) {
        let Some(entry) = self.tasks.focused_entry() else {
            self.message = Some(Message::info("No task is open."));
            return;
        };
        let id = TaskId(entry.id);
        let spec = termic_runtime::lock(&self.specs)
            .get(&entry.id)
            .map(|l| l.spec.clone());
        let mut rows: Vec<(String, String)> = Vec::new();
        // Commands, directories and branches come from outside termic.
        let mut row = |label: &str, value: String| {
            rows.push((label.to_string(), super::tasks::shown(&value)))
        };
        row("state", entry.badge.label());
        let agent = match &entry.foreground {
            Some(inner) => format!("{} (running {inner})", entry.agent),
            None => entry.agent.clone(),
        };
        row("agent", agent);
        if let Some(spec) = spec {
            let argv: Vec<String> = spec
                .argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            row("command", shell_words::join(&argv));
            row("directory", spec.cwd.display().to_string());
            row(
                "branch",
                self.services
                    .branch(&spec.cwd)
                    .unwrap_or_else(|| "not a git repository".into()),
            );
        }
        row(
            "worktree",
            entry
                .worktree
                .as_ref()
                .map_or("none".into(), |p| p.display().to_string()),
        );
        row(
            "status from",
            self.status_channel(id, &entry.agent, &entry.profile),
        );
        if let Some(info) = self.runtime.info(id) {
            let pid = match info.status {
                TaskStatus::Running => info.meta.pid.to_string(),
                TaskStatus::Exited(_) => format!("{} (exited)", info.meta.pid),
            };
            row("pid", pid);
        }
        self.overlay = Some(Overlay::Details(DetailsView {
            title: format!("{} ({})", entry.name, entry.agent),
            rows,
        }));
    }

    /// Where this task's state comes from, as the details panel says it.
    fn status_channel(&self, id: TaskId, agent: &str, profile: &str) -> String {
        let native = self
            .runtime
            .with_engine(id, |e| e.native_status_seen())
            .unwrap_or(false);
        let wired = self.wired.get(agent).copied().unwrap_or(false);
        status_channel_words(wired, native, profile).into()
    }

    /// Copy mode over the focused task (a page up when `page_up`).
    pub fn enter_copy_mode(&mut self, page_up: bool) {
        // A remote task's history comes over its link: copy mode opens
        // when it does.
        if self.remote_in_focus() && self.copy.is_none() {
            self.remote_copy_mode(page_up);
            return;
        }
        let id = match self.remote_in_focus() {
            true => self.remote_focus.map(TaskId),
            false => self.focused_task(),
        };
        let Some(id) = id else {
            return;
        };
        if self.copy.as_ref().is_none_or(|c| c.task != id.0) {
            let Some(all) = self.runtime.all_rows(id) else {
                return;
            };
            self.copy = Some(CopyMode::new(id.0, self.copy_keys, all));
        }
        if page_up {
            if let Some(copy) = &mut self.copy {
                let page = copy.view_rows() as isize;
                copy.scroll(-page);
            }
        }
        self.request_draw();
    }

    pub fn exit_copy_mode(&mut self) {
        if self.copy.take().is_some() {
            self.request_draw();
        }
    }

    /// A key in copy mode.
    pub fn copy_key(&mut self, key: &KeyEvent) {
        let Some(copy) = &mut self.copy else {
            return;
        };
        match copy.key(key) {
            CopyOutcome::Stay => {}
            CopyOutcome::Exit => self.copy = None,
            CopyOutcome::Copy(text) => {
                self.copy = None;
                self.copy_text(&text);
            }
        }
        self.request_draw();
    }

    /// Sends `text` to the outer terminal's clipboard and the system's.
    pub fn copy_text(&mut self, text: &str) {
        let mut end = text.len().min(clipboard::COPY_LIMIT);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let text = &text[..end];
        self.pending_out.extend_from_slice(&clipboard::osc52(text));
        let lines = text.lines().count().max(1);
        let what = if lines == 1 {
            format!("{} characters", text.chars().count())
        } else {
            format!("{lines} lines")
        };
        self.message = Some(Message::info(match clipboard::copy_to_system(text) {
            Some(program) => format!("Copied {what} (terminal clipboard and {program})."),
            None => format!("Copied {what} (terminal clipboard)."),
        }));
        self.request_draw();
    }

    /// The status line while copy mode is on, or a jump letter is awaited.
    pub fn mode_line(&self) -> Option<String> {
        if self.jump_pending {
            return Some("jump: press a letter (a is task 10, z is task 35)".into());
        }
        let Some(copy) = self.copy.as_ref() else {
            let remote = self.focused_remote()?;
            let wall = self.clock.wall_ms();
            return remote.status(super::attach::utc_offset_secs(wall));
        };
        if let Some(prompt) = &copy.prompt {
            let mark = if prompt.forward { "/" } else { "?" };
            return Some(format!("search {mark}{}_", prompt.text));
        }
        let keys = match copy.keys {
            super::copy_mode::CopyKeys::Vi => "v select  y copy  / ? search  n N next  q quit",
            super::copy_mode::CopyKeys::Emacs => {
                "C-Space select  M-w copy  C-s C-r search  n N next  q quit"
            }
        };
        let note = copy
            .note
            .as_deref()
            .map(|n| format!("  {n}"))
            .unwrap_or_default();
        Some(format!("copy mode {}  {keys}{note}", copy.position()))
    }

    /// Prefix `<` / `>`: the sidebar one step narrower or wider, every
    /// task's PTY resized to match.
    pub fn resize_sidebar(&mut self, wider: bool) {
        self.sidebar_width = self.sidebar_width.resized(self.size.0, wider);
        let (cols, rows) = self.size;
        self.on_resize(cols, rows);
    }
}

/// Where a task's state comes from, as the details panel words it (pure):
/// `wired` hooks, a `native` status seen, the agent `profile` it runs as.
/// The server answers a host's `details` with the same words.
pub fn status_channel_words(wired: bool, native: bool, profile: &str) -> &'static str {
    let is_agent =
        termic_signal::profile::profile_for(profile).turns == termic_signal::profile::Turns::Agent;
    match (wired, native) {
        (true, true) => "hooks, and native status (OSC 7501)",
        (true, false) => "hooks",
        (false, true) => "native status (OSC 7501)",
        (false, false) if is_agent => "heuristics (no hooks installed)",
        (false, false) => "output activity (a command)",
    }
}
