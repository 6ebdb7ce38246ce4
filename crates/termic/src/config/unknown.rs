//! Keys termic does not know: each is a warning naming the file, the line
//! and the closest valid key. A warning never stops termic (a newer
//! termic's config still loads), but a misspelt key is not silently lost.

use std::path::PathBuf;

use toml_edit::Table;

use super::hosts::{HOSTS_SECTION, HOST_KEYS};
use super::keys::{setting_sections, AGENTS_SECTION, AGENT_KEYS, HOOKS_SECTION, SETTING_KEYS};
use super::source::{line_col, Source};

/// One unknown key, where it is and what was probably meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl ConfigWarning {
    /// A wrong value read leniently: what `config check` says, and that the
    /// default took its place.
    pub fn defaults_used(error: &super::ConfigError) -> ConfigWarning {
        match error {
            super::ConfigError::Invalid {
                path,
                line,
                message,
                fix,
                ..
            } => ConfigWarning {
                path: path.clone(),
                line: *line,
                message: format!("{message}; the default is used (fix: {fix})"),
            },
            other => ConfigWarning {
                path: PathBuf::new(),
                line: 1,
                message: format!("{other}; the defaults are used"),
            },
        }
    }
}

impl std::fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// One line for the workspace's message line: the first warning, short,
/// and how many more `termic config check` lists.
pub fn summary(warnings: &[ConfigWarning]) -> Option<String> {
    let first = warnings.first()?;
    let more = match warnings.len() - 1 {
        0 => String::new(),
        n => format!(" ({n} more: termic config check)"),
    };
    Some(format!(
        "config.toml:{}: {}{more}",
        first.line, first.message
    ))
}

/// Edit distance (insertions, deletions, substitutions), for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The valid name closest to `name`, when it is close enough to be a typo.
pub fn closest<'a>(name: &str, valid: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    valid
        .into_iter()
        .map(|v| (distance(name, v), v))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

/// "did you mean `x`?", or the list of valid names when none is close.
fn hint(name: &str, valid: &[&str]) -> String {
    match closest(name, valid.iter().copied()) {
        Some(v) => format!("did you mean `{v}`?"),
        None => format!("valid here: {}", valid.join(", ")),
    }
}

/// The section a fixed key belongs to, when `name` is one.
fn home_of(name: &str) -> Option<&'static str> {
    SETTING_KEYS
        .iter()
        .find(|k| k.name == name)
        .map(|k| k.section)
}

/// Every unknown section and key in `root`, in file order.
pub fn unknown_keys(src: &Source<'_>, root: &Table) -> Vec<ConfigWarning> {
    let mut out = Vec::new();
    let mut warn = |table: &Table, key: &str, message: String| {
        let span = table
            .key(key)
            .and_then(|k| k.span())
            .or_else(|| table.get(key).and_then(|i| i.span()));
        let line = span.map_or(1, |s| line_col(src.text, s.start).0);
        out.push(ConfigWarning {
            path: src.path.to_path_buf(),
            line,
            message,
        });
    };
    let sections = setting_sections();
    let mut top: Vec<&str> = sections.clone();
    top.extend([HOOKS_SECTION, AGENTS_SECTION, HOSTS_SECTION]);
    for (name, item) in root.iter() {
        if top.contains(&name) {
            let Some(table) = item.as_table() else {
                continue; // a type error, reported by the parser
            };
            if sections.contains(&name) {
                let valid: Vec<&str> = SETTING_KEYS
                    .iter()
                    .filter(|k| k.section == name)
                    .map(|k| k.name)
                    .collect();
                for (key, _) in table.iter().filter(|(k, _)| !valid.contains(k)) {
                    let message = match home_of(key) {
                        Some(home) => {
                            format!("`{key}` belongs in [{home}], not [{name}]; it was ignored")
                        }
                        None => format!(
                            "unknown key `{key}` in [{name}], ignored; {}",
                            hint(key, &valid)
                        ),
                    };
                    warn(table, key, message);
                }
            } else if name == HOSTS_SECTION {
                let valid: Vec<&str> = HOST_KEYS.iter().map(|k| k.name).collect();
                for (host, def) in table.iter() {
                    let Some(def) = def.as_table() else {
                        continue;
                    };
                    for (key, _) in def.iter().filter(|(k, _)| !valid.contains(k)) {
                        let message = format!(
                            "unknown key `{key}` in [hosts.{host}], ignored; {}",
                            hint(key, &valid)
                        );
                        warn(def, key, message);
                    }
                }
            } else if name == AGENTS_SECTION {
                let valid: Vec<&str> = AGENT_KEYS.iter().map(|k| k.name).collect();
                for (id, agent) in table.iter() {
                    let Some(agent) = agent.as_table() else {
                        continue;
                    };
                    for (key, _) in agent.iter().filter(|(k, _)| !valid.contains(k)) {
                        let message = format!(
                            "unknown key `{key}` in [agents.{id}], ignored; {}",
                            hint(key, &valid)
                        );
                        warn(agent, key, message);
                    }
                }
            }
        } else {
            let message = match home_of(name) {
                Some(home) => format!("`{name}` belongs in a [{home}] section; it was ignored"),
                None => format!("unknown section `{name}`, ignored; {}", hint(name, &top)),
            };
            warn(root, name, message);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_single_edits() {
        assert_eq!(distance("prefx_key", "prefix_key"), 1);
        assert_eq!(distance("bel", "bell"), 1);
        assert_eq!(distance("scrolback", "scrollback"), 1);
        assert_eq!(distance("abc", "abc"), 0);
        assert_eq!(distance("", "ab"), 2);
        assert_eq!(closest("zzzzzz", ["bell", "desktop"]), None);
        assert_eq!(closest("desktp", ["bell", "desktop"]), Some("desktop"));
    }

    #[test]
    fn the_message_line_shows_the_first_warning_and_how_many_more() {
        let w = |line, message: &str| ConfigWarning {
            path: PathBuf::from("/home/me/.config/termic/config.toml"),
            line,
            message: message.into(),
        };
        assert_eq!(summary(&[]), None);
        assert_eq!(
            summary(&[w(2, "unknown key `a`")]).as_deref(),
            Some("config.toml:2: unknown key `a`")
        );
        assert_eq!(
            summary(&[w(2, "unknown key `a`"), w(5, "b"), w(9, "c")]).as_deref(),
            Some("config.toml:2: unknown key `a` (2 more: termic config check)")
        );
    }
}
