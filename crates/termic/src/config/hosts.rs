//! `[hosts.NAME]`: remote machines reached over the user's own `ssh`
//! (issue 29). Read here, checked strictly (a destination that could be
//! taken for an ssh option is an error, not a warning), and written by
//! `termic hosts add` and `hosts rm` through [`add`] and [`remove`], which
//! edit the text and keep the user's bytes.

use toml_edit::{DocumentMut, Item, Table};

use super::keys::AgentKey;
use super::{Config, ConfigError, Source};

/// `[hosts.<name>]`: one remote machine.
pub const HOSTS_SECTION: &str = "hosts";

/// A configured remote host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostDef {
    /// The name `--host` and `HOST:TASK` use.
    pub name: String,
    /// What `ssh` is given as its destination: `user@box`, `box`, an alias
    /// of ~/.ssh/config.
    pub destination: String,
    /// Extra `ssh` options, before the destination (`-p 2222`, `-J jump`).
    pub ssh_args: Vec<String>,
    /// The remote `termic` (a path or a name on the remote PATH).
    pub termic: String,
}

/// Every key of a `[hosts.<name>]` table (the reference lists them).
pub const HOST_KEYS: &[AgentKey] = &[
    AgentKey {
        name: "destination",
        kind: "string",
        doc: "The SSH destination, as you would give it to `ssh`: `user@box`, `box`, or a `Host` of ~/.ssh/config. May not start with `-`.",
        default: "required",
        example: "\"me@devbox\"",
    },
    AgentKey {
        name: "ssh_args",
        kind: "list of strings",
        doc: "Extra `ssh` options, given before the destination (each one argument, never through a shell).",
        default: "[]",
        example: "[\"-p\", \"2222\"]",
    },
    AgentKey {
        name: "termic",
        kind: "string",
        doc: "The termic binary on the host: a path, or a name on the host's PATH for non-interactive ssh commands.",
        default: "\"termic\"",
        example: "\"/home/me/.cargo/bin/termic\"",
    },
];

/// The default remote binary.
pub const DEFAULT_REMOTE_TERMIC: &str = "termic";

/// Whether `name` can name a host: 1 to 32 of letters, digits, `-`, `_`
/// (never `:`, which separates HOST from TASK).
pub fn is_valid_host_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Why a destination is refused, if it is (pure).
pub fn destination_problem(dest: &str) -> Option<&'static str> {
    if dest.is_empty() {
        Some("is empty")
    } else if dest.starts_with('-') {
        Some("starts with `-`, so ssh would read it as an option")
    } else if dest.chars().any(|c| c.is_control() || c.is_whitespace()) {
        Some("holds a space or a control character")
    } else {
        None
    }
}

/// Why a remote termic path is refused, if it is (pure): it reaches the
/// remote shell (ssh joins its command into one line), quoted, but a
/// newline or control character has no business there.
pub fn remote_termic_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        Some("is empty")
    } else if path.starts_with('-') {
        Some("starts with `-`")
    } else if path.chars().any(char::is_control) {
        Some("holds a control character")
    } else {
        None
    }
}

