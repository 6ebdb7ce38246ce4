//! Keys inside the overlays (help, confirmations, new task, Settings, the
//! wizard, the Inspector) and what they do.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::services::SettingsAction;
use super::App;
use crate::app::services::{parse_command_line, CommandLine, Program};
use crate::notify::NotifySettings;
use crate::ui::dialog::{ConfirmAction, NewTaskField, NewTaskView};
use crate::ui::inspector::visible_rows;
use crate::ui::settings::{RowAction, SettingsItem, SettingsView};
use crate::ui::Message;
use crate::ui::Overlay;
use termic_runtime::TaskId;

impl App {
    pub(super) fn on_overlay_key(&mut self, key: KeyEvent) {
        let Some(overlay) = self.overlay.take() else {
            return;
        };
        self.overlay = match overlay {
            Overlay::Help(_) => None,
            // A confirmation may lead to another (a refused worktree
            // removal offers --force): keep what `confirm_key` opened.
            Overlay::Confirm(view) => {
                if self.confirm_key(key, view.action.clone()) {
                    Some(Overlay::Confirm(view))
                } else {
                    self.overlay.take()
                }
            }
            Overlay::NewTask(view) => self.new_task_key(key, view),
            Overlay::Settings(view) => self.settings_key(key, view),
            Overlay::Wizard(view) => self.wizard_key(key, view),
            Overlay::Details(_) => None,
            Overlay::Diff(view) => self.diff_key(key, view),
            Overlay::Restore(view) => self.restore_key(key, view),
            Overlay::Rename(mut view) => match key.code {
                KeyCode::Esc => None,
                KeyCode::Enter => {
                    self.rename(view.task, &view.name);
                    None
                }
                KeyCode::Backspace => {
                    view.name.pop();
                    Some(Overlay::Rename(view))
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    view.push(c.encode_utf8(&mut [0; 4]));
                    Some(Overlay::Rename(view))
                }
                _ => Some(Overlay::Rename(view)),
            },
            Overlay::Inspector(mut view) => {
                let rows = visible_rows(self.size.1);
                match key.code {
                    KeyCode::Esc | KeyCode::Char('q') => None,
                    code => {
                        match code {
                            KeyCode::Up => view.scroll_by(-1, rows),
                            KeyCode::Down => view.scroll_by(1, rows),
                            KeyCode::PageUp => view.scroll_by(-(rows as isize), rows),
                            KeyCode::PageDown => view.scroll_by(rows as isize, rows),
                            KeyCode::Home => view.scroll_to_top(),
                            KeyCode::End => view.follow(),
                            _ => {}
                        }
                        Some(Overlay::Inspector(view))
                    }
                }
            }
        };
    }

    /// Returns true when the dialog stays open.
    fn confirm_key(&mut self, key: KeyEvent, action: ConfirmAction) -> bool {
        let answer = match key.code {
            KeyCode::Char(c) => c.to_ascii_lowercase(),
            KeyCode::Esc => 'n',
            _ => return true,
        };
        match (action, answer) {
            (_, 'n') => false,
            (ConfirmAction::Quit, 'y') => {
                self.quit = true;
                false
            }
            (ConfirmAction::CloseTask { task, .. }, 'y') => {
                self.close_task(task, false);
                false
            }
            (
                ConfirmAction::CloseTask {
                    task,
                    has_worktree: true,
                },
                'w',
            ) => {
                self.close_task(task, true);
                false
            }
            (ConfirmAction::ForceRemoveWorktree { path }, 'f') => {
                self.message = Some(match self.services.remove_worktree(&path, true) {
                    Ok(()) => Message::info(format!("Removed the worktree {}.", path.display())),
                    Err(err) => Message::error(crate::printed::error_text(&err)),
                });
                false
            }
            _ => true,
        }
    }

    /// The restore dialog's keys: the dialog while it stays open.
    fn restore_key(
        &mut self,
        key: KeyEvent,
        mut view: crate::ui::restore::RestoreView,
    ) -> Option<Overlay> {
        use crate::server::protocol::RestoreAction;
        use crate::ui::restore::RestoreChoice;
        let (action, tasks) = match view.key(key.code) {
            RestoreChoice::Stay => return Some(Overlay::Restore(view)),
            RestoreChoice::Later => return None,
            RestoreChoice::All => (RestoreAction::Start, Vec::new()),
            RestoreChoice::Forget => (RestoreAction::Forget, Vec::new()),
            RestoreChoice::Picked(tasks) => (RestoreAction::Start, tasks),
        };
        let left = view.items.len() - view.picked_count();
        let restorer = self.restorer.as_ref()?;
        let done = restorer(action, tasks);
        let mut message = restore_message(&done, action);
        if action == RestoreAction::Start && left > 0 && view.picked_count() > 0 {
            let later = match left {
                1 => " 1 task is left for later: termic restore starts it.".to_owned(),
                n => format!(" {n} tasks are left for later: termic restore starts them."),
            };
            message.text.push_str(&later);
        }
        self.message = Some(message);
        None
    }

