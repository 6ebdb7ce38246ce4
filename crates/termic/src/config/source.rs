//! Typed reads from a parsed config.toml that fail with the file, the line
//! and the fix. Spans come from toml_edit's parse-only `Document`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use toml_edit::{Item, Table};

use super::ConfigError;

/// The text being read and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a Path,
    pub text: &'a str,
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
    (line, col)
}

impl Source<'_> {
    pub fn error(
        &self,
        span: Option<Range<usize>>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> ConfigError {
        let (line, col) = span.map_or((1, 1), |s| line_col(self.text, s.start));
        ConfigError::Invalid {
            path: PathBuf::from(self.path),
            line,
            col,
            message: message.into(),
            fix: fix.into(),
        }
    }

    /// `[name]` as a table, or `None` when absent.
    pub fn table<'t>(
        &self,
        parent: &'t Table,
        name: &str,
    ) -> Result<Option<&'t Table>, ConfigError> {
        match parent.get(name) {
            None => Ok(None),
            Some(Item::Table(t)) => Ok(Some(t)),
            Some(other) => Err(self.error(
                other.span(),
                format!("`{name}` must be a table"),
                format!("write it as a `[{name}]` section"),
            )),
        }
    }

    pub fn bool(&self, table: &Table, key: &str) -> Result<Option<bool>, ConfigError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        item.as_bool().map(Some).ok_or_else(|| {
            self.error(
                item.span(),
                format!("`{key}` must be true or false"),
                format!("write `{key} = true` or `{key} = false`"),
            )
        })
    }

    pub fn string(&self, table: &Table, key: &str) -> Result<Option<String>, ConfigError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        item.as_str().map(|s| Some(s.to_owned())).ok_or_else(|| {
            self.error(
                item.span(),
                format!("`{key}` must be a string"),
                format!("quote the value: `{key} = \"...\"`"),
            )
        })
    }

    pub fn uint(&self, table: &Table, key: &str, max: u64) -> Result<Option<u64>, ConfigError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        match item.as_integer() {
            Some(n) if n >= 0 && (n as u64) <= max => Ok(Some(n as u64)),
            _ => Err(self.error(
                item.span(),
                format!("`{key}` must be a whole number from 0 to {max}"),
                format!("write e.g. `{key} = 10000`"),
            )),
        }
    }

    pub fn strings(&self, table: &Table, key: &str) -> Result<Option<Vec<String>>, ConfigError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        let err = || {
            self.error(
                item.span(),
                format!("`{key}` must be a list of strings"),
                format!("write e.g. `{key} = [\"--flag\", \"value\"]`"),
            )
        };
        let array = item.as_array().ok_or_else(err)?;
        array
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(err))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// `key = { NAME = "value", ... }` (or a `[x.key]` sub-table).
    pub fn string_map(
        &self,
        table: &Table,
        key: &str,
    ) -> Result<Option<Vec<(String, String)>>, ConfigError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        let err = || {
            self.error(
                item.span(),
                format!("`{key}` must be a table of strings"),
                format!("write e.g. `{key} = {{ NAME = \"value\" }}`"),
            )
        };
        let map = item.as_table_like().ok_or_else(err)?;
        map.iter()
            .map(|(k, v)| Ok((k.to_owned(), v.as_str().ok_or_else(err)?.to_owned())))
            .collect::<Result<_, _>>()
            .map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let text = "a = 1\nbb = 2\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 6), (2, 1));
        assert_eq!(line_col(text, 11), (2, 6));
    }
}
