//! The TUI: every screen is a pure render of a view model (no I/O, no clock),
//! so each one is tested by drawing it to ratatui's `TestBackend`.
//!
//! - [`layout`]: where the sidebar, the task pane and the status line go.
//! - [`sidebar`]: the task list with badges ([`sidebar::TaskView`]).
//! - [`pane`]: the focused task's terminal, drawn from its `vt100::Screen`.
//! - [`settings`], [`wizard`], [`inspector`], [`dialog`]: the overlays.
//!
//! `app.rs` owns the state and fills these view models from the runtime, the
//! signal engine and the hooks crate; this module only draws.

pub mod dialog;
pub mod diff;
pub mod inspector;
pub mod layout;
pub mod pane;
pub mod restore;
pub mod settings;
pub mod sidebar;
pub mod task_dialogs;
pub mod wizard;

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use self::sidebar::TaskView;

/// A screen drawn over the workspace. Each variant's state is also its view
/// model: key handling in `app.rs` mutates it, rendering only reads it.
#[derive(Debug)]
pub enum Overlay {
    Help(dialog::HelpView),
    Confirm(dialog::ConfirmView),
    NewTask(dialog::NewTaskView),
    Settings(settings::SettingsView),
    Wizard(wizard::WizardView),
    Inspector(inspector::InspectorView),
    Rename(task_dialogs::RenameView),
    Details(task_dialogs::DetailsView),
    /// A task's changes (issue 32).
    Diff(crate::review::view::DiffView),
    /// The tasks that ended with the server, to pick and restore.
    Restore(restore::RestoreView),
}

/// Everything one frame shows.
pub struct WorkspaceView<'a> {
    /// In display order.
    pub tasks: &'a [TaskView],
    /// The focused task's place in `tasks`.
    pub focused: Option<usize>,
    pub sidebar_width: layout::SidebarWidth,
    /// The focused task's pane, copied from its screen model.
    pub pane: Option<&'a pane::PaneSnapshot>,
    /// The split's other task, in its half.
    pub other_pane: Option<&'a pane::PaneSnapshot>,
    /// Split side by side (`false`) or stacked (`true`).
    pub split: Option<bool>,
    /// Copy mode's line (its keys, position or search prompt), when on.
    pub mode_line: Option<&'a str>,
    pub overlay: Option<&'a Overlay>,
    /// The prefix key as the user would type it, e.g. `Ctrl-]`.
    pub prefix_label: &'a str,
    /// True between the prefix key and the command key.
    pub prefix_pending: bool,
    /// A one-line message (an error, a hint) shown in the status line.
    pub message: Option<&'a Message>,
    /// The remote hosts' tasks, under each host's name (issue 29).
    pub hosts: &'a [sidebar::HostGroup],
}

/// Draws one frame.
pub fn render(frame: &mut Frame, view: &WorkspaceView) {
    let areas = layout::WorkspaceLayout::new(frame.area(), view.sidebar_width);
    sidebar::render_with_hosts(frame, areas.sidebar, view.tasks, view.focused, view.hosts);
    if let Some(stacked) = view.split {
        render_divider(frame, areas.pane, stacked);
    }
    if let Some(other) = view.other_pane {
        other.paint(frame.buffer_mut(), areas.pane);
    }
    match view.pane {
        Some(snapshot) => {
            snapshot.paint(frame.buffer_mut(), areas.pane);
            if view.overlay.is_none() {
                if let Some(pos) = snapshot.cursor {
                    frame.set_cursor_position(pos);
                }
            }
        }
        None => render_empty_pane(frame, areas.pane, view.prefix_label),
    }
    render_status(frame, areas.status, view);
    if let Some(overlay) = view.overlay {
        render_overlay(frame, overlay);
    }
}

fn render_overlay(frame: &mut Frame, overlay: &Overlay) {
    match overlay {
        Overlay::Help(v) => dialog::render_help(frame, v),
        Overlay::Confirm(v) => dialog::render_confirm(frame, v),
        Overlay::NewTask(v) => dialog::render_new_task(frame, v),
        Overlay::Settings(v) => settings::render(frame, v),
        Overlay::Wizard(v) => wizard::render(frame, v),
        Overlay::Inspector(v) => inspector::render(frame, v),
        Overlay::Rename(v) => task_dialogs::render_rename(frame, v),
        Overlay::Details(v) => task_dialogs::render_details(frame, v),
        Overlay::Diff(v) => diff::render(frame, v),
        Overlay::Restore(v) => restore::render(frame, v),
    }
}

