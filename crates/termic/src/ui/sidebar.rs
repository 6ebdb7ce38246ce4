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
    /// The agent stopped on an API error it gave up on (`auth failed`,
    /// ...); `None`: a remote host's task whose host named no reason this
    /// termic knows (an older or a newer termic there).
    Error(Option<termic_signal::stop::StopReason>),
    /// The agent stopped on a usage limit: until the reset time it named,
    /// when it named one. Not done, not an error.
    RateLimited(Option<termic_signal::limit::ResetAt>),
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
            Badge::Error(Some(reason)) => format!("error: {reason}"),
            Badge::Error(None) => "error".into(),
            Badge::RateLimited(Some(until)) => format!("rate limited until {until}"),
            Badge::RateLimited(None) => "rate limited".into(),
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
            Badge::RateLimited(_) => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Badge::Exited(Some(0)) => Style::new().add_modifier(Modifier::DIM),
            Badge::Exited(_) => Style::new().fg(Color::Red),
        }
    }
}

/// One sidebar entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskView {
    /// The task's number: its label here, its jump key, what the CLI takes.
    pub number: u32,
    pub name: String,
    /// Agent id (`claude`, or a config-defined id).
    pub agent: String,
    pub badge: Badge,
    /// How long the task has been in `badge`'s state.
    pub in_state: Duration,
    /// Set when the task reached needs-you or done while nobody watched it,
    /// cleared when the user focuses it.
    pub unseen: bool,
    /// What the task changed, `+12 -3, 2 files` (issue 32).
    pub stat: Option<String>,
}

/// A remote host's tasks under its name (issue 29).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostGroup {
    pub name: String,
    /// Why its tasks may be stale: `connecting`, `disconnected since
    /// 14:07`, `unreachable: ...`; `None` while connected.
    pub status: Option<String>,
    pub tasks: Vec<HostTask>,
}

/// One remote task in the sidebar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTask {
    /// Its number on its host (`HOST:N` in the CLI).
    pub number: u64,
    pub name: String,
    pub agent: String,
    pub badge: Badge,
    /// How long it has been in that state, by its host's clock.
    pub in_state: Duration,
    /// Shown in the pane now.
    pub focused: bool,
}

/// The rows the hosts' groups take at the bottom of a sidebar `rows`
/// high (title excluded) over `local_tasks` local tasks: everything they
/// need when it fits, else what the local tasks leave, but never less than
/// half the rows (the local list then scrolls, as it does alone).
pub fn host_rows(groups: &[HostGroup], width: u16, rows: usize, local_tasks: usize) -> usize {
    if groups.is_empty() {
        return 0;
    }
    let want = host_lines(groups, width).len();
    let local = local_tasks * rows_per_task(width);
    want.min(rows.saturating_sub(local).max(rows / 2))
}

/// The row (under the title) where the hosts' groups start, under the
/// local list drawn in `window` over `rows` rows: a blank row after the
/// local lines, as [`render_with_hosts`] draws it. Pure.
pub fn hosts_top(window: &Window, rows: usize, per_task: usize) -> usize {
    let body = window.shown * per_task;
    let markers = usize::from(window.above > 0) + usize::from(window.below > 0);
    let lines = if body + markers > rows && markers > 0 {
        1 + body.min(rows.saturating_sub(1))
    } else {
        let mut n = usize::from(window.above > 0) + body;
        if window.below > 0 {
            n = n.max(rows.saturating_sub(1)) + 1;
        }
        n
    };
    match lines {
        0 => 0,
        n => (n + 1).min(rows),
    }
}

/// The remote task on line `line` of the hosts' block (0 = its first
/// row), `height` rows high, at sidebar `width`: (group, task) indexes;
/// `None` for a heading, a status, the cut's marker or past the end.
/// Pure, and it counts lines as [`host_lines`] draws them.
pub fn host_task_at(
    groups: &[HostGroup],
    width: u16,
    height: usize,
    line: usize,
) -> Option<(usize, usize)> {
    let compact = is_compact(width);
    let cut = host_lines(groups, width).len() > height;
    if line >= height || (cut && line + 1 >= height) {
        return None;
    }
    let per_task = if compact { 1 } else { 2 };
    let mut at = 0;
    for (g, group) in groups.iter().enumerate() {
        at += 1 + usize::from(group.status.is_some() && !compact);
        for t in 0..group.tasks.len() {
            if line < at {
                return None;
            }
            if line < at + per_task {
                return Some((g, t));
            }
            at += per_task;
        }
    }
    None
}

