//! What a task changed (issue 32): the logic that does not draw lives in
//! the `termic-review` crate (re-exported here); this module adds what
//! only termic knows (the agent dirs it links into a worktree, which are
//! not the task's work) and the diff view's model (`view`).

pub use termic_review::*;

pub mod highlight;
pub mod revert;
pub mod view;

use std::path::Path;

use termic_review::model::{Changes, Stat};

/// The agent dirs termic may have symlinked into a worktree (a
/// built-in's `linked_dirs`): left out of every snapshot.
fn linked() -> Vec<&'static str> {
    crate::agents::builtin::linked_dirs().collect()
}

/// [`termic_review::take_base`] with termic's linked agent dirs.
pub fn take_base(
    cwd: &Path,
    worktree: Option<&Path>,
    key: &str,
) -> Result<ReviewBase, ReviewError> {
    termic_review::take_base(cwd, worktree, key, &linked())
}

/// A restored task's base: the one its record kept
/// ([`termic_review::kept_base`]), else a new one ([`take_base`]).
pub fn base_again(
    cwd: &Path,
    worktree: Option<&Path>,
    kept: (Option<&str>, Option<&str>),
    key: &str,
) -> Result<ReviewBase, ReviewError> {
    termic_review::kept_base(cwd, worktree, kept.0, kept.1)
        .unwrap_or_else(|| take_base(cwd, worktree, key))
}

/// What a task's record keeps of its base, for [`base_again`]: the
/// snapshot ref and the object (`None`s when it has no base).
pub fn kept_of(base: &Result<ReviewBase, String>) -> (Option<String>, Option<String>) {
    base.as_ref()
        .map(|b| (b.reference.clone(), Some(b.object.clone())))
        .unwrap_or_default()
}

/// [`termic_review::stat`] with termic's linked agent dirs.
pub fn stat(base: &ReviewBase) -> Result<Stat, ReviewError> {
    termic_review::stat(base, &linked())
}

/// [`termic_review::changes`] with termic's linked agent dirs.
pub fn changes(base: &ReviewBase) -> Result<Changes, ReviewError> {
    termic_review::changes(base, &linked())
}
