//! Claude Code's settings files (`hooks.<Event>[] = {matcher?, hooks: [handler]}`),
//! read the way 2.1.332 was measured to read them: strict JSON or nothing, a
//! `hooks` that is not an object ignored (the rest applies), `disableAllHooks`
//! honoured. Grok reads the same files with the same shape (see `grok.rs`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::settings_hooks::parse_settings;
use crate::config::{parse_strict_json, Registry};

/// The files Claude Code reads, lowest precedence first: the user's
/// `~/.claude/settings.json` and `settings.local.json`, then the project's
/// `.claude/` pair (skipped when the project is `$HOME` itself).
pub fn settings_paths(home: &Path, cwd: &Path) -> Vec<PathBuf> {
    let user = home.join(".claude");
    let mut paths = vec![user.join("settings.json"), user.join("settings.local.json")];
    let project = cwd.join(".claude");
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if !same(&project, &user) {
        paths.push(project.join("settings.json"));
        paths.push(project.join("settings.local.json"));
    }
    paths
}

/// Load every settings file: hooks from all of them run (merged), and
/// `disableAllHooks` from the highest-precedence file that sets it wins.
pub fn load(home: &Path, cwd: &Path) -> Registry {
    let mut reg = Registry::default();
    let mut disabled = None;
    for path in settings_paths(home, cwd) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match parse_settings(&bytes, &path) {
            Ok(file) => {
                disabled = file.disable_all_hooks.or(disabled);
                reg.notes.extend(file.notes);
                reg.hooks
                    .extend(file.hooks.into_iter().map(|f| (f.event, f.handler)));
            }
            Err(e) => reg.notes.push(format!(
                "{}: {e}; the whole file is ignored",
                path.display()
            )),
        }
    }
    if disabled == Some(true) {
        reg.notes
            .push("disableAllHooks is set: no hook runs".into());
        reg.hooks.clear();
    }
    reg
}

/// What the `drop-hooks` action rewrites: the user's own settings file.
pub fn user_settings(home: &Path) -> PathBuf {
    home.join(".claude").join("settings.json")
}

/// Settings with every handler whose command points into `hooks_dir`
/// removed, and the groups, events and `hooks` object left empty by that.
/// `Err` for a file an agent could not parse (it would not rewrite it).
pub fn without_hooks_in(bytes: &[u8], hooks_dir: &str) -> Result<Vec<u8>, String> {
    let mut value = parse_strict_json(bytes)?;
    let Value::Object(top) = &mut value else {
        return Err("settings must be a JSON object".into());
    };
    if let Some(Value::Object(events)) = top.get_mut("hooks") {
        for groups in events.values_mut() {
            let Value::Array(groups) = groups else {
                continue;
            };
            for group in groups.iter_mut() {
                if let Some(Value::Array(handlers)) = group.get_mut("hooks") {
                    handlers.retain(|h| {
                        let cmd = h.get("command").and_then(Value::as_str).unwrap_or("");
                        !cmd.contains(hooks_dir)
                    });
                }
            }
            groups.retain(|g| !matches!(g.get("hooks"), Some(Value::Array(h)) if h.is_empty()));
        }
        events.retain(|_, g| !matches!(g, Value::Array(g) if g.is_empty()));
        if events.is_empty() {
            top.remove("hooks");
        }
    }
    let mut out = serde_json::to_vec_pretty(&value).map_err(|e| e.to_string())?;
    out.push(b'\n');
    Ok(out)
}

