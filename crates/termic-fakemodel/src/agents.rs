//! Scratch HOMEs for the real agent CLIs, prepared exactly as
//! `shared/real-agents/README.md` measured (onboarding state, provider
//! config, env), plus an optional hook recorder per agent for measurements.
//! The agents come from the cache `.ci/real-agents-install` fills.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

/// The real agents the suite drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Opencode,
    Grok,
    Codex,
    /// Gemini CLI (Gemini API).
    Gemini,
    /// Qwen Code (OpenAI chat completions).
    Qwen,
    /// GitHub Copilot CLI in its bring-your-own-model mode (chat completions).
    Copilot,
}

/// The key every agent gets; claude approves keys by their last 20 chars.
pub const API_KEY: &str = "sk-termic-fake-0123456789abcdefghij";

impl Agent {
    pub const ALL: [Agent; 7] = [
        Agent::Claude,
        Agent::Opencode,
        Agent::Grok,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Copilot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Opencode => "opencode",
            Agent::Grok => "grok",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
        }
    }

    /// The entry point the install script links in `<cache>/bin`.
    pub fn binary(self, cache: &Path) -> PathBuf {
        cache.join("bin").join(self.name())
    }

    /// Writes the agent's onboarding and provider files under `home` and
    /// returns the env the agent needs. `base_url` is the fake model server
    /// (`http://127.0.0.1:PORT`).
    pub fn prepare(
        self,
        cache: &Path,
        home: &Path,
        project: &Path,
        base_url: &str,
    ) -> io::Result<Vec<(String, String)>> {
        fs::create_dir_all(home)?;
        fs::create_dir_all(project)?;
        let env = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        match self {
            Agent::Claude => {
                let key_tail = &API_KEY[API_KEY.len() - 20..];
                let state = json!({
                    "hasCompletedOnboarding": true,
                    "hasSeenAutoDefaultNudge": true,
                    "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
                    "projects": {project.to_string_lossy(): {"hasTrustDialogAccepted": true}},
                });
                write(&home.join(".claude.json"), &format!("{state:#}\n"))?;
                let settings = json!({"permissions": {"defaultMode": "default"}});
                write(
                    &home.join(".claude/settings.json"),
                    &format!("{settings:#}\n"),
                )?;
                Ok(env(&[
                    ("ANTHROPIC_BASE_URL", base_url),
                    ("ANTHROPIC_API_KEY", API_KEY),
                    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
                    ("DISABLE_AUTOUPDATER", "1"),
                    ("DISABLE_TELEMETRY", "1"),
                    ("DISABLE_ERROR_REPORTING", "1"),
                ]))
            }
            Agent::Opencode => {
                let config_dir = home.join(".config/opencode");
                let config = json!({
                    "$schema": "https://opencode.ai/config.json",
                    "autoupdate": false,
                    "provider": {"fake": {
                        "npm": "@ai-sdk/openai-compatible",
                        "name": "Fake",
                        "options": {"baseURL": format!("{base_url}/v1"), "apiKey": API_KEY},
                        "models": {"fake-model": {"name": "Fake model", "tool_call": true}},
                    }},
                    "model": "fake/fake-model",
                    "small_model": "fake/fake-model",
                    "permission": {"edit": "ask", "bash": "ask"},
                });
                write(&config_dir.join("opencode.json"), &format!("{config:#}\n"))?;
                // Pre-seeded plugin SDK: without it the first start runs a
                // background npm install and a turn takes ~74 s.
                copy_tree(&cache.join("opencode-config-seed"), &config_dir)?;
                Ok(env(&[
                    ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
                    ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
                    ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"),
                    ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
                    ("OPENCODE_DISABLE_SHARE", "1"),
                    ("OPENCODE_DISABLE_CLAUDE_CODE", "1"),
                ]))
            }
            Agent::Grok => {
                write(
                    &home.join(".grok/config.toml"),
                    "[cli]\nauto_update = false\n\n[features]\ntelemetry = false\n",
                )?;
                Ok(vec![
                    ("XAI_API_KEY".to_string(), API_KEY.to_string()),
                    ("GROK_MODELS_BASE_URL".to_string(), format!("{base_url}/v1")),
                ])
            }
            Agent::Codex => {
                let config = format!(
                    "model_provider = \"fake\"\napproval_policy = \"on-request\"\nsandbox_mode = \"read-only\"\n\
                     check_for_update_on_startup = false\n\n\
                     [model_providers.fake]\nname = \"fake\"\nbase_url = \"{base_url}/v1\"\nwire_api = \"responses\"\n\
                     env_key = \"FAKE_API_KEY\"\nsupports_websockets = false\nrequest_max_retries = 0\nstream_max_retries = 0\n\n\
                     [projects.\"{}\"]\ntrust_level = \"trusted\"\n\n\
                     [tui]\nscreen_reader_detection_done = true\n\n\
                     [tui.model_availability_nux]\n\"gpt-6.1-sol\" = 99\n\n\
                     [notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n",
                    project.display()
                );
                write(&home.join(".codex/config.toml"), &config)?;
                Ok(vec![("FAKE_API_KEY".to_string(), API_KEY.to_string())])
            }
            Agent::Gemini => {
                // Without selectedType a base URL alone means auth "gateway":
                // "Invalid auth method selected." (exit 41). Folder trust off
                // skips the trust dialog; the rest keeps it off the network.
                let settings = json!({
                    "security": {"auth": {"selectedType": "gemini-api-key"},
                                 "folderTrust": {"enabled": false}},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                    "ide": {"enabled": false},
                });
                write(
                    &home.join(".gemini/settings.json"),
                    &format!("{settings:#}\n"),
                )?;
                Ok(env(&[
                    ("GEMINI_API_KEY", API_KEY),
                    ("GOOGLE_GEMINI_BASE_URL", base_url),
                ]))
            }
            Agent::Qwen => {
                // approvalMode "default": the default "auto" lets a model
                // classifier approve tools, so no prompt would be certain.
                // Usage statistics on means DNS lookups; managed memory an
                // extra request after each turn.
                let settings = json!({
                    "security": {"auth": {"selectedType": "openai"}},
                    "model": {"name": "fake-model"},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    "general": {"enableAutoUpdate": false},
                    "memory": {"enableManagedAutoMemory": false},
                    "tools": {"approvalMode": "default"},
                });
                write(
                    &home.join(".qwen/settings.json"),
                    &format!("{settings:#}\n"),
                )?;
                let v1 = format!("{base_url}/v1");
                Ok(env(&[
                    ("OPENAI_API_KEY", API_KEY),
                    ("OPENAI_BASE_URL", &v1),
                    ("OPENAI_MODEL", "fake-model"),
                    ("QWEN_USAGE_STATISTICS_ENABLED", "false"),
                ]))
            }
            Agent::Copilot => {
                // trustedFolders skips "Confirm folder trust".
                let config = json!({"trustedFolders": [project.to_string_lossy()]});
                write(&home.join(".copilot/config.json"), &format!("{config:#}\n"))?;
                let v1 = format!("{base_url}/v1");
                Ok(env(&[
                    ("COPILOT_OFFLINE", "true"),
                    ("COPILOT_PROVIDER_BASE_URL", &v1),
                    ("COPILOT_PROVIDER_TYPE", "openai"),
                    ("COPILOT_PROVIDER_WIRE_API", "completions"),
                    ("COPILOT_PROVIDER_API_KEY", API_KEY),
                    ("COPILOT_MODEL", "fake-model"),
                    ("COPILOT_AUTO_UPDATE", "false"),
                ]))
            }
        }
    }

    /// A command for the agent with a clean env: only PATH (node and the
    /// cache's bin first), HOME, TERM, LANG and the agent's own variables, so
    /// nothing of the caller (XDG dirs, TMUX, real keys) leaks in.
    pub fn command(
        self,
        cache: &Path,
        home: &Path,
        project: &Path,
        env: &[(String, String)],
    ) -> Command {
        let mut command = Command::new(self.binary(cache));
        command.env_clear().current_dir(project);
        for (key, value) in base_env(cache, home).into_iter().chain(env.iter().cloned()) {
            command.env(key, value);
        }
        command
    }
}

