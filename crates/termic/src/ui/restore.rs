//! The restore dialog (issue 31): the tasks that ended with the server,
//! one a line, each picked or not. Keys as in tmux's choose-tree and
//! zellij's session list: Up/Down (or k/j) move, Space picks or unpicks
//! the task under the cursor, `a` picks all or none, Enter restores the
//! picked ones (the others stay for later: `termic restore`), `y`
//! restores all, `n` forgets all, Esc (or q) leaves them all for later.
//!
//! Pure: the view holds what the server listed and what the user picked;
//! [`RestoreView::key`] says what to do, the app does it.

use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::server::protocol::Restored;

/// Task lines the dialog shows at once; the list scrolls past them.
pub const VISIBLE: usize = 12;

/// One task the dialog offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreItem {
    /// What the line says (cleaned: names and commands are data).
    pub line: String,
    /// How a restore request names it: its number, else its name.
    pub selector: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreView {
    pub items: Vec<RestoreItem>,
    /// One per item.
    pub picked: Vec<bool>,
    pub cursor: usize,
    /// The first item shown.
    pub top: usize,
    /// Said under the list after a key that did nothing (Enter with
    /// nothing picked).
    pub hint: Option<&'static str>,
}

/// What a key in the dialog asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreChoice {
    /// The dialog stays open.
    Stay,
    /// Close it; the tasks stay for later.
    Later,
    /// Restore every task.
    All,
    /// Restore these (selectors); the rest stay for later.
    Picked(Vec<String>),
    /// Forget every task.
    Forget,
}

impl RestoreView {
    /// The tasks as a `restore` list tells them, every one picked.
    pub fn new(tasks: &[Restored]) -> RestoreView {
        let items: Vec<RestoreItem> = tasks.iter().map(item).collect();
        RestoreView {
            picked: vec![true; items.len()],
            items,
            cursor: 0,
            top: 0,
            hint: None,
        }
    }

    pub fn picked_count(&self) -> usize {
        self.picked.iter().filter(|p| **p).count()
    }

    /// Apply one key.
    pub fn key(&mut self, code: KeyCode) -> RestoreChoice {
        self.hint = None;
        let last = self.items.len().saturating_sub(1);
        match code {
            KeyCode::Esc | KeyCode::Char('q') => return RestoreChoice::Later,
            KeyCode::Char('y' | 'Y') => return RestoreChoice::All,
            KeyCode::Char('n' | 'N') => return RestoreChoice::Forget,
            KeyCode::Up | KeyCode::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.cursor = (self.cursor + 1).min(last),
            KeyCode::Home | KeyCode::Char('g') => self.cursor = 0,
            KeyCode::End | KeyCode::Char('G') => self.cursor = last,
            KeyCode::Char(' ') => {
                if let Some(p) = self.picked.get_mut(self.cursor) {
                    *p = !*p;
                }
            }
            KeyCode::Char('a') => {
                let all = self.picked.iter().all(|p| *p);
                self.picked.iter_mut().for_each(|p| *p = !all);
            }
            KeyCode::Enter => {
                let picked: Vec<String> = self
                    .items
                    .iter()
                    .zip(&self.picked)
                    .filter(|(_, p)| **p)
                    .map(|(i, _)| i.selector.clone())
                    .collect();
                if picked.is_empty() {
                    self.hint = Some("Nothing is picked: Space picks the task under the cursor.");
                    return RestoreChoice::Stay;
                }
                if picked.len() == self.items.len() {
                    return RestoreChoice::All;
                }
                return RestoreChoice::Picked(picked);
            }
            _ => {}
        }
        // The cursor stays in the window of lines shown.
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + VISIBLE {
            self.top = self.cursor + 1 - VISIBLE;
        }
        RestoreChoice::Stay
    }

    /// The dialog's text lines: the heading, the shown window of tasks
    /// (`> ` marks the cursor, `[x]` a picked task), what is above or
    /// below it, and the keys.
    pub fn lines(&self) -> Vec<String> {
        let n = self.items.len();
        let mut lines = vec![match n {
            1 => "This task ended with the termic server:".to_owned(),
            n => format!("These {n} tasks ended with the termic server:"),
        }];
        if self.top > 0 {
            lines.push(format!("  ({} more above)", self.top));
        }
        let end = (self.top + VISIBLE).min(n);
        for i in self.top..end {
            let cursor = if i == self.cursor { '>' } else { ' ' };
            let mark = if self.picked[i] { 'x' } else { ' ' };
            lines.push(format!("{cursor}[{mark}] {}", self.items[i].line));
        }
        if end < n {
            lines.push(format!("  ({} more below)", n - end));
        }
        lines.push(String::new());
        lines.push(
            self.hint
                .map(str::to_owned)
                .unwrap_or_else(|| format!("{} of {n} picked.", self.picked_count())),
        );
        lines
    }
}

/// `keys` line of the dialog.
pub const KEYS: &str =
    "Space pick   Enter restore picked   y restore all   n forget all   Esc later";

fn item(t: &Restored) -> RestoreItem {
    use crate::printed::clean_line;
    let number = t.number.map(|n| format!("{n} ")).unwrap_or_default();
    let how = if t.resumed {
        "continues its conversation".to_owned()
    } else if let Some(note) = &t.note {
        note.clone()
    } else {
        format!("runs {} again", t.command)
    };
    RestoreItem {
        line: clean_line(&format!("{number}{} in {}: {how}", t.name, t.cwd)).into_owned(),
        selector: t
            .number
            .map(|n| n.to_string())
            .unwrap_or_else(|| t.name.clone()),
    }
}

