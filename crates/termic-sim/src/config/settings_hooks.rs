//! The `hooks` object of a JSON settings file, in the shape Claude Code
//! defined (`hooks.<Event>[] = {matcher?, hooks: [handler]}`) and Gemini
//! CLI, Qwen Code and grok read too; agy's handlers are its command
//! handlers. Each agent's own module says which files it reads and how.

use std::path::Path;

use serde_json::Value;

use super::{parse_strict_json, Handler, Registry};

/// One handler found in a Claude-shaped `hooks` object, with its position
/// (`<event>[group].hooks[index]`, which grok turns into `GROK_HOOK_NAME`).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub event: String,
    pub group: usize,
    pub index: usize,
    pub handler: Handler,
}

/// What one settings file says about hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsFile {
    pub disable_all_hooks: Option<bool>,
    pub hooks: Vec<Found>,
    pub notes: Vec<String>,
}

/// Parse one settings file. `Err` means the agent rejects the whole file.
pub fn parse_settings(bytes: &[u8], source: &Path) -> Result<SettingsFile, String> {
    let value = parse_strict_json(bytes)?;
    let Value::Object(top) = value else {
        return Err("settings must be a JSON object".into());
    };
    let mut file = SettingsFile {
        disable_all_hooks: top.get("disableAllHooks").and_then(Value::as_bool),
        ..SettingsFile::default()
    };
    match top.get("hooks") {
        None => {}
        Some(Value::Object(_)) => {
            file.hooks = hooks_object(top.get("hooks"), source, &mut file.notes);
        }
        Some(_) => file.notes.push(format!(
            "{}: hooks is not an object, ignored",
            source.display()
        )),
    }
    Ok(file)
}

/// The handlers of a Claude-shaped `hooks` object, in file order.
pub fn hooks_object(hooks: Option<&Value>, source: &Path, notes: &mut Vec<String>) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(Value::Object(events)) = hooks else {
        return out;
    };
    for (event, groups) in events {
        let Value::Array(groups) = groups else {
            notes.push(format!(
                "{}: hooks.{event} is not a list, ignored",
                source.display()
            ));
            continue;
        };
        for (gi, group) in groups.iter().enumerate() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let Some(Value::Array(handlers)) = group.get("hooks") else {
                notes.push(format!(
                    "{}: hooks.{event}[{gi}] has no hooks list",
                    source.display()
                ));
                continue;
            };
            for (hi, h) in handlers.iter().enumerate() {
                match command_handler(h, matcher.clone(), source) {
                    Some(handler) => out.push(Found {
                        event: event.clone(),
                        group: gi,
                        index: hi,
                        handler,
                    }),
                    None => notes.push(format!(
                        "{}: hooks.{event}[{gi}].hooks[{hi}] is not a command hook, skipped",
                        source.display()
                    )),
                }
            }
        }
    }
    out
}

/// `{"type": "command", "command": ..., "args"?, "timeout"?, "async"?}`.
pub fn command_handler(h: &Value, matcher: Option<String>, source: &Path) -> Option<Handler> {
    if h.get("type").and_then(Value::as_str) != Some("command") {
        return None;
    }
    let command = h.get("command").and_then(Value::as_str)?.to_string();
    let args = h.get("args").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    });
    Some(Handler {
        command,
        args,
        timeout_s: h.get("timeout").and_then(Value::as_f64),
        is_async: h.get("async").and_then(Value::as_bool).unwrap_or(false),
        matcher,
        name: String::new(),
        source: source.to_path_buf(),
        runs: true,
    })
}

/// The hooks of one Claude-shaped settings file that another agent reads
/// (Gemini CLI, Qwen Code), with its `timeout` in units of `timeout_unit_s`
/// seconds (Gemini: 0.001, milliseconds). A file the agent cannot parse
/// gives no hooks and a note.
pub fn load_file(path: &Path, timeout_unit_s: f64) -> Registry {
    let mut reg = Registry::default();
    let Ok(bytes) = std::fs::read(path) else {
        return reg;
    };
    match parse_settings(&bytes, path) {
        Ok(file) => {
            reg.notes.extend(file.notes);
            reg.hooks.extend(file.hooks.into_iter().map(|f| {
                let mut h = f.handler;
                h.timeout_s = h.timeout_s.map(|t| t * timeout_unit_s);
                (f.event, h)
            }));
        }
        Err(e) => reg.notes.push(format!("{}: {e}", path.display())),
    }
    reg
}
