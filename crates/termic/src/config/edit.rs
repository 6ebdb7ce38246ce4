//! Persisting settings into config.toml without disturbing the user's file.
//!
//! [`apply`] is pure text to text: it refuses a file that does not load, sets
//! only the keys it is given (keeping each value's trailing comment), creates
//! a section only when missing, and returns the input unchanged when every
//! value is already what was asked. [`save`] wraps it in termic-hooks'
//! read-edit-write loop: atomic replace through symlinks, mode kept, and a
//! retry when another writer gets in between.

use std::path::Path;

use termic_hooks::fsio::{edit_file, Change, EditFileError, WriteOptions};
use toml_edit::{DocumentMut, Item, Table, Value};

use super::{Config, ConfigError, Notifications};

/// One setting to persist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingEdit {
    HooksConsent { agent: String, on: bool },
    WizardShown(bool),
    Notifications(Notifications),
    PrefixKey(String),
    NativeProbeReply(bool),
    TermProgram(String),
    Scrollback(usize),
}

impl SettingEdit {
    /// `(section, key, value)` triples this edit writes.
    fn entries(&self) -> Vec<(&'static str, String, Value)> {
        match self {
            SettingEdit::HooksConsent { agent, on } => vec![("hooks", agent.clone(), (*on).into())],
            SettingEdit::WizardShown(v) => vec![("ui", "wizard_shown".into(), (*v).into())],
            SettingEdit::PrefixKey(v) => vec![("ui", "prefix_key".into(), v.as_str().into())],
            SettingEdit::NativeProbeReply(v) => {
                vec![("terminal", "native_probe_reply".into(), (*v).into())]
            }
            SettingEdit::TermProgram(v) => {
                vec![("terminal", "term_program".into(), v.as_str().into())]
            }
            SettingEdit::Scrollback(v) => vec![(
                "terminal",
                "scrollback".into(),
                i64::try_from(*v).unwrap_or(i64::MAX).into(),
            )],
            SettingEdit::Notifications(n) => vec![
                ("notifications", "bell".into(), n.bell.into()),
                ("notifications", "desktop".into(), n.desktop.into()),
                (
                    "notifications",
                    "osc_fallback".into(),
                    n.osc_fallback.into(),
                ),
            ],
        }
    }
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Boolean(x), Value::Boolean(y)) => x.value() == y.value(),
        (Value::Integer(x), Value::Integer(y)) => x.value() == y.value(),
        (Value::String(x), Value::String(y)) => x.value() == y.value(),
        _ => false,
    }
}

/// Apply `edits` to config text. Errors if the text is not a valid config.
pub fn apply(path: &Path, text: &str, edits: &[SettingEdit]) -> Result<String, ConfigError> {
    Config::parse(path, text)?; // refuse to touch what we cannot read
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| ConfigError::Write {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
    let mut changed = false;
    for edit in edits {
        for (section, key, value) in edit.entries() {
            let table = section_mut(&mut doc, section);
            match table.get_mut(&key) {
                Some(Item::Value(old)) if same_value(old, &value) => {}
                Some(Item::Value(old)) => {
                    let decor = old.decor().clone();
                    let mut value = value;
                    *value.decor_mut() = decor;
                    *old = value;
                    changed = true;
                }
                _ => {
                    table.insert(&key, Item::Value(value));
                    changed = true;
                }
            }
        }
    }
    Ok(if changed {
        doc.to_string()
    } else {
        text.to_owned()
    })
}

/// The `[section]` table, created at the end when missing. `Config::parse`
/// has already rejected a section that is not a table.
fn section_mut<'d>(doc: &'d mut DocumentMut, section: &str) -> &'d mut Table {
    if !doc.as_table().contains_key(section) {
        let mut table = Table::new();
        // Comments at the end of the file belong above the new section, or
        // toml_edit would print them after it.
        let trailing = doc.trailing().as_str().unwrap_or_default().to_owned();
        if !trailing.trim().is_empty() {
            table.decor_mut().set_prefix(format!("{trailing}\n"));
            doc.set_trailing("");
        }
        doc.as_table_mut().insert(section, Item::Table(table));
    }
    doc.as_table_mut()[section]
        .as_table_mut()
        .expect("Config::parse accepted this section as a table")
}

/// Persist `edits` into `path` atomically and return the config as written.
pub fn save(path: &Path, edits: &[SettingEdit]) -> Result<Config, ConfigError> {
    save_text(path, |old| apply(path, old, edits))
}