/// The line between the split's halves.
fn render_divider(frame: &mut Frame, pane: Rect, stacked: bool) {
    let (first, _) = layout::split_pane(pane, stacked);
    let style = Style::new().add_modifier(Modifier::DIM);
    let buf = frame.buffer_mut();
    if stacked {
        let y = first.bottom();
        for x in pane.left()..pane.right() {
            if y < pane.bottom() {
                buf[(x, y)].set_symbol("─").set_style(style);
            }
        }
    } else {
        let x = first.right();
        for y in pane.top()..pane.bottom() {
            if x < pane.right() {
                buf[(x, y)].set_symbol("│").set_style(style);
            }
        }
    }
}

fn render_empty_pane(frame: &mut Frame, area: Rect, prefix: &str) {
    let text = vec![
        Line::from(""),
        Line::from("No task is open."),
        Line::from(format!(
            "Press {prefix} then n to start one, or {prefix} then ? for help."
        )),
    ];
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
}

/// What the status line tells the user, and what kind of thing it is: the
/// colour says it (an error red, a warning yellow, anything else plain), so
/// "Copied 3 lines" no longer reads as an alarm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: MessageKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// Something the user asked for failed.
    Error,
    /// Something is wrong that the user did not ask about (a config value,
    /// a full disk, a task not reading its input).
    Warning,
    /// Done as asked, or how something works.
    Info,
}

impl Message {
    pub fn error(text: impl Into<String>) -> Message {
        Message {
            kind: MessageKind::Error,
            text: text.into(),
        }
    }

    pub fn warning(text: impl Into<String>) -> Message {
        Message {
            kind: MessageKind::Warning,
            text: text.into(),
        }
    }

    pub fn info(text: impl Into<String>) -> Message {
        Message {
            kind: MessageKind::Info,
            text: text.into(),
        }
    }
}

impl MessageKind {
    fn style(self) -> Style {
        match self {
            MessageKind::Error => Style::new().fg(Color::Red),
            MessageKind::Warning => Style::new().fg(Color::Yellow),
            MessageKind::Info => Style::new(),
        }
    }
}

