//! `m` in the diff view (issue 32): merge the task's branch into the
//! branch it was cut from, as `[review] merge` says. It asks first (`y`
//! merges, any other key does not), refuses while the agent works or
//! needs you, and runs git on a thread of its own; the result comes back
//! on the stat channel and the view says it.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::review::StatResult;
use super::App;
use crate::printed::clean_line;
use crate::review::view::DiffView;
use crate::review::BaseKind;
use crate::ui::Overlay;
use termic_review::merge::{self, How, Merged};

/// What the view says of a merge (pure; names cleaned).
pub fn merged_text(result: &Result<Merged, String>, how: How) -> String {
    match result {
        Ok(Merged::Merged {
            branch,
            into,
            commits,
            ..
        }) => {
            let s = if *commits == 1 { "" } else { "s" };
            format!(
                "Merged {} into {} ({}, {commits} commit{s}). Close the task (x) to remove its worktree.",
                clean_line(branch),
                clean_line(into),
                how.as_str()
            )
        }
        Ok(Merged::PullRequest { url, .. }) => {
            format!("Opened a pull request: {}", clean_line(url))
        }
        Err(why) => format!("Not merged: {}", clean_line(why)),
    }
}

impl App {
    /// `m`: asks before merging, or says why it will not.
    pub(crate) fn ask_merge(&mut self, mut view: DiffView) -> Option<Overlay> {
        use crate::ui::sidebar::Badge;
        let badge = self.tasks.get_mut(view.task).map(|e| e.badge.clone());
        let base = termic_runtime::lock(&self.specs)
            .get(&view.task)
            .map(|l| l.base.clone());
        let how = self.services.merge_how();
        let refusal = match (badge, base) {
            (Some(Badge::Working), _) => {
                Some("The agent is working and may still commit. Merge when it is done.")
            }
            (Some(Badge::NeedsYou { .. }), _) => {
                Some("The agent needs you. Answer it and let it finish, then merge.")
            }
            (_, Some(Ok(b))) if b.kind == BaseKind::Worktree => None,
            _ => Some("Only a task in its own worktree merges."),
        };
        view.note = Some(match refusal {
            Some(why) => why.to_owned(),
            None => {
                self.stats.merge_asked = Some(view.task);
                format!(
                    "Merge {}'s branch into the branch it was cut from ({})? y merges, any other key does not.",
                    view.name,
                    how.as_str()
                )
            }
        });
        Some(Overlay::Diff(view))
    }

    /// The key after `m`'s question: true when it was the answer.
    pub(crate) fn merge_answer(&mut self, key: KeyEvent, view: &mut DiffView) -> bool {
        if self.stats.merge_asked.take() != Some(view.task) {
            return false;
        }
        if key.code != KeyCode::Char('y') {
            view.note = Some("Not merged.".into());
            return true;
        }
        let base = termic_runtime::lock(&self.specs)
            .get(&view.task)
            .and_then(|l| l.base.clone().ok());
        let Some(base) = base else {
            view.note = Some("Not merged: the task has no base.".into());
            return true;
        };
        let how = self.services.merge_how();
        let message = format!("{}: the changes of termic task {}", view.name, view.name);
        let tx = self.stats_sender();
        let id = view.task;
        let spawned = std::thread::Builder::new()
            .name("termic-merge".into())
            .spawn(move || {
                let result = merge::plan(&base, None)
                    .and_then(|plan| merge::merge(&plan, how, &message))
                    .map_err(|e| e.to_string());
                let _ = tx.send(StatResult::Merged(id, merged_text(&result, how)));
            });
        view.note = Some(match spawned {
            Ok(_) => "Merging...".into(),
            Err(e) => format!("Not merged: {e}"),
        });
        true
    }

    /// A merge's result: the view says it (or the message line, when the
    /// view was closed).
    pub(crate) fn on_merged(&mut self, id: u64, text: String) {
        match self.overlay.as_mut() {
            Some(Overlay::Diff(view)) if view.task == id => view.note = Some(text),
            _ => self.message = Some(crate::ui::Message::info(text)),
        }
        self.needs_draw = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_text_says_what_happened_cleaned() {
        let ok = Ok(Merged::Merged {
            branch: "termic/wt".into(),
            into: "ma\x1b[2Jin".into(),
            commits: 2,
            head: "abc".into(),
        });
        assert_eq!(
            merged_text(&ok, How::Rebase),
            "Merged termic/wt into ma[2Jin (rebase, 2 commits). Close the task (x) to remove its worktree."
        );
        assert_eq!(
            merged_text(&Err("a conflict\x07".into()), How::Ff),
            "Not merged: a conflict"
        );
    }
}