    pub(super) fn close_task(&mut self, task: u64, remove_worktree: bool) {
        if task == super::remote_pane::REMOTE {
            self.close_remote(remove_worktree);
            return;
        }
        let _ = self.runtime.remove(TaskId(task));
        let launched = termic_runtime::lock(&self.specs).remove(&task);
        // A closed task's snapshot ref goes with it (best effort).
        if let Some(Ok(base)) = launched.as_ref().map(|l| &l.base) {
            let _ = crate::review::drop_base(base);
        }
        if let Some(entry) = self.tasks.remove(task) {
            if let (true, Some(path)) = (remove_worktree, entry.worktree) {
                match self.services.remove_worktree(&path, false) {
                    Ok(()) => {}
                    // git's refusal (uncommitted work): offer the force.
                    Err(err) => match err.downcast_ref::<crate::worktree::WorktreeError>() {
                        Some(crate::worktree::WorktreeError::Remove { reason, .. }) => {
                            self.overlay = Some(Overlay::Confirm(
                                crate::ui::dialog::ConfirmView::worktree_kept(&path, reason),
                            ));
                        }
                        _ => self.message = Some(Message::error(crate::printed::error_text(&err))),
                    },
                }
            }
        }
        self.after_focus_change();
    }

    pub fn open_new_task(&mut self) {
        let view = NewTaskView::new(self.services.agent_choices(), self.services.in_repo());
        self.overlay = Some(Overlay::NewTask(view));
    }

    fn new_task_key(&mut self, key: KeyEvent, mut view: NewTaskView) -> Option<Overlay> {
        match key.code {
            KeyCode::Esc => return None,
            KeyCode::Enter => {
                let mut name = (!view.name.trim().is_empty()).then(|| view.name.trim().to_string());
                let program = if view.is_command() {
                    match parse_command_line(&view.command) {
                        Ok(CommandLine::Words(argv)) => Program::Command(argv),
                        Ok(CommandLine::Shell(line)) => {
                            // Named after what was typed, not after the shell.
                            let first = line.split_whitespace().next().unwrap_or("command");
                            let first = first.rsplit('/').next().unwrap_or(first);
                            name = name.or_else(|| {
                                Some(unique_name(
                                    first,
                                    self.tasks.entries.iter().map(|e| e.name.as_str()),
                                ))
                            });
                            Program::Command(vec![self.services.user_shell(), "-c".into(), line])
                        }
                        Err(message) => {
                            self.message = Some(Message::error(message));
                            view.field = NewTaskField::Command;
                            return Some(Overlay::NewTask(view));
                        }
                    }
                } else {
                    let Some(agent) = view.selected_agent() else {
                        return Some(Overlay::NewTask(view));
                    };
                    Program::Agent(agent.id.clone())
                };
                if let Err(err) = self.launch_program(&program, name.as_deref(), view.worktree, &[])
                {
                    // The dialog stays, with what was typed, so a typo is
                    // fixed and not typed again.
                    self.message = Some(Message::error(crate::printed::error_text(&err)));
                    return Some(Overlay::NewTask(view));
                }
                return None;
            }
            KeyCode::Tab | KeyCode::Down => view.next_field(true),
            KeyCode::BackTab | KeyCode::Up => view.next_field(false),
            KeyCode::Left => view.cycle(false),
            KeyCode::Right => view.cycle(true),
            KeyCode::Backspace if view.text_field().is_some() => {
                view.text_field().map(String::pop);
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                if let Some(text) = view.text_field() {
                    text.push(c);
                } else if c == ' ' {
                    view.cycle(true);
                }
            }
            _ => {}
        }
        Some(Overlay::NewTask(view))
    }

