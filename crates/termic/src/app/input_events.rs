//! Outer-terminal events applied to the app: keys (to the agent or a prefix
//! command), paste, mouse, focus and resize.

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind,
};

use super::keys::{route_key, KeyRoute, PrefixCommand};
use super::App;
use crate::input::{encode_focus, encode_mouse, encode_paste, InputModes};
use crate::ui::dialog::{ConfirmView, HelpView};
use crate::ui::inspector::InspectorView;
use crate::ui::sidebar;
use crate::ui::Message;
use crate::ui::Overlay;
use termic_runtime::TaskId;
use termic_signal::engine::Key;

impl App {
    pub fn on_event(&mut self, event: Event) {
        if matches!(
            event,
            Event::Key(_) | Event::Paste(_) | Event::Mouse(_) | Event::Resize(..)
        ) {
            self.claim_size();
        }
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Paste(text) => self.on_paste(&text),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::FocusGained | Event::FocusLost => {
                let gained = matches!(event, Event::FocusGained);
                self.outer_focused = gained;
                self.after_focus_change();
                if let Some(id) = self.focused_task() {
                    if let Some(bytes) = encode_focus(gained, &self.input_modes(id)) {
                        self.send(id, bytes);
                    }
                }
            }
            Event::Resize(cols, rows) => self.on_resize(cols, rows),
        }
    }

    pub fn focused_task(&self) -> Option<TaskId> {
        self.tasks.focused_id().map(TaskId)
    }

    /// The focused agent's input modes (from its screen and the runtime).
    pub fn input_modes(&self, id: TaskId) -> InputModes {
        InputModes::of_task(&self.runtime, id)
    }

    fn send(&mut self, id: TaskId, bytes: &[u8]) {
        if let Err(err) = self.runtime.write_input(id, bytes) {
            self.message = Some(Message::error(err.to_string()));
            self.request_draw();
        }
        // A submitted prompt starts a turn: check the hooks still govern it.
        if Key::from_input_bytes(bytes).contains(&Key::Submit) {
            self.wiring_moment(id);
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        if self.overlay.is_some() {
            self.on_overlay_key(key);
            self.request_draw();
            return;
        }
        if std::mem::take(&mut self.jump_pending) {
            if let KeyCode::Char(c) = key.code {
                if let Some(number) = sidebar::jump_number(c, true) {
                    self.on_command(PrefixCommand::Jump(number));
                }
            }
            self.request_draw();
            return;
        }
        let modes = self
            .focused_task()
            .map(|id| self.input_modes(id))
            .unwrap_or_default();
        let route = route_key(&key, &self.prefix, self.prefix_pending, &modes);
        let was_pending = self.prefix_pending;
        self.prefix_pending = false;
        // The prefix clears the last message; a command may set a new one.
        if was_pending || route == KeyRoute::PrefixStarted {
            self.message = None;
            self.request_draw();
        }
        match route {
            // Copy mode takes every key but the prefix.
            KeyRoute::Agent(_) | KeyRoute::Ignored if !was_pending && self.copy.is_some() => {
                self.copy_key(&key);
            }
            KeyRoute::Agent(_) if self.remote_in_focus() => {
                self.send_remote(Event::Key(key));
            }
            KeyRoute::Agent(bytes) => {
                if let Some(id) = self.focused_task() {
                    self.send(id, &bytes);
                }
            }
            KeyRoute::PrefixStarted => self.prefix_pending = true,
            KeyRoute::Command(command) => self.on_command(command),
            KeyRoute::Ignored => {}
        }
    }

    pub fn on_command(&mut self, command: PrefixCommand) {
        // A remote task in the pane: the commands about one task act on
        // its host (issue 29); a split puts it beside a local task.
        if self.remote_in_focus() {
            match command {
                PrefixCommand::Rename
                | PrefixCommand::Restart
                | PrefixCommand::Details
                | PrefixCommand::Diff
                | PrefixCommand::Close
                | PrefixCommand::Inspector => {
                    self.remote_command(command);
                    self.request_draw();
                    return;
                }
                _ => {}
            }
        }
        match command {
            PrefixCommand::NewTask => self.open_new_task(),
            PrefixCommand::Next | PrefixCommand::Previous => {
                self.cycle_focus(command == PrefixCommand::Next);
            }
            PrefixCommand::Jump(number) => {
                // The task with that number, wherever it is listed; a
                // number no task has does nothing (as in tmux).
                if self.tasks.focus_number(number) {
                    self.leave_remote();
                    self.after_focus_change();
                }
            }
            PrefixCommand::JumpLetter => self.jump_pending = true,
            PrefixCommand::AttentionFirst => {
                self.tasks.attention_first = !self.tasks.attention_first;
                self.message = Some(Message::info(if self.tasks.attention_first {
                    "Tasks that need you are listed first."
                } else {
                    "Tasks are listed in the order they started."
                }));
            }
            PrefixCommand::SidebarWidth { wider } => self.resize_sidebar(wider),
            PrefixCommand::Rename => self.open_rename(),
            PrefixCommand::Restart => self.restart_focused(),
            PrefixCommand::Details => self.open_details(),
            PrefixCommand::Diff => self.open_diff(),
            PrefixCommand::Away => {
                self.message =
                    Some(Message::info(self.away_summary.clone().unwrap_or_else(
                        || "Nothing happened while you were away.".to_owned(),
                    )));
            }
            PrefixCommand::CopyMode { page_up } => self.enter_copy_mode(page_up),
            PrefixCommand::Split { stacked } => self.toggle_split(stacked),
            PrefixCommand::Close => {
                if let Some(entry) = self.tasks.focused_entry() {
                    let worktree = entry.worktree.as_ref().map(|p| p.display().to_string());
                    self.overlay = Some(Overlay::Confirm(ConfirmView::close_task(
                        entry.id,
                        &entry.name,
                        worktree.as_deref(),
                    )));
                }
            }
            PrefixCommand::Settings => self.open_settings(),
            PrefixCommand::Inspector => self.open_inspector(),
            PrefixCommand::Help => {
                self.overlay = Some(Overlay::Help(HelpView {
                    prefix: self.prefix.label.clone(),
                }))
            }
            PrefixCommand::Detach => {
                if self.attached {
                    self.detach = true;
                    self.quit = true;
                } else {
                    self.message = Some(Message::info(
                        "This workspace runs its own tasks, so there is nothing to detach from. \
                         Use `termic attach` to run them in the server.",
                    ));
                }
            }
            PrefixCommand::Quit => match self.tasks.running() {
                0 => self.quit = true,
                n => self.overlay = Some(Overlay::Confirm(ConfirmView::quit(n))),
            },
        }
        self.request_draw();
    }

    pub fn open_inspector(&mut self) {
        self.host_actions.inspect = None;
        self.refresh_timelines();
        if let Some(entry) = self.tasks.focused_entry() {
            self.overlay = Some(Overlay::Inspector(InspectorView::new(
                entry.name.clone(),
                entry.agent.clone(),
                entry.timeline.clone(),
            )));
        } else {
            self.message = Some(Message::info("No task to inspect."));
        }
    }

    fn on_paste(&mut self, text: &str) {
        if let Some(Overlay::NewTask(view)) = &mut self.overlay {
            view.name.extend(text.chars().filter(|c| !c.is_control()));
            self.request_draw();
            return;
        }
        if let Some(Overlay::Rename(view)) = &mut self.overlay {
            view.push(text);
            self.request_draw();
            return;
        }
        if self.overlay.is_some() {
            return;
        }
        // A paste goes to the agent and ends copy mode, as typing does in tmux.
        self.exit_copy_mode();
        if self.send_remote(Event::Paste(text.to_owned())) {
            return;
        }
        if let Some(id) = self.focused_task() {
            let bytes = encode_paste(text, &self.input_modes(id));
            self.send(id, &bytes);
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.overlay.is_some() {
            return;
        }
        let layout = self.layout();
        if let Some(id) = self.remote_focus.filter(|_| self.remote_in_focus()) {
            let area = self.task_area(id);
            let (x, y) = (mouse.column, mouse.row);
            if x >= area.x && x < area.right() && y >= area.y && y < area.bottom() {
                // The wheel browses the remote task's history; the rest
                // stays here (the mouse is not sent over the link).
                match (mouse.kind, &mut self.copy) {
                    (MouseEventKind::ScrollUp, Some(copy)) => {
                        copy.scroll(-super::task_basics::WHEEL_LINES)
                    }
                    (MouseEventKind::ScrollDown, Some(copy)) => {
                        copy.scroll(super::task_basics::WHEEL_LINES)
                    }
                    (MouseEventKind::ScrollUp, None) => {
                        self.remote_copy_mode(false);
                    }
                    _ => {}
                }
                self.request_draw();
                return;
            }
        } else if let Some(id) = self.tasks.focused_id() {
            let area = self.task_area(id);
            let (x, y) = (mouse.column, mouse.row);
            if x >= area.x && x < area.right() && y >= area.y && y < area.bottom() {
                self.pane_mouse(&mouse, x - area.x, y - area.y);
                return;
            }
        }
        // A click in the split's other half focuses its task.
        if let (Some(split), MouseEventKind::Down(_)) = (self.split, mouse.kind) {
            for id in [split.first, split.second] {
                let area = self.task_area(id);
                let (x, y) = (mouse.column, mouse.row);
                if x >= area.x && x < area.right() && y >= area.y && y < area.bottom() {
                    if super::remote_pane::is_remote(id) {
                        if let Some((host, number)) = self
                            .remote_panes
                            .get(id)
                            .map(|p| (p.host.clone(), p.number))
                        {
                            self.focus_remote(&host, number);
                        }
                    } else if let Some(index) = self.tasks.index_of(id) {
                        self.leave_remote();
                        self.exit_copy_mode();
                        self.tasks.focus(index);
                        self.after_focus_change();
                    }
                    return;
                }
            }
        }
        // A click on a sidebar entry focuses it.
        if let MouseEventKind::Down(_) = mouse.kind {
            let s = layout.sidebar;
            if mouse.column < s.x + s.width && mouse.row > s.y {
                let per_task = sidebar::rows_per_task(s.width);
                let rows = usize::from(s.height.saturating_sub(1));
                // The hosts' groups under the local tasks, as last drawn.
                let hosts =
                    sidebar::host_rows(&self.host_groups, s.width, rows, self.tasks.entries.len());
                let window = sidebar::Window::new(
                    self.tasks.entries.len(),
                    self.tasks.focused_display(),
                    rows - hosts,
                    per_task,
                );
                let row = usize::from(mouse.row - s.y - 1);
                // A click on a host's task shows it in the pane.
                let top = sidebar::hosts_top(&window, rows - hosts, per_task);
                if hosts > 0 && row >= top {
                    let hit =
                        sidebar::host_task_at(&self.host_groups, s.width, rows - top, row - top);
                    let place = hit.and_then(|(g, t)| {
                        let remote = self.remote.as_ref()?;
                        let board = termic_runtime::lock(&remote.board);
                        let host = board.hosts.get(g)?;
                        Some((host.name.clone(), host.rows.get(t)?.id))
                    });
                    if let Some((host, number)) = place {
                        self.focus_remote(&host, number);
                    }
                    return;
                }
                if let Some(index) = window.task_at(row, per_task) {
                    self.leave_remote();
                    self.exit_copy_mode();
                    self.tasks.focus_display(index);
                    self.after_focus_change();
                }
            }
        }
    }

    /// The mouse in the pane: to the agent when it asked for the mouse (and
    /// copy mode is off); otherwise the wheel scrolls history and a drag
    /// selects, as in tmux.
    fn pane_mouse(&mut self, mouse: &MouseEvent, col: u16, row: u16) {
        let Some(id) = self.focused_task() else {
            return;
        };
        if self.copy.is_none() {
            let modes = self.input_modes(id);
            if modes.mouse_mode != vt100::MouseProtocolMode::None {
                // a screen larger than the pane is shown from an offset
                // (another client's size): the agent hears its own cell
                let area = self.task_area(id.0);
                let (top, left) = self
                    .runtime
                    .with_screen(id, |screen| crate::ui::pane::view_offset(screen, area))
                    .unwrap_or((0, 0));
                if let Some(bytes) = encode_mouse(mouse, col + left, row + top, &modes) {
                    self.send(id, &bytes);
                }
                return;
            }
        }
        match mouse.kind {
            MouseEventKind::ScrollUp => {
                self.enter_copy_mode(false);
                if let Some(copy) = &mut self.copy {
                    copy.scroll(-super::task_basics::WHEEL_LINES);
                }
            }
            MouseEventKind::ScrollDown => {
                if let Some(copy) = &mut self.copy {
                    copy.scroll(super::task_basics::WHEEL_LINES);
                    // Scrolled back to the live screen with nothing
                    // selected: copy mode ends, as tmux's wheel does.
                    if copy.at_bottom() && copy.anchor.is_none() {
                        self.exit_copy_mode();
                    }
                }
            }
            MouseEventKind::Down(MouseButton::Left) => self.drag_from = Some((col, row)),
            MouseEventKind::Drag(MouseButton::Left) => {
                if let Some(from) = self.drag_from {
                    self.enter_copy_mode(false);
                    if let Some(copy) = &mut self.copy {
                        copy.drag(from, (col, row));
                    }
                }
            }
            MouseEventKind::Up(MouseButton::Left) => {
                let dragged = self.drag_from.take().is_some();
                let text = self.copy.as_ref().and_then(|c| c.selected_text());
                if let (true, Some(text)) = (dragged, text) {
                    self.exit_copy_mode();
                    self.copy_text(&text);
                }
            }
            _ => return,
        }
        self.request_draw();
    }

    pub(super) fn on_resize(&mut self, cols: u16, rows: u16) {
        // Copy mode's rows were taken at the old size.
        self.exit_copy_mode();
        self.size = (cols, rows);
        self.resize_tasks();
    }
}
