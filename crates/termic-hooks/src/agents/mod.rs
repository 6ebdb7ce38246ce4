//! One adapter per agent, listed once in [`ADAPTERS`].
//!
//! An adapter says what termic does for an agent (install hooks, nothing
//! needed, not supported yet), and for a hook agent: which events it
//! registers, where its config entry goes and in which shape, and the files
//! it generates. Everything here is data plus pure text generation; reading
//! and writing files happens in `plan` and the CLI.

pub mod agy;
pub mod claude;
pub mod grok;
pub mod opencode;
pub mod script;
pub mod status_only;

use serde::Serialize;

/// Directory (inside the agent's own config dir) holding termic's scripts,
/// manifest and backup. Inside the agent's dir because a sandboxed agent can
/// already read and exec there; termic's data dir is denied to it.
pub const HOOKS_DIR: &str = "termic-hooks";
/// The manifest recording what an install wrote, inside [`HOOKS_DIR`].
pub const MANIFEST_FILE: &str = "termic-hooks/manifest.json";
/// Where the one-time copy of the user's original config goes.
pub const BACKUP_DIR: &str = "termic-hooks/backup";

/// The config shape family. A user-defined clone uses its base's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentSchema {
    Claude,
    Grok,
    Agy,
    Opencode,
}

impl AgentSchema {
    pub const ALL: [AgentSchema; 4] = [
        AgentSchema::Claude,
        AgentSchema::Grok,
        AgentSchema::Agy,
        AgentSchema::Opencode,
    ];

    /// The built-in agent id with this schema.
    pub fn id(self) -> &'static str {
        match self {
            AgentSchema::Claude => "claude",
            AgentSchema::Grok => "grok",
            AgentSchema::Agy => "agy",
            AgentSchema::Opencode => "opencode",
        }
    }

    pub fn from_id(id: &str) -> Option<AgentSchema> {
        AgentSchema::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The agent's global config dir, relative to `$HOME`.
    pub fn home_config_dir(self) -> &'static str {
        match self {
            AgentSchema::Claude => ".claude",
            AgentSchema::Grok => ".grok",
            AgentSchema::Agy => ".gemini",
            AgentSchema::Opencode => ".config/opencode",
        }
    }

    /// Where the same dir is mounted inside a Docker task's container.
    pub fn container_config_dir(self) -> &'static str {
        match self {
            AgentSchema::Claude => "/root/.claude",
            AgentSchema::Grok => "/root/.grok",
            AgentSchema::Agy => "/root/.gemini",
            AgentSchema::Opencode => "/root/.config/opencode",
        }
    }

    /// The adapter that installs this schema.
    pub fn adapter(self) -> &'static dyn AgentAdapter {
        match self {
            AgentSchema::Claude => &claude::Claude,
            AgentSchema::Grok => &grok::Grok,
            AgentSchema::Agy => &agy::Agy,
            AgentSchema::Opencode => &opencode::Opencode,
        }
    }
}

/// What termic does for an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// termic installs hooks of this schema.
    Hooks(AgentSchema),
    /// The agent already reports its own state; nothing to install.
    NotNeeded(&'static str),
    /// Unmeasured: no adapter is written from vendor docs.
    NotSupported(&'static str),
}

/// How the agent finds our hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigEntry {
    /// Handlers appended into a file the user owns, Claude-compatible shape
    /// (`hooks.<Event>[] = {hooks: [handler]}`). Ours are known by path prefix.
    MergeClaudeShape { file: &'static str },
    /// A file of our own in Claude-compatible shape: removal is a delete.
    OwnClaudeShape { file: &'static str },
    /// One named top-level entry in a shared file, agy's heterogeneous shape
    /// (handlers directly under PreInvocation and Stop, never in a matcher group).
    NamedAgyEntry {
        file: &'static str,
        name: &'static str,
    },
    /// Nothing to register: the agent loads the generated file by location.
    LoadedByLocation,
}

impl ConfigEntry {
    /// The config file this entry lives in, relative to the config dir.
    pub fn file(self) -> Option<&'static str> {
        match self {
            ConfigEntry::MergeClaudeShape { file }
            | ConfigEntry::OwnClaudeShape { file }
            | ConfigEntry::NamedAgyEntry { file, .. } => Some(file),
            ConfigEntry::LoadedByLocation => None,
        }
    }
}

/// One agent event termic registers, and the script it runs.
#[derive(Debug, Clone, Copy)]
pub struct HookRegistration {
    /// The config key, e.g. `PermissionRequest`.
    pub event: &'static str,
    pub script: script::ScriptSpec,
    /// File name inside [`HOOKS_DIR`].
    pub file_name: &'static str,
    /// Shown by Claude while the hook runs.
    pub status_message: &'static str,
}

impl HookRegistration {
    /// The script's path relative to the agent's config dir.
    pub fn rel_path(&self) -> String {
        format!("{HOOKS_DIR}/{}", self.file_name)
    }
}

/// Seconds an agent may give one of our hooks (they take milliseconds).
pub const HOOK_TIMEOUT_SECS: u32 = 5;

/// A file the install owns outright (script or plugin), relative to the
/// agent's config dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedAsset {
    pub rel_path: String,
    pub contents: String,
    pub mode: u32,
}