    /// Starts an agent or a command as a new task (the dialog, `termic run`).
    pub fn launch_program(
        &mut self,
        program: &Program,
        name: Option<&str>,
        worktree: bool,
        extra_args: &[String],
    ) -> anyhow::Result<()> {
        let argv = match program {
            Program::Agent(agent) => return self.launch(agent, name, worktree, extra_args),
            Program::Command(argv) => argv,
        };
        let label = crate::agents::command::command_label(argv);
        let name = match name {
            Some(n) => n.to_string(),
            None => unique_name(&label, self.tasks.entries.iter().map(|e| e.name.as_str())),
        };
        let size = self.pty_size();
        let launch = self.services.launch_command(argv, &name, worktree, size)?;
        let kept = launch.worktree.clone();
        let id = self.spawn(launch.spec, launch.worktree, launch.hooks_wired)?;
        self.journal_restore_facts(id, argv, kept.as_deref());
        Ok(())
    }

    /// Starts `agent` as a new task (the new-task dialog and `termic run`).
    /// Without a name the task is named after the agent, numbered when taken.
    /// What a restore starts task `id` from, in the server's journal: the
    /// arguments as asked (not the ones termic adds), its worktree, and
    /// its review base (its snapshot ref and base object, so a restore
    /// diffs from the same base and a server start keeps the ref).
    fn journal_restore_facts(
        &self,
        id: termic_runtime::TaskId,
        args: &[String],
        worktree: Option<&std::path::Path>,
    ) {
        let worktree = worktree.map(|p| p.to_string_lossy().into_owned());
        let (snapshot, review_base) = termic_runtime::lock(&self.specs)
            .get(&id.0)
            .map(|l| crate::review::kept_of(&l.base))
            .unwrap_or_default();
        let _ = self.runtime.journal_update(id, |r| {
            r.args = Some(args.to_vec());
            r.worktree = worktree;
            r.snapshot = snapshot;
            r.review_base = review_base;
        });
    }

    pub fn launch(
        &mut self,
        agent: &str,
        name: Option<&str>,
        worktree: bool,
        extra_args: &[String],
    ) -> anyhow::Result<()> {
        let name = match name {
            Some(n) => n.to_string(),
            None => unique_name(agent, self.tasks.entries.iter().map(|e| e.name.as_str())),
        };
        let size = self.pty_size();
        let launch = self
            .services
            .launch(agent, &name, worktree, size, extra_args)?;
        let kept = launch.worktree.clone();
        let id = self.spawn(launch.spec, launch.worktree, launch.hooks_wired)?;
        self.journal_restore_facts(id, extra_args, kept.as_deref());
        Ok(())
    }

    pub fn open_settings(&mut self) {
        // Agents rewrite their own configs: status is re-read every time.
        self.refresh_wired();
        let native = self.native_agents();
        let rows = self.services.hooks_rows(&native);
        self.overlay = Some(Overlay::Settings(SettingsView::new(rows, self.notify)));
    }

    fn settings_key(&mut self, key: KeyEvent, mut view: SettingsView) -> Option<Overlay> {
        if let Some(pending) = view.pending.take() {
            if key.code == KeyCode::Char('y') {
                let action = SettingsAction {
                    agent: pending.agent.clone(),
                    action: pending.action,
                };
                view.message = Some(match self.services.apply(&action) {
                    Ok(msg) => msg,
                    Err(err) => crate::printed::error_text(&err),
                });
                view.rows = self.services.hooks_rows(&self.native_agents());
                self.refresh_wired();
            } else if !matches!(key.code, KeyCode::Char('n') | KeyCode::Esc) {
                view.pending = Some(pending);
            }
            return Some(Overlay::Settings(view));
        }
        let item = view.selected_item();
        match (key.code, item) {
            (KeyCode::Esc | KeyCode::Char('q'), _) => return None,
            (KeyCode::Up | KeyCode::Char('k'), _) => view.move_selection(-1),
            (KeyCode::Down | KeyCode::Char('j'), _) => view.move_selection(1),
            (KeyCode::Enter | KeyCode::Char(' '), SettingsItem::Bell) => {
                view.notify.bell = !view.notify.bell;
                self.set_notify(view.notify, &mut view.message);
            }
            (KeyCode::Enter | KeyCode::Char(' '), SettingsItem::Desktop) => {
                view.notify.desktop = !view.notify.desktop;
                self.set_notify(view.notify, &mut view.message);
            }
            (KeyCode::Enter | KeyCode::Char(' '), SettingsItem::OscFallback) => {
                view.notify.osc_fallback = !view.notify.osc_fallback;
                self.set_notify(view.notify, &mut view.message);
            }
            (KeyCode::Enter, SettingsItem::Wizard) => {
                return Some(Overlay::Wizard(self.services.wizard(self.notify)));
            }
            (code, SettingsItem::Agent(i)) => {
                let actions = view.rows[i].actions();
                let wanted = match code {
                    KeyCode::Enter => actions.first().copied(),
                    KeyCode::Char('i') => actions.iter().copied().find(|a| *a != RowAction::Remove),
                    KeyCode::Char('r') => actions.iter().copied().find(|a| *a == RowAction::Remove),
                    _ => None,
                };
                if let Some(action) = wanted {
                    let request = SettingsAction {
                        agent: view.rows[i].agent.clone(),
                        action,
                    };
                    match self.services.plan(&request) {
                        Ok(pending) => view.pending = Some(pending),
                        Err(err) => view.message = Some(crate::printed::error_text(&err)),
                    }
                }
            }
            _ => {}
        }
        Some(Overlay::Settings(view))
    }

