//! The workspace's task list as the UI keeps it: order, focus, each task's
//! badge and time in state, the unseen marker, and the Inspector timeline.
//! Pure: the glue in `app.rs` feeds it runtime and engine events with times.

use std::path::PathBuf;
use std::time::Duration;

use crate::notify::Attention;
use crate::ui::inspector::InspectorEntry;
use crate::ui::sidebar::{Badge, TaskView};

/// One task in the sidebar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskEntry {
    /// The runtime's handle (internal: never shown).
    pub id: u64,
    /// The task's number from the runtime: its sidebar label, its jump key
    /// and what every CLI verb takes.
    pub number: u32,
    pub name: String,
    pub agent: String,
    /// The built-in the agent is based on (`claude` for a claude clone):
    /// the Settings row its native reports count for.
    pub profile: String,
    pub badge: Badge,
    /// When the task entered `badge`'s state (ms on the app clock).
    pub since_ms: u64,
    pub started_ms: u64,
    /// Reached needs-you or done while not watched; cleared on focus.
    pub unseen: bool,
    /// The Inspector timeline, oldest first.
    pub timeline: Vec<InspectorEntry>,
    /// Where this app reads the runtime's timeline next
    /// ([`termic_runtime::Runtime::log_since`]).
    pub log_cursor: u64,
    /// The git worktree this task runs in, when termic made one.
    pub worktree: Option<PathBuf>,
    /// The agent running inside this command task now (`claude` in a shell).
    pub foreground: Option<String>,
    /// What the task changed (`+12 -3, 2 files`), read when it last went
    /// done (issue 32).
    pub stat: Option<crate::review::model::Stat>,
}

/// Oldest entries are dropped past this many, so a chatty task cannot grow
/// the Inspector without bound.
pub const TIMELINE_LIMIT: usize = termic_runtime::timeline::TIMELINE_KEEP;

impl TaskEntry {
    /// `name` and `agent` are shown as text (sidebar, dialogs, messages,
    /// notifications), so they are kept cleaned of anything a terminal
    /// would act on, bidirectional controls included.
    pub fn new(id: u64, number: u32, name: String, agent: String, now_ms: u64) -> Self {
        let agent = shown(&agent);
        TaskEntry {
            id,
            number,
            name: shown(&name),
            profile: agent.clone(),
            agent,
            badge: Badge::Idle,
            since_ms: now_ms,
            started_ms: now_ms,
            unseen: false,
            timeline: Vec::new(),
            log_cursor: 0,
            worktree: None,
            foreground: None,
            stat: None,
        }
    }

    pub fn view(&self, now_ms: u64) -> TaskView {
        TaskView {
            number: self.number,
            name: self.name.clone(),
            agent: match &self.foreground {
                Some(inner) => format!("{} > {inner}", self.agent),
                None => self.agent.clone(),
            },
            badge: self.badge.clone(),
            in_state: Duration::from_millis(now_ms.saturating_sub(self.since_ms)),
            unseen: self.unseen,
            stat: self.stat.map(|s| s.to_string()),
        }
    }

    pub fn is_running(&self) -> bool {
        !matches!(self.badge, Badge::Exited(_))
    }

    /// Moves the badge. Returns what the user should be told when the new
    /// state earns attention (needs-you, done, or stopped on an error); `detail` is the agent's
    /// words or the hook's kind. Interrupted, idle, working and exited earn nothing.
    pub fn set_badge(
        &mut self,
        badge: Badge,
        at_ms: u64,
        watched: bool,
        detail: Option<String>,
    ) -> Option<Attention> {
        if self.badge == badge {
            return None;
        }
        // A second error report only names the reason more precisely: the
        // badge changes, the user was already told.
        let already_stopped = matches!(self.badge, Badge::Error(_) | Badge::RateLimited(_));
        self.badge = badge;
        self.since_ms = at_ms;
        let attention = match &self.badge {
            Badge::NeedsYou { .. } => Some(Attention::NeedsYou { detail }),
            Badge::Done => Some(Attention::Done),
            Badge::Error(_) if already_stopped => None,
            Badge::Error(reason) => Some(Attention::Stopped { reason: *reason }),
            Badge::RateLimited(_) if already_stopped => None,
            Badge::RateLimited(until) => Some(Attention::RateLimited { until: *until }),
            _ => None,
        };
        if attention.is_some() && !watched {
            self.unseen = true;
        }
        attention
    }

    pub fn push_timeline(&mut self, entries: impl IntoIterator<Item = InspectorEntry>) {
        self.timeline.extend(entries);
        if self.timeline.len() > TIMELINE_LIMIT {
            let excess = self.timeline.len() - TIMELINE_LIMIT;
            self.timeline.drain(..excess);
        }
    }
}

