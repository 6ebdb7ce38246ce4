//! termic's own config file, `<config_dir>/config.toml`: user-defined agents
//! and the settings the UI persists (hooks consent per agent, wizard shown,
//! notifications, prefix key, the OSC 7501 probe reply, TERM_PROGRAM,
//! scrollback, the colours reported to agents).
//!
//! Every key is in one table, [`keys`]: the parser reads through it, the
//! unknown-key check ([`unknown`]) knows only its keys, and docs/config.md's
//! reference is printed from it ([`reference`], `termic config reference`).
//!
//! Reading is strict about types and values (an error names the file, line
//! and fix) and lenient about unknown keys (a newer termic's config still
//! loads), which are warnings naming the file, line and closest valid key.
//! Writing goes through [`edit`]: toml_edit keeps the user's comments and
//! formatting, and the file is replaced atomically.
//!
//! The reference of every key, its default and an example: docs/config.md.

pub mod edit;
pub mod hosts;
pub mod keys;
pub mod reference;
pub mod source;
pub mod unknown;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agents::{user, AgentDef, AgentRegistry};
use termic_runtime::replies::{ReplyConfig, Rgb};
use termic_runtime::{env::DEFAULT_TERM_PROGRAM, RuntimeConfig, DEFAULT_SCROLLBACK};

pub use source::Source;
pub use unknown::ConfigWarning;

/// The file name inside the config dir.
pub const CONFIG_FILE: &str = "config.toml";

/// How long the server lingers with no task and no client, by default.
pub const DEFAULT_IDLE_EXIT_SECS: u64 = 60;

/// Largest `idle_exit` accepted: a year (no server needs to wait longer).
pub const MAX_IDLE_EXIT_SECS: u64 = 365 * 24 * 3600;

/// Largest scrollback accepted, in lines (memory is ~the line count times the width).
pub const MAX_SCROLLBACK: u64 = 1_000_000;

/// Why the config could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}:{line}:{col}: {message} (fix: {fix})", path = path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        col: usize,
        message: String,
        fix: String,
    },
    #[error("cannot read {path}: {source}", path = path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not a regular file, too big, a dangling link.
    #[error("{0}")]
    File(#[from] termic_hooks::fsio::FsError),
    #[error("cannot write {path}: {message}", path = path.display())]
    Write { path: PathBuf, message: String },
}

/// How attention reaches the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notifications {
    pub bell: bool,
    pub desktop: bool,
    /// OSC 777/9 to the outer terminal when no desktop service exists.
    pub osc_fallback: bool,
}

impl Default for Notifications {
    fn default() -> Self {
        Notifications {
            bell: true,
            desktop: true,
            osc_fallback: true,
        }
    }
}

/// Everything in config.toml except the agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub term_program: String,
    pub scrollback: usize,
    pub native_probe_reply: bool,
    pub foreground: Option<Rgb>,
    pub background: Option<Rgb>,
    /// Start bash, zsh and fish tasks with termic's OSC 133 integration
    /// (`shell/`). Off: a shell is a plain command (working while it prints).
    pub shell_integration: bool,
    /// `None`: the UI's default.
    pub prefix_key: Option<String>,
    /// "vi" or "emacs"; `None`: from the attaching terminal's editor.
    pub copy_keys: Option<String>,
    pub wizard_shown: bool,
    /// Syntax colours in the diff view (issue 32).
    pub diff_syntax: bool,
    pub notifications: Notifications,
    /// The user's consent to hooks, per agent id (absent = not given).
    pub hooks_consent: BTreeMap<String, bool>,
    /// Seconds the server stays with no task and no client before it exits.
    pub server_idle_exit_secs: u64,
    /// Whose size the tasks take with several clients attached.
    pub window_size: WindowSize,
    /// `[tasks] continue_after_limit`: type an agent's continue prompt when
    /// its usage limit resets (off by default).
    pub continue_after_limit: bool,
    /// Where the server pushes notifications besides the browsers that
    /// subscribed (`[notifications]` `ntfy`, `webhook`; issue 30).
    pub push: PushSettings,
    /// How the workspace's state reaches an outer terminal that did not
    /// answer the OSC 7501 probe (`crate::outer`).
    pub outer_fallback: OuterFallback,
    /// How `termic merge` and the diff view's merge key bring a worktree
    /// task's branch to its base (`[review] merge`).
    pub review_merge: termic_review::merge::How,
}

