//! Outer-terminal events applied to the app: keys (to the agent or a prefix
//! command), paste, mouse, focus and resize.

use ratatui::crossterm::event::{Event, KeyEvent, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use super::keys::{route_key, KeyRoute, PrefixCommand};
use super::App;
use crate::input::{encode_focus, encode_mouse, encode_paste, InputModes};
use crate::runtime::TaskId;
use crate::ui::dialog::{ConfirmView, HelpView};
use crate::ui::inspector::InspectorView;
use crate::ui::layout::WorkspaceLayout;
use crate::ui::sidebar;
use crate::ui::Overlay;
use termic_signal::engine::Key;

impl App {
    pub fn on_event(&mut self, event: Event) {
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
        let focus = self.runtime.wants_focus_events(id);
        self.runtime
            .with_screen(id, |screen| InputModes::from_screen(screen, focus))
            .unwrap_or_default()
    }

    fn send(&mut self, id: TaskId, bytes: &[u8]) {
        if let Err(err) = self.runtime.write_input(id, bytes) {
            self.message = Some(err.to_string());
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
        let modes = self
            .focused_task()
            .map(|id| self.input_modes(id))
            .unwrap_or_default();
        let route = route_key(&key, &self.prefix, self.prefix_pending, &modes);
        let was_pending = self.prefix_pending;
        self.prefix_pending = false;
        match route {
            KeyRoute::Agent(bytes) => {
                if let Some(id) = self.focused_task() {
                    self.scroll_to_live();
                    self.send(id, &bytes);
                }
            }
            KeyRoute::PrefixStarted => self.prefix_pending = true,
            KeyRoute::Command(command) => self.on_command(command),
            KeyRoute::Ignored => {}
        }
        if was_pending || self.prefix_pending {
            self.message = None;
            self.request_draw();
        }
    }

    pub fn on_command(&mut self, command: PrefixCommand) {
        match command {
            PrefixCommand::NewTask => self.open_new_task(),
            PrefixCommand::Next | PrefixCommand::Previous => {
                self.tasks.cycle(command == PrefixCommand::Next);
                self.after_focus_change();
            }
            PrefixCommand::Jump(index) => {
                self.tasks.focus(index);
                self.after_focus_change();
            }
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
            PrefixCommand::Scroll { back } => self.scroll(back),
            PrefixCommand::Quit => match self.tasks.running() {
                0 => self.quit = true,
                n => self.overlay = Some(Overlay::Confirm(ConfirmView::quit(n))),
            },
        }
        self.request_draw();
    }

    pub fn open_inspector(&mut self) {
        self.refresh_timelines();
        if let Some(entry) = self.tasks.focused_entry() {
            self.overlay = Some(Overlay::Inspector(InspectorView::new(
                entry.name.clone(),
                entry.agent.clone(),
                entry.timeline.clone(),
            )));
        } else {
            self.message = Some("No task to inspect.".into());
        }
    }

    /// Half a pane up or down through the focused task's history.
    fn scroll(&mut self, back: bool) {
        let Some(id) = self.focused_task() else {
            return;
        };
        let step = usize::from(self.pty_size().rows / 2).max(1);
        let max = self.runtime.history_len(id);
        if let Some(entry) = self.tasks.get_mut(id.0) {
            entry.scroll = if back {
                (entry.scroll + step).min(max)
            } else {
                entry.scroll.saturating_sub(step)
            };
        }
    }

    /// Typing into the agent shows the live screen again.
    fn scroll_to_live(&mut self) {
        if let Some(entry) = self
            .tasks
            .focused
            .and_then(|i| self.tasks.entries.get_mut(i))
        {
            if entry.scroll != 0 {
                entry.scroll = 0;
                self.request_draw();
            }
        }
    }

    fn on_paste(&mut self, text: &str) {
        if let Some(Overlay::NewTask(view)) = &mut self.overlay {
            view.name.extend(text.chars().filter(|c| !c.is_control()));
            self.request_draw();
            return;
        }
        if self.overlay.is_some() {
            return;
        }
        if let Some(id) = self.focused_task() {
            self.scroll_to_live();
            let bytes = encode_paste(text, &self.input_modes(id));
            self.send(id, &bytes);
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.overlay.is_some() {
            return;
        }
        let layout = WorkspaceLayout::new(Rect::new(0, 0, self.size.0, self.size.1));
        if let Some((col, row)) = layout.pane_cell(mouse.column, mouse.row) {
            if let Some(id) = self.focused_task() {
                if let Some(bytes) = encode_mouse(&mouse, col, row, &self.input_modes(id)) {
                    self.send(id, &bytes);
                }
            }
            return;
        }
        // A click on a sidebar entry focuses it.
        if let MouseEventKind::Down(_) = mouse.kind {
            let s = layout.sidebar;
            if mouse.column < s.x + s.width && mouse.row >= s.y {
                let count = self.tasks.entries.len();
                let row = mouse.row - s.y;
                if let Some(index) = sidebar::task_at_row(row, count, self.tasks.focused, s.height)
                {
                    self.tasks.focus(index);
                    self.after_focus_change();
                }
            }
        }
    }

    fn on_resize(&mut self, cols: u16, rows: u16) {
        self.size = (cols, rows);
        let size = self.pty_size();
        for entry in &self.tasks.entries {
            // An exited task has no PTY to resize; nothing to report.
            let _ = self.runtime.resize(TaskId(entry.id), size);
        }
        self.request_draw();
    }
}
