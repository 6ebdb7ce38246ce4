//! The task list: name, agent, state badge and time in that state.

use std::time::Duration;

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

/// A task's state as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Badge {
    Idle,
    Working,
    /// `kind` is what the agent is blocked on when it said (`permission`, `question`).
    NeedsYou {
        kind: Option<String>,
    },
    Done,
    Interrupted,
    /// The agent stopped on an API error it gave up on (`rate limited`, ...).
    Error(termic_signal::stop::StopReason),
    /// The agent process ended with this exit code (`None`: a signal ended it).
    Exited(Option<i32>),
}

impl Badge {
    pub fn label(&self) -> String {
        match self {
            Badge::Idle => "idle".into(),
            Badge::Working => "working".into(),
            Badge::NeedsYou { kind: Some(kind) } => format!("needs you [{kind}]"),
            Badge::NeedsYou { kind: None } => "needs you".into(),
            Badge::Done => "done".into(),
            Badge::Interrupted => "interrupted".into(),
            Badge::Error(reason) => format!("error: {reason}"),
            Badge::Exited(Some(code)) => format!("exited {code}"),
            Badge::Exited(None) => "exited (signal)".into(),
        }
    }

    pub fn style(&self) -> Style {
        match self {
            Badge::Idle => Style::new().add_modifier(Modifier::DIM),
            Badge::Working => Style::new().fg(Color::Yellow),
            Badge::NeedsYou { .. } => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Badge::Done => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            Badge::Interrupted => Style::new().fg(Color::Magenta),
            Badge::Error(_) => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Badge::Exited(Some(0)) => Style::new().add_modifier(Modifier::DIM),
            Badge::Exited(_) => Style::new().fg(Color::Red),
        }
    }
}

/// One sidebar entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskView {
    pub name: String,
    /// Agent id (`claude`, or a config-defined id).
    pub agent: String,
    pub badge: Badge,
    /// How long the task has been in `badge`'s state.
    pub in_state: Duration,
    /// Set when the task reached needs-you or done while nobody watched it,
    /// cleared when the user focuses it.
    pub unseen: bool,
}

/// `12s`, `3m`, `2h`, `4d`: short enough for the sidebar.
pub fn short_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