/// How late a sidebar time label may be drawn, to share a frame.
pub const LABEL_SLACK_MS: u64 = 1_000;

/// The ordered list and which task has focus.
#[derive(Debug, Default)]
pub struct TaskList {
    pub entries: Vec<TaskEntry>,
    /// Index into `entries` (not the display order).
    pub focused: Option<usize>,
    /// Show tasks that need you first, then unseen ones, then the rest
    /// (prefix `!` toggles it). Each task keeps its number and jump key:
    /// the keys follow the task, not the row.
    pub attention_first: bool,
}

impl TaskList {
    pub fn push(&mut self, entry: TaskEntry) -> usize {
        self.entries.push(entry);
        let index = self.entries.len() - 1;
        self.focus(index);
        index
    }

    pub fn focus(&mut self, index: usize) {
        if let Some(entry) = self.entries.get_mut(index) {
            entry.unseen = false;
            self.focused = Some(index);
        }
    }

    /// Next (`forward`) or previous task as shown, wrapping.
    pub fn cycle(&mut self, forward: bool) {
        let n = self.entries.len();
        if n == 0 {
            return;
        }
        let current = self.focused_display().unwrap_or(0);
        let next = if forward {
            (current + 1) % n
        } else {
            (current + n - 1) % n
        };
        self.focus_display(next);
    }

    /// Entry indices in the order the sidebar shows them: by number (as
    /// tmux lists windows by index), and with needs-you first, by
    /// attention and then by number.
    pub fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| self.entries[i].number);
        if self.attention_first {
            // Stable: equal ranks keep the order they were started in.
            order.sort_by_key(|&i| {
                let e = &self.entries[i];
                match (&e.badge, e.unseen) {
                    (Badge::NeedsYou { .. }, _) => 0,
                    (_, true) => 1,
                    _ => 2,
                }
            });
        }
        order
    }

    /// Where the focused task is shown.
    pub fn focused_display(&self) -> Option<usize> {
        let focused = self.focused?;
        self.order().iter().position(|&i| i == focused)
    }

    /// Focuses the task shown at `display` (a click).
    pub fn focus_display(&mut self, display: usize) {
        if let Some(&index) = self.order().get(display) {
            self.focus(index);
        }
    }

    /// Focuses the task numbered `number` (a jump key), wherever it is
    /// shown. Whether there is one.
    pub fn focus_number(&mut self, number: u32) -> bool {
        match self.entries.iter().position(|e| e.number == number) {
            Some(index) => {
                self.focus(index);
                true
            }
            None => false,
        }
    }

    pub fn focused_entry(&self) -> Option<&TaskEntry> {
        self.focused.and_then(|i| self.entries.get(i))
    }

    pub fn focused_id(&self) -> Option<u64> {
        self.focused_entry().map(|e| e.id)
    }

    pub fn index_of(&self, id: u64) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    pub fn get_mut(&mut self, id: u64) -> Option<&mut TaskEntry> {
        self.entries.iter_mut().find(|e| e.id == id)
    }

    /// Removes a task; focus moves to the neighbour that took its place.
    pub fn remove(&mut self, id: u64) -> Option<TaskEntry> {
        let index = self.index_of(id)?;
        let entry = self.entries.remove(index);
        self.focused = match self.entries.len() {
            0 => None,
            n => Some(self.focused.unwrap_or(0).min(n - 1)),
        };
        if let Some(i) = self.focused {
            self.focus(i);
        }
        Some(entry)
    }

    pub fn running(&self) -> usize {
        self.entries.iter().filter(|e| e.is_running()).count()
    }

    /// The sidebar's entries, in display order.
    pub fn views(&self, now_ms: u64) -> Vec<TaskView> {
        self.order()
            .into_iter()
            .map(|i| self.entries[i].view(now_ms))
            .collect()
    }

    /// When the sidebar's time labels next change, so the loop wakes then
    /// and not every frame: the next second while any task has been in its
    /// state under a minute, else the next minute.
    ///
    /// Labels that change within [`LABEL_SLACK_MS`] of the first are drawn
    /// with it, each at most that late: ten tasks started at different
    /// moments wake the loop once a second, not ten times.
    pub fn next_label_change(&self, now_ms: u64) -> Option<u64> {
        let changes = self.entries.iter().map(|e| {
            let age = now_ms.saturating_sub(e.since_ms);
            let step = if age < 60_000 { 1_000 } else { 60_000 };
            now_ms + (step - age % step)
        });
        let first = changes.clone().min()?;
        changes.filter(|&c| c < first + LABEL_SLACK_MS).max()
    }
}

