//! Parsing a config for editing: BOM split, strict-JSON validation and the
//! AST whose byte ranges every edit splices at.

use jsonc_parser::ast::{Array, Object, ObjectProp, Value as Node};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};
use serde_json::Value;

use super::EditError;

const BOM: &str = "\u{feff}";

/// A file's text split into its optional UTF-8 BOM and the JSON body.
pub(crate) struct Framed<'a> {
    pub bom: &'a str,
    pub body: &'a str,
}

pub(crate) fn split_bom(text: &str) -> Framed<'_> {
    match text.strip_prefix(BOM) {
        Some(body) => Framed { bom: BOM, body },
        None => Framed {
            bom: "",
            body: text,
        },
    }
}

/// Checks `body` is strict JSON (what the agents themselves accept) and
/// returns its top-level object as an AST with byte ranges.
///
/// serde_json decides strictness (jsonc-parser accepts comments, trailing
/// commas and JSON5-ish input whatever its options say). `IgnoredAny` checks
/// syntax only, so a number out of f64 range or a lone surrogate escape, both
/// valid JSON, are not refused.
pub(crate) fn parse_root(body: &str) -> Result<Object<'_>, EditError> {
    if body.trim().is_empty() {
        return Err(EditError::Empty);
    }
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
        return Err(EditError::NotStrictJson {
            line: err.line(),
            column: err.column(),
            reason: strip_position(&err.to_string()),
        });
    }
    let parsed =
        jsonc_parser::parse_to_ast(body, &CollectOptions::default(), &ParseOptions::default())
            .map_err(|err| {
                // Valid JSON the AST parser cannot hold, e.g. a lone surrogate
                // escape `"\ud800"` (JSON.parse accepts it, Rust strings cannot).
                let (line, column) = line_column(body, err.range().start);
                EditError::Unsupported {
                    line,
                    column,
                    reason: err.kind().to_string(),
                }
            })?;
    match parsed.value {
        Some(Node::Object(root)) => Ok(root),
        Some(other) => Err(EditError::TopLevelNotObject {
            found: kind_name(&other),
        }),
        None => Err(EditError::TopLevelNotObject { found: "nothing" }),
    }
}

/// serde_json appends " at line L column C"; we report those as fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message.to_string(),
    }
}

pub(crate) fn kind_name(node: &Node<'_>) -> &'static str {
    match node {
        Node::StringLit(_) => "a string",
        Node::NumberLit(_) => "a number",
        Node::BooleanLit(_) => "a boolean",
        Node::Object(_) => "an object",
        Node::Array(_) => "an array",
        Node::NullKeyword(_) => "null",
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(body: &str, offset: usize) -> (usize, usize) {
    let before = &body[..offset.min(body.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// How a lookup treats a key that occurs more than once in one object.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Duplicates {
    /// Editing: the agent reads the LAST duplicate, so an edit to any one
    /// of them may be silently ineffective. Refuse.
    Refuse,
    /// Reading for status: behave like the agent, last one wins.
    LastWins,
}

/// The property `key` of `object`, with `path` naming the object in errors.
pub(crate) fn get<'o, 'a>(
    body: &str,
    object: &'o Object<'a>,
    key: &str,
    path: &str,
    duplicates: Duplicates,
) -> Result<Option<&'o ObjectProp<'a>>, EditError> {
    let mut found = object.properties.iter().filter(|p| p.name.as_str() == key);
    let first = found.next();
    match (found.next(), duplicates) {
        (Some(second), Duplicates::Refuse) => Err(duplicate_error(body, second, path)),
        (Some(second), Duplicates::LastWins) => Ok(Some(found.next_back().unwrap_or(second))),
        (None, _) => Ok(first),
    }
}

/// Refuses an object in which any key occurs twice (used where we scan
/// every property, so every one is on the path we edit).
pub(crate) fn refuse_any_duplicate(
    body: &str,
    object: &Object<'_>,
    path: &str,
) -> Result<(), EditError> {
    for (i, prop) in object.properties.iter().enumerate() {
        let name = prop.name.as_str();
        if object.properties[..i]
            .iter()
            .any(|p| p.name.as_str() == name)
        {
            return Err(duplicate_error(body, prop, path));
        }
    }
    Ok(())
}

fn duplicate_error(body: &str, prop: &ObjectProp<'_>, path: &str) -> EditError {
    let (line, column) = line_column(body, prop.start());
    EditError::DuplicateKey {
        key: join_path(path, prop.name.as_str()),
        line,
        column,
    }
}

pub(crate) fn join_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(crate) fn expect_object<'o, 'a>(
    body: &str,
    prop: &'o ObjectProp<'a>,
    path: &str,
) -> Result<&'o Object<'a>, EditError> {
    match &prop.value {
        Node::Object(object) => Ok(object),
        other => Err(wrong_type(body, other, path, "an object")),
    }
}

pub(crate) fn expect_array<'o, 'a>(
    body: &str,
    prop: &'o ObjectProp<'a>,
    path: &str,
) -> Result<&'o Array<'a>, EditError> {
    match &prop.value {
        Node::Array(array) => Ok(array),
        other => Err(wrong_type(body, other, path, "an array")),
    }
}

fn wrong_type(body: &str, found: &Node, path: &str, expected: &'static str) -> EditError {
    let (line, column) = line_column(body, found.start());
    EditError::WrongType {
        key: path.to_string(),
        expected,
        found: kind_name(found),
        line,
        column,
    }
}

/// The serde value of a node, read from its exact text (so duplicate keys
/// inside resolve like the agent resolves them: last wins).
pub(crate) fn to_value(body: &str, node: &impl Ranged) -> Result<Value, EditError> {
    serde_json::from_str(node.text(body))
        .map_err(|err| EditError::Internal(format!("reading a validated node: {err}")))
}

/// Strict validation of an edit's output: a bug here must never reach disk.
pub(crate) fn check_output(body: &str) -> Result<(), EditError> {
    match serde_json::from_str::<serde::de::IgnoredAny>(body) {
        Ok(_) => Ok(()),
        Err(err) => Err(EditError::Internal(format!(
            "edit produced invalid JSON ({err}); nothing was written"
        ))),
    }
}
