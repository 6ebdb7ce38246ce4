//! Verified status: per agent and target, is termic's hook installed, and
//! will the agent really run it ("wired")?
//!
//! Wired is what the rest of termic trusts to switch its turn heuristics off
//! for an agent, so it is checked on disk, never assumed from a toggle: the
//! entry is in the file the agent reads, in the shape it runs, pointing at a
//! script that exists, is executable and holds exactly what termic generated,
//! nothing disables it, and the agent is new enough. [`target_status`] is
//! pure (a snapshot in, a status out); [`status_report`] reads the files.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::agents::{
    self, agy, claude, grok, opencode, script::Transport, AgentSchema, ConfigEntry, Support,
    MANIFEST_FILE,
};
use crate::apply::{read_snapshot, ApplyError};
use crate::edit;
use crate::plan::{config_command, is_ours, InstallFacts, Snapshot};
use crate::target::{targets_for, AgentRef, ForbiddenRoots, InstallTarget, Paths, TargetKind};

/// Files beyond the install's own that status reads for a schema.
pub fn extra_files(schema: AgentSchema) -> &'static [&'static str] {
    match schema {
        AgentSchema::Claude => &[],
        AgentSchema::Grok => &[grok::CONFIG_TOML],
        AgentSchema::Agy => &[agy::DEAD_HOOKS_FILE],
        AgentSchema::Opencode => &[opencode::LEGACY_PLUGIN_FILE],
    }
}

/// Why an installed hook would not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    ScriptMissing(PathBuf),
    ScriptNotExecutable(PathBuf),
    ScriptChanged(PathBuf),
    ConfigMissing(PathBuf),
    /// Our entry is gone: something rewrote the file.
    EntryMissing {
        path: PathBuf,
        event: String,
    },
    /// An entry of ours is there but in a shape or path the agent won't run.
    EntryWrong {
        path: PathBuf,
        event: String,
        why: &'static str,
    },
    DisableAllHooks(PathBuf),
    AgentTooOld {
        found: (u32, u32, u32),
    },
    /// agy loads this file and never runs it.
    AgyEntryOnlyInDeadPath(PathBuf),
    /// opencode loads `plugin/` too: two copies would double-fire.
    PluginAlsoInLegacyDir(PathBuf),
    /// In a container the hook cannot reach termic's terminal.
    NoTerminalInDocker,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::ScriptMissing(p) => write!(f, "{} is missing", p.display()),
            Reason::ScriptNotExecutable(p) => write!(f, "{} is not executable", p.display()),
            Reason::ScriptChanged(p) => write!(f, "{} differs from what this termic generates", p.display()),
            Reason::ConfigMissing(p) => write!(f, "{} is gone", p.display()),
            Reason::EntryMissing { path, event } => write!(
                f,
                "termic's {event} entry is gone from {} (something rewrote the file)",
                path.display()
            ),
            Reason::EntryWrong { path, event, why } => {
                write!(f, "termic's {event} entry in {} {why}", path.display())
            }
            Reason::DisableAllHooks(p) => write!(f, "disableAllHooks is set in {}: Claude runs no hook", p.display()),
            Reason::AgentTooOld { found: (a, b, c) } => {
                let (x, y, z) = claude::MIN_VERSION;
                write!(f, "Claude Code {a}.{b}.{c} is older than {x}.{y}.{z}, which hook output needs")
            }
            Reason::AgyEntryOnlyInDeadPath(p) => write!(
                f,
                "termic's entry is only in {}, which agy loads and never runs",
                p.display()
            ),
            Reason::PluginAlsoInLegacyDir(p) => write!(
                f,
                "{} also exists: opencode loads both dirs, so the hooks would fire twice",
                p.display()
            ),
            Reason::NoTerminalInDocker => f.write_str(
                "in a Docker container this hook cannot reach termic's terminal ($TERMIC_PTY names a host device)",
            ),
        }
    }
}