/// The server's push targets from config.toml (`[notifications]`): ntfy
/// and a webhook, and the contact every Web Push request names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushSettings {
    /// An ntfy topic URL (`https://ntfy.sh/mytopic`), or none.
    pub ntfy: Option<String>,
    /// The ntfy access token, or none.
    pub ntfy_token: Option<String>,
    /// A URL that gets each notification's JSON by POST, or none.
    pub webhook: Option<String>,
    /// VAPID's `sub` (RFC 8292): a `mailto:` or `https:` URL a push
    /// service can reach the sender at.
    pub push_contact: String,
}

/// The VAPID contact when config.toml names none.
pub const DEFAULT_PUSH_CONTACT: &str = "mailto:termic@localhost";

impl Default for PushSettings {
    fn default() -> Self {
        PushSettings {
            ntfy: None,
            ntfy_token: None,
            webhook: None,
            push_contact: DEFAULT_PUSH_CONTACT.to_owned(),
        }
    }
}

/// What termic tells an outer terminal that did not answer its OSC 7501
/// probe (`[notifications] outer_fallback`). docs/decisions.md says why
/// `Progress` is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OuterFallback {
    /// OSC 9;4 progress.
    #[default]
    Progress,
    /// An OSC 777 notification when the workspace starts needing you.
    Notify,
    /// Nothing.
    None,
}

impl OuterFallback {
    pub const ALL: [OuterFallback; 3] = [
        OuterFallback::Progress,
        OuterFallback::Notify,
        OuterFallback::None,
    ];

    /// Its name in config.toml.
    pub fn name(self) -> &'static str {
        match self {
            OuterFallback::Progress => "progress",
            OuterFallback::Notify => "notify",
            OuterFallback::None => "none",
        }
    }

    pub fn parse(s: &str) -> Option<OuterFallback> {
        OuterFallback::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// Which attached client's size a task takes when several are attached
/// (tmux's `window-size`). docs/decisions.md says why `Latest` is the
/// default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WindowSize {
    /// The client that typed, resized or attached last.
    #[default]
    Latest,
    /// The smallest width and the smallest height among them.
    Smallest,
    /// The largest width and the largest height among them.
    Largest,
}

impl WindowSize {
    pub const ALL: [WindowSize; 3] = [
        WindowSize::Latest,
        WindowSize::Smallest,
        WindowSize::Largest,
    ];

    /// Its name in config.toml.
    pub fn name(self) -> &'static str {
        match self {
            WindowSize::Latest => "latest",
            WindowSize::Smallest => "smallest",
            WindowSize::Largest => "largest",
        }
    }

    pub fn parse(name: &str) -> Option<WindowSize> {
        WindowSize::ALL.into_iter().find(|w| w.name() == name)
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            term_program: DEFAULT_TERM_PROGRAM.to_owned(),
            scrollback: DEFAULT_SCROLLBACK,
            native_probe_reply: true,
            foreground: None,
            background: None,
            shell_integration: true,
            prefix_key: None,
            copy_keys: None,
            wizard_shown: false,
            diff_syntax: true,
            server_idle_exit_secs: DEFAULT_IDLE_EXIT_SECS,
            window_size: WindowSize::default(),
            continue_after_limit: false,
            outer_fallback: OuterFallback::default(),
            // ff: what lands is exactly the diff the user read (docs/decisions.md).
            review_merge: termic_review::merge::How::Ff,
            notifications: Notifications::default(),
            hooks_consent: BTreeMap::new(),
            push: PushSettings::default(),
        }
    }
}

impl Settings {
    pub fn hooks_consent(&self, agent: &str) -> bool {
        self.hooks_consent.get(agent).copied().unwrap_or(false)
    }

    /// The runtime's view of these settings.
    pub fn runtime_config(&self) -> RuntimeConfig {
        let defaults = ReplyConfig::default();
        RuntimeConfig {
            term_program: self.term_program.clone(),
            scrollback: self.scrollback,
            replies: ReplyConfig {
                native_probe: self.native_probe_reply,
                foreground: self.foreground.unwrap_or(defaults.foreground),
                background: self.background.unwrap_or(defaults.background),
                ..defaults
            },
            ..RuntimeConfig::default()
        }
    }
}

