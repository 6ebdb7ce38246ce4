//! One adapter per agent, listed once in [`ADAPTERS`].
//!
//! An adapter says what termic does for an agent (install hooks, nothing
//! needed, not supported yet), and for a hook agent: which events it
//! registers, where its config entry goes and in which shape, and the files
//! it generates. Everything here is data plus pure text generation; reading
//! and writing files happens in `plan` and the CLI.

pub mod agy;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod grok;
pub mod opencode;
pub mod qwen;
pub mod script;
pub mod status_only;

use serde::Serialize;

/// Directory (inside the agent's own config dir) holding termic's scripts,
/// manifest and backup. Inside the agent's dir because a sandboxed agent can
/// already read and exec there; termic's data dir is denied to it.
pub const HOOKS_DIR: &str = "termic-hooks";
/// The manifest recording what an install wrote, inside [`HOOKS_DIR`]
/// (an agent with its own [`AgentAdapter::hooks_dir`] keeps it there:
/// [`AgentSchema::manifest_file`]).
pub const MANIFEST_FILE: &str = "termic-hooks/manifest.json";

/// A hook agent: one whose adapter installs hooks ([`Support::Hooks`]). A
/// copyable handle on its adapter, equal by id; each agent's file defines
/// its constant (e.g. `AgentSchema::CLAUDE`). A user-defined clone uses its
/// base's schema.
#[derive(Clone, Copy)]
pub struct AgentSchema(&'static dyn AgentAdapter);

impl AgentSchema {
    /// Every hook agent, in registry order (derived from [`ADAPTERS`]).
    pub fn all() -> Vec<AgentSchema> {
        ADAPTERS
            .iter()
            .filter_map(|a| match a.support() {
                Support::Hooks(schema) => Some(schema),
                _ => None,
            })
            .collect()
    }

    /// The built-in agent id with this schema.
    pub fn id(self) -> &'static str {
        self.0.id()
    }

    pub fn from_id(id: &str) -> Option<AgentSchema> {
        AgentSchema::all().into_iter().find(|s| s.id() == id)
    }

    /// The agent's global config dir, relative to `$HOME`.
    pub fn home_config_dir(self) -> &'static str {
        self.0.home_config_dir()
    }

    /// Where the same dir is mounted inside a Docker task's container.
    pub fn container_config_dir(self) -> String {
        self.0.container_config_dir()
    }

    /// The adapter that installs this schema.
    pub fn adapter(self) -> &'static dyn AgentAdapter {
        self.0
    }

    /// termic's own folder in the agent's config dir (scripts, manifest,
    /// backup).
    pub fn hooks_dir(self) -> &'static str {
        self.0.hooks_dir()
    }

    /// The manifest recording what an install wrote, relative to the config dir.
    pub fn manifest_file(self) -> String {
        format!("{}/manifest.json", self.hooks_dir())
    }

    /// Where the one-time copy of the user's original config goes.
    pub fn backup_dir(self) -> String {
        format!("{}/backup", self.hooks_dir())
    }
}

impl PartialEq for AgentSchema {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}
impl Eq for AgentSchema {}

impl std::hash::Hash for AgentSchema {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id().hash(state);
    }
}

impl std::fmt::Debug for AgentSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AgentSchema({})", self.id())
    }
}

impl Serialize for AgentSchema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// The oldest version of an agent whose hooks work, and how to say so.
/// Checked on the host only (a container brings its own agent).
#[derive(Debug)]
pub struct VersionGate {
    /// The product as users know it, e.g. `Claude Code`.
    pub product: &'static str,
    /// The executable that prints the version with `--version`.
    pub executable: &'static str,
    pub min: (u32, u32, u32),
    /// What needs `min`, in the install error, e.g. `hook output (terminalSequence)`.
    pub needs: &'static str,
    /// The same, short, in status, e.g. `hook output`.
    pub needs_short: &'static str,
    /// The command that updates the agent.
    pub update: &'static str,
    /// Reads `X.Y.Z` out of the `--version` output.
    pub parse: fn(&str) -> Option<(u32, u32, u32)>,
}