/// Reads every `[hosts.<name>]`; a bad one is an error and left out.
pub fn parse_hosts_into(
    src: &Source<'_>,
    root: &Table,
    errors: &mut Vec<ConfigError>,
) -> Vec<HostDef> {
    let hosts = match src.table(root, HOSTS_SECTION) {
        Ok(Some(hosts)) => hosts,
        Ok(None) => return Vec::new(),
        Err(e) => {
            errors.push(e);
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (name, item) in hosts.iter() {
        let span = hosts
            .key(name)
            .and_then(|k| k.span())
            .or_else(|| item.span());
        let Some(table) = item.as_table() else {
            errors.push(src.error(
                span,
                format!("`hosts.{name}` must be a table"),
                format!("write it as a `[hosts.{name}]` section"),
            ));
            continue;
        };
        if !is_valid_host_name(name) {
            errors.push(src.error(
                span,
                format!(
                    "host name `{name}` may only use letters, digits, `-` and `_` (at most 32)"
                ),
                "rename the section, e.g. `[hosts.devbox]`",
            ));
            continue;
        }
        match parse_host(src, name, table) {
            Ok(def) => out.push(def),
            Err(e) => errors.push(e),
        }
    }
    out
}

fn parse_host(src: &Source<'_>, name: &str, t: &Table) -> Result<HostDef, ConfigError> {
    let span = |key: &str| t.get(key).and_then(|i| i.span());
    let Some(destination) = src.string(t, "destination")? else {
        return Err(src.error(
            t.span(),
            format!("[hosts.{name}] has no `destination`"),
            "add `destination = \"user@box\"` (what you give `ssh`)",
        ));
    };
    if let Some(why) = destination_problem(&destination) {
        return Err(src.error(
            span("destination"),
            format!("the destination of [hosts.{name}] {why}"),
            "write the host as `user@box`, `box` or a Host of ~/.ssh/config; options go in `ssh_args`",
        ));
    }
    let ssh_args = src.strings(t, "ssh_args")?.unwrap_or_default();
    if ssh_args.iter().any(|a| a.chars().any(char::is_control)) {
        return Err(src.error(
            span("ssh_args"),
            format!("an ssh argument of [hosts.{name}] holds a control character"),
            "remove it",
        ));
    }
    let termic = src
        .string(t, "termic")?
        .unwrap_or_else(|| DEFAULT_REMOTE_TERMIC.to_owned());
    if let Some(why) = remote_termic_problem(&termic) {
        return Err(src.error(
            span("termic"),
            format!("the `termic` of [hosts.{name}] {why}"),
            "give the path of termic on the host, e.g. \"/home/me/.cargo/bin/termic\"",
        ));
    }
    Ok(HostDef {
        name: name.to_owned(),
        destination,
        ssh_args,
        termic,
    })
}

/// `text` with `[hosts.<name>]` set to `destination` (pure). The rest of
/// the file is kept byte for byte; an existing host of that name is an
/// error (the user edits it by hand, or removes it first).
pub fn add(
    path: &std::path::Path,
    text: &str,
    name: &str,
    destination: &str,
) -> Result<String, ConfigError> {
    let invalid = |message: String, fix: &str| invalid_at(path, message, fix);
    if !is_valid_host_name(name) {
        return Err(invalid(
            format!("host name `{name}` may only use letters, digits, `-` and `_` (at most 32)"),
            "pick another name, e.g. devbox",
        ));
    }
    if let Some(why) = destination_problem(destination) {
        return Err(invalid(
            format!("the destination {why}"),
            "give it as `user@box`, `box` or a Host of ~/.ssh/config",
        ));
    }
    let config = Config::parse(path, text)?; // refuse to touch what we cannot read
    if config.hosts.iter().any(|h| h.name == name) {
        return Err(invalid(
            format!("a host named `{name}` is already in the file"),
            "pick another name, or edit its [hosts] section",
        ));
    }
    let mut doc = document(path, text)?;
    if !doc.as_table().contains_key(HOSTS_SECTION) {
        let mut hosts = Table::new();
        hosts.set_implicit(true);
        doc.as_table_mut().insert(HOSTS_SECTION, Item::Table(hosts));
    }
    let hosts = doc.as_table_mut()[HOSTS_SECTION]
        .as_table_mut()
        .expect("Config::parse accepted [hosts] as a table");
    let mut host = Table::new();
    host.insert("destination", toml_edit::value(destination));
    hosts.insert(name, Item::Table(host));
    Ok(doc.to_string())
}

/// `text` as an editable document.
fn document(path: &std::path::Path, text: &str) -> Result<DocumentMut, ConfigError> {
    text.parse()
        .map_err(|e: toml_edit::TomlError| ConfigError::Write {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
}

/// An error about config.toml's `[hosts]` as a whole (line 1).
fn invalid_at(path: &std::path::Path, message: String, fix: &str) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line: 1,
        col: 1,
        message,
        fix: fix.to_owned(),
    }
}

/// `text` without `[hosts.<name>]` (pure). The rest of the file is kept;
/// a host not in the file is an error.
pub fn remove(path: &std::path::Path, text: &str, name: &str) -> Result<String, ConfigError> {
    let config = Config::parse(path, text)?; // refuse to touch what we cannot read
    if !config.hosts.iter().any(|h| h.name == name) {
        return Err(invalid_at(
            path,
            format!(
                "no host named `{}` is in the file",
                crate::printed::clean_line(name)
            ),
            "`termic hosts ls` lists them",
        ));
    }
    let mut doc = document(path, text)?;
    if let Some(hosts) = doc
        .as_table_mut()
        .get_mut(HOSTS_SECTION)
        .and_then(Item::as_table_like_mut)
    {
        hosts.remove(name);
    }
    Ok(doc.to_string())
}

/// Remove a host from config.toml at `path`, atomically (as
/// [`save_added`]).
pub fn save_removed(path: &std::path::Path, name: &str) -> Result<Config, ConfigError> {
    super::edit::save_text(path, |old| remove(path, old, name))
}

/// Add a host to config.toml at `path`, atomically (the same
/// read-edit-write loop as every settings edit).
pub fn save_added(
    path: &std::path::Path,
    name: &str,
    destination: &str,
) -> Result<Config, ConfigError> {
    super::edit::save_text(path, |old| add(path, old, name, destination))
}