/// Every line of the hosts' groups, at `width` (the sidebar's); a task's
/// first line carries whether it needs you (for the marker of a cut).
fn host_lines(groups: &[HostGroup], width: u16) -> Vec<(Line<'static>, Option<bool>)> {
    let compact = is_compact(width);
    let width = usize::from(width.saturating_sub(1));
    let mut lines = Vec::new();
    for g in groups {
        let heading = if compact {
            truncate(&g.name, width)
        } else {
            truncate(&format!("@{}", g.name), width)
        };
        lines.push((
            Line::styled(
                heading,
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ),
            None,
        ));
        if let Some(status) = &g.status {
            if !compact {
                lines.push((
                    Line::styled(
                        truncate(&format!(" {status}"), width),
                        Style::new().fg(Color::Red),
                    ),
                    None,
                ));
            }
        }
        for t in &g.tasks {
            let needs_you = Some(t.badge.needs_you());
            if compact {
                lines.push((
                    Line::from(vec![
                        Span::raw(" "),
                        Span::styled(t.badge.mark(), t.badge.style()),
                    ]),
                    needs_you,
                ));
                continue;
            }
            let view = TaskView {
                number: 0,
                name: t.name.clone(),
                agent: t.agent.clone(),
                badge: t.badge.clone(),
                in_state: t.in_state,
                unseen: false,
                stat: None,
            };
            let left = format!("{} {}", t.number, t.name);
            let text = spread(&format!(" {left}"), &t.agent, width);
            let line = match t.focused {
                true => Line::styled(text, Style::new().add_modifier(Modifier::REVERSED)),
                false => Line::raw(text),
            };
            lines.push((line, needs_you));
            lines.push((badge_line(&view, width), None));
        }
    }
    lines
}

/// The hosts' groups in `area` (the rows under the local tasks).
fn render_hosts(frame: &mut Frame, area: Rect, groups: &[HostGroup], width: u16) {
    let mut lines = host_lines(groups, width);
    let rows = usize::from(area.height);
    let mut cut = None;
    if lines.len() > rows {
        // The tasks cut off are counted, and a cut one that needs you
        // turns the marker red, as in the local list.
        let mut hidden = lines.split_off(rows.saturating_sub(1));
        // A task is never cut between its two lines.
        if !is_compact(width) && lines.last().is_some_and(|(_, t)| t.is_some()) {
            hidden.splice(0..0, lines.pop());
        }
        // The marker sits on the last row, as in the local list.
        while lines.len() + 1 < rows {
            lines.push((Line::raw(""), None));
        }
        let tasks = hidden.iter().filter(|(_, t)| t.is_some()).count();
        let needing = hidden.iter().filter(|(_, t)| *t == Some(true)).count();
        cut = Some(match tasks {
            0 => Line::styled("↓", Style::new().add_modifier(Modifier::DIM)),
            _ => marker('↓', tasks, needing, usize::from(area.width)),
        });
    }
    let lines: Vec<Line> = lines.into_iter().map(|(l, _)| l).chain(cut).collect();
    frame.render_widget(Paragraph::new(lines), area);
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

impl Badge {
    /// One character for the badges-only sidebar.
    pub fn mark(&self) -> &'static str {
        match self {
            Badge::Idle => ".",
            Badge::Working => "~",
            Badge::NeedsYou { .. } => "!",
            Badge::Done => "+",
            Badge::Interrupted => "x",
            Badge::Error(_) => "E",
            Badge::RateLimited(_) => "L",
            Badge::Exited(_) => "-",
        }
    }

    pub fn needs_you(&self) -> bool {
        matches!(self, Badge::NeedsYou { .. })
    }
}

/// The key that jumps to task `number` (after the prefix): `1`-`9`, then
/// `'a` to `'z` for tasks 10 to 35. Later tasks have none (Tab reaches
/// them). The key follows the task's number, wherever the task is shown.
pub fn jump_key(number: u32) -> Option<char> {
    match number {
        1..=9 => char::from_digit(number, 10),
        10..=35 => Some((b'a' + (number - 10) as u8) as char),
        _ => None,
    }
}

