//! Antigravity's named hook entries, heterogeneous as measured on 1.1.22:
//!
//! ```json
//! { "<name>": { "enabled": true,
//!     "PreToolUse":    [{ "matcher": "*", "hooks": [handler] }],
//!     "PreInvocation": [ handler ], "PostInvocation": [ handler ], "Stop": [ handler ] } }
//! ```
//!
//! A handler WRAPPED in a matcher group under a matcher-less event registers
//! with an EMPTY command: listed, never run. `~/.gemini/config/hooks.json` is
//! the live file; `~/.gemini/antigravity-cli/hooks.json` loads ("loaded N
//! named hooks") and never executes.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::settings_hooks::command_handler;
use crate::config::{parse_strict_json, Handler, Registry};

/// Events whose list holds handlers directly.
pub const MATCHERLESS: &[&str] = &["PreInvocation", "PostInvocation", "Stop"];
/// Events whose list holds `{matcher, hooks}` groups.
pub const TOOL_EVENTS: &[&str] = &["PreToolUse", "PostToolUse"];

pub const LIVE_FILE: &str = ".gemini/config/hooks.json";
pub const DEAD_FILE: &str = ".gemini/antigravity-cli/hooks.json";

/// A handler with only its command read (what agy's listing shows), even
/// when the element is a group and the command therefore empty.
fn listed(element: &Value, matcher: Option<String>, name: &str, source: &Path) -> Handler {
    let mut h = command_handler(element, matcher.clone(), source).unwrap_or(Handler {
        command: String::new(),
        args: None,
        timeout_s: element.get("timeout").and_then(Value::as_f64),
        is_async: false,
        matcher,
        name: String::new(),
        source: source.to_path_buf(),
        runs: true,
    });
    h.name = name.to_string();
    h
}

/// Parse one hooks.json. `live` is false for the file that loads but never runs.
pub fn parse(bytes: &[u8], source: &Path, live: bool) -> Result<Registry, String> {
    let Value::Object(top) = parse_strict_json(bytes)? else {
        return Err("hooks.json must be a JSON object of named entries".into());
    };
    let mut reg = Registry::default();
    for (name, entry) in &top {
        let Value::Object(entry) = entry else {
            reg.notes.push(format!("{name}: not an object, skipped"));
            continue;
        };
        let enabled = entry
            .get("enabled")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        for event in MATCHERLESS.iter().chain(TOOL_EVENTS) {
            let Some(Value::Array(items)) = entry.get(*event) else {
                continue;
            };
            for item in items {
                let handlers: Vec<Handler> = if MATCHERLESS.contains(event) {
                    // A group here is read as a handler: no command field.
                    vec![listed(item, None, name, source)]
                } else {
                    let matcher = item
                        .get("matcher")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    match item.get("hooks").and_then(Value::as_array) {
                        Some(hs) => hs
                            .iter()
                            .map(|h| listed(h, matcher.clone(), name, source))
                            .collect(),
                        None => vec![listed(&Value::Null, matcher, name, source)],
                    }
                };
                for mut h in handlers {
                    h.runs = live && enabled && !h.command.is_empty();
                    reg.hooks.push((event.to_string(), h));
                }
            }
        }
    }
    Ok(reg)
}

/// The files agy loads, with whether hooks in them execute.
pub fn files(home: &Path) -> [(PathBuf, bool); 2] {
    [(home.join(LIVE_FILE), true), (home.join(DEAD_FILE), false)]
}

pub fn load(home: &Path) -> Registry {
    let mut reg = Registry::default();
    let mut loaded = 0;
    let mut file_count = 0;
    for (path, live) in files(home) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match parse(&bytes, &path, live) {
            Ok(r) => {
                file_count += 1;
                loaded += r
                    .hooks
                    .iter()
                    .map(|(_, h)| h.name.as_str())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                reg.hooks.extend(r.hooks);
                reg.notes.extend(r.notes);
            }
            Err(e) => reg.notes.push(format!("{}: {e}", path.display())),
        }
    }
    reg.notes.insert(
        0,
        format!("loaded {loaded} named hooks from {file_count} hooks.json file(s)"),
    );
    reg
}

/// `agy -p "/hooks"`: what was resolved per event, with the command column.
pub fn listing(reg: &Registry) -> String {
    let mut out = String::from("EVENT           NAME            COMMAND\n");
    for event in MATCHERLESS.iter().chain(TOOL_EVENTS) {
        for (e, h) in reg.hooks.iter().filter(|(e, _)| e == event) {
            let line = format!("{e:<15} {:<15} {}", h.name, h.command);
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: &str = r#"{
      "termic": { "enabled": true,
        "PreInvocation": [ {"type":"command","command":"/w.sh"} ],
        "Stop": [ {"matcher":"*","hooks":[{"type":"command","command":"/wrapped.sh"}]} ],
        "PreToolUse": [ {"matcher":"*","hooks":[{"type":"command","command":"/tool.sh"}]} ] },
      "off": { "enabled": false, "Stop": [ {"type":"command","command":"/off.sh"} ] } }"#;

    #[test]
    fn heterogeneous_shape() {
        let reg = parse(SHAPES.as_bytes(), Path::new("/h.json"), true).unwrap();
        let mut runs: Vec<_> = reg
            .hooks
            .iter()
            .map(|(e, h)| (e.as_str(), h.command.as_str(), h.runs))
            .collect();
        runs.sort();
        assert_eq!(
            runs,
            vec![
                ("PreInvocation", "/w.sh", true),
                ("PreToolUse", "/tool.sh", true),
                ("Stop", "", false),
                ("Stop", "/off.sh", false),
            ]
        );
        assert!(reg.for_event("Stop", None).is_empty());
    }

    #[test]
    fn dead_file_loads_and_never_runs() {
        let reg = parse(SHAPES.as_bytes(), Path::new("/h.json"), false).unwrap();
        assert_eq!(reg.hooks.len(), 4);
        assert!(reg.hooks.iter().all(|(_, h)| !h.runs));
    }

    #[test]
    fn listing_shows_the_empty_command_column() {
        let reg = parse(SHAPES.as_bytes(), Path::new("/h.json"), true).unwrap();
        let text = listing(&reg);
        let stop_line = text
            .lines()
            .find(|l| l.starts_with("Stop") && l.contains("termic"))
            .unwrap();
        assert!(
            stop_line.ends_with("termic"),
            "empty command column: {stop_line:?}"
        );
        assert!(text.contains("/w.sh"));
    }
}
