//! Hook recorders for measurements: every lifecycle hook an agent offers is
//! registered against one script (or, for opencode, one plugin) that appends
//! `<unix ms> <event> <GROK_HOOK_EVENT or -> <payload on one line>` to
//! `$HOME/rec/hooks.log`, and `<unix ms> <event> ctty=yes|no` to
//! `$HOME/rec/ctty.log` (whether the hook could open /dev/tty, the
//! transport question). They print nothing, so they never change what the
//! agent puts on the terminal.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::agents::Agent;

const SCRIPT: &str = r#"#!/bin/sh
ts=$(date +%s%3N)
payload=$(cat | tr '\n' ' ')
printf '%s %s %s %s\n' "$ts" "$1" "${GROK_HOOK_EVENT:--}" "$payload" >> "$HOME/rec/hooks.log"
if (exec 3</dev/tty) 2>/dev/null; then ctty=yes; else ctty=no; fi
printf '%s %s ctty=%s\n' "$ts" "$1" "$ctty" >> "$HOME/rec/ctty.log"
exit 0
"#;

const PLUGIN: &str = r#"import fs from "fs";
const log = process.env.HOME + "/rec/hooks.log";
const w = (name, data) => {
  try { fs.appendFileSync(log, `${Date.now()} ${name} - ${JSON.stringify(data ?? {}).slice(0, 600)}\n`); } catch {}
};
export const Recorder = async () => ({
  event: async ({ event }) => w(event.type, event.properties),
  "chat.message": async (input) => w("chat.message", input),
  "permission.ask": async (input) => w("permission.ask", input),
});
"#;

const CLAUDE_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Notification",
    "Stop",
    "SubagentStop",
    "PermissionDenied",
    "SessionEnd",
    "StopFailure",
    "PreCompact",
    "PostCompact",
];
const GROK_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "Stop",
    "StopCancelled",
    "PermissionDenied",
    "SessionEnd",
    "PostToolUseFailure",
];

/// Gemini CLI 0.61.0's events, less the per-chunk model ones.
const GEMINI_EVENTS: &[&str] = &[
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "Notification",
    "AfterTool",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
];
/// Qwen Code 0.24.4's turn events (Claude-style names), less MessageDisplay
/// (one per chunk).
const QWEN_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolBatch",
    "Notification",
    "Stop",
    "SessionEnd",
];
/// GitHub Copilot CLI 1.0.102's events (camelCase).
const COPILOT_EVENTS: &[&str] = &[
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "permissionRequest",
    "notification",
    "postToolUse",
    "agentStop",
    "sessionEnd",
];

/// The log a recorder writes to.
pub fn log_path(home: &Path) -> PathBuf {
    home.join("rec/hooks.log")
}

/// How one agent's settings spell a hook entry for `command`.
#[derive(Clone, Copy)]
enum EntryShape {
    /// `[{"hooks": [{"type": "command", "command": ...}]}]` (claude, grok).
    Claude,
    /// The Claude shape with `matcher`, `name` and a `timeout` in the
    /// agent's unit (Gemini: milliseconds, Qwen: seconds).
    Named { timeout: u64 },
    /// `[{"type": "command", "bash": ..., "timeoutSec": 10}]` (Copilot).
    Copilot,
}

fn hooks_object(script: &Path, events: &[&str], shape: EntryShape) -> Value {
    let mut hooks = Map::new();
    for event in events {
        let command = format!("'{}' {event}", script.display());
        let entry = match shape {
            EntryShape::Claude => json!([{"hooks": [{"type": "command", "command": command}]}]),
            EntryShape::Named { timeout } => json!([{"matcher": "*", "hooks": [{
                "type": "command", "name": format!("rec-{event}"), "command": command,
                "timeout": timeout}]}]),
            EntryShape::Copilot => {
                json!([{"type": "command", "bash": command, "timeoutSec": 10}])
            }
        };
        hooks.insert(event.to_string(), entry);
    }
    Value::Object(hooks)
}

/// Sets `hooks` in the JSON settings file at `path` (written by
/// `Agent::prepare`, or new).
fn merge_hooks(path: &Path, hooks: Value) -> io::Result<()> {
    let mut settings: Value = fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    settings["hooks"] = hooks;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, format!("{settings:#}\n"))
}