/// PATH, HOME, TERM and LANG for a child started from `cache`.
pub fn base_env(cache: &Path, home: &Path) -> Vec<(String, String)> {
    let node_dir = which("node").and_then(|p| p.parent().map(Path::to_path_buf));
    let mut path = vec![cache.join("bin").display().to_string()];
    path.extend(node_dir.map(|d| d.display().to_string()));
    path.push("/usr/local/bin:/usr/bin:/bin".to_string());
    vec![
        ("PATH".to_string(), path.join(":")),
        ("HOME".to_string(), home.display().to_string()),
        ("TERM".to_string(), "xterm-256color".to_string()),
        ("COLORTERM".to_string(), "truecolor".to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("USER".to_string(), "termic".to_string()),
    ]
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn write(path: &Path, text: &str) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, text)
}

/// Copies a directory tree (files and symlinks) into `to`.
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path())?, &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_home_has_the_onboarding_state_the_readme_lists() {
        let dir = std::env::temp_dir().join(format!("fakemodel-agents-{}", std::process::id()));
        let (home, project) = (dir.join("home"), dir.join("proj"));
        let env = Agent::Claude
            .prepare(&dir, &home, &project, "http://127.0.0.1:9")
            .unwrap();
        let state: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
        assert_eq!(state["hasCompletedOnboarding"], true);
        assert_eq!(
            state["customApiKeyResponses"]["approved"][0],
            &API_KEY[API_KEY.len() - 20..]
        );
        assert_eq!(
            state["projects"][project.to_str().unwrap()]["hasTrustDialogAccepted"],
            true
        );
        assert!(env.contains(&(
            "ANTHROPIC_BASE_URL".to_string(),
            "http://127.0.0.1:9".to_string()
        )));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_command_env_is_clean() {
        let cmd = Agent::Grok.command(
            Path::new("/c"),
            Path::new("/h"),
            Path::new("/p"),
            &[("A".into(), "1".into())],
        );
        let keys: Vec<String> = cmd
            .get_envs()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert!(keys.contains(&"HOME".to_string()) && keys.contains(&"A".to_string()));
        assert!(!keys
            .iter()
            .any(|k| k.starts_with("TMUX") || k.starts_with("XDG")));
        assert_eq!(cmd.get_program(), "/c/bin/grok");
    }
}