pub fn render(frame: &mut Frame, area: Rect, tasks: &[TaskView], focused: Option<usize>) {
    let block = Block::new().borders(Borders::RIGHT).title(Span::styled(
        " termic ",
        Style::new().add_modifier(Modifier::BOLD),
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let first = first_visible(tasks.len(), focused, area.height);
    let mut lines = Vec::with_capacity(tasks.len() * 2);
    for (i, task) in tasks.iter().enumerate().skip(first) {
        let is_focused = focused == Some(i);
        lines.push(title_line(i, task, is_focused, width));
        lines.push(badge_line(task, width));
    }
    if tasks.is_empty() {
        lines.push(Line::styled(
            "no tasks",
            Style::new().add_modifier(Modifier::DIM),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The first task the sidebar shows in `height` rows (title row included),
/// so the focused one is always visible. Two rows per task.
pub fn first_visible(count: usize, focused: Option<usize>, height: u16) -> usize {
    let capacity = (usize::from(height.saturating_sub(1)) / 2).max(1);
    let focused = focused.unwrap_or(0).min(count.saturating_sub(1));
    (focused + 1).saturating_sub(capacity)
}

/// The task under sidebar row `row` (0 = the title row), if any.
pub fn task_at_row(row: u16, count: usize, focused: Option<usize>, height: u16) -> Option<usize> {
    let index = first_visible(count, focused, height) + usize::from(row.checked_sub(1)?) / 2;
    (index < count).then_some(index)
}

fn title_line(index: usize, task: &TaskView, focused: bool, width: usize) -> Line<'static> {
    let number = if index < 9 {
        format!("{}", index + 1)
    } else {
        " ".into()
    };
    let marker = if task.unseen { "*" } else { " " };
    let left = format!("{number}{marker}{}", task.name);
    let text = spread(&left, &task.agent, width);
    let mut style = Style::new().add_modifier(Modifier::BOLD);
    if focused {
        style = style.add_modifier(Modifier::REVERSED);
    }
    Line::styled(text, style)
}

fn badge_line(task: &TaskView, width: usize) -> Line<'static> {
    let label = task.badge.label();
    let time = short_duration(task.in_state);
    let room = width.saturating_sub(2 + time.len() + 1);
    let label = truncate(&label, room);
    let gap = width.saturating_sub(2 + label.chars().count() + time.len());
    Line::from(vec![
        Span::raw("  "),
        Span::styled(label, task.badge.style()),
        Span::raw(" ".repeat(gap)),
        Span::styled(time, Style::new().add_modifier(Modifier::DIM)),
    ])
}

/// `left` and `right` on one line of `width`, `left` truncated first.
fn spread(left: &str, right: &str, width: usize) -> String {
    let right = truncate(right, width / 2);
    let room = width.saturating_sub(right.chars().count() + 1);
    let left = truncate(left, room);
    let gap = width.saturating_sub(left.chars().count() + right.chars().count());
    format!("{left}{}{right}", " ".repeat(gap))
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    if max > 0 {
        out.push('~');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text_lines};

    fn task(name: &str, agent: &str, badge: Badge, secs: u64) -> TaskView {
        TaskView {
            name: name.into(),
            agent: agent.into(),
            badge,
            in_state: Duration::from_secs(secs),
            unseen: false,
        }
    }

    #[test]
    fn every_badge_state_renders_with_its_time() {
        let tasks = vec![
            task("fix-login", "claude", Badge::Working, 12),
            task(
                "tests",
                "opencode",
                Badge::NeedsYou {
                    kind: Some("permission".into()),
                },
                75,
            ),
            task("docs", "grok", Badge::NeedsYou { kind: None }, 3),
            task("bench", "codex", Badge::Done, 7200),
            task("spike", "agy", Badge::Interrupted, 1),
            task("shell", "sh", Badge::Exited(Some(2)), 0),
            task("killed", "sh", Badge::Exited(None), 0),
            task("new", "claude", Badge::Idle, 100_000),
        ];
        let t = draw(30, 18, |f| render(f, f.area(), &tasks, Some(0)));
        let lines = text_lines(&t);
        let expected = [
            "1 fix-login            claude│",
            "  working                 12s│",
            "2 tests              opencode│",
            "  needs you [permission]   1m│",
            "3 docs                   grok│",
            "  needs you                3s│",
            "4 bench                 codex│",
            "  done                     2h│",
            "5 spike                   agy│",
            "  interrupted              1s│",
            "6 shell                    sh│",
            "  exited 2                 0s│",
            "7 killed                   sh│",
            "  exited (signal)          0s│",
            "8 new                  claude│",
            "  idle                     1d│",
        ];
        assert_eq!(lines[0], " termic                      │");
        for (i, want) in expected.iter().enumerate() {
            assert_eq!(lines[i + 1], *want, "row {}", i + 1);
        }
    }

    #[test]
    fn focused_task_is_reversed_and_needs_you_is_red() {
        let tasks = vec![
            task("a", "claude", Badge::Working, 1),
            task("b", "claude", Badge::NeedsYou { kind: None }, 1),
        ];
        let t = draw(30, 5, |f| render(f, f.area(), &tasks, Some(1)));
        let buf = t.backend().buffer();
        assert!(!buf[(0, 1)].modifier.contains(Modifier::REVERSED));
        assert!(buf[(0, 3)].modifier.contains(Modifier::REVERSED));
        assert_eq!(buf[(2, 4)].fg, Color::Red);
        assert_eq!(buf[(2, 2)].fg, Color::Yellow);
    }

    #[test]
    fn unseen_marker_and_long_names_are_truncated() {
        let mut t1 = task("a-very-long-task-name-indeed", "claude", Badge::Done, 1);
        t1.unseen = true;
        let t = draw(30, 3, |f| render(f, f.area(), &[t1], None));
        assert_eq!(text_lines(&t)[1], "1*a-very-long-task-na~ claude│");
    }

    #[test]
    fn the_focused_task_stays_visible_when_the_list_is_long() {
        let tasks: Vec<_> = (0..12)
            .map(|i| task(&format!("t{i}"), "claude", Badge::Idle, 1))
            .collect();
        // 9 rows: the title and 4 tasks.
        let t = draw(30, 9, |f| render(f, f.area(), &tasks, Some(10)));
        let lines = text_lines(&t);
        assert!(lines[1].starts_with("8 t7"), "{lines:?}");
        assert!(lines[7].starts_with("  t10"), "{lines:?}");
        assert_eq!(first_visible(12, Some(2), 9), 0);
        assert_eq!(task_at_row(1, 12, Some(10), 9), Some(7));
        assert_eq!(task_at_row(8, 12, Some(10), 9), Some(10));
        assert_eq!(task_at_row(0, 12, Some(10), 9), None);
        assert_eq!(task_at_row(3, 1, Some(0), 9), None);
    }

    #[test]
    fn short_durations() {
        assert_eq!(short_duration(Duration::from_secs(59)), "59s");
        assert_eq!(short_duration(Duration::from_secs(60)), "1m");
        assert_eq!(short_duration(Duration::from_secs(3600)), "1h");
    }
}
