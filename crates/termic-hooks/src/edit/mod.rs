//! Pure text-to-text edits of agents' JSON configs: no I/O, no clock.
//!
//! Every function takes the file's current text (BOM included, `None` when
//! the file does not exist) and returns an [`Edit`]: the new text plus the
//! facts the caller must keep. What is not termic's keeps its exact bytes:
//! indentation, tabs, CRLF, escapes such as `\u00e9` and `\/`, number
//! spellings, key order, a UTF-8 BOM, a missing final newline. When the
//! wanted state is already there the input comes back byte-identical with
//! `changed == false`.
//!
//! # API
//!
//! Claude-compatible shape (`hooks.<Event>: [{"hooks": [handler]}]`, used
//! for `~/.claude/settings.json` and its Docker twin):
//! - [`install_grouped_hooks`]`(text, wanted, is_ours, record)`: ensures
//!   each wanted `(event, handler)` is present exactly once, appending a new
//!   group `{"hooks": [handler]}` to the event's array. Any other handler
//!   whose `command` satisfies `is_ours` is replaced or removed (older
//!   schema versions, duplicates). Pass the previous [`InstallRecord`]
//!   (or the default) and keep the returned one.
//! - [`remove_grouped_hooks`]`(text, written, is_ours, record)`: removes the
//!   handlers termic wrote (`written`, compared as JSON values), then the
//!   groups, event arrays and `hooks` object that termic created and that
//!   are now empty. A handler that `is_ours` but differs from everything in
//!   `written` was hand-edited: it stays and is listed in
//!   [`Edit::left_alone`].
//! - [`query_grouped_hooks`]`(text, is_ours)`: read-only, for status: our
//!   handlers per event as the agent sees them (last duplicate key wins),
//!   plus `disableAllHooks`.
//!
//! The same three in any [`HooksShape`] ([`install_hooks`], [`remove_hooks`],
//! [`query_hooks`]): [`HooksShape::flat`] puts each handler directly in the
//! event's array (Copilot CLI's `hooks.<event>: [{"type": "command", "bash": ...}]`).
//!
//! Antigravity named-entry shape (`~/.gemini/config/hooks.json`, an object
//! of named entries of which termic owns one key, `termic`):
//! - [`install_named_entry`]`(text, key, value, record)`: adds or replaces
//!   the key's whole value.
//! - [`remove_named_entry`]`(text, key, record)`: removes the key.
//!   [`Edit::delete_file`] says the file was termic's and is now `{}`.
//! - [`query_named_entry`]`(text, key)`: the key's current value.
//!
//! Byte-exact uninstall: [`uninstall`]`(current, last_written_sha256,
//! before, structural)` restores the pre-install bytes when the file still
//! is exactly what termic last wrote, and otherwise runs the structural
//! removal; [`sha256_hex`] hashes what you keep. Our entries are recognised
//! by command path prefix, and a command may be shell-quoted:
//! [`command_has_prefix`] does that test.
//!
//! Every input is checked to be strict JSON first (the agents reject
//! comments and trailing commas too) and every output again. Refused with
//! an [`EditError`] naming line and column: non-strict JSON, a top level
//! that is not an object, a `hooks` that is not an object, an event value
//! that is not an array, and a duplicate key on the path we edit (the agent
//! reads the last duplicate, so an edit to another would do nothing).
//! Valid JSON the editor cannot hold (a lone surrogate escape such as
//! `"\ud800"`) is refused as [`EditError::Unsupported`]. Nothing of the
//! user's is ever "repaired".

mod command;
mod doc;
mod grouped;
pub(crate) use doc::line_column;
mod layout;
mod named;
mod restore;
mod steps;

pub use command::{command_has_prefix, first_shell_word};
pub use grouped::{
    install_grouped_hooks, install_hooks, query_grouped_hooks, query_hooks, remove_grouped_hooks,
    remove_hooks, GroupedHooks, HooksShape,
};
pub use named::{install_named_entry, query_named_entry, remove_named_entry};
pub use restore::{sha256_hex, uninstall, PreInstall, Uninstall};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One hook handler under one event, e.g. `("Stop", {"type": "command", ...})`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventHandler {
    pub event: String,
    pub handler: Value,
}

impl EventHandler {
    pub fn new(event: impl Into<String>, handler: Value) -> Self {
        Self {
            event: event.into(),
            handler,
        }
    }
}