/// One agent as termic sees it.
pub trait AgentAdapter: Sync {
    /// The agent id used on the CLI and in settings, e.g. `claude`.
    fn id(&self) -> &'static str;
    fn support(&self) -> Support;
    /// Events registered in the config (empty when nothing is registered).
    fn registrations(&self) -> &'static [HookRegistration] {
        &[]
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::LoadedByLocation
    }
    /// Every file the install generates, relative to the agent's config dir.
    fn assets(&self) -> Vec<OwnedAsset> {
        self.registrations()
            .iter()
            .map(|r| OwnedAsset {
                rel_path: r.rel_path(),
                contents: r.script.render(),
                mode: script::SCRIPT_MODE,
            })
            .collect()
    }
}

/// Every agent termic knows, in the order status lists them.
pub static ADAPTERS: &[&dyn AgentAdapter] = &[
    &claude::Claude,
    &grok::Grok,
    &agy::Agy,
    &opencode::Opencode,
    &status_only::CODEX,
    &status_only::GEMINI,
    &status_only::COPILOT,
    &status_only::CURSOR,
];

/// The adapter for an agent id, if termic knows it.
pub fn adapter(id: &str) -> Option<&'static dyn AgentAdapter> {
    ADAPTERS.iter().copied().find(|a| a.id() == id)
}

/// Every known agent id, for error messages.
pub fn known_ids() -> Vec<&'static str> {
    ADAPTERS.iter().map(|a| a.id()).collect()
}

/// The agents termic can install hooks for (their support is
/// [`Support::Hooks`]), in registry order: what `termic hooks install`
/// suggests for an unknown name.
pub fn installable_ids() -> Vec<&'static str> {
    ADAPTERS
        .iter()
        .filter(|a| matches!(a.support(), Support::Hooks(_)))
        .map(|a| a.id())
        .collect()
}

/// Quote `path` for a POSIX shell when it needs it (a HOME with a space or a
/// quote): Claude and grok run the command string through a shell.
pub fn shell_quote(path: &str) -> String {
    let plain = !path.is_empty()
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%".contains(&b));
    if plain {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_adapter_id_is_unique_and_hook_agents_match_their_schema() {
        let ids = known_ids();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len());
        for schema in AgentSchema::ALL {
            let a = schema.adapter();
            assert_eq!(a.id(), schema.id());
            assert_eq!(a.support(), Support::Hooks(schema));
            assert_eq!(adapter(schema.id()).map(|a| a.id()), Some(schema.id()));
        }
    }

    #[test]
    fn installable_ids_are_exactly_the_agents_with_a_hooks_schema() {
        let ids = installable_ids();
        let schemas: Vec<&str> = AgentSchema::ALL.iter().map(|s| s.id()).collect();
        assert_eq!(ids, schemas);
        for id in ["codex", "gemini", "copilot", "cursor"] {
            assert!(known_ids().contains(&id) && !ids.contains(&id), "{id}");
        }
    }

    #[test]
    fn no_generated_file_contains_a_raw_control_byte() {
        for schema in AgentSchema::ALL {
            for asset in schema.adapter().assets() {
                let bad = asset
                    .contents
                    .bytes()
                    .position(|b| (b < 0x20 && b != b'\n') || b == 0x7f);
                assert_eq!(
                    bad,
                    None,
                    "{}: control byte in {}",
                    schema.id(),
                    asset.rel_path
                );
                assert!(asset.contents.is_ascii(), "{} is not ASCII", asset.rel_path);
                assert!(!asset.contents.contains('\u{2014}'));
            }
        }
    }

    #[test]
    fn shell_quote_leaves_plain_paths_and_quotes_the_rest() {
        assert_eq!(shell_quote("/home/u/.claude/x.sh"), "/home/u/.claude/x.sh");
        assert_eq!(shell_quote("/home/a b/x.sh"), "'/home/a b/x.sh'");
        assert_eq!(shell_quote("/home/o'k/x.sh"), r"'/home/o'\''k/x.sh'");
    }
}