impl PartialEq for VersionGate {
    fn eq(&self, other: &Self) -> bool {
        (self.executable, self.min) == (other.executable, other.min)
    }
}
impl Eq for VersionGate {}

impl VersionGate {
    /// `found` when it is older than the gate.
    pub fn too_old(&self, found: Option<(u32, u32, u32)>) -> Option<(u32, u32, u32)> {
        found.filter(|v| *v < self.min)
    }
}

/// What an agent's own status checks found beyond the scripts and the
/// config entry: reasons the hooks would not run, and notes.
#[derive(Debug, Default)]
pub struct Findings {
    /// Whether anything of termic's is on disk (an install to report).
    pub installed: bool,
    pub reasons: Vec<crate::status::Reason>,
    pub notes: Vec<String>,
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
    MergeGrouped { file: &'static str },
    /// A file of our own in Claude-compatible shape: removal is a delete.
    OwnGrouped { file: &'static str },
    /// One named top-level entry in a shared file, agy's heterogeneous shape
    /// (handlers directly under PreInvocation and Stop, never in a matcher group).
    NamedEntry {
        file: &'static str,
        name: &'static str,
        /// Status's words for a handler wrapped in a matcher group there.
        wrapped: &'static str,
    },
    /// Handlers appended directly into `hooks.<event>[]` of a file the user
    /// owns, no matcher group, the command under `command_key` (Copilot's
    /// `{"type": "command", "bash": ...}`). Ours are known by path prefix.
    MergeFlat {
        file: &'static str,
        command_key: &'static str,
    },
    /// Nothing to register: the agent loads the generated file by location.
    LoadedByLocation,
}

impl ConfigEntry {
    /// The config file this entry lives in, relative to the config dir.
    pub fn file(self) -> Option<&'static str> {
        match self {
            ConfigEntry::MergeGrouped { file }
            | ConfigEntry::OwnGrouped { file }
            | ConfigEntry::NamedEntry { file, .. }
            | ConfigEntry::MergeFlat { file, .. } => Some(file),
            ConfigEntry::LoadedByLocation => None,
        }
    }

    /// The hooks shape of a grouped or flat entry (`None` for the others).
    pub fn hooks_shape(self) -> Option<crate::edit::HooksShape> {
        match self {
            ConfigEntry::MergeGrouped { .. } | ConfigEntry::OwnGrouped { .. } => {
                Some(crate::edit::HooksShape::GROUPED)
            }
            ConfigEntry::MergeFlat { command_key, .. } => {
                Some(crate::edit::HooksShape::flat(command_key))
            }
            _ => None,
        }
    }

    /// Whether the file is the user's (merged into, backed up once).
    pub fn shared(self) -> bool {
        !matches!(self, ConfigEntry::OwnGrouped { .. })
    }
}

/// One agent event termic registers, and the script it runs.
#[derive(Debug, Clone, Copy)]
pub struct HookRegistration {
    /// The config key, e.g. `PermissionRequest`.
    pub event: &'static str,
    pub script: script::ScriptSpec,
    /// File name inside the agent's hooks dir ([`AgentAdapter::hooks_dir`]).
    pub file_name: &'static str,
    /// Shown by Claude while the hook runs.
    pub status_message: &'static str,
}

impl HookRegistration {
    /// The script's path relative to the agent's config dir, given the
    /// agent's hooks dir.
    pub fn rel_path(&self, hooks_dir: &str) -> String {
        format!("{hooks_dir}/{}", self.file_name)
    }
}

/// HOME inside a Docker task's container: the agents run as root there
/// unless the image says otherwise, and termic mounts their config dirs
/// under it.
pub const CONTAINER_HOME: &str = "/root";

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
    /// A hook agent's global config dir, relative to `$HOME`.
    fn home_config_dir(&self) -> &'static str {
        ""
    }
    /// termic's folder in that dir. Two agents sharing a config dir (agy
    /// and Gemini CLI both use `~/.gemini`) need distinct ones, so their
    /// scripts, manifests and backups never meet.
    fn hooks_dir(&self) -> &'static str {
        HOOKS_DIR
    }
    /// One handler as the agent's config holds it, given the command.
    /// The default is the Claude-compatible minimum: synchronous, a timeout
    /// in seconds, no control field (termic observes, it never gates).
    fn handler(&self, command: &str, _reg: &HookRegistration) -> serde_json::Value {
        serde_json::json!({
            "type": "command",
            "command": command,
            "timeout": HOOK_TIMEOUT_SECS,
        })
    }
    /// Where a Docker task mounts the agent's config dir in the container:
    /// the same dir under root's HOME, [`CONTAINER_HOME`] (also for an
    /// agent termic installs no hooks for; empty when it has no config dir).
    fn container_config_dir(&self) -> String {
        match self.home_config_dir() {
            "" => String::new(),
            dir => format!("{CONTAINER_HOME}/{dir}"),
        }
    }
    /// Files beyond the install's own that status reads (relative to the
    /// config dir).
    fn extra_files(&self) -> &'static [&'static str] {
        &[]
    }
    /// The oldest version whose hooks work, when that matters.
    fn version_gate(&self) -> Option<&'static VersionGate> {
        None
    }
    /// One line of help under the agent's Settings row, when there is
    /// something the user can do that termic will not do for them.
    fn settings_help(&self) -> Option<&'static str> {
        None
    }
    /// The agent's own reason to refuse an install, given its config file's
    /// current text (e.g. a setting that turns every hook off).
    fn refuse_install(
        &self,
        _target: &crate::target::InstallTarget,
        _path: &std::path::Path,
        _text: &str,
    ) -> Result<(), crate::plan::PlanError> {
        Ok(())
    }
    /// The agent's own status checks (its traps and notes), after the
    /// generic ones put theirs in `found`.
    fn check_status(
        &self,
        _target: &crate::target::InstallTarget,
        _snap: &crate::plan::Snapshot,
        _found: &mut Findings,
    ) {
    }
    /// Every file the install generates, relative to the agent's config dir.
    fn assets(&self) -> Vec<OwnedAsset> {
        self.registrations()
            .iter()
            .map(|r| OwnedAsset {
                rel_path: r.rel_path(self.hooks_dir()),
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
    &codex::CODEX,
    &gemini::Gemini,
    &copilot::Copilot,
    &qwen::Qwen,
    &cursor::CURSOR,
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

/// [`installable_ids`] as words: `a, b and c`.
pub fn installable_in_words() -> String {
    let ids = installable_ids();
    match ids.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => ids.join(""),
    }
}

/// The global files an install of `adapter` writes, in words for help text:
/// its config file and its generated files (a dir holding several is named
/// once: `~/.claude/termic-hooks/ (scripts)`), paths under `~`.
pub fn files_in_words(adapter: &dyn AgentAdapter) -> String {
    let dir = adapter.home_config_dir();
    let mut parts: Vec<String> = Vec::new();
    if let Some(file) = adapter.config_entry().file() {
        parts.push(format!("~/{dir}/{file}"));
    }
    let assets = adapter.assets();
    fn parent_of(asset: &OwnedAsset) -> &str {
        asset.rel_path.rsplit_once('/').map_or("", |(dir, _)| dir)
    }
    let mut dirs: Vec<&str> = Vec::new();
    for asset in &assets {
        let parent = parent_of(asset);
        let siblings = assets.iter().filter(|a| parent_of(a) == parent).count();
        if siblings == 1 {
            parts.push(format!("~/{dir}/{}", asset.rel_path));
        } else if !dirs.contains(&parent) {
            dirs.push(parent);
            parts.push(format!("~/{dir}/{parent}/ (scripts)"));
        }
    }
    parts.join(", ")
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
        for schema in AgentSchema::all() {
            let a = schema.adapter();
            assert_eq!(a.id(), schema.id());
            assert_eq!(a.support(), Support::Hooks(schema));
            assert_eq!(adapter(schema.id()).map(|a| a.id()), Some(schema.id()));
        }
    }

    #[test]
    fn installable_ids_are_exactly_the_agents_with_a_hooks_schema() {
        let ids = installable_ids();
        let schemas: Vec<&str> = AgentSchema::all().iter().map(|s| s.id()).collect();
        assert_eq!(ids, schemas);
        for id in ["codex", "cursor"] {
            assert!(known_ids().contains(&id) && !ids.contains(&id), "{id}");
        }
    }

    #[test]
    fn no_generated_file_contains_a_raw_control_byte() {
        for schema in AgentSchema::all() {
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
    fn lists_and_dirs_come_from_the_adapters() {
        assert_eq!(
            installable_in_words(),
            "claude, grok, agy, opencode, gemini, copilot and qwen"
        );
        let dirs: Vec<_> = AgentSchema::all()
            .into_iter()
            .map(|s| (s.home_config_dir(), s.container_config_dir()))
            .collect();
        let dirs: Vec<(&str, &str)> = dirs.iter().map(|(h, c)| (*h, c.as_str())).collect();
        assert_eq!(
            dirs,
            [
                (".claude", "/root/.claude"),
                (".grok", "/root/.grok"),
                (".gemini", "/root/.gemini"),
                (".config/opencode", "/root/.config/opencode"),
                (".gemini", "/root/.gemini"),
                (".copilot", "/root/.copilot"),
                (".qwen", "/root/.qwen"),
            ]
        );
        let container = |id| adapter(id).map(|a| a.container_config_dir());
        assert_eq!(container("codex").as_deref(), Some("/root/.codex"));
        assert_eq!(container("cursor").as_deref(), Some(""));
        let gated: Vec<_> = ADAPTERS
            .iter()
            .filter_map(|a| a.version_gate().map(|g| (a.id(), g.min)))
            .collect();
        assert_eq!(gated, [("claude", (2, 1, 141))]);
    }

    #[test]
    fn agents_sharing_a_config_dir_own_distinct_files() {
        // agy and Gemini CLI both live in ~/.gemini: no path either install
        // owns (scripts, config, manifest, backup) may be the other's.
        let all = AgentSchema::all();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.home_config_dir() != b.home_config_dir() {
                    continue;
                }
                assert_ne!(a.hooks_dir(), b.hooks_dir(), "{a:?} {b:?}");
                let owned = |s: &AgentSchema| {
                    let mut p: Vec<String> = s
                        .adapter()
                        .assets()
                        .into_iter()
                        .map(|x| x.rel_path)
                        .collect();
                    p.extend(s.adapter().config_entry().file().map(str::to_string));
                    p.push(s.manifest_file());
                    p.push(s.backup_dir());
                    p
                };
                let theirs = owned(b);
                for p in owned(a) {
                    assert!(!theirs.contains(&p), "{a:?} and {b:?} both own {p}");
                    assert!(
                        !p.starts_with(&format!("{}/", b.hooks_dir())),
                        "{a:?}'s {p} is in {b:?}'s folder"
                    );
                }
            }
        }
        assert!(
            all.iter()
                .filter(|s| s.home_config_dir() == ".gemini")
                .count()
                == 2
        );
    }

    #[test]
    fn files_in_words_names_the_config_file_and_the_generated_files() {
        let words = |id: &str| files_in_words(adapter(id).unwrap());
        assert_eq!(
            words("claude"),
            "~/.claude/settings.json, ~/.claude/termic-hooks/ (scripts)"
        );
        assert_eq!(words("opencode"), "~/.config/opencode/plugins/termic.js");
        assert!(
            words("gemini").starts_with("~/.gemini/settings.json, ~/.gemini/termic-hooks-gemini/")
        );
        for id in installable_ids() {
            assert!(words(id).starts_with("~/."), "{id}: {}", words(id));
        }
    }

    #[test]
    fn shell_quote_leaves_plain_paths_and_quotes_the_rest() {
        assert_eq!(shell_quote("/home/u/.claude/x.sh"), "/home/u/.claude/x.sh");
        assert_eq!(shell_quote("/home/a b/x.sh"), "'/home/a b/x.sh'");
        assert_eq!(shell_quote("/home/o'k/x.sh"), r"'/home/o'\''k/x.sh'");
    }
}