/// One target's verified state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    NotInstalled,
    Wired,
    NotWired(Vec<Reason>),
    NotNeeded(&'static str),
    NotSupported(&'static str),
    /// A file could not be read or parsed (named, with line and column).
    Error(String),
}

impl State {
    /// The short machine name used in `--json`.
    pub fn key(&self) -> &'static str {
        match self {
            State::NotInstalled => "not_installed",
            State::Wired => "wired",
            State::NotWired(_) => "not_wired",
            State::NotNeeded(_) => "not_needed",
            State::NotSupported(_) => "not_supported",
            State::Error(_) => "error",
        }
    }

    /// One line for a person.
    pub fn summary(&self) -> String {
        match self {
            State::NotInstalled => "not installed".into(),
            State::Wired => "installed and wired".into(),
            State::NotWired(_) => "installed but NOT wired".into(),
            State::NotNeeded(s) | State::NotSupported(s) => s.to_string(),
            State::Error(e) => format!("error: {e}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetStatus {
    /// `host`, `docker:<agent_id>`, or `-` for agents with no install.
    pub target: String,
    #[serde(serialize_with = "ser_state")]
    pub state: State,
    /// Facts worth knowing that do not change the state.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentStatus {
    pub agent: String,
    pub targets: Vec<TargetStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusReport {
    pub agents: Vec<AgentStatus>,
}

impl StatusReport {
    pub fn target(&self, agent_id: &str, target: &str) -> Option<&TargetStatus> {
        self.agents
            .iter()
            .find(|a| a.agent == agent_id)?
            .targets
            .iter()
            .find(|t| t.target == target)
    }
}

/// True when termic may trust `agent_id`'s hooks on the host and switch its
/// turn heuristics off for it.
pub fn wired(report: &StatusReport, agent_id: &str) -> bool {
    wired_on(report, agent_id, "host")
}

/// The same for one target (`host` or `docker:<agent_id>`).
pub fn wired_on(report: &StatusReport, agent_id: &str, target: &str) -> bool {
    report
        .target(agent_id, target)
        .is_some_and(|t| t.state == State::Wired)
}

fn ser_state<S: serde::Serializer>(state: &State, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(None)?;
    m.serialize_entry("key", state.key())?;
    m.serialize_entry("summary", &state.summary())?;
    if let State::NotWired(reasons) = state {
        let r: Vec<String> = reasons.iter().map(ToString::to_string).collect();
        m.serialize_entry("reasons", &r)?;
    }
    m.end()
}

/// Reads every agent's targets and verifies each: the host target, and a
/// Docker target for each agent in `docker_agents`.
pub fn status_report(
    docker_agents: &[AgentRef],
    paths: &Paths,
    forbidden: &ForbiddenRoots,
    facts: &InstallFacts,
) -> StatusReport {
    let mut out = Vec::new();
    for adapter in agents::ADAPTERS {
        let targets = match adapter.support() {
            Support::NotNeeded(s) => vec![no_install(State::NotNeeded(s))],
            Support::NotSupported(s) => vec![no_install(State::NotSupported(s))],
            Support::Hooks(schema) => match targets_for(schema, docker_agents, paths, forbidden) {
                Err(e) => vec![no_install(State::Error(e.to_string()))],
                Ok(ts) => ts
                    .iter()
                    .map(|t| match read_snapshot(t) {
                        Ok(snap) => target_status(t, &snap, facts),
                        Err(ApplyError::Io { path, source }) => TargetStatus {
                            target: t.label(),
                            state: State::Error(format!("{}: {source}", path.display())),
                            notes: Vec::new(),
                        },
                        Err(e) => TargetStatus {
                            target: t.label(),
                            state: State::Error(e.to_string()),
                            notes: Vec::new(),
                        },
                    })
                    .collect(),
            },
        };
        out.push(AgentStatus {
            agent: adapter.id().to_string(),
            targets,
        });
    }
    StatusReport { agents: out }
}

fn no_install(state: State) -> TargetStatus {
    TargetStatus {
        target: "-".into(),
        state,
        notes: Vec::new(),
    }
}

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
        Ok(()) if !check.installed => State::NotInstalled,
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
        let pty = adapter
            .registrations()
            .iter()
            .any(|r| r.script.transport == Transport::PtyByName)
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
        let note = match self.text(&path) {
            Ok(None) => Ok(false),
            Ok(Some(t)) => grok::claude_hooks_disabled(&t),
            Err(e) => Err(e),
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
            Err(e) => format!("could not read {}: {e}", path.display()),
        });
    }
}