/// Text from outside termic as the TUI shows it (`printed::clean_line`).
pub fn shown(text: &str) -> String {
    crate::printed::clean_line(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 27: a task name from `--name` or a directory reaches the
    /// sidebar, dialogs and messages as plain text: no escape sequence, C1
    /// or bidirectional control (ratatui drops C0 but draws U+202E).
    #[test]
    fn names_are_shown_without_terminal_controls_or_bidi() {
        let mut e = TaskEntry::new(
            1,
            1,
            "evil\u{1b}]52;c;aGk=\u{7}\u{202e}gnp.exe\u{9b}2J".into(),
            "ag\u{200f}ent".into(),
            0,
        );
        let v = e.view(0);
        assert!(
            !v.name.chars().any(crate::printed::is_unprintable),
            "{:?}",
            v.name
        );
        assert!(
            v.name.starts_with("evil") && v.name.contains("gnp.exe"),
            "{:?}",
            v.name
        );
        assert_eq!(v.agent, "agent");
        e.name = shown("re\u{202e}named");
        assert_eq!(e.view(0).name, "renamed");
    }

    fn list(n: u64) -> TaskList {
        let mut l = TaskList::default();
        for i in 0..n {
            l.push(TaskEntry::new(
                i,
                i as u32 + 1,
                format!("t{i}"),
                "claude".into(),
                0,
            ));
        }
        l
    }

    #[test]
    fn an_agent_inside_a_command_task_shows_after_the_command() {
        let mut e = TaskEntry::new(1, 1, "sh".into(), "bash".into(), 0);
        assert_eq!(e.view(0).agent, "bash");
        e.foreground = Some("claude".into());
        assert_eq!(e.view(0).agent, "bash > claude");
    }

    #[test]
    fn needs_you_and_done_earn_attention_and_mark_unseen_when_not_watched() {
        let mut e = TaskEntry::new(1, 1, "t".into(), "claude".into(), 0);
        assert_eq!(e.set_badge(Badge::Working, 10, false, None), None);
        let a = e.set_badge(
            Badge::NeedsYou {
                kind: Some("permission".into()),
            },
            20,
            false,
            Some("approve Write: a".into()),
        );
        assert_eq!(
            a,
            Some(Attention::NeedsYou {
                detail: Some("approve Write: a".into())
            })
        );
        assert!(e.unseen);
        assert_eq!(e.view(1_020).in_state, Duration::from_secs(1));
        assert_eq!(
            e.set_badge(Badge::Done, 30, true, None),
            Some(Attention::Done)
        );
    }

    #[test]
    fn interrupted_and_exited_earn_nothing() {
        let mut e = TaskEntry::new(1, 1, "t".into(), "claude".into(), 0);
        e.set_badge(Badge::Working, 1, false, None);
        assert_eq!(e.set_badge(Badge::Interrupted, 2, false, None), None);
        assert_eq!(e.set_badge(Badge::Exited(Some(0)), 3, false, None), None);
        assert!(!e.unseen);
        assert!(!e.is_running());
    }

    #[test]
    fn an_error_earns_one_attention_and_a_sharper_reason_only_changes_the_badge() {
        use termic_signal::stop::StopReason;
        let mut e = TaskEntry::new(1, 1, "t".into(), "claude".into(), 0);
        e.set_badge(Badge::Working, 1, false, None);
        assert_eq!(
            e.set_badge(Badge::Error(Some(StopReason::ServerError)), 2, false, None),
            Some(Attention::Stopped {
                reason: Some(StopReason::ServerError)
            })
        );
        assert!(e.unseen);
        assert_eq!(
            e.set_badge(Badge::Error(Some(StopReason::Overloaded)), 3, false, None),
            None
        );
        assert_eq!(e.view(3).badge.label(), "error: overloaded");
    }

    #[test]
    fn a_rate_limit_earns_one_attention_with_its_time_and_no_done() {
        let until = termic_signal::limit::ResetAt::new(15, 0);
        let mut e = TaskEntry::new(1, 1, "t".into(), "claude".into(), 0);
        e.set_badge(Badge::Working, 1, false, None);
        assert_eq!(
            e.set_badge(Badge::RateLimited(None), 2, false, None),
            Some(Attention::RateLimited { until: None })
        );
        // The reset time named by a later report sharpens the badge only.
        assert_eq!(e.set_badge(Badge::RateLimited(until), 3, false, None), None);
        assert_eq!(e.view(3).badge.label(), "rate limited until 15:00");
        assert_eq!(e.view(3).badge.mark(), "L");
    }

    #[test]
    fn the_same_badge_twice_is_one_attention() {
        let mut e = TaskEntry::new(1, 1, "t".into(), "claude".into(), 0);
        assert!(e.set_badge(Badge::Done, 1, false, None).is_some());
        assert!(e.set_badge(Badge::Done, 2, false, None).is_none());
    }

    #[test]
    fn focus_cycles_and_clears_unseen() {
        let mut l = list(3);
        assert_eq!(l.focused, Some(2));
        l.entries[0].unseen = true;
        l.cycle(true);
        assert_eq!(l.focused, Some(0));
        assert!(!l.entries[0].unseen);
        l.cycle(false);
        assert_eq!(l.focused, Some(2));
        l.focus(7);
        assert_eq!(l.focused, Some(2));
    }

    /// Issue 28: needs-you first reorders the rows, but each task keeps its
    /// number, so a jump key names the same task in either order (the keys
    /// follow the task, not the row), and the number a script read from
    /// `termic ls` is the one on the screen.
    #[test]
    fn needs_you_first_reorders_the_view_and_the_jump_keys_follow_the_task() {
        let mut l = list(4);
        l.entries[2].badge = Badge::NeedsYou { kind: None };
        l.entries[3].unseen = true;
        let shown = |l: &TaskList| -> Vec<(u32, String)> {
            l.views(0).into_iter().map(|v| (v.number, v.name)).collect()
        };
        let pairs = |p: &[(u32, &str)]| -> Vec<(u32, String)> {
            p.iter().map(|(n, s)| (*n, s.to_string())).collect()
        };
        assert_eq!(
            shown(&l),
            pairs(&[(1, "t0"), (2, "t1"), (3, "t2"), (4, "t3")])
        );
        l.attention_first = true;
        assert_eq!(
            shown(&l),
            pairs(&[(3, "t2"), (4, "t3"), (1, "t0"), (2, "t1")])
        );
        // Key 1 is task 1, now shown third; key 3 is the one that needs you.
        assert!(l.focus_number(1));
        assert_eq!(l.focused_id(), Some(0));
        assert_eq!(l.focused_display(), Some(2));
        assert!(l.focus_number(3));
        assert_eq!(l.focused_id(), Some(2));
        assert_eq!(l.focused_display(), Some(0));
        // A number no task has changes nothing.
        assert!(!l.focus_number(9));
        assert_eq!(l.focused_id(), Some(2));
        // Tab still walks the rows as shown.
        l.cycle(true);
        assert_eq!(l.focused_id(), Some(3));
        l.attention_first = false;
        assert_eq!(l.focused_display(), Some(3));
    }

    /// The rows are in number order, whatever order the tasks were added
    /// in (a task that took a freed number 1 is listed first, as in tmux).
    #[test]
    fn rows_are_listed_by_number() {
        let mut l = TaskList::default();
        for (id, number) in [(10, 2), (11, 3), (12, 1)] {
            l.push(TaskEntry::new(
                id,
                number,
                format!("t{number}"),
                "sh".into(),
                0,
            ));
        }
        let numbers: Vec<u32> = l.views(0).iter().map(|v| v.number).collect();
        assert_eq!(numbers, [1, 2, 3]);
        l.focus_display(0);
        assert_eq!(l.focused_id(), Some(12));
    }

    #[test]
    fn removing_keeps_a_sensible_focus() {
        let mut l = list(3);
        l.remove(2);
        assert_eq!(l.focused, Some(1));
        l.focus(0);
        l.remove(0);
        assert_eq!(l.focused_id(), Some(1));
        l.remove(1);
        assert_eq!(l.focused, None);
    }

    #[test]
    fn labels_change_every_second_then_every_minute() {
        let mut l = list(1);
        assert_eq!(l.next_label_change(1_500), Some(2_000));
        l.entries[0].since_ms = 0;
        assert_eq!(l.next_label_change(61_000), Some(120_000));
        assert_eq!(TaskList::default().next_label_change(5), None);
        // Labels due within a second of each other share one frame.
        let mut l = list(0);
        for (id, since) in [(1, 0), (2, 300), (3, 900), (4, 1_500)] {
            l.push(TaskEntry::new(
                id,
                id as u32,
                format!("t{id}"),
                "claude".into(),
                since,
            ));
        }
        assert_eq!(l.next_label_change(1_600), Some(2_500));
        assert_eq!(l.next_label_change(2_500), Some(3_500));
    }

    #[test]
    fn timeline_is_bounded() {
        let mut e = TaskEntry::new(1, 1, "t".into(), "a".into(), 0);
        let entry = InspectorEntry {
            at: Duration::ZERO,
            kind: crate::ui::inspector::EntryKind::Signal,
            text: "x".into(),
        };
        e.push_timeline(std::iter::repeat_n(entry, TIMELINE_LIMIT + 10));
        assert_eq!(e.timeline.len(), TIMELINE_LIMIT);
    }
}
