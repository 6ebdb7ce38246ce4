//! `m` in the diff view (issue 32): merge the task's branch into the
//! branch it was cut from, as `[review] merge` says. It asks first (`y`
//! merges, any other key does not), refuses while the agent works or
//! needs you, and runs git on a thread of its own; the result comes back
//! on the stat channel and the view says it. After a merge (not a pull
//! request) of a task whose agent is done or has exited, the view offers
//! to remove the task's worktree and branch (`y`; that closes the task),
//! as `termic merge --remove` does; otherwise it says why not.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::remote_actions::HostAction;
use super::review::StatResult;
use super::App;
use crate::printed::clean_line;
use crate::review::view::DiffView;
use crate::review::BaseKind;
use crate::server::protocol::{Request, Response};
use crate::ui::sidebar::Badge;
use crate::ui::{Message, Overlay};
use termic_review::merge::{self, How, Merged};

/// What a merge leaves to remove: the task's worktree and its branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    /// Where the base branch is checked out (git runs there).
    pub repo: PathBuf,
    pub worktree: PathBuf,
    pub branch: String,
}

/// Why a merged task's worktree is not offered for removal, by its badge
/// (pure); `None`: it is offered (the agent is done or has exited).
pub fn removal_refusal(badge: Option<&Badge>) -> Option<&'static str> {
    match badge {
        Some(Badge::Done | Badge::Exited(_)) => None,
        Some(Badge::Working) => Some("Kept its worktree and branch: the agent is working in it."),
        Some(Badge::NeedsYou { .. }) => Some("Kept its worktree and branch: the agent needs you."),
        None => Some("Kept its worktree and branch: the task is closed."),
        Some(_) => Some("Kept its worktree and branch: the agent is not done."),
    }
}

/// The question after a merge that can remove.
const REMOVE_QUESTION: &str =
    "Remove its worktree and branch (closes the task)? y removes, n keeps.";

