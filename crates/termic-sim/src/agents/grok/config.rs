//! Grok's hook sources, as measured on 0.2.111: the Claude-compatible files
//! `~/.claude/settings.json` and `settings.local.json` (run FIRST at each
//! event, unless `[compat.claude] hooks = false` in `~/.grok/config.toml` or
//! `GROK_CLAUDE_HOOKS_ENABLED=false`), then its own `~/.grok/hooks/*.json`.
//! Same Claude shape everywhere; unknown event names are skipped and the rest
//! of the file still loads. Project sources need a trusted folder: not read.

use std::path::Path;

use serde_json::Value;

use crate::config::settings_hooks::hooks_object;
use crate::config::{parse_strict_json, snake_case, Registry};

/// Which grok is simulated; they differ in events, titles and interrupts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrokVersion {
    /// The version installable here (real-agents/README.md).
    V0_2_111,
    /// The version the plan measured.
    V1_0_5,
}

impl GrokVersion {
    pub fn parse(s: &str) -> Option<GrokVersion> {
        match s {
            "0.2.111" => Some(GrokVersion::V0_2_111),
            "1.0.5" => Some(GrokVersion::V1_0_5),
            _ => None,
        }
    }

    /// Event names this version knows (config keys, PascalCase).
    pub fn knows(self, event: &str) -> bool {
        const COMMON: &[&str] = &[
            "SessionStart",
            "SessionEnd",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "PermissionDenied",
            "Notification",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
        ];
        COMMON.contains(&event) || (self == GrokVersion::V1_0_5 && event == "StopCancelled")
    }
}

/// True when the Claude-file hooks are switched off.
pub fn claude_compat_disabled(config_toml: Option<&str>, env_flag: Option<&str>) -> bool {
    if env_flag.is_some_and(|v| v.eq_ignore_ascii_case("false") || v == "0") {
        return true;
    }
    let Some(text) = config_toml else {
        return false;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    doc.get("compat")
        .and_then(|c| c.get("claude"))
        .and_then(|c| c.get("hooks"))
        .and_then(|h| h.as_bool())
        == Some(false)
}

/// Add one Claude-shaped file's hooks under `label` (`settings`,
/// `settings.local`, or an own file's stem) as `global/<label>:<event>[i].hooks[j]`.
pub fn add_file(reg: &mut Registry, version: GrokVersion, bytes: &[u8], path: &Path, label: &str) {
    let value = match parse_strict_json(bytes) {
        Ok(v) => v,
        Err(e) => {
            reg.notes.push(format!("{}: {e}; skipped", path.display()));
            return;
        }
    };
    let Some(hooks @ Value::Object(_)) = value.get("hooks") else {
        return;
    };
    for found in hooks_object(Some(hooks), path, &mut reg.notes) {
        if !version.knows(&found.event) {
            reg.notes.push(format!(
                "{}: unknown hook event {:?}, skipped",
                path.display(),
                found.event
            ));
            continue;
        }
        let mut handler = found.handler;
        handler.name = format!(
            "global/{label}:{}[{}].hooks[{}]",
            snake_case(&found.event),
            found.group,
            found.index
        );
        reg.hooks.push((found.event, handler));
    }
}

/// Everything grok loads from `home`, Claude files first.
pub fn load(home: &Path, version: GrokVersion, env_flag: Option<&str>) -> Registry {
    let mut reg = Registry::default();
    let config = std::fs::read_to_string(home.join(".grok/config.toml")).ok();
    if claude_compat_disabled(config.as_deref(), env_flag) {
        reg.notes.push("Claude-compatible hooks disabled".into());
    } else {
        for (file, label) in [
            ("settings.json", "settings"),
            ("settings.local.json", "settings.local"),
        ] {
            let path = home.join(".claude").join(file);
            if let Ok(bytes) = std::fs::read(&path) {
                add_file(&mut reg, version, &bytes, &path, label);
            }
        }
    }
    let mut own: Vec<_> = std::fs::read_dir(home.join(".grok/hooks"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    own.sort();
    for path in own {
        if let Ok(bytes) = std::fs::read(&path) {
            let label = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            add_file(&mut reg, version, &bytes, &path, &label);
        }
    }
    reg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_opt_outs() {
        assert!(!claude_compat_disabled(None, None));
        assert!(claude_compat_disabled(
            Some("[compat.claude]\nhooks = false\n"),
            None
        ));
        assert!(!claude_compat_disabled(
            Some("[compat.claude]\nhooks = true\n"),
            None
        ));
        assert!(!claude_compat_disabled(
            Some("[compat.cursor]\nhooks = false\n"),
            None
        ));
        assert!(claude_compat_disabled(None, Some("false")));
        assert!(!claude_compat_disabled(None, Some("true")));
    }

    #[test]
    fn names_and_unknown_events() {
        let mut reg = Registry::default();
        let json = br#"{"hooks":{
            "Stop":[{"hooks":[{"type":"command","command":"/a"},{"type":"command","command":"/b"}]}],
            "StopCancelled":[{"hooks":[{"type":"command","command":"/c"}]}],
            "Bogus":[{"hooks":[{"type":"command","command":"/d"}]}]}}"#;
        add_file(
            &mut reg,
            GrokVersion::V0_2_111,
            json,
            Path::new("/x"),
            "settings",
        );
        let names: Vec<_> = reg.hooks.iter().map(|(_, h)| h.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "global/settings:stop[0].hooks[0]",
                "global/settings:stop[0].hooks[1]"
            ]
        );
        assert_eq!(reg.notes.len(), 2, "{:?}", reg.notes);

        let mut reg = Registry::default();
        add_file(
            &mut reg,
            GrokVersion::V1_0_5,
            json,
            Path::new("/x"),
            "termic",
        );
        assert!(reg
            .hooks
            .iter()
            .any(|(_, h)| h.name == "global/termic:stop_cancelled[0].hooks[0]"));
    }

    #[test]
    fn load_reads_both_claude_files_first_then_its_own_in_name_order() {
        let home = tempfile::tempdir().unwrap();
        let file = |rel: &str, cmd: &str| {
            let p = home.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let json = format!(
                r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"command","command":"{cmd}"}}]}}]}}}}"#
            );
            std::fs::write(p, json).unwrap();
        };
        file(".grok/hooks/b.json", "/own-b");
        file(".grok/hooks/a.json", "/own-a");
        file(".grok/hooks/skip.txt", "/not-json");
        file(".claude/settings.local.json", "/claude-local");
        file(".claude/settings.json", "/claude");
        let commands = |reg: &Registry| -> Vec<String> {
            reg.handlers("Stop", None)
                .into_iter()
                .map(|h| h.command)
                .collect()
        };
        let reg = load(home.path(), GrokVersion::V0_2_111, None);
        assert_eq!(
            commands(&reg),
            ["/claude", "/claude-local", "/own-a", "/own-b"]
        );
        // The opt-out drops both Claude files and keeps grok's own.
        let reg = load(home.path(), GrokVersion::V0_2_111, Some("false"));
        assert_eq!(commands(&reg), ["/own-a", "/own-b"]);
    }
}