/// The result of an edit.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    /// The whole new file text, BOM included. Byte-identical to the input
    /// when `changed` is false.
    pub text: String,
    pub changed: bool,
    /// What termic's inserts created; keep it (manifest) and pass it to the
    /// next install or removal.
    pub record: InstallRecord,
    /// termic created this file and it now holds nothing: delete it
    /// instead of writing `text`.
    pub delete_file: bool,
    /// Handlers with our command prefix that differ from what termic wrote
    /// (the user edited them): left in place, for the caller to report.
    pub left_alone: Vec<EventHandler>,
}

/// What termic's inserts created in one file, so removal takes away
/// exactly that and nothing the user had. Paths are object keys from the
/// top level: `[]` is the file's object, `["hooks"]`, `["hooks", "Stop"]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// The file did not exist before termic wrote it.
    #[serde(default)]
    pub created_file: bool,
    /// Containers termic added; removed when they end up empty.
    #[serde(default)]
    pub created: Vec<Vec<String>>,
    /// Containers that were empty before termic's first insert into them,
    /// with their exact inner text (`{ }` versus `{}`), restored when they
    /// become empty again.
    #[serde(default)]
    pub was_empty: Vec<EmptyContainer>,
}

/// A container that was empty before termic inserted into it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyContainer {
    pub path: Vec<String>,
    /// The whitespace that was between its brackets.
    pub inner: String,
}

impl InstallRecord {
    fn created(&self, path: &[&str]) -> bool {
        self.created
            .iter()
            .any(|p| p.iter().map(String::as_str).eq(path.iter().copied()))
    }

    fn note_created(&mut self, path: &[&str]) {
        if !self.created(path) {
            self.created
                .push(path.iter().map(|s| s.to_string()).collect());
        }
    }

    fn forget_created(&mut self, path: &[&str]) {
        self.created
            .retain(|p| !p.iter().map(String::as_str).eq(path.iter().copied()));
    }

    /// Notes the inner text of a container about to receive its first child
    /// (unless termic created it, or an older note already has the original).
    fn note_was_empty(&mut self, path: &[&str], inner: &str) {
        let known = self
            .was_empty
            .iter()
            .any(|e| e.path.iter().map(String::as_str).eq(path.iter().copied()));
        if !known && !self.created(path) {
            let path = path.iter().map(|s| s.to_string()).collect();
            self.was_empty.push(EmptyContainer {
                path,
                inner: inner.to_string(),
            });
        }
    }

    /// The inner text to put back when a container becomes empty again.
    fn take_was_empty(&mut self, path: &[&str]) -> Option<String> {
        let at = self
            .was_empty
            .iter()
            .position(|e| e.path.iter().map(String::as_str).eq(path.iter().copied()))?;
        Some(self.was_empty.remove(at).inner)
    }
}

/// Why an edit was refused. Nothing is written when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Empty or only whitespace: serde_json would say "EOF while parsing".
    #[error(
        "the file is empty; `{{}}` is the minimal valid file. Write `{{}}` into it (or delete it), \
         then try again"
    )]
    Empty,
    #[error(
        "the file is not strict JSON (line {line}, column {column}: {reason}); the agent cannot load it \
         either. Fix it by hand, then try again"
    )]
    NotStrictJson {
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("the file is not UTF-8 text (first bad byte at offset {offset}); termic will not rewrite it")]
    NotUtf8 { offset: usize },
    #[error(
        "the file is valid JSON, but termic cannot edit it safely (line {line}, column {column}: {reason}). \
         Edit that spot by hand, then try again"
    )]
    Unsupported {
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("the file's top level is {found}, not an object; termic will not rewrite it")]
    TopLevelNotObject { found: &'static str },
    #[error(
        "`{key}` is {found}, not {expected} (line {line}, column {column}); termic will not replace your \
         value. Fix or remove it by hand, then try again"
    )]
    WrongType {
        key: String,
        /// `an object` or `an array`.
        expected: &'static str,
        found: &'static str,
        line: usize,
        column: usize,
    },
    #[error(
        "`{key}` appears more than once (again at line {line}, column {column}); the agent reads only the \
         last one, so an edit could silently do nothing. Merge the duplicates by hand, then try again"
    )]
    DuplicateKey {
        key: String,
        line: usize,
        column: usize,
    },
    #[error(
        "internal error in termic's config editor: {0}. Nothing was written; please report this"
    )]
    Internal(String),
}

#[cfg(test)]
mod tests;
