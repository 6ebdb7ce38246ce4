//! The on-disk checks behind one target's status: scripts, the config
//! entry in each shape, the agent's version, and per-agent traps.

use serde_json::Value;

use super::{Reason, State, TargetStatus};
use crate::agents::{
    agy, claude, grok, opencode, script::Transport, AgentSchema, ConfigEntry, MANIFEST_FILE,
};
use crate::edit;
use crate::plan::{config_command, is_ours, InstallFacts, Snapshot};
use crate::target::{InstallTarget, TargetKind};

/// Verifies one target from a snapshot of its files.
pub fn target_status(
    target: &InstallTarget,
    snap: &Snapshot,
    facts: &InstallFacts,
) -> TargetStatus {
    let mut check = Check {
        target,
        snap,
        installed: snap.file(&target.path(MANIFEST_FILE)).is_some(),
        reasons: Vec::new(),
        notes: Vec::new(),
    };
    let state = match check.run(facts) {
        Err(e) => State::Error(e),
        Ok(()) if !check.installed => {
            // Nothing installed, but what would stop an install is worth
            // saying now (disableAllHooks, an old Claude Code).
            for r in &check.reasons {
                if matches!(r, Reason::DisableAllHooks(_) | Reason::AgentTooOld { .. }) {
                    check.notes.push(format!("{r}; install would refuse"));
                }
            }
            State::NotInstalled
        }
        Ok(()) if check.reasons.is_empty() => State::Wired,
        Ok(()) => State::NotWired(check.reasons),
    };
    TargetStatus {
        target: target.label(),
        state,
        notes: check.notes,
    }
}

struct Check<'a> {
    target: &'a InstallTarget,
    snap: &'a Snapshot,
    installed: bool,
    reasons: Vec<Reason>,
    notes: Vec<String>,
}

