//! termic's entry in each config shape: what it looks like for a target,
//! how ours is recognised, and the install and removal edits (delegated to
//! the pure JSON editor in `crate::edit`).

use serde_json::{json, Value};

use crate::agents::{shell_quote, ConfigEntry, HookRegistration};
use crate::edit::{self, Edit, EditError, EventHandler, InstallRecord};
use crate::target::InstallTarget;

/// The command an agent runs for one registration, as written in its config.
pub fn command(target: &InstallTarget, reg: &HookRegistration) -> String {
    shell_quote(&target.agent_path(&reg.rel_path(target.schema().hooks_dir())))
}

/// The prefix every command of ours starts with (after unquoting).
pub fn ours_prefix(target: &InstallTarget) -> String {
    format!("{}/", target.agent_path(target.schema().hooks_dir()))
}

pub fn is_ours(target: &InstallTarget) -> impl Fn(&str) -> bool {
    let prefix = ours_prefix(target);
    move |cmd: &str| edit::command_has_prefix(cmd, &prefix)
}

/// The handlers termic wants in a grouped or flat hooks file, each in the
/// agent's own handler shape ([`crate::agents::AgentAdapter::handler`]).
pub fn grouped_handlers(target: &InstallTarget) -> Vec<EventHandler> {
    let adapter = target.schema().adapter();
    adapter
        .registrations()
        .iter()
        .map(|reg| EventHandler::new(reg.event, adapter.handler(&command(target, reg), reg)))
        .collect()
}

/// agy's named entry: handlers DIRECTLY under each event. Wrapped in a
/// `{matcher, hooks}` group they register with an empty command (measured).
pub fn named_entry(target: &InstallTarget) -> Value {
    let mut entry = serde_json::Map::new();
    entry.insert("enabled".into(), json!(true));
    for reg in target.schema().adapter().registrations() {
        entry.insert(
            reg.event.into(),
            json!([{ "type": "command", "command": command(target, reg) }]),
        );
    }
    Value::Object(entry)
}

/// The install edit of `text` (`None`: no file yet).
pub fn install_edit(
    target: &InstallTarget,
    entry: ConfigEntry,
    text: Option<&str>,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    match entry {
        ConfigEntry::MergeGrouped { .. }
        | ConfigEntry::OwnGrouped { .. }
        | ConfigEntry::MergeFlat { .. } => {
            let wanted = grouped_handlers(target);
            edit::install_hooks(text, shape(entry), &wanted, &is_ours(target), record)
        }
        ConfigEntry::NamedEntry { name, .. } => {
            edit::install_named_entry(text, name, &named_entry(target), record)
        }
        ConfigEntry::LoadedByLocation => Err(EditError::Internal("no config entry".into())),
    }
}

fn shape(entry: ConfigEntry) -> edit::HooksShape {
    entry.hooks_shape().unwrap_or(edit::HooksShape::GROUPED)
}

/// The structural removal: our entries out, containers we created gone.
pub fn remove_edit(
    target: &InstallTarget,
    entry: ConfigEntry,
    text: &str,
    written: &[EventHandler],
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    match entry {
        ConfigEntry::MergeGrouped { .. }
        | ConfigEntry::OwnGrouped { .. }
        | ConfigEntry::MergeFlat { .. } => {
            edit::remove_hooks(text, shape(entry), written, &is_ours(target), record)
        }
        ConfigEntry::NamedEntry { name, .. } => edit::remove_named_entry(text, name, record),
        ConfigEntry::LoadedByLocation => Err(EditError::Internal("no config entry".into())),
    }
}

/// Without a manifest, every handler with our path prefix counts as written
/// by termic (so all of them go).
pub fn ours_now(
    target: &InstallTarget,
    entry: ConfigEntry,
    text: &str,
) -> Result<Vec<EventHandler>, EditError> {
    match entry {
        ConfigEntry::MergeGrouped { .. }
        | ConfigEntry::OwnGrouped { .. }
        | ConfigEntry::MergeFlat { .. } => {
            Ok(edit::query_hooks(text, shape(entry), &is_ours(target))?.ours)
        }
        _ => Ok(Vec::new()),
    }
}

/// True when a file of our own holds nothing any more (`{}`, or only empty
/// `hooks` containers): it can be deleted.
pub fn holds_nothing(text: &str) -> bool {
    fn empty(v: &Value) -> bool {
        match v {
            Value::Object(m) => m.values().all(empty),
            Value::Array(a) => a.iter().all(empty),
            _ => false,
        }
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str::<Value>(body).is_ok_and(|v| empty(&v))
}

/// Whether `text` already holds an entry of ours (by path prefix, or agy's
/// named entry). Unparseable text counts as not (the edit refuses it anyway).
pub fn has_ours(target: &InstallTarget, entry: ConfigEntry, text: Option<&str>) -> bool {
    let Some(text) = text else { return false };
    match entry {
        ConfigEntry::NamedEntry { name, .. } => {
            edit::query_named_entry(text, name).is_ok_and(|v| v.is_some())
        }
        _ => ours_now(target, entry, text).is_ok_and(|o| !o.is_empty()),
    }
}