pub fn render(frame: &mut Frame, view: &RestoreView) {
    let text = view.lines();
    let inner = super::modal(frame, "Restore tasks", 96, text.len() as u16 + 3);
    let cursor_line = 1 + usize::from(view.top > 0) + (view.cursor - view.top);
    let mut lines: Vec<Line> = text
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            if i == cursor_line {
                Line::styled(l, Style::new().add_modifier(Modifier::REVERSED))
            } else {
                Line::from(l)
            }
        })
        .collect();
    lines.push(Line::styled(KEYS, Style::new().fg(Color::Cyan)));
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(name: &str, number: Option<u64>, resumed: bool, note: Option<&str>) -> Restored {
        Restored {
            name: name.into(),
            number,
            agent: "claude".into(),
            cwd: "/src/app".into(),
            command: "sleep 600".into(),
            session: None,
            resumed,
            note: note.map(Into::into),
            error: None,
            row: None,
        }
    }

    /// Names, directories and commands are data: cleaned, one line each.
    #[test]
    fn the_restore_dialog_lists_each_task_cleaned_and_says_how_it_starts() {
        let view = RestoreView::new(&[
            task("re\x1b]0;pwned\x07view", Some(1), true, None),
            task("build", Some(3), false, None),
            task(
                "x",
                None,
                false,
                Some("agy cannot resume here: started fresh"),
            ),
        ]);
        let lines = view.lines();
        assert_eq!(lines[0], "These 3 tasks ended with the termic server:");
        assert!(!lines[1].contains('\x1b') && !lines[1].contains('\x07'));
        assert!(lines[1].starts_with(">[x] 1 re"), "{}", lines[1]);
        assert!(lines[1].ends_with("in /src/app: continues its conversation"));
        assert_eq!(lines[2], " [x] 3 build in /src/app: runs sleep 600 again");
        assert_eq!(
            lines[3],
            " [x] x in /src/app: agy cannot resume here: started fresh"
        );
        assert_eq!(lines[5], "3 of 3 picked.");
        let selectors: Vec<&str> = view.items.iter().map(|i| i.selector.as_str()).collect();
        assert_eq!(selectors, ["1", "3", "x"], "a number, else the name");
    }

    #[test]
    fn space_toggles_enter_restores_the_picked_y_all_n_forgets_esc_later() {
        let tasks = [
            task("a", Some(1), true, None),
            task("b", Some(2), true, None),
            task("c", None, true, None),
        ];
        let mut view = RestoreView::new(&tasks);
        // All picked: Enter is all.
        assert_eq!(view.clone().key(KeyCode::Enter), RestoreChoice::All);
        // Unpick b (Down, Space) and Enter: a and c.
        assert_eq!(view.key(KeyCode::Down), RestoreChoice::Stay);
        assert_eq!(view.key(KeyCode::Char(' ')), RestoreChoice::Stay);
        assert_eq!(
            view.lines()[2],
            ">[ ] 2 b in /src/app: continues its conversation"
        );
        assert_eq!(
            view.clone().key(KeyCode::Enter),
            RestoreChoice::Picked(vec!["1".into(), "c".into()])
        );
        // `a` with some unpicked picks all; again, none; Enter then stays
        // open and says why.
        view.key(KeyCode::Char('a'));
        assert_eq!(view.picked_count(), 3);
        view.key(KeyCode::Char('a'));
        assert_eq!(view.picked_count(), 0);
        assert_eq!(view.key(KeyCode::Enter), RestoreChoice::Stay);
        assert!(view
            .lines()
            .last()
            .unwrap()
            .starts_with("Nothing is picked"));
        // j/k and the ends; the cursor never leaves the list.
        view.key(KeyCode::Char('j'));
        view.key(KeyCode::Char('j'));
        view.key(KeyCode::Char('j'));
        assert_eq!(view.cursor, 2);
        view.key(KeyCode::Char(' '));
        assert_eq!(
            view.clone().key(KeyCode::Enter),
            RestoreChoice::Picked(vec!["c".into()])
        );
        view.key(KeyCode::Char('k'));
        view.key(KeyCode::Home);
        assert_eq!(view.cursor, 0);
        view.key(KeyCode::Up);
        assert_eq!(view.cursor, 0);
        assert_eq!(view.clone().key(KeyCode::Char('y')), RestoreChoice::All);
        assert_eq!(view.clone().key(KeyCode::Char('n')), RestoreChoice::Forget);
        assert_eq!(view.clone().key(KeyCode::Esc), RestoreChoice::Later);
        assert_eq!(view.key(KeyCode::Char('q')), RestoreChoice::Later);
    }

    /// Twenty tasks: twelve lines shown, the window follows the cursor and
    /// says how many are above and below.
    #[test]
    fn a_long_list_scrolls_with_the_cursor() {
        let many: Vec<Restored> = (0..20)
            .map(|i| task(&format!("t{i}"), Some(i + 1), true, None))
            .collect();
        let mut view = RestoreView::new(&many);
        let lines = view.lines();
        assert_eq!(lines.len(), 1 + VISIBLE + 1 + 2);
        assert_eq!(lines[1 + VISIBLE], "  (8 more below)");
        view.key(KeyCode::End);
        assert_eq!((view.cursor, view.top), (19, 8));
        let lines = view.lines();
        assert_eq!(lines[1], "  (8 more above)");
        assert!(lines[1 + VISIBLE].starts_with(">[x] 20 t19"), "{lines:?}");
        view.key(KeyCode::Home);
        assert_eq!((view.cursor, view.top), (0, 0));
    }
}
