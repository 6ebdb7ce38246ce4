//! Small overlays: help, yes/no confirmations, and the new-task dialog.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpView {
    /// The prefix key as typed, e.g. `Ctrl-]`.
    pub prefix: String,
}

pub fn render_help(frame: &mut Frame, view: &HelpView) {
    // Two columns, so the whole list fits an 80x24 terminal.
    let bindings = crate::keymap::BINDINGS;
    let pairs = bindings.len().div_ceil(2);
    let inner = super::modal(frame, "Help", 78, pairs as u16 + 8);
    let mut lines = vec![
        Line::from("Every key goes to the focused agent, except the prefix key."),
        Line::from(format!("Press {} then:", view.prefix)),
        Line::from(""),
    ];
    let bold = Style::new().add_modifier(Modifier::BOLD);
    for row in bindings.chunks(2) {
        let mut spans = Vec::new();
        for b in row {
            spans.push(Span::styled(format!(" {:<10}", b.keys), bold));
            spans.push(Span::raw(format!("{:<26}", b.help)));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(vec![
        Span::styled(format!(" {:<10}", view.prefix), bold),
        Span::raw(format!("send {} itself to the agent", view.prefix)),
    ]));
    lines.push(Line::from(""));
    lines.push(Line::styled(
        "Esc close",
        Style::new().add_modifier(Modifier::DIM),
    ));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// What a confirmation is for; the app acts on it when the user says yes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmAction {
    Quit,
    /// Close the task with this runtime id.
    CloseTask {
        task: u64,
        has_worktree: bool,
    },
    /// git refused to remove this worktree; `f` removes it anyway.
    ForceRemoveWorktree {
        path: std::path::PathBuf,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmView {
    pub title: String,
    pub body: Vec<String>,
    pub action: ConfirmAction,
}

impl ConfirmView {
    pub fn quit(running: usize) -> Self {
        let (noun, pronoun) = if running == 1 {
            ("task is", "it")
        } else {
            ("tasks are", "them")
        };
        ConfirmView {
            title: "Quit termic?".into(),
            body: vec![format!(
                "{running} {noun} still running. Quitting stops {pronoun}."
            )],
            action: ConfirmAction::Quit,
        }
    }

    pub fn close_task(task: u64, name: &str, worktree: Option<&str>) -> Self {
        let mut body = vec![format!("Close {name}? Its agent is stopped.")];
        if let Some(path) = worktree {
            body.push(format!("Its worktree is {path}."));
        }
        ConfirmView {
            title: "Close task".into(),
            body,
            action: ConfirmAction::CloseTask {
                task,
                has_worktree: worktree.is_some(),
            },
        }
    }

    /// git kept the worktree at `path` for `reason` (its own words).
    pub fn worktree_kept(path: &std::path::Path, reason: &str) -> Self {
        ConfirmView {
            title: "Worktree kept".into(),
            body: vec![
                format!("git did not remove {}:", path.display()),
                reason.to_owned(),
                "Remove it anyway? Its uncommitted changes are lost; the branch stays.".into(),
            ],
            action: ConfirmAction::ForceRemoveWorktree {
                path: path.to_path_buf(),
            },
        }
    }

    fn keys(&self) -> &'static str {
        match self.action {
            ConfirmAction::CloseTask {
                has_worktree: true, ..
            } => "y close and keep the worktree   w close and remove the worktree   n cancel",
            ConfirmAction::CloseTask { .. } => "y close   n cancel",
            ConfirmAction::Quit => "y quit   n cancel",
            ConfirmAction::ForceRemoveWorktree { .. } => "f remove it and its changes   n keep it",
        }
    }
}

pub fn render_confirm(frame: &mut Frame, view: &ConfirmView) {
    let inner = super::modal(frame, &view.title, 84, view.body.len() as u16 + 5);
    let mut lines: Vec<Line> = view.body.iter().map(|l| Line::from(l.clone())).collect();
    lines.push(Line::from(""));
    lines.push(Line::styled(view.keys(), Style::new().fg(Color::Cyan)));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// An agent the new-task dialog offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentChoice {
    pub id: String,
    /// Its command is on PATH.
    pub detected: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewTaskField {
    Agent,
    /// The command line, when the "command" choice is selected.
    Command,
    Name,
    Where,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTaskView {
    /// Detected agents first.
    pub agents: Vec<AgentChoice>,
    pub agent: usize,
    pub name: String,
    pub worktree: bool,
    /// A worktree is possible (the current dir is in a git repository).
    pub in_repo: bool,
    pub field: NewTaskField,
    /// The command line typed for the "command" choice (after the agents).
    pub command: String,
}

impl NewTaskView {
    pub fn new(mut agents: Vec<AgentChoice>, in_repo: bool) -> Self {
        agents.sort_by_key(|a| !a.detected);
        NewTaskView {
            agents,
            agent: 0,
            name: String::new(),
            worktree: false,
            in_repo,
            field: NewTaskField::Agent,
            command: String::new(),
        }
    }

    /// The "command" choice (any command, not an agent) is selected.
    pub fn is_command(&self) -> bool {
        self.agent == self.agents.len()
    }

    pub fn next_field(&mut self, forward: bool) {
        use NewTaskField::*;
        let order: &[NewTaskField] = if self.is_command() {
            &[Agent, Command, Name, Where]
        } else {
            &[Agent, Name, Where]
        };
        let at = order.iter().position(|f| *f == self.field).unwrap_or(0);
        let n = order.len();
        self.field = order[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }

    /// The field that takes typed text, if the focused one does.
    pub fn text_field(&mut self) -> Option<&mut String> {
        match self.field {
            NewTaskField::Name => Some(&mut self.name),
            NewTaskField::Command => Some(&mut self.command),
            _ => None,
        }
    }

    /// Left/Right on the agent or where field.
    pub fn cycle(&mut self, forward: bool) {
        match self.field {
            NewTaskField::Agent => {
                // The agents, then "command".
                let n = self.agents.len() + 1;
                self.agent = if forward {
                    (self.agent + 1) % n
                } else {
                    (self.agent + n - 1) % n
                };
            }
            NewTaskField::Where if self.in_repo => self.worktree = !self.worktree,
            _ => {}
        }
    }

    pub fn selected_agent(&self) -> Option<&AgentChoice> {
        self.agents.get(self.agent)
    }
}

pub fn render_new_task(frame: &mut Frame, view: &NewTaskView) {
    let inner = super::modal(frame, "New task", 70, 13);
    let focus = |f: NewTaskField| {
        if view.field == f {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        }
    };
    let agent = match view.selected_agent() {
        Some(a) if a.detected => a.id.clone(),
        Some(a) => format!("{} (not found on PATH)", a.id),
        None => "command (any program, e.g. bash)".into(),
    };
    let name = if view.name.is_empty() {
        "(from the agent or command)".to_string()
    } else {
        view.name.clone()
    };
    let place = match (view.worktree, view.in_repo) {
        (true, _) => "a new git worktree",
        (false, true) => "this directory",
        (false, false) => "this directory (not a git repository)",
    };
    let mut lines = vec![Line::from(vec![
        Span::raw("Agent  < "),
        Span::styled(agent, focus(NewTaskField::Agent)),
        Span::raw(" >"),
    ])];
    if view.is_command() {
        let command = if view.command.is_empty() {
            "(type a command, e.g. bash or make test)".to_string()
        } else {
            view.command.clone()
        };
        lines.push(Line::from(vec![
            Span::raw("Command  "),
            Span::styled(command, focus(NewTaskField::Command)),
        ]));
        lines.push(Line::styled(
            "         with ; | > $ or globs it runs in your shell ($SHELL -c)",
            Style::new().add_modifier(Modifier::DIM),
        ));
    }
    lines.extend([
        Line::from(vec![
            Span::raw("Name     "),
            Span::styled(name, focus(NewTaskField::Name)),
        ]),
        Line::from(vec![
            Span::raw("Where  < "),
            Span::styled(place, focus(NewTaskField::Where)),
            Span::raw(" >"),
        ]),
        Line::from(""),
        Line::styled(
            "Tab field  Left/Right change  type a name  Enter start  Esc cancel",
            Style::new().add_modifier(Modifier::DIM),
        ),
    ]);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text};

    #[test]
    fn help_lists_every_prefix_key() {
        let s = text(&draw(80, 24, |f| {
            render_help(
                f,
                &HelpView {
                    prefix: "Ctrl-]".into(),
                },
            )
        }));
        assert!(s.contains("Press Ctrl-] then:"), "{s}");
        for b in crate::keymap::BINDINGS {
            assert!(s.contains(b.keys) && s.contains(b.help), "{} {s}", b.keys);
        }
        assert!(s.contains("send Ctrl-] itself to the agent"), "{s}");
    }

    #[test]
    fn close_offers_worktree_removal_only_when_there_is_one() {
        let v = ConfirmView::close_task(3, "fix", Some("/data/worktrees/fix"));
        let s = text(&draw(90, 10, |f| render_confirm(f, &v)));
        assert!(s.contains("Close fix? Its agent is stopped."), "{s}");
        assert!(s.contains("w close and remove the worktree"), "{s}");
        let v = ConfirmView::close_task(3, "fix", None);
        let s = text(&draw(90, 10, |f| render_confirm(f, &v)));
        assert!(!s.contains("worktree"), "{s}");
    }

    #[test]
    fn quit_counts_running_tasks() {
        let s = text(&draw(90, 10, |f| render_confirm(f, &ConfirmView::quit(2))));
        assert!(s.contains("2 tasks are still running."), "{s}");
    }

    #[test]
    fn new_task_puts_detected_agents_first_and_cycles() {
        let agents = vec![
            AgentChoice {
                id: "agy".into(),
                detected: false,
            },
            AgentChoice {
                id: "claude".into(),
                detected: true,
            },
        ];
        let mut v = NewTaskView::new(agents, false);
        assert_eq!(v.selected_agent().unwrap().id, "claude");
        let s = text(&draw(80, 14, |f| render_new_task(f, &v)));
        assert!(s.contains("Agent  < claude >"), "{s}");
        assert!(s.contains("this directory (not a git repository)"), "{s}");
        v.cycle(true);
        assert_eq!(v.selected_agent().unwrap().id, "agy");
        v.next_field(true);
        v.next_field(true);
        v.cycle(true);
        assert!(!v.worktree, "no worktree outside a repository");
        v.in_repo = true;
        v.cycle(true);
        let s = text(&draw(80, 14, |f| render_new_task(f, &v)));
        assert!(
            s.contains("agy (not found on PATH)") && s.contains("a new git worktree"),
            "{s}"
        );
    }

    #[test]
    fn the_command_choice_comes_after_the_agents_and_takes_a_command_line() {
        let agents = vec![AgentChoice {
            id: "claude".into(),
            detected: true,
        }];
        let mut v = NewTaskView::new(agents, false);
        assert!(!v.is_command());
        v.cycle(true);
        assert!(v.is_command() && v.selected_agent().is_none());
        let s = text(&draw(80, 14, |f| render_new_task(f, &v)));
        assert!(s.contains("Agent  < command"), "{s}");
        assert!(s.contains("Command  (type a command"), "{s}");
        v.next_field(true);
        assert_eq!(v.field, NewTaskField::Command);
        v.text_field().unwrap().push_str("bash");
        v.next_field(true);
        assert_eq!(v.field, NewTaskField::Name);
        let s = text(&draw(80, 14, |f| render_new_task(f, &v)));
        assert!(s.contains("Command  bash"), "{s}");
        // Back to the agents: no command field in the way.
        v.field = NewTaskField::Agent;
        v.cycle(true);
        assert!(!v.is_command());
        v.next_field(true);
        assert_eq!(v.field, NewTaskField::Name);
    }
}
