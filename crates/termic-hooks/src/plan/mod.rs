//! InstallPlan: the exact file changes an install or removal makes, built
//! by pure functions from a [`Snapshot`] of the files as they are now.
//!
//! The caller reads the snapshot at the edge (`apply::read_snapshot`), shows
//! the plan (paths, what each file is, before and after bytes), and applies
//! it (`apply::apply`). Nothing in this module touches the filesystem or a
//! clock: the install time comes in through [`InstallFacts`].

mod config;
mod install;
mod remove;

pub(crate) use config::{command as config_command, is_ours};

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

pub use install::plan_install;
pub use remove::plan_remove;

use crate::agents::VersionGate;
use crate::edit::EditError;
use crate::fsio::{Permission, Untrusted};

/// One file as it is on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub bytes: Vec<u8>,
    /// Permission bits (`0o644`).
    pub mode: u32,
    /// Whether the user running termic may replace it (decided at the
    /// edge by `fsio::may_replace`, which knows the uid and ACLs).
    pub permission: Permission,
}

/// The files (and missing directories) a plan or status looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    files: BTreeMap<PathBuf, FileState>,
    missing_dirs: BTreeSet<PathBuf>,
    /// Files and directories of the target that another user owns or can
    /// write (the ownership rule, `fsio::foreign`, decided at the edge).
    untrusted: BTreeMap<PathBuf, Untrusted>,
}

impl Snapshot {
    /// A file whose permission follows from its mode alone (no write bit:
    /// read-only), for callers that have no real file behind it.
    pub fn insert_file(&mut self, path: PathBuf, bytes: Vec<u8>, mode: u32) {
        let permission = if mode & 0o222 == 0 {
            Permission::ReadOnly
        } else {
            Permission::Writable
        };
        self.insert_file_with(path, bytes, mode, permission);
    }
    /// A file read from disk, with what the edge decided about writing it.
    pub fn insert_file_with(
        &mut self,
        path: PathBuf,
        bytes: Vec<u8>,
        mode: u32,
        permission: Permission,
    ) {
        self.files.insert(
            path,
            FileState {
                bytes,
                mode,
                permission,
            },
        );
    }
    /// Records that `dir` does not exist (an install would create it).
    pub fn insert_missing_dir(&mut self, dir: PathBuf) {
        self.missing_dirs.insert(dir);
    }
    /// Records a file or directory the ownership rule refused.
    pub fn insert_untrusted(&mut self, u: Untrusted) {
        self.untrusted.insert(u.path.clone(), u);
    }
    /// Every file and directory the ownership rule refused, outermost first.
    pub fn untrusted(&self) -> impl Iterator<Item = &Untrusted> {
        self.untrusted.values()
    }
    pub fn file(&self, path: &Path) -> Option<&FileState> {
        self.files.get(path)
    }
    pub fn dir_missing(&self, dir: &Path) -> bool {
        self.missing_dirs.contains(dir)
    }
}

/// Facts from outside the files, passed in as values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InstallFacts {
    /// Seconds since the Unix epoch, recorded in the manifest.
    pub now_unix: u64,
    /// The versions of the agents with a version gate that are on PATH.
    pub versions: AgentVersions,
}

/// `X.Y.Z`, as an agent's `--version` said.
pub type Version = (u32, u32, u32);

/// A version per agent id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentVersions(Cow<'static, [(&'static str, Version)]>);

impl AgentVersions {
    /// No version known.
    pub const NONE: AgentVersions = AgentVersions(Cow::Borrowed(&[]));

    /// Fixed versions (tests and demos).
    pub const fn fixed(versions: &'static [(&'static str, Version)]) -> AgentVersions {
        AgentVersions(Cow::Borrowed(versions))
    }

    /// Versions measured at run time.
    pub fn measured(versions: Vec<(&'static str, Version)>) -> AgentVersions {
        AgentVersions(Cow::Owned(versions))
    }

    /// The version of `agent`, when known.
    pub fn of(&self, agent: &str) -> Option<Version> {
        self.0.iter().find(|(id, _)| *id == agent).map(|(_, v)| *v)
    }
}

/// What a change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    CreateDir,
    Create,
    Modify,
    Delete,
    /// Remove a directory only if it is empty when the plan is applied.
    RemoveDirIfEmpty,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::CreateDir => "create dir",
            Action::Create => "create",
            Action::Modify => "change",
            Action::Delete => "delete",
            Action::RemoveDirIfEmpty => "remove dir if empty",
        })
    }
}

/// One file change, with the bytes it expects to find and the bytes it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub action: Action,
    pub path: PathBuf,
    /// What the file holds now (`None` when it does not exist).
    pub before: Option<Vec<u8>>,
    /// What it will hold (`None` for deletes and directories).
    pub after: Option<Vec<u8>>,
    /// Mode of a created file.
    pub mode: Option<u32>,
    /// What the file is, for the user: "hook script", "settings (merge)".
    pub what: &'static str,
    /// Applied only if this holds when the change is reached (else skipped).
    pub guard: Option<Guard>,
}

/// A condition on another file, checked when a change is applied: `path`
/// holds exactly `holds` (`None`: does not exist). Removal deletes the
/// backup only under the guard that the config was restored byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    pub path: PathBuf,
    pub holds: Option<Vec<u8>>,
}

impl Guard {
    pub fn absent(path: &Path) -> Guard {
        Guard {
            path: path.to_path_buf(),
            holds: None,
        }
    }
}