/// Replace `path`'s text by `edit(text)` atomically (a missing file is
/// empty text; the same text is no write) and return the config as written.
pub fn save_text(
    path: &Path,
    edit: impl Fn(&str) -> Result<String, ConfigError>,
) -> Result<Config, ConfigError> {
    let mut written = None;
    let outcome = edit_file(path, &WriteOptions::default(), |snapshot| {
        let old = match &snapshot.bytes {
            Some(bytes) => std::str::from_utf8(bytes).map_err(|_| ConfigError::Invalid {
                path: path.to_path_buf(),
                line: 1,
                col: 1,
                message: "the file is not UTF-8 text".into(),
                fix: "save it as UTF-8".into(),
            })?,
            None => "",
        };
        let new = edit(old)?;
        let change = if snapshot.bytes.is_some() && new == old {
            Change::Keep
        } else {
            Change::Write(new.clone().into_bytes())
        };
        written = Some(new);
        Ok::<_, ConfigError>(change)
    });
    match outcome {
        Ok(_) => Config::parse(path, written.as_deref().unwrap_or_default()),
        Err(EditFileError::Edit { source, .. }) => Err(source),
        Err(EditFileError::Fs(e)) => Err(ConfigError::Write {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "/cfg/config.toml";

    fn run(text: &str, edits: &[SettingEdit]) -> String {
        apply(Path::new(P), text, edits).unwrap()
    }

    #[test]
    fn comments_and_formatting_survive_an_edit() {
        let text = "# my termic\n[ui]\nwizard_shown   = false   # seen it?\n\n[hooks]\n# consent\nclaude = false\n";
        let out = run(
            text,
            &[
                SettingEdit::WizardShown(true),
                SettingEdit::HooksConsent {
                    agent: "claude".into(),
                    on: true,
                },
            ],
        );
        assert_eq!(
            out,
            "# my termic\n[ui]\nwizard_shown   = true   # seen it?\n\n[hooks]\n# consent\nclaude = true\n"
        );
    }

    #[test]
    fn unchanged_values_leave_the_text_byte_identical() {
        let text = "[ui]\nwizard_shown=true\n[terminal]\nterm_program = 'iTerm.app'\n";
        let out = run(
            text,
            &[
                SettingEdit::WizardShown(true),
                SettingEdit::TermProgram("iTerm.app".into()),
            ],
        );
        assert_eq!(out, text);
    }

    #[test]
    fn missing_sections_and_keys_are_added() {
        let out = run(
            "# hi\n",
            &[
                SettingEdit::Scrollback(2000),
                SettingEdit::PrefixKey("C-g".into()),
            ],
        );
        assert_eq!(
            out,
            "# hi\n\n[terminal]\nscrollback = 2000\n\n[ui]\nprefix_key = \"C-g\"\n"
        );
        let c = Config::parse(Path::new(P), &out).unwrap();
        assert_eq!(c.settings.scrollback, 2000);
    }

    #[test]
    fn an_invalid_file_is_refused() {
        let e = apply(Path::new(P), "[ui\n", &[SettingEdit::WizardShown(true)]).unwrap_err();
        assert!(e.to_string().starts_with("/cfg/config.toml:1:"), "{e}");
        let e = apply(
            Path::new(P),
            "hooks = 1\n",
            &[SettingEdit::WizardShown(true)],
        )
        .unwrap_err();
        assert!(e.to_string().contains("`hooks` must be a table"), "{e}");
    }

    #[test]
    fn save_writes_atomically_through_a_symlink_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-config.toml");
        std::fs::write(&real, "[notifications]\nbell = true # ding\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("config.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let cfg = save(
            &link,
            &[SettingEdit::Notifications(Notifications {
                bell: false,
                desktop: true,
                osc_fallback: false,
            })],
        )
        .unwrap();
        assert!(!cfg.settings.notifications.bell);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read_to_string(&real).unwrap(),
            "[notifications]\nbell = false # ding\ndesktop = true\nosc_fallback = false\n"
        );
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn save_creates_the_file_and_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("termic").join("config.toml");
        save(&path, &[SettingEdit::NativeProbeReply(false)]).unwrap();
        let c = Config::load(path.parent().unwrap()).unwrap();
        assert!(!c.settings.native_probe_reply);
    }

    #[test]
    fn save_refuses_a_broken_file_and_leaves_it_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[ui\nbroken").unwrap();
        let e = save(&path, &[SettingEdit::WizardShown(true)]).unwrap_err();
        assert!(e.to_string().contains("config.toml:1:"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[ui\nbroken");
    }
}