fn render_status(frame: &mut Frame, area: Rect, view: &WorkspaceView) {
    let hint = if view.prefix_pending {
        Span::styled(
            crate::keymap::hint_bar(),
            Style::new().fg(Color::Black).bg(Color::Yellow),
        )
    } else if let Some(mode) = view.mode_line {
        Span::styled(
            format!(" {mode} "),
            Style::new().fg(Color::Black).bg(Color::Cyan),
        )
    } else {
        Span::styled(
            format!(" {} ? for help ", view.prefix_label),
            Style::new().add_modifier(Modifier::DIM),
        )
    };
    let mut spans = vec![hint];
    if let Some(msg) = view.message {
        spans.push(Span::raw(" "));
        // Messages quote paths and names from outside termic.
        spans.push(Span::styled(
            crate::printed::clean_line(&msg.text).into_owned(),
            msg.kind.style(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Rows `line` takes when wrapped to `width` columns (a close upper bound:
/// word wrapping can only break earlier, so one spare row is kept by callers).
fn wrapped_rows(line: &Line, width: u16) -> usize {
    let w = usize::from(width.max(1));
    line.width().div_ceil(w).max(1)
}

/// Draws `body` wrapped in `area` with `keys` pinned on the last row, so the
/// way out stays on screen however small the terminal. The body scrolls just
/// enough to keep its line `focus` visible.
pub(crate) fn body_with_keys(
    frame: &mut Frame,
    area: Rect,
    body: Vec<Line<'static>>,
    focus: usize,
    keys: Line<'static>,
) {
    if area.height == 0 {
        return;
    }
    let body_area = Rect::new(area.x, area.y, area.width, area.height - 1);
    let keys_area = Rect::new(area.x, area.y + area.height - 1, area.width, 1);
    let focus_end: usize = body
        .iter()
        .take(focus + 1)
        .map(|l| wrapped_rows(l, area.width))
        .sum();
    let visible = usize::from(body_area.height).saturating_sub(1).max(1);
    let offset = focus_end.saturating_sub(visible);
    let offset = u16::try_from(offset).unwrap_or(u16::MAX);
    frame.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .scroll((offset, 0)),
        body_area,
    );
    frame.render_widget(Paragraph::new(keys), keys_area);
}

/// A centred box of at most `width` x `height` cells, cleared, with a title.
/// Returns the inner area.
pub(crate) fn modal(frame: &mut Frame, title: &str, width: u16, height: u16) -> Rect {
    let area = layout::centered(frame.area(), width, height);
    frame.render_widget(Clear, area);
    let block = Block::new().borders(Borders::ALL).title(Span::styled(
        format!(" {title} "),
        Style::new().add_modifier(Modifier::BOLD),
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

#[cfg(test)]
mod tests {
    use super::testing::{draw, text_lines};
    use super::*;
    use crate::ui::sidebar::Badge;

    fn view<'a>(tasks: &'a [TaskView], pane: Option<&'a pane::PaneSnapshot>) -> WorkspaceView<'a> {
        WorkspaceView {
            tasks,
            focused: Some(0),
            sidebar_width: layout::SidebarWidth::Auto,
            pane,
            other_pane: None,
            split: None,
            mode_line: None,
            overlay: None,
            prefix_label: "Ctrl-]",
            prefix_pending: false,
            message: None,
            hosts: &[],
        }
    }

    #[test]
    fn workspace_puts_sidebar_pane_status_and_cursor_together() {
        let tasks = [TaskView {
            number: 1,
            name: "fix".into(),
            agent: "claude".into(),
            badge: Badge::Working,
            in_state: std::time::Duration::from_secs(4),
            unseen: false,
            stat: None,
        }];
        let mut parser = vt100::Parser::new(
            std::num::NonZeroU16::new(3).unwrap(),
            std::num::NonZeroU16::new(10).unwrap(),
            0,
        );
        parser.process(b"> hi");
        let pane_area =
            layout::WorkspaceLayout::new(Rect::new(0, 0, 60, 4), layout::SidebarWidth::Set(30))
                .pane;
        let snap = pane::PaneSnapshot::capture(parser.screen(), pane_area, true);
        let mut v = view(&tasks, Some(&snap));
        v.sidebar_width = layout::SidebarWidth::Set(30);
        let mut t = draw(60, 4, |f| render(f, &v));
        let lines = text_lines(&t);
        assert_eq!(lines[0], " termic                      │> hi");
        assert_eq!(lines[1], "1 fix                  claude│");
        assert_eq!(lines[2], "  working                  4s│");
        assert_eq!(lines[3], " Ctrl-] ? for help");
        t.backend_mut().assert_cursor_position((34, 0));
    }

    /// The case: 14 tasks at 80x24, the focused one far down, tasks
    /// that need you hidden above and below. Every hidden one is counted.
    #[test]
    fn fourteen_tasks_at_80x24_keep_every_needs_you_in_sight() {
        let tasks: Vec<TaskView> = (1..=14)
            .map(|i| TaskView {
                number: i,
                name: format!("task{i}"),
                agent: "claude".into(),
                badge: if [1, 2, 14].contains(&i) {
                    Badge::NeedsYou { kind: None }
                } else {
                    Badge::Working
                },
                in_state: std::time::Duration::from_secs(5),
                unseen: false,
                stat: None,
            })
            .collect();
        let mut v = view(&tasks, None);
        v.focused = Some(11);
        let t = draw(80, 24, |f| render(f, &v));
        let lines = text_lines(&t);
        let sidebar: Vec<String> = lines[..23]
            .iter()
            .map(|l| l.chars().take(22).collect())
            .collect();
        let want = [
            " termic              │",
            "↑ 2 more, 2 need you │",
            " 3 task3       claude│",
            "  working          5s│",
            " 4 task4       claude│",
            "  working          5s│",
            " 5 task5       claude│",
            "  working          5s│",
            " 6 task6       claude│",
            "  working          5s│",
            " 7 task7       claude│",
            "  working          5s│",
            " 8 task8       claude│",
            "  working          5s│",
            " 9 task9       claude│",
            "  working          5s│",
            "10 task10      claude│",
            "  working          5s│",
            "11 task11      claude│",
            "  working          5s│",
            "12 task12      claude│",
            "  working          5s│",
            "↓ 2 more, 1 needs you│",
        ];
        assert_eq!(sidebar, want, "{}", lines.join("\n"));
        // The agent gets 58 of 80 columns.
        assert_eq!(
            layout::WorkspaceLayout::pty_size(80, 24, layout::SidebarWidth::Auto),
            (23, 58)
        );
    }

    #[test]
    fn a_split_draws_both_tasks_and_a_divider() {
        let screen = |text: &[u8], rows: u16, cols: u16| {
            let nz = |n| std::num::NonZeroU16::new(n).unwrap();
            let mut p = vt100::Parser::new(nz(rows), nz(cols), 0);
            p.process(text);
            p
        };
        let pane =
            layout::WorkspaceLayout::new(Rect::new(0, 0, 80, 6), layout::SidebarWidth::Auto).pane;
        let (left, right) = layout::split_pane(pane, false);
        let a = screen(b"left task", left.height, left.width);
        let b = screen(b"right task", right.height, right.width);
        let focused = pane::PaneSnapshot::capture(a.screen(), left, true);
        let other = pane::PaneSnapshot::capture(b.screen(), right, false);
        let mut v = view(&[], Some(&focused));
        v.other_pane = Some(&other);
        v.split = Some(false);
        let mut t = draw(80, 6, |f| render(f, &v));
        let lines = text_lines(&t);
        // 58 pane columns: 28 for the focused task, the divider, 29.
        assert_eq!(
            lines[0],
            format!(
                " termic              │left task{}│right task",
                " ".repeat(19)
            ),
        );
        assert!(lines[3].ends_with('│'), "{lines:#?}");
        t.backend_mut().assert_cursor_position((31, 0));
    }

    /// Issue 33 item 12: every message was red, "Copied ..." included.
    #[test]
    fn a_message_is_coloured_by_its_kind() {
        for (message, fg) in [
            (Message::error("cannot write input"), Color::Red),
            (Message::warning("config.toml:2: wrong"), Color::Yellow),
            (Message::info("Copied 3 lines"), Color::Reset),
        ] {
            let mut v = view(&[], None);
            v.message = Some(&message);
            let t = draw(80, 3, |f| render(f, &v));
            let status = &text_lines(&t)[2];
            let col = status.find(message.text.as_str()).expect("shown") as u16;
            assert_eq!(t.backend().buffer()[(col, 2)].fg, fg, "{}", message.text);
        }
    }

    #[test]
    fn status_line_shows_prefix_copy_mode_and_messages() {
        let mut v = view(&[], None);
        v.prefix_pending = true;
        let message = Message::error("cannot write input");
        v.message = Some(&message);
        let t = draw(180, 3, |f| render(f, &v));
        let status = &text_lines(&t)[2];
        assert!(status.contains(" n new  x close"), "{status}");
        assert!(status.ends_with("cannot write input"), "{status}");
        v.prefix_pending = false;
        v.mode_line = Some("copy mode [3/40]");
        let t = draw(180, 3, |f| render(f, &v));
        assert!(text_lines(&t)[2].starts_with(" copy mode [3/40]"));
        let body = text_lines(&t).join("\n");
        assert!(body.contains("No task is open."), "{body}");
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for render tests: draw to a `TestBackend`, read the text back.
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    pub fn draw(
        width: u16,
        height: u16,
        f: impl FnOnce(&mut ratatui::Frame),
    ) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(f).unwrap();
        terminal
    }

    /// The buffer as one string per row, trailing spaces trimmed.
    pub fn text_lines(terminal: &Terminal<TestBackend>) -> Vec<String> {
        let buf = terminal.backend().buffer();
        (0..buf.area.height)
            .map(|y| {
                let mut s = String::new();
                let mut skip = 0;
                for x in 0..buf.area.width {
                    if skip > 0 {
                        skip -= 1;
                        continue;
                    }
                    let symbol = buf[(x, y)].symbol();
                    skip = ratatui::text::Span::raw(symbol).width().saturating_sub(1);
                    s.push_str(symbol);
                }
                s.trim_end().to_string()
            })
            .collect()
    }

    pub fn text(terminal: &Terminal<TestBackend>) -> String {
        text_lines(terminal).join("\n")
    }
}