/// Registers the recorder for `agent` under `home`. For claude it merges
/// into `~/.claude/settings.json` (which `Agent::prepare` wrote); grok gets
/// its own `~/.grok/hooks/recorder.json`; opencode a plugin; codex nothing
/// (its hooks need a trust modal, and it reports natively).
pub fn install(agent: Agent, home: &Path) -> io::Result<()> {
    let dir = home.join("rec");
    fs::create_dir_all(&dir)?;
    let script = dir.join("hook.sh");
    fs::write(&script, SCRIPT)?;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;
    match agent {
        Agent::Claude => merge_hooks(
            &home.join(".claude/settings.json"),
            hooks_object(&script, CLAUDE_EVENTS, EntryShape::Claude),
        ),
        Agent::Gemini => merge_hooks(
            &home.join(".gemini/settings.json"),
            hooks_object(
                &script,
                GEMINI_EVENTS,
                EntryShape::Named { timeout: 10_000 },
            ),
        ),
        Agent::Qwen => merge_hooks(
            &home.join(".qwen/settings.json"),
            hooks_object(&script, QWEN_EVENTS, EntryShape::Named { timeout: 10 }),
        ),
        Agent::Copilot => merge_hooks(
            &home.join(".copilot/settings.json"),
            hooks_object(&script, COPILOT_EVENTS, EntryShape::Copilot),
        ),
        Agent::Grok => {
            fs::create_dir_all(home.join(".grok/hooks"))?;
            let file = json!({"hooks": hooks_object(&script, GROK_EVENTS, EntryShape::Claude)});
            fs::write(
                home.join(".grok/hooks/recorder.json"),
                format!("{file:#}\n"),
            )
        }
        Agent::Opencode => {
            let plugins = home.join(".config/opencode/plugins");
            fs::create_dir_all(&plugins)?;
            fs::write(plugins.join("recorder.js"), PLUGIN)
        }
        Agent::Codex => Ok(()),
    }
}

/// One recorded hook.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRecord {
    pub ts_ms: f64,
    pub event: String,
    /// `GROK_HOOK_EVENT` when grok ran the hook.
    pub grok_event: Option<String>,
    pub payload: String,
}

/// Whether each recorded hook could open /dev/tty: `(unix ms, event,
/// ctty)` in the order they ran (missing file: none).
pub fn ctty(home: &Path) -> Vec<(f64, String, bool)> {
    let text = fs::read_to_string(home.join("rec/ctty.log")).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            let ts = parts.next()?.parse().ok()?;
            let event = parts.next()?.to_string();
            Some((ts, event, parts.next()? == "ctty=yes"))
        })
        .collect()
}

/// Parses the recorder log (missing file: no records).
pub fn read(home: &Path) -> Vec<HookRecord> {
    let text = fs::read_to_string(log_path(home)).unwrap_or_default();
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<HookRecord> {
    let mut parts = line.splitn(4, ' ');
    let ts_ms = parts.next()?.parse().ok()?;
    let event = parts.next()?.to_string();
    let grok = parts.next()?;
    Some(HookRecord {
        ts_ms,
        event,
        grok_event: (grok != "-").then(|| grok.to_string()),
        payload: parts.next().unwrap_or("").trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_script_and_plugin_lines() {
        let r = parse_line("1700000000123 Stop stop {\"a\": 1} ").unwrap();
        assert_eq!(
            (
                r.ts_ms,
                r.event.as_str(),
                r.grok_event.as_deref(),
                r.payload.as_str()
            ),
            (1.700000000123e12, "Stop", Some("stop"), "{\"a\": 1}")
        );
        let p = parse_line("1700000000123 permission.asked - {}").unwrap();
        assert_eq!(p.grok_event, None);
        assert!(parse_line("garbage").is_none());
    }

    #[test]
    fn the_script_records_event_and_payload() {
        let home = std::env::temp_dir().join(format!("fakemodel-rec-{}", std::process::id()));
        fs::create_dir_all(&home).unwrap();
        install(Agent::Codex, &home).unwrap();
        let script = home.join("rec/hook.sh");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&script).unwrap().permissions().mode() & 0o777,
            0o755
        );
        // Run through sh, not exec: another test thread's fork can hold the
        // just-written file open for writing, and exec then fails with
        // "Text file busy" (CI run of 2026-12-07).
        let status = std::process::Command::new("/bin/sh")
            .arg(&script)
            .arg("Stop")
            .env("HOME", &home)
            .env("GROK_HOOK_EVENT", "stop")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(b"{\"x\":\n1}")?;
                c.wait()
            })
            .unwrap();
        assert!(status.success());
        let records = read(&home);
        assert_eq!(records.len(), 1);
        assert_eq!(
            (records[0].event.as_str(), records[0].grok_event.as_deref()),
            ("Stop", Some("stop"))
        );
        assert_eq!(records[0].payload, "{\"x\": 1}");
        fs::remove_dir_all(home).unwrap();
    }
}