/// A loaded config.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Where it was read from (it may not exist yet).
    pub path: PathBuf,
    pub settings: Settings,
    pub agents: AgentRegistry,
    /// `[hosts.<name>]`, in file order (issue 29).
    pub hosts: Vec<hosts::HostDef>,
    /// Unknown keys: each names the file, line and closest valid key.
    /// They never stop termic; the workspace and `termic config check`
    /// show them.
    pub warnings: Vec<ConfigWarning>,
}

impl Config {
    pub fn path_in(config_dir: &Path) -> PathBuf {
        config_dir.join(CONFIG_FILE)
    }

    /// Read `<config_dir>/config.toml`; a missing file is the defaults.
    pub fn load(config_dir: &Path) -> Result<Config, ConfigError> {
        let path = Self::path_in(config_dir);
        // The same bounded, non-blocking read as every agent config: a FIFO
        // or device here fails at once, before the terminal goes raw.
        match termic_hooks::fsio::read_regular(&path)? {
            Some((bytes, _)) => match String::from_utf8(bytes) {
                Ok(text) => Self::parse(&path, &text),
                Err(e) => Err(ConfigError::Read {
                    path,
                    source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
                }),
            },
            None => Ok(Config {
                path,
                settings: Settings::default(),
                agents: AgentRegistry::default(),
                hosts: Vec::new(),
                warnings: Vec::new(),
            }),
        }
    }

    /// Parse config text (pure). Strict: the first wrong value is the error.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let (config, errors) = Self::parse_all(path, text);
        errors.into_iter().next().map_or(Ok(config), Err)
    }

    /// Parse config text (pure), using what is good: a wrong value keeps
    /// its key's default, a bad agent definition is left out, text that is
    /// not TOML is all defaults; each such error comes back as a warning
    /// worded as `termic config check` words it. For attaching: a typo in
    /// config.toml must not lock the user out of tasks that are running.
    pub fn parse_lenient(path: &Path, text: &str) -> Config {
        let (mut config, errors) = Self::parse_all(path, text);
        let used: Vec<ConfigWarning> = errors.iter().map(ConfigWarning::defaults_used).collect();
        config.warnings.splice(0..0, used);
        config
    }

    /// The config from every part that reads, and the errors of the rest.
    fn parse_all(path: &Path, text: &str) -> (Config, Vec<ConfigError>) {
        let src = Source { path, text };
        let mut config = Config {
            path: path.to_path_buf(),
            settings: Settings::default(),
            agents: AgentRegistry::default(),
            hosts: Vec::new(),
            warnings: Vec::new(),
        };
        let doc = match toml_edit::Document::parse(text) {
            Ok(doc) => doc,
            Err(e) => {
                let error = src.error(
                    e.span(),
                    format!("not valid TOML: {}", e.message().trim()),
                    "correct the syntax at that spot (see https://toml.io)",
                );
                return (config, vec![error]);
            }
        };
        let root = doc.as_table();
        let mut errors = Vec::new();
        keys::read_settings_into(&src, root, &mut config.settings, &mut errors);
        let defined: Vec<AgentDef> = user::parse_agents_into(&src, root, &mut errors);
        config.agents = AgentRegistry::new(defined);
        config.hosts = hosts::parse_hosts_into(&src, root, &mut errors);
        config.warnings = unknown::unknown_keys(&src, root);
        (config, errors)
    }

    /// [`Config::load`] for attaching: a file that cannot be read or has
    /// wrong values gives the defaults where it is wrong, and warnings.
    pub fn load_lenient(config_dir: &Path) -> Config {
        let path = Self::path_in(config_dir);
        match termic_hooks::fsio::read_regular(&path) {
            Ok(Some((bytes, _))) => Self::parse_lenient(&path, &String::from_utf8_lossy(&bytes)),
            Ok(None) => Self::parse_lenient(&path, ""),
            Err(e) => {
                let mut config = Self::parse_lenient(&path, "");
                config.warnings.push(ConfigWarning {
                    path: path.clone(),
                    line: 1,
                    message: format!("{e}; the defaults are used"),
                });
                config
            }
        }
    }
}

#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod tests;
