//! The named-entry shape (Antigravity's `~/.gemini/config/hooks.json`): a
//! top-level object of named entries, of which termic owns one key whole.

use jsonc_parser::common::Ranged;
use serde_json::Value;

use super::doc::{self, Duplicates};
use super::layout::{self, Container};
use super::steps;
use super::{Edit, EditError, InstallRecord};

/// Adds `key` with `value`, or replaces its value when it differs.
pub fn install_named_entry(
    text: Option<&str>,
    key: &str,
    value: &Value,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    let result = steps::run(text, record, |body, style, record| {
        let root = doc::parse_root(body)?;
        let container = Container::object(&root);
        match doc::get(body, &root, key, "", Duplicates::Refuse)? {
            Some(prop) if doc::to_value(body, &prop.value)? == *value => Ok(None),
            Some(prop) => Ok(Some(layout::replace(
                body,
                prop.value.range(),
                style,
                value,
            ))),
            None => {
                if container.children.is_empty() && !record.created_file {
                    record.note_was_empty(&[], &body[container.open + 1..container.close]);
                }
                record.note_created(&[key]);
                let render = |indent: Option<&str>| {
                    format!(
                        "{}{}{}",
                        layout::quote(key),
                        style.colon,
                        layout::render(value, style, indent)
                    )
                };
                Ok(Some(layout::append(body, &container, style, true, &render)))
            }
        }
    })?;
    Ok(result.into_edit(Vec::new()))
}

/// Removes `key`; everything else keeps its bytes.
pub fn remove_named_entry(
    text: &str,
    key: &str,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    let result = steps::run(Some(text), record, |body, _style, record| {
        let root = doc::parse_root(body)?;
        let Some(prop) = doc::get(body, &root, key, "", Duplicates::Refuse)? else {
            return Ok(None);
        };
        let index = root
            .properties
            .iter()
            .position(|p| std::ptr::eq(p, prop))
            .unwrap_or(0);
        record.forget_created(&[key]);
        let inner = if root.properties.len() == 1 {
            record.take_was_empty(&[])
        } else {
            None
        };
        Ok(Some(layout::remove(
            &Container::object(&root),
            index,
            inner.as_deref(),
        )))
    })?;
    Ok(result.into_edit(Vec::new()))
}

/// The current value of `key` as the agent reads it (last duplicate wins).
pub fn query_named_entry(text: &str, key: &str) -> Result<Option<Value>, EditError> {
    let body = doc::split_bom(text).body;
    let root = doc::parse_root(body)?;
    match doc::get(body, &root, key, "", Duplicates::LastWins)? {
        Some(prop) => Ok(Some(doc::to_value(body, &prop.value)?)),
        None => Ok(None),
    }
}