    fn wizard_key(
        &mut self,
        key: KeyEvent,
        mut view: crate::ui::wizard::WizardView,
    ) -> Option<Overlay> {
        match key.code {
            KeyCode::Esc => {
                if let Err(err) = self.services.skip_wizard() {
                    self.message = Some(Message::error(crate::printed::error_text(&err)));
                }
                return None;
            }
            KeyCode::Enter | KeyCode::Right if !view.is_last() => view.next(),
            KeyCode::Enter => {
                let result = self.services.finish_wizard(&view);
                self.refresh_wired();
                match result {
                    Ok(msg) => self.message = msg.map(Message::info),
                    Err(err) => {
                        self.message = Some(Message::error(crate::printed::error_text(&err)))
                    }
                }
                self.set_notify_in_use(view.notify);
                return None;
            }
            KeyCode::Left | KeyCode::Backspace => view.back(),
            KeyCode::Up => view.move_selection(-1),
            KeyCode::Down => view.move_selection(1),
            KeyCode::Char(' ') => view.toggle(),
            _ => {}
        }
        Some(Overlay::Wizard(view))
    }

    /// Uses `notify` from now on and stores it.
    fn set_notify(&mut self, notify: NotifySettings, message: &mut Option<String>) {
        self.set_notify_in_use(notify);
        if let Err(err) = self.services.save_notify(notify) {
            *message = Some(crate::printed::error_text(&err));
        }
    }
}

/// `agent`, or `agent-2`, `agent-3`... when a task already has that name.
pub fn unique_name<'a>(agent: &str, taken: impl Iterator<Item = &'a str> + Clone) -> String {
    (1..)
        .map(|n| {
            if n == 1 {
                agent.to_string()
            } else {
                format!("{agent}-{n}")
            }
        })
        .find(|candidate| !taken.clone().any(|t| t == candidate))
        .expect("an unbounded range always finds a free name")
}

/// What the status line says after the restore dialog: how many started,
/// and each one that starts fresh or could not start, and why.
fn restore_message(
    done: &[crate::server::protocol::Restored],
    action: crate::server::protocol::RestoreAction,
) -> Message {
    use crate::server::protocol::RestoreAction;
    if action == RestoreAction::Forget {
        return Message::info(match done.len() {
            1 => "Forgot the task that ended with the server.".to_owned(),
            n => format!("Forgot the {n} tasks that ended with the server."),
        });
    }
    let started = done.iter().filter(|r| r.row.is_some()).count();
    let mut text = match started {
        1 => "Restored 1 task.".to_owned(),
        n => format!("Restored {n} tasks."),
    };
    let mut failed = false;
    for r in done {
        if let Some(error) = &r.error {
            failed = true;
            text.push_str(&format!(" {} was not restored: {error}.", r.name));
        } else if let Some(note) = &r.note {
            text.push_str(&format!(" {}: {note}.", r.name));
        }
    }
    let text = crate::printed::clean_line(&text).into_owned();
    if failed {
        Message::error(text)
    } else {
        Message::info(text)
    }
}

#[cfg(test)]
mod tests {
    use super::unique_name;

    #[test]
    fn default_names_are_numbered_when_taken() {
        assert_eq!(unique_name("claude", [].into_iter()), "claude");
        assert_eq!(
            unique_name("claude", ["claude", "claude-2"].into_iter()),
            "claude-3"
        );
        assert_eq!(unique_name("claude", ["claude-2"].into_iter()), "claude");
    }
}
