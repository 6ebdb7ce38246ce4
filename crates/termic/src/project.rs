//! The edge of the project-path rule: reads the repository and worktrees
//! around the working directory (git), then hands the values to
//! [`termic_hooks::target::project_roots`], the one rule the hooks CLI,
//! Settings, the wizard and task spawn all use.

use std::path::Path;

use termic_hooks::target::{ForbiddenRoots, ProjectFacts, TargetError};

use crate::worktree;

/// What the rule needs about `cwd`: its repository root, that repository's
/// worktrees (the main one included, so a start from a worktree also
/// guards the repository it belongs to) and termic's own worktree dir for
/// it. Not a repository: only HOME and `cwd`.
pub fn facts(home: &Path, cwd: &Path, data_dir: &Path) -> ProjectFacts {
    let repo_root = worktree::repo_root(cwd).ok();
    let mut worktree_roots = Vec::new();
    if let Some(root) = &repo_root {
        worktree_roots.extend(worktree::list(root).unwrap_or_default());
        for wt in worktree_roots.clone() {
            worktree_roots.push(worktree::repo_worktrees_dir(data_dir, &wt));
        }
    }
    ProjectFacts {
        home: home.to_path_buf(),
        cwd: cwd.to_path_buf(),
        repo_root,
        worktree_roots,
    }
}

/// The roots no hooks install may resolve under, for termic started in `cwd`.
pub fn forbidden_roots(
    home: &Path,
    cwd: &Path,
    data_dir: &Path,
) -> Result<ForbiddenRoots, TargetError> {
    ForbiddenRoots::for_project(&facts(home, cwd, data_dir))
}