/// The task number a jump key names: `1`-`9` (`letter` false) or `a`-`z`
/// after `'` (`letter` true).
pub fn jump_number(c: char, letter: bool) -> Option<u32> {
    match (letter, c) {
        (false, '1'..='9') => Some(c as u32 - '0' as u32),
        (true, 'a'..='z') => Some(c as u32 - 'a' as u32 + 10),
        _ => None,
    }
}

/// Which tasks fit in the sidebar's rows and what the markers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First task shown.
    pub first: usize,
    /// Tasks shown.
    pub shown: usize,
    /// Tasks hidden above (a marker row when more than 0).
    pub above: usize,
    /// Tasks hidden below (a marker row when more than 0).
    pub below: usize,
}

impl Window {
    /// The window over `count` tasks, `per_task` rows each, in `rows` rows
    /// (the title row excluded), that shows `focused` and as many tasks
    /// from the top as fit around it. A marker row above or below takes
    /// the place of hidden tasks.
    pub fn new(count: usize, focused: Option<usize>, rows: usize, per_task: usize) -> Window {
        let focused = focused.unwrap_or(0).min(count.saturating_sub(1));
        let fit = |first: usize| {
            let above = usize::from(first > 0);
            let space = rows.saturating_sub(above);
            let rest = count - first;
            if rest * per_task <= space {
                rest
            } else {
                (space.saturating_sub(1) / per_task).max(1)
            }
        };
        let first = (0..count)
            .find(|&first| focused < first + fit(first))
            .unwrap_or(0);
        let shown = fit(first).min(count - first);
        Window {
            first,
            shown,
            above: first,
            below: count - first - shown,
        }
    }

    /// The task under row `row` of the list (0 = the first row under the
    /// title), or `None` for a marker or an empty row.
    pub fn task_at(&self, row: usize, per_task: usize) -> Option<usize> {
        let row = row.checked_sub(usize::from(self.above > 0))?;
        let index = row / per_task;
        (index < self.shown).then_some(self.first + index)
    }
}

/// Rows per task: name and badge, or one row when only badges show.
pub fn rows_per_task(width: u16) -> usize {
    if is_compact(width) {
        1
    } else {
        2
    }
}

fn is_compact(width: u16) -> bool {
    width < crate::ui::layout::SIDEBAR_MIN_FULL
}

/// `tasks` are in display order; `focused` is a display index.
pub fn render(frame: &mut Frame, area: Rect, tasks: &[TaskView], focused: Option<usize>) {
    render_with_hosts(frame, area, tasks, focused, &[]);
}