/// The agent rewrites `~/.claude/settings.json` without termic's hooks
/// (`~/.claude/termic-hooks/`), atomically (temp file, then rename).
pub fn drop_termic_hooks(home: &Path) -> Result<(), String> {
    let path = user_settings(home);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = home.join(".claude").join("termic-hooks");
    let out = without_hooks_in(&bytes, &dir.to_string_lossy())?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, out).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::settings_hooks::*;

    #[test]
    fn dropping_termic_hooks_keeps_the_rest_and_prunes_empty_containers() {
        let before = br#"{"model":"opus","hooks":{
          "Stop":[{"hooks":[{"type":"command","command":"/h/.claude/termic-hooks/claude-hook stop"}]}],
          "PreToolUse":[{"matcher":"Bash","hooks":[
            {"type":"command","command":"/h/.claude/termic-hooks/claude-hook pre"},
            {"type":"command","command":"lint.sh"}]}]}}"#;
        let after = without_hooks_in(before, "/h/.claude/termic-hooks/").unwrap();
        let v: Value = serde_json::from_slice(&after).unwrap();
        assert_eq!(v["model"], "opus");
        assert!(v["hooks"].get("Stop").is_none(), "{v}");
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["hooks"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "lint.sh"
        );
        let only_ours =
            br#"{"hooks":{"Stop":[{"hooks":[{"command":"/h/.claude/termic-hooks/x"}]}]}}"#;
        let v: Value = serde_json::from_slice(
            &without_hooks_in(only_ours, "/h/.claude/termic-hooks/").unwrap(),
        )
        .unwrap();
        assert_eq!(v, serde_json::json!({}));
        assert!(
            without_hooks_in(b"{\"a\":1,}", "/h").is_err(),
            "strict JSON"
        );
    }

    fn parse(s: &str) -> Result<SettingsFile, String> {
        parse_settings(s.as_bytes(), Path::new("/h/.claude/settings.json"))
    }

    #[test]
    fn reads_groups_matchers_and_handler_fields() {
        let f = parse(
            r#"{"model":"x","hooks":{"PermissionRequest":[{"matcher":"Write","hooks":[
                {"type":"command","command":"/p.sh","timeout":5},
                {"type":"command","command":"/q.sh","async":true},
                {"type":"prompt","prompt":"no"}]}],
              "Stop":[{"hooks":[{"type":"command","command":"/a b/x.sh","args":["Arg"]}]}]}}"#,
        )
        .unwrap();
        assert_eq!(f.hooks.len(), 3);
        let h = &f.hooks[0].handler;
        assert_eq!(
            (h.command.as_str(), h.timeout_s, h.is_async),
            ("/p.sh", Some(5.0), false)
        );
        assert_eq!(h.matcher.as_deref(), Some("Write"));
        assert!(f.hooks[1].handler.is_async);
        assert_eq!(f.hooks[2].event, "Stop");
        assert_eq!(f.hooks[2].handler.args, Some(vec!["Arg".to_string()]));
        assert_eq!(f.notes.len(), 1, "the prompt-type hook is skipped");
    }

    #[test]
    fn jsonc_rejects_the_whole_file() {
        assert!(parse(
            r#"{"hooks":{}, // comment
        }"#
        )
        .is_err());
        assert!(parse(r#"{"hooks":{},}"#).is_err());
    }

    #[test]
    fn hooks_not_an_object_is_ignored_but_the_rest_applies() {
        let f = parse(r#"{"hooks":[1,2],"disableAllHooks":true}"#).unwrap();
        assert!(f.hooks.is_empty());
        assert_eq!(f.disable_all_hooks, Some(true));
        assert!(f.notes[0].contains("not an object"));
    }

    #[test]
    fn duplicate_hooks_key_last_wins() {
        let f = parse(
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/first"}]}]},
                "hooks":{"Stop":[{"hooks":[{"type":"command","command":"/last"}]}]}}"#,
        )
        .unwrap();
        assert_eq!(f.hooks.len(), 1);
        assert_eq!(f.hooks[0].handler.command, "/last");
    }

    #[test]
    fn bom_is_accepted() {
        let bytes = b"\xef\xbb\xbf{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"/s\"}]}]}}";
        let f = parse_settings(bytes, Path::new("/s")).unwrap();
        assert_eq!(f.hooks.len(), 1);
    }
}