/// What the view says of a host's answer to `merge`, and what it leaves
/// to remove (pure; the host removes it, by the task, so only its
/// worktree and branch are kept here to say them).
pub fn remote_merged(answer: &Result<Response, String>) -> (String, Option<Removal>) {
    match answer {
        Ok(Response::Merged {
            merged,
            how,
            worktree,
        }) => {
            let how = How::parse(how).unwrap_or(How::Ff);
            let removal = match merged {
                Merged::Merged { branch, .. } => Some(Removal {
                    repo: worktree.clone(),
                    worktree: worktree.clone(),
                    branch: branch.clone(),
                }),
                Merged::PullRequest { .. } => None,
            };
            (merged_text(&Ok(merged.clone()), how), removal)
        }
        Ok(other) => (
            merged_text(
                &Err(crate::server::protocol::unexpected("the host", other).to_string()),
                How::Ff,
            ),
            None,
        ),
        Err(why) => (merged_text(&Err(why.clone()), How::Ff), None),
    }
}

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
                "Merged {} into {} ({}, {commits} commit{s}).",
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
        let badge = self.view_badge(&view);
        let remote = self.remote_of(&view);
        // A remote task merges with its host's `[review] merge`.
        let how = match &remote {
            Some(_) => "as its host's config.toml says".to_owned(),
            None => self.services.merge_how().as_str().to_owned(),
        };
        let worktree = match &remote {
            Some((host, number)) => self
                .remote_row(host, *number)
                .is_some_and(|r| r.worktree.is_some()),
            None => termic_runtime::lock(&self.specs)
                .get(&view.task)
                .is_some_and(|l| matches!(&l.base, Ok(b) if b.kind == BaseKind::Worktree)),
        };
        let refusal = match (badge, worktree) {
            (Some(Badge::Working), _) => {
                Some("The agent is working and may still commit. Merge when it is done.")
            }
            (Some(Badge::NeedsYou { .. }), _) => {
                Some("The agent needs you. Answer it and let it finish, then merge.")
            }
            (_, true) => None,
            _ => Some("Only a task in its own worktree merges."),
        };
        view.note = Some(match refusal {
            Some(why) => why.to_owned(),
            None => {
                self.stats.merge_asked = Some(view.task);
                format!(
                    "Merge {}'s branch into the branch it was cut from ({how})? y merges, any other key does not.",
                    view.name,
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
        if let Some((host, number)) = self.remote_of(view) {
            let request = Request::Merge {
                task: number.to_string(),
                how: None,
                into: None,
            };
            if self.act(host, number, HostAction::Merge, request) {
                view.note = Some("Merging...".into());
            }
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
        let message = crate::commands::merge::message(&view.name);
        let tx = self.stats_sender();
        let id = view.task;
        let spawned = std::thread::Builder::new()
            .name("termic-merge".into())
            .spawn(move || {
                let result = merge::plan(&base, None).and_then(|plan| {
                    merge::merge(&plan, how, &message).map(|merged| (merged, plan))
                });
                let removal = match &result {
                    Ok((Merged::Merged { .. }, plan)) => Some(Removal {
                        repo: plan
                            .checkout
                            .clone()
                            .unwrap_or_else(|| plan.worktree.clone()),
                        worktree: plan.worktree.clone(),
                        branch: plan.branch.clone(),
                    }),
                    _ => None,
                };
                let result = result.map(|(m, _)| m).map_err(|e| e.to_string());
                let _ = tx.send(StatResult::Merged(id, merged_text(&result, how), removal));
            });
        view.note = Some(match spawned {
            Ok(_) => "Merging...".into(),
            Err(e) => format!("Not merged: {e}"),
        });
        true
    }

    /// A merge's result: the view says it (or the message line, when the
    /// view was closed), and offers to remove what it leaves when the
    /// agent is done or has exited (else says why not).
    pub(crate) fn on_merged(&mut self, id: u64, mut text: String, removal: Option<Removal>) {
        let badge = match self.overlay.take() {
            Some(Overlay::Diff(view)) => {
                let badge = self.view_badge(&view);
                self.overlay = Some(Overlay::Diff(view));
                badge
            }
            other => {
                self.overlay = other;
                self.tasks.get_mut(id).map(|e| e.badge.clone())
            }
        };
        match self.overlay.as_mut() {
            Some(Overlay::Diff(view)) if view.task == id => {
                if let Some(removal) = removal {
                    text.push(' ');
                    match removal_refusal(badge.as_ref()) {
                        None => {
                            text.push_str(REMOVE_QUESTION);
                            self.stats.remove_asked = Some((id, removal));
                        }
                        Some(why) => text.push_str(why),
                    }
                }
                view.note = Some(text);
            }
            _ => self.message = Some(Message::info(text)),
        }
        self.needs_draw = true;
    }

    /// The key after the question: `y` removes the worktree, then the
    /// branch, then closes the task (the view with it); any other key
    /// keeps them. A worktree git will not remove (uncommitted changes)
    /// keeps the task and says why.
    pub(crate) fn remove_answer(
        &mut self,
        key: KeyEvent,
        mut view: DiffView,
        removal: Removal,
    ) -> Option<Overlay> {
        if key.code != KeyCode::Char('y') {
            view.note = Some("Kept the worktree and branch.".into());
            return Some(Overlay::Diff(view));
        }
        let badge = self.view_badge(&view);
        if let Some(why) = removal_refusal(badge.as_ref()) {
            view.note = Some(why.to_owned());
            return Some(Overlay::Diff(view));
        }
        // A remote task's: its host removes them and closes it.
        if let Some((host, number)) = self.remote_of(&view) {
            let request = Request::RemoveMerged {
                task: number.to_string(),
            };
            if self.act(host, number, HostAction::RemoveMerged, request) {
                view.note = Some("Removing...".into());
            }
            return Some(Overlay::Diff(view));
        }
        use crate::worktree::{remove_merged, RemoveMergedError};
        let shown = (
            clean_line(&removal.worktree.to_string_lossy()).into_owned(),
            clean_line(&removal.branch).into_owned(),
        );
        match remove_merged(&removal.repo, &removal.worktree, &removal.branch) {
            Err(RemoveMergedError::Worktree(e)) => {
                view.note = Some(format!("Not removed: {}", clean_line(&e.to_string())));
                return Some(Overlay::Diff(view));
            }
            Err(e @ RemoveMergedError::Branch(_)) => {
                self.message = Some(Message::error(format!(
                    "Closed {}: {}",
                    clean_line(&view.name),
                    clean_line(&e.to_string())
                )));
            }
            Ok(()) => {
                self.message = Some(Message::info(format!(
                    "Closed {} and removed its worktree {} and branch {}.",
                    clean_line(&view.name),
                    shown.0,
                    shown.1
                )));
            }
        }
        self.close_task(view.task, false);
        self.needs_draw = true;
        None
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
            "Merged termic/wt into ma[2Jin (rebase, 2 commits)."
        );
        assert_eq!(
            merged_text(&Err("a conflict\x07".into()), How::Ff),
            "Not merged: a conflict"
        );
    }

    #[test]
    fn removal_is_offered_only_once_the_agent_is_done_or_has_exited() {
        assert_eq!(removal_refusal(Some(&Badge::Done)), None);
        assert_eq!(removal_refusal(Some(&Badge::Exited(Some(0)))), None);
        assert_eq!(removal_refusal(Some(&Badge::Exited(None))), None);
        let working = removal_refusal(Some(&Badge::Working)).unwrap();
        assert!(working.contains("working in it"), "{working}");
        let needs = removal_refusal(Some(&Badge::NeedsYou { kind: None })).unwrap();
        assert!(needs.contains("needs you"), "{needs}");
        for badge in [Badge::Idle, Badge::Interrupted] {
            let why = removal_refusal(Some(&badge)).unwrap();
            assert!(why.contains("not done"), "{why}");
        }
        assert!(removal_refusal(None).unwrap().contains("closed"));
    }

    #[test]
    fn a_hosts_merge_answer_says_what_it_did_and_offers_its_removal() {
        let answer = Ok(Response::Merged {
            merged: Merged::Merged {
                branch: "termic/wt".into(),
                into: "main".into(),
                commits: 1,
                head: "abc".into(),
            },
            how: "ff".into(),
            worktree: "/far/wt".into(),
        });
        let (text, removal) = remote_merged(&answer);
        assert_eq!(text, "Merged termic/wt into main (ff, 1 commit).");
        let removal = removal.unwrap();
        assert_eq!(removal.branch, "termic/wt");
        assert_eq!(removal.worktree, PathBuf::from("/far/wt"));
        let pr = Ok(Response::Merged {
            merged: Merged::PullRequest {
                branch: "termic/wt".into(),
                into: "main".into(),
                url: "https://x/1".into(),
            },
            how: "pr".into(),
            worktree: "/far/wt".into(),
        });
        assert_eq!(remote_merged(&pr).1, None);
        let (text, removal) = remote_merged(&Err(
            "host far: its termic is older than this one and cannot do this: update termic on far"
                .into(),
        ));
        assert_eq!(
            text,
            "Not merged: host far: its termic is older than this one and cannot do this: update termic on far"
        );
        assert_eq!(removal, None);
        assert!(remote_merged(&Ok(Response::Ok))
            .0
            .starts_with("Not merged: the host answered"));
    }
}