/// Everything one install or removal of one target changes, in apply order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    pub agent_id: String,
    /// `host` or `docker:<agent_id>`.
    pub target: String,
    pub changes: Vec<Change>,
    /// Entries termic recognises as its own but leaves alone, because the
    /// user edited them (removal reports these).
    pub left_alone: Vec<String>,
}

impl InstallPlan {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// One line per change: `  create  /home/u/.claude/termic-hooks/stop.sh  (hook script)`.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(&format!(
                "  {:<19} {}  ({})\n",
                c.action.to_string(),
                c.path.display(),
                c.what
            ));
        }
        for l in &self.left_alone {
            out.push_str(&format!("  left alone: {l}\n"));
        }
        out
    }

    /// The exact change to each file, as a unified diff of its bytes now
    /// against the bytes the plan writes: `--- path` / `+++ path`, then
    /// the hunks. A file created or deleted whole (a hook script, the
    /// manifest) shows its first [`WHOLE_FILE_LINES`] lines; a changed
    /// file (the user's settings) up to [`CHANGED_FILE_LINES`]. Each
    /// cut ends with `... N more lines`. Directories have no diff.
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            let empty: &[u8] = &[];
            let (old, new, max) = match c.action {
                Action::Create => (empty, c.after.as_deref(), WHOLE_FILE_LINES),
                Action::Delete => (c.before.as_deref().unwrap_or(empty), None, WHOLE_FILE_LINES),
                Action::Modify => (
                    c.before.as_deref().unwrap_or(empty),
                    c.after.as_deref(),
                    CHANGED_FILE_LINES,
                ),
                Action::CreateDir | Action::RemoveDirIfEmpty => continue,
            };
            let path = c.path.display();
            let (from, to) = match c.action {
                Action::Create => ("/dev/null".to_string(), path.to_string()),
                Action::Delete => (path.to_string(), "/dev/null".to_string()),
                _ => (path.to_string(), path.to_string()),
            };
            let hunks = crate::diff::unified(old, new.unwrap_or(empty), 3, max);
            out.push_str(&format!("--- {from}\n+++ {to}\n"));
            if hunks.is_empty() {
                out.push_str(match c.action {
                    Action::Modify => "(its content stays the same)\n",
                    _ => "(an empty file)\n",
                });
            }
            for line in hunks {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

/// Lines of a whole created or deleted file that [`InstallPlan::diff`] shows.
pub const WHOLE_FILE_LINES: usize = 12;
/// Lines of a changed file's diff that [`InstallPlan::diff`] shows.
pub const CHANGED_FILE_LINES: usize = 200;

/// Why an install or removal was not planned. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// One agent's own reason to refuse (from its adapter): `why` names `{path}`.
    #[error("{}", why.replace("{path}", &path.display().to_string()))]
    Refused { path: PathBuf, why: &'static str },
    #[error(
        "{} {}.{}.{} is too old: {} needs {}.{}.{} or newer. Update {} (`{}`), then install again",
        gate.product, found.0, found.1, found.2, gate.needs, gate.min.0, gate.min.1, gate.min.2,
        gate.product, gate.update
    )]
    AgentTooOld {
        gate: &'static VersionGate,
        found: (u32, u32, u32),
    },
    #[error("{path}: {source}")]
    Config { path: PathBuf, source: EditError },
    #[error(
        "{path} is read-only for you (its mode, group or ACL does not let you write it); termic \
         will not replace a file you protected. Make it writable (chmod u+w), run the command \
         again, then make it read-only again if you like"
    )]
    ReadOnly { path: PathBuf },
    /// A file or directory another user owns or can write (`fsio::foreign`).
    #[error("{}", untrusted.describe(doing))]
    Untrusted {
        untrusted: Box<Untrusted>,
        /// What termic would have done in a directory: "install hooks".
        doing: &'static str,
    },
}

/// A config the user made read-only is theirs to protect: a rename in a
/// writable directory would replace it anyway, so the plan refuses instead.
fn refuse_read_only(snap: &Snapshot, path: &Path, current: &FileState) -> Result<(), PlanError> {
    match current.permission {
        Permission::Writable => Ok(()),
        Permission::ReadOnly => Err(PlanError::ReadOnly {
            path: path.to_path_buf(),
        }),
        Permission::NotYours(why) => {
            let untrusted = snap.untrusted.get(path).cloned().unwrap_or(Untrusted {
                path: path.to_path_buf(),
                dir: false,
                mode: current.mode,
                why,
                name: None,
            });
            Err(PlanError::Untrusted {
                untrusted: Box::new(untrusted),
                doing: "write",
            })
        }
    }
}

/// The ownership rule over a whole target: refused when any of its
/// directories (or files) is another user's, before anything is planned.
fn refuse_untrusted(snap: &Snapshot, doing: &'static str) -> Result<(), PlanError> {
    match snap.untrusted().next() {
        Some(u) => Err(PlanError::Untrusted {
            untrusted: Box::new(u.clone()),
            doing,
        }),
        None => Ok(()),
    }
}

/// The same rule for every file a plan would replace or delete (scripts
/// and the manifest too, not only the config), checked before any write.
fn refuse_unwritable(snap: &Snapshot, plan: InstallPlan) -> Result<InstallPlan, PlanError> {
    for c in &plan.changes {
        if matches!(c.action, Action::Modify | Action::Delete) {
            if let Some(cur) = snap.file(&c.path) {
                refuse_read_only(snap, &c.path, cur)?;
            }
        }
    }
    Ok(plan)
}

/// Hex SHA-256, as the manifest records it.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    crate::edit::sha256_hex(bytes)
}

#[cfg(test)]
mod tests;