/// [`render`], with the remote hosts' groups at the bottom (issue 29).
pub fn render_with_hosts(
    frame: &mut Frame,
    area: Rect,
    tasks: &[TaskView],
    focused: Option<usize>,
    hosts: &[HostGroup],
) {
    let compact = is_compact(area.width);
    let title = if compact { "" } else { " termic " };
    let block = Block::new().borders(Borders::RIGHT).title(Span::styled(
        title,
        Style::new().add_modifier(Modifier::BOLD),
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let per_task = rows_per_task(area.width);
    let all_rows = usize::from(area.height.saturating_sub(1));
    let hosts_height = host_rows(hosts, area.width, all_rows, tasks.len());
    let rows = all_rows - hosts_height;
    let window = Window::new(tasks.len(), focused, rows, per_task);
    let needing = |range: &[TaskView]| range.iter().filter(|t| t.badge.needs_you()).count();
    let end = window.first + window.shown;
    // Numbers line up: as wide as the widest one listed.
    let digits = tasks
        .iter()
        .map(|t| t.number.to_string().len())
        .max()
        .unwrap_or(1);
    let mut body = Vec::with_capacity(rows);
    for (i, task) in tasks.iter().enumerate().take(end).skip(window.first) {
        let is_focused = focused == Some(i);
        if compact {
            body.push(compact_line(task, digits, is_focused, width));
        } else {
            body.push(title_line(task, digits, is_focused, width));
            body.push(badge_line(task, width));
        }
    }
    let (above, below) = (&tasks[..window.first], &tasks[end..]);
    let markers = usize::from(window.above > 0) + usize::from(window.below > 0);
    let mut lines = Vec::with_capacity(rows);
    if body.len() + markers > rows && markers > 0 {
        // Too few rows for a marker on each side: one marker says both,
        // and it wins over the focused task's second row.
        let hidden = [above, below].concat();
        lines.push(marker('↕', hidden.len(), needing(&hidden), width));
        body.truncate(rows.saturating_sub(1));
        lines.extend(body);
    } else {
        if window.above > 0 {
            lines.push(marker('↑', above.len(), needing(above), width));
        }
        lines.extend(body);
        if window.below > 0 {
            // The marker sits on the last row, under any spare row.
            while lines.len() + 1 < rows {
                lines.push(Line::raw(""));
            }
            lines.push(marker('↓', below.len(), needing(below), width));
        }
    }
    if tasks.is_empty() && !compact && hosts.is_empty() {
        lines.push(Line::styled(
            "no tasks",
            Style::new().add_modifier(Modifier::DIM),
        ));
    }
    let list = Rect::new(inner.x, area.y + 1, inner.width, rows as u16);
    if hosts_height > 0 {
        // Under the local tasks, a blank row between, as high as the
        // rows left for them.
        let top = match lines.len() {
            0 => 0,
            n => (n + 1).min(rows),
        };
        let at = Rect::new(
            inner.x,
            area.y + 1 + top as u16,
            inner.width,
            (all_rows - top) as u16,
        );
        render_hosts(frame, at, hosts, area.width);
    }
    frame.render_widget(Paragraph::new(lines), list);
}

/// "↑ 3 more, 1 needs you", shortened until it fits `width`; red when a
/// hidden task needs you, so that is never out of sight.
fn marker(arrow: char, hidden: usize, needing: usize, width: usize) -> Line<'static> {
    let candidates: Vec<String> = if needing > 0 {
        let verb = if needing == 1 { "needs" } else { "need" };
        vec![
            format!("{arrow} {hidden} more, {needing} {verb} you"),
            format!("{arrow} {hidden} more, {needing}!"),
            format!("{arrow}{hidden} !{needing}"),
            format!("{arrow}!{needing}"),
            format!("{arrow}!"),
        ]
    } else {
        vec![
            format!("{arrow} {hidden} more"),
            format!("{arrow}{hidden}"),
            format!("{arrow}"),
        ]
    };
    let text = candidates
        .iter()
        .find(|c| c.chars().count() <= width)
        .or(candidates.last())
        .cloned()
        .unwrap_or_default();
    let style = if needing > 0 {
        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
    } else {
        Style::new().add_modifier(Modifier::DIM)
    };
    Line::styled(text, style)
}

/// Badges only: the number, the state mark and the unseen star.
fn compact_line(task: &TaskView, digits: usize, focused: bool, width: usize) -> Line<'static> {
    let key = format!("{:>digits$}", task.number);
    let unseen = if task.unseen { "*" } else { " " };
    let mut key_style = Style::new().add_modifier(Modifier::BOLD);
    if focused {
        key_style = key_style.add_modifier(Modifier::REVERSED);
    }
    let line = Line::from(vec![
        Span::styled(key.clone(), key_style),
        Span::raw(unseen),
        Span::styled(task.badge.mark(), task.badge.style()),
    ]);
    if width < digits + 2 {
        return Line::styled(key, key_style);
    }
    line
}