impl Check<'_> {
    fn run(&mut self, facts: &InstallFacts) -> Result<(), String> {
        let t = self.target;
        let adapter = t.schema().adapter();
        for asset in adapter.assets() {
            let path = t.path(&asset.rel_path);
            match self.snap.file(&path) {
                None => self.reasons.push(Reason::ScriptMissing(path)),
                Some(f) => {
                    self.installed = true;
                    if asset.mode & 0o111 != 0 && f.mode & 0o100 == 0 {
                        self.reasons.push(Reason::ScriptNotExecutable(path));
                    } else if f.bytes != asset.contents.as_bytes() {
                        self.reasons.push(Reason::ScriptChanged(path));
                    }
                }
            }
        }
        match adapter.config_entry() {
            entry @ (ConfigEntry::MergeClaudeShape { file }
            | ConfigEntry::OwnClaudeShape { file }) => self.claude_shape(entry, file)?,
            ConfigEntry::NamedAgyEntry { file, name } => self.agy(file, name)?,
            ConfigEntry::LoadedByLocation => {}
        }
        let is_host = *t.kind() == TargetKind::Host;
        match t.schema() {
            AgentSchema::Claude if is_host => {
                if let Some(found) = facts.claude_version.filter(|v| *v < claude::MIN_VERSION) {
                    self.reasons.push(Reason::AgentTooOld { found });
                }
            }
            AgentSchema::Grok if is_host => self.grok_note(),
            AgentSchema::Opencode => {
                let legacy = t.path(opencode::LEGACY_PLUGIN_FILE);
                if self.snap.file(&legacy).is_some() {
                    self.reasons.push(Reason::PluginAlsoInLegacyDir(legacy));
                }
            }
            _ => {}
        }
        // Claude's StopFailure alone writes to the pty (Claude ignores its
        // output): in Docker it stays silent and Claude's native `error`
        // reports the stop, so only an agent whose every hook needs the pty
        // is not wired there.
        let pty = adapter
            .registrations()
            .iter()
            .all(|r| r.script.transport == Transport::PtyByName)
            || t.schema() == AgentSchema::Opencode;
        if !is_host && pty {
            self.reasons.push(Reason::NoTerminalInDocker);
        }
        Ok(())
    }

    fn text(&self, path: &std::path::Path) -> Result<Option<String>, String> {
        self.snap
            .file(path)
            .map(|f| {
                String::from_utf8(f.bytes.clone()).map_err(|e| {
                    format!(
                        "{}: not UTF-8 text (offset {})",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    )
                })
            })
            .transpose()
    }

    fn claude_shape(&mut self, entry: ConfigEntry, file: &str) -> Result<(), String> {
        let path = self.target.path(file);
        let Some(text) = self.text(&path)? else {
            self.reasons.push(Reason::ConfigMissing(path));
            return Ok(());
        };
        let q = edit::query_claude_hooks(&text, &is_ours(self.target))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !q.ours.is_empty() {
            self.installed = true;
        }
        if matches!(entry, ConfigEntry::MergeClaudeShape { .. }) && q.disable_all_hooks {
            self.reasons.push(Reason::DisableAllHooks(path.clone()));
        }
        for reg in self.target.schema().adapter().registrations() {
            let want = config_command(self.target, reg);
            let mine: Vec<&Value> = q
                .ours
                .iter()
                .filter(|h| h.event == reg.event)
                .map(|h| &h.handler)
                .collect();
            let exact = mine
                .iter()
                .find(|h| h.get("command").and_then(Value::as_str) == Some(want.as_str()));
            let event = reg.event.to_string();
            let reason = match exact {
                None if mine.is_empty() => Some(Reason::EntryMissing {
                    path: path.clone(),
                    event,
                }),
                None => Some(Reason::EntryWrong {
                    path: path.clone(),
                    event,
                    why: "points at another path",
                }),
                Some(h) if h.get("async").and_then(Value::as_bool) == Some(true) => {
                    Some(Reason::EntryWrong {
                        path: path.clone(),
                        event,
                        why: "is async (its output would be dropped)",
                    })
                }
                Some(h) if h.get("type").and_then(Value::as_str) != Some("command") => {
                    Some(Reason::EntryWrong {
                        path: path.clone(),
                        event,
                        why: "is not a command hook",
                    })
                }
                Some(_) => None,
            };
            self.reasons.extend(reason);
        }
        Ok(())
    }

    fn agy(&mut self, file: &str, name: &str) -> Result<(), String> {
        let path = self.target.path(file);
        let dead = self.target.path(agy::DEAD_HOOKS_FILE);
        let dead_has_ours = match self.text(&dead) {
            Ok(Some(t)) => edit::query_named_entry(&t, name).ok().flatten().is_some(),
            _ => false,
        };
        let live = match self.text(&path)? {
            Some(t) => {
                edit::query_named_entry(&t, name).map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => None,
        };
        let Some(entry) = live else {
            if dead_has_ours {
                self.installed = true;
                self.reasons.push(Reason::AgyEntryOnlyInDeadPath(dead));
            } else {
                self.reasons.push(Reason::EntryMissing {
                    path,
                    event: name.to_string(),
                });
            }
            return Ok(());
        };
        self.installed = true;
        if dead_has_ours {
            self.notes.push(format!(
                "{} also has a termic entry; agy loads that file and never runs it, so it is harmless but can be deleted",
                dead.display()
            ));
        }
        if entry.get("enabled").and_then(Value::as_bool) != Some(true) {
            self.reasons.push(Reason::EntryWrong {
                path: path.clone(),
                event: name.to_string(),
                why: "is not enabled",
            });
        }
        for reg in self.target.schema().adapter().registrations() {
            let want = config_command(self.target, reg);
            let handlers = entry
                .get(reg.event)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let direct = handlers.iter().any(|h| {
                h.get("type").and_then(Value::as_str) == Some("command")
                    && h.get("command").and_then(Value::as_str) == Some(want.as_str())
            });
            let wrapped = handlers.iter().any(|h| h.get("hooks").is_some());
            let event = reg.event.to_string();
            let reason = match (direct, wrapped, handlers.is_empty()) {
                (true, _, _) => None,
                (false, true, _) => Some(Reason::EntryWrong {
                    path: path.clone(),
                    event,
                    why: "is wrapped in a matcher group (agy registers it with an empty command)",
                }),
                (false, false, true) => Some(Reason::EntryMissing {
                    path: path.clone(),
                    event,
                }),
                (false, false, false) => Some(Reason::EntryWrong {
                    path: path.clone(),
                    event,
                    why: "points at another path",
                }),
            };
            self.reasons.extend(reason);
        }
        Ok(())
    }

    fn grok_note(&mut self) {
        let path = self.target.path(grok::CONFIG_TOML);
        let note = match self.snap.file(&path) {
            None => Ok(false),
            Some(f) => std::str::from_utf8(&f.bytes)
                .map_err(|_| "not UTF-8 text".to_string())
                .and_then(grok::claude_hooks_disabled),
        };
        self.notes.push(match note {
            Ok(true) => format!(
                "grok ignores the hooks in ~/.claude/settings.json ([compat.claude] hooks = false in {})",
                path.display()
            ),
            Ok(false) => format!(
                "grok also runs the hooks in ~/.claude/settings.json (termic's stay silent there); to stop that, \
                 set [compat.claude] hooks = false in {}",
                path.display()
            ),
            Err(e) => format!(
                "could not tell whether grok runs the hooks in ~/.claude/settings.json: {} is {e}",
                path.display()
            ),
        });
    }
}