fn title_line(task: &TaskView, digits: usize, focused: bool, width: usize) -> Line<'static> {
    let number = format!("{:>digits$}", task.number);
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
    // The stat after the label when it fits: whole, or its counts alone.
    let stat = task.stat.as_deref().and_then(|stat| {
        let counts = stat.split(',').next().unwrap_or(stat);
        let free = room.saturating_sub(label.chars().count() + 1);
        [stat, counts]
            .into_iter()
            .find(|s| s.chars().count() <= free)
            .map(|s| format!(" {s}"))
    });
    let stat = stat.unwrap_or_default();
    let gap = width.saturating_sub(2 + label.chars().count() + stat.chars().count() + time.len());
    Line::from(vec![
        Span::raw("  "),
        Span::styled(label, task.badge.style()),
        Span::styled(stat, Style::new().fg(Color::Cyan)),
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
            number: 1,
            name: name.into(),
            agent: agent.into(),
            badge,
            in_state: Duration::from_secs(secs),
            unseen: false,
            stat: None,
        }
    }

    /// Tasks numbered 1, 2, 3... in the order given.
    fn numbered(tasks: Vec<TaskView>) -> Vec<TaskView> {
        tasks
            .into_iter()
            .zip(1..)
            .map(|(t, number)| TaskView { number, ..t })
            .collect()
    }

    fn host(name: &str, status: Option<&str>, tasks: &[(&str, Badge, u64)]) -> HostGroup {
        HostGroup {
            name: name.into(),
            status: status.map(Into::into),
            tasks: tasks
                .iter()
                .zip(1..)
                .map(|((name, badge, secs), number)| HostTask {
                    focused: false,
                    number,
                    name: (*name).into(),
                    agent: "claude".into(),
                    badge: badge.clone(),
                    in_state: Duration::from_secs(*secs),
                })
                .collect(),
        }
    }

    /// Issue 29: each host's tasks under its name, below the local ones,
    /// with their badges and ages; a host that is down says so.
    #[test]
    fn remote_hosts_are_grouped_under_their_names_below_local_tasks() {
        let tasks = numbered(vec![task("fix", "claude", Badge::Working, 12)]);
        let hosts = [
            host(
                "devbox",
                None,
                &[
                    ("build", Badge::NeedsYou { kind: None }, 75),
                    ("lint", Badge::Done, 3),
                ],
            ),
            host("cloud", Some("disconnected since 14:07"), &[]),
        ];
        let t = draw(30, 12, |f| {
            render_with_hosts(f, f.area(), &tasks, Some(0), &hosts)
        });
        let lines = text_lines(&t);
        let expected = [
            "1 fix                  claude│",
            "  working                 12s│",
            "                             │",
            "@devbox                      │",
            " 1 build               claude│",
            "  needs you                1m│",
            " 2 lint                claude│",
            "  done                     3s│",
            "@cloud                       │",
            " disconnected since 14:07    │",
            "                             │",
        ];
        assert_eq!(&lines[1..], &expected, "{lines:#?}");
        // No local task: the hosts take the whole sidebar, no "no tasks".
        let t = draw(30, 12, |f| {
            render_with_hosts(f, f.area(), &[], None, &hosts)
        });
        let lines = text_lines(&t);
        assert!(lines[1].starts_with("@devbox"), "{lines:#?}");
        assert!(!lines.iter().any(|l| l.contains("no tasks")), "{lines:#?}");
        // Too many lines for half the rows: cut, with a marker, and the
        // local task keeps its rows.
        let t = draw(30, 8, |f| {
            render_with_hosts(f, f.area(), &tasks, Some(0), &hosts)
        });
        let lines = text_lines(&t);
        assert!(lines[1].starts_with("1 fix"), "{lines:#?}");
        assert!(lines[7].starts_with("↓ 1 more "), "{lines:#?}");
        // A cut task that needs you is counted in the marker.
        let reversed = [hosts[1].clone(), hosts[0].clone()];
        let t = draw(30, 8, |f| {
            render_with_hosts(f, f.area(), &tasks, Some(0), &reversed)
        });
        let lines = text_lines(&t);
        assert!(lines[7].starts_with("↓ 2 more, 1 needs you"), "{lines:#?}");
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
        let tasks = numbered(tasks);
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
        let tasks = numbered(tasks);
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
    fn the_focused_task_stays_visible_between_markers() {
        let tasks = numbered(
            (0..12)
                .map(|i| task(&format!("t{i}"), "claude", Badge::Idle, 1))
                .collect(),
        );
        // 9 rows: the title, a marker, 3 tasks, a marker.
        let t = draw(30, 9, |f| render(f, f.area(), &tasks, Some(10)));
        let lines = text_lines(&t);
        assert_eq!(lines[1], "↑ 8 more                     │", "{lines:#?}");
        // Every label is the task's number, right-aligned to the widest.
        assert!(lines[2].starts_with(" 9 t8"), "{lines:#?}");
        assert!(lines[4].starts_with("10 t9"), "{lines:#?}");
        assert!(lines[6].starts_with("11 t10"), "{lines:#?}");
        assert_eq!(lines[8], "↓ 1 more                     │", "{lines:#?}");
        let w = Window::new(12, Some(10), 8, 2);
        assert_eq!(
            w,
            Window {
                first: 8,
                shown: 3,
                above: 8,
                below: 1
            }
        );
        assert_eq!(w.task_at(0, 2), None, "the marker row");
        assert_eq!(w.task_at(1, 2), Some(8));
        assert_eq!(w.task_at(6, 2), Some(10));
        assert_eq!(w.task_at(7, 2), None);
        assert_eq!(Window::new(12, Some(2), 8, 2).first, 0);
        assert_eq!(Window::new(1, Some(0), 8, 2).task_at(3, 2), None);
    }

    #[test]
    fn a_hidden_task_that_needs_you_is_always_named_in_a_marker() {
        let needs = |i: usize| {
            let badge = if i % 5 == 0 {
                Badge::NeedsYou { kind: None }
            } else {
                Badge::Working
            };
            task(&format!("t{i}"), "claude", badge, 1)
        };
        let tasks = numbered((0..40).map(needs).collect());
        // Every width from badges only to wide, every focus, every height:
        // the tasks shown plus the markers' counts account for every
        // task that needs you.
        for width in [4u16, 6, 16, 22, 30] {
            for height in [3u16, 5, 9, 24] {
                for focused in [0, 7, 20, 39] {
                    let t = draw(width, height, |f| {
                        render(f, f.area(), &tasks, Some(focused))
                    });
                    let lines = text_lines(&t);
                    let per = rows_per_task(width);
                    let w = Window::new(40, Some(focused), usize::from(height - 1), per);
                    assert!((w.first..w.first + w.shown).contains(&focused));
                    assert_eq!(w.above + w.shown + w.below, 40);
                    let hidden_needing = (0..w.first)
                        .chain(w.first + w.shown..40)
                        .filter(|i| i % 5 == 0)
                        .count();
                    let marked: usize = lines
                        .iter()
                        .filter(|l| l.starts_with(['↑', '↓', '↕']))
                        .map(|l| marker_count(l))
                        .sum();
                    if width >= 6 {
                        assert_eq!(
                            marked, hidden_needing,
                            "{width}x{height} focus {focused}: {lines:#?}"
                        );
                    } else if hidden_needing > 0 {
                        // Three columns: the `!` still shows.
                        assert!(
                            lines
                                .iter()
                                .any(|l| l.starts_with(['↑', '↓', '↕']) && l.contains('!')),
                            "{width}x{height} focus {focused}: {lines:#?}"
                        );
                    }
                }
            }
        }
    }

    /// How many tasks that need you a marker line names.
    fn marker_count(line: &str) -> usize {
        let after = match (line.split_once(", "), line.rsplit_once('!')) {
            (Some((_, rest)), _) => rest,
            (None, Some((_, rest))) => rest,
            (None, None) => return 0,
        };
        after
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0)
    }

    #[test]
    fn badges_only_at_narrow_widths() {
        let mut done = task("b", "claude", Badge::Done, 1);
        done.unseen = true;
        let tasks = vec![
            task("a", "claude", Badge::NeedsYou { kind: None }, 1),
            done,
            task("c", "sh", Badge::Working, 1),
        ];
        let tasks = numbered(tasks);
        let t = draw(6, 5, |f| render(f, f.area(), &tasks, Some(1)));
        let lines = text_lines(&t);
        assert_eq!(&lines[1..4], ["1 !  │", "2*+  │", "3 ~  │"]);
        let buf = t.backend().buffer();
        assert!(buf[(0, 2)].modifier.contains(Modifier::REVERSED));
        assert_eq!(buf[(2, 1)].fg, Color::Red);
    }

    /// Issue 32: a task's stat follows its badge, whole when it fits,
    /// its counts alone when not.
    #[test]
    fn the_stat_follows_the_badge_and_shortens_to_fit() {
        let t = TaskView {
            stat: Some("+12 -3, 2 files".into()),
            ..task("fix", "claude", Badge::Done, 5)
        };
        let wide = draw(34, 4, |f| {
            render(f, f.area(), std::slice::from_ref(&t), Some(0))
        });
        let lines = text_lines(&wide);
        assert!(lines[2].contains("done +12 -3, 2 files"), "{lines:#?}");
        let narrow = draw(20, 4, |f| {
            render(f, f.area(), std::slice::from_ref(&t), Some(0))
        });
        let lines = text_lines(&narrow);
        assert!(lines[2].contains("done +12 -3"), "{lines:#?}");
        assert!(!lines[2].contains("files"), "{lines:#?}");
    }

    /// Issue 28: the label is the task's number, not its row: tasks shown
    /// out of number order (needs-you first) keep theirs, in both widths.
    #[test]
    fn each_task_is_labelled_with_its_number_wherever_it_is_shown() {
        let mut shown = Vec::new();
        for (number, name) in [(3, "c"), (1, "a"), (12, "l")] {
            shown.push(TaskView {
                number,
                ..task(name, "sh", Badge::Idle, 1)
            });
        }
        let t = draw(30, 7, |f| render(f, f.area(), &shown, Some(0)));
        let lines = text_lines(&t);
        assert!(lines[1].starts_with(" 3 c"), "{lines:#?}");
        assert!(lines[3].starts_with(" 1 a"), "{lines:#?}");
        assert!(lines[5].starts_with("12 l"), "{lines:#?}");
        let t = draw(7, 4, |f| render(f, f.area(), &shown, Some(0)));
        let lines = text_lines(&t);
        assert_eq!(&lines[1..4], [" 3 .  │", " 1 .  │", "12 .  │"]);
    }

    #[test]
    fn jump_keys_are_digits_then_letters() {
        assert_eq!(jump_key(0), None);
        assert_eq!(jump_key(1), Some('1'));
        assert_eq!(jump_key(9), Some('9'));
        assert_eq!(jump_key(10), Some('a'));
        assert_eq!(jump_key(35), Some('z'));
        assert_eq!(jump_key(36), None);
        assert_eq!(jump_number('1', false), Some(1));
        assert_eq!(jump_number('9', false), Some(9));
        assert_eq!(jump_number('a', true), Some(10));
        assert_eq!(jump_number('z', true), Some(35));
        assert_eq!(jump_number('a', false), None);
        assert_eq!(jump_number('1', true), None);
        for n in 1..=35 {
            let key = jump_key(n).unwrap();
            assert_eq!(jump_number(key, n >= 10), Some(n), "{n}");
        }
    }

    #[test]
    fn short_durations() {
        assert_eq!(short_duration(Duration::from_secs(59)), "59s");
        assert_eq!(short_duration(Duration::from_secs(60)), "1m");
        assert_eq!(short_duration(Duration::from_secs(3600)), "1h");
    }

    #[test]
    fn a_click_on_a_hosts_block_line_finds_its_task() {
        let task = |number| HostTask {
            number,
            name: format!("t{number}"),
            agent: "claude".into(),
            badge: Badge::Idle,
            in_state: Duration::ZERO,
            focused: false,
        };
        let groups = vec![
            HostGroup {
                name: "a".into(),
                status: Some("connecting".into()),
                tasks: vec![task(1), task(2)],
            },
            HostGroup {
                name: "b".into(),
                status: None,
                tasks: vec![task(7)],
            },
        ];
        let wide = 30;
        // @a, its status, t1 (2 lines), t2 (2 lines), @b, t7 (2 lines).
        assert_eq!(host_lines(&groups, wide).len(), 9);
        let at: Vec<_> = (0..10)
            .map(|l| host_task_at(&groups, wide, 20, l))
            .collect();
        assert_eq!(
            at,
            [
                None,
                None,
                Some((0, 0)),
                Some((0, 0)),
                Some((0, 1)),
                Some((0, 1)),
                None,
                Some((1, 0)),
                Some((1, 0)),
                None
            ]
        );
        // Cut to 5 rows: the last is the marker.
        assert_eq!(host_task_at(&groups, wide, 5, 3), Some((0, 0)));
        assert_eq!(host_task_at(&groups, wide, 5, 4), None);
        // The hosts start a blank row under the local tasks.
        let w = Window::new(2, Some(0), 20, 2);
        assert_eq!(hosts_top(&w, 20, 2), 5);
        assert_eq!(hosts_top(&Window::new(0, None, 20, 2), 20, 2), 0);
        let long = Window::new(30, Some(0), 10, 2);
        assert_eq!(hosts_top(&long, 10, 2), 10);
    }
}
