//! Which agents termic can run: the built-ins (one file each under
//! `builtin/`, listed in `BUILTINS`) plus user-defined agents and clones from config.toml.
//!
//! An agent is a command line with an id. A user-defined agent names a
//! built-in `base`: that base decides its detection profile (termic-signal)
//! and its hooks schema (termic-hooks), while the agent's own id decides its
//! Docker config dir. `[agents.claude]` (an id equal to a built-in) adjusts
//! the built-in itself.
//!
//! - [`builtin`]: the built-in agents, one file each, listed once.
//! - [`detect`]: "detected" = the command is on PATH (pure).
//! - [`user`]: parsing `[agents.<id>]` tables.
//! - [`launch`]: an agent plus a name and a place to a runtime `TaskSpec`.
//! - [`command`]: any command (and an integrated shell) as a task.
//! - which agent a task's foreground process is: the runtime's
//!   `termic_runtime::agents::foreground`, given [`AgentRegistry::foreground_agents`].

pub mod builtin;
pub mod command;
pub mod detect;
pub mod launch;
pub mod user;
pub mod version;

use termic_hooks::agents::AgentSchema;
use termic_runtime::agents::foreground::{AgentCommand, ForegroundAgents};

pub use builtin::{Builtin, BUILTINS};

/// Where an agent definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    BuiltIn,
    /// Defined (or adjusted) in config.toml.
    Config,
}

/// How a Docker agent runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DockerOptions {
    /// The image to run, e.g. `ghcr.io/me/claude:latest`.
    pub image: String,
    /// Extra `docker run` options (`docker_args`), placed before the image.
    pub args: Vec<String>,
}

/// One runnable agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDef {
    /// Unique id: the sidebar label, the event log's `agent`, the Docker dir name.
    pub id: String,
    /// The built-in this agent is (or is a clone of).
    pub base: String,
    /// Program and fixed arguments; never empty.
    pub command: Vec<String>,
    /// Arguments appended after `command`.
    pub args: Vec<String>,
    /// Extra environment for the agent's process.
    pub env: Vec<(String, String)>,
    pub docker: Option<DockerOptions>,
    pub origin: Origin,
}

impl AgentDef {
    /// A built-in with its default command.
    pub fn builtin(id: &str) -> Option<AgentDef> {
        let b = BUILTINS.iter().find(|b| b.id == id)?;
        Some(AgentDef {
            id: b.id.to_owned(),
            base: b.id.to_owned(),
            command: vec![b.program.to_owned()],
            args: Vec::new(),
            env: Vec::new(),
            docker: None,
            origin: Origin::BuiltIn,
        })
    }

    /// The detection profile id for termic-signal (`profile_for`).
    pub fn profile_id(&self) -> &str {
        &self.base
    }

    /// The hooks schema, for agents termic can install hooks for.
    pub fn schema(&self) -> Option<AgentSchema> {
        AgentSchema::from_id(&self.base)
    }

    /// The program looked up on PATH to call this agent detected.
    pub fn program(&self) -> &str {
        if self.docker.is_some() {
            "docker"
        } else {
            &self.command[0]
        }
    }

    /// Why this agent cannot start when [`Self::program`] is not on PATH,
    /// and how to fix it: the built-in's install line when the program is
    /// the built-in's own, else where to set the command.
    pub fn not_found_message(&self) -> String {
        let program = self.program();
        let builtin = BUILTINS.iter().find(|b| b.id == self.base);
        let fix = match builtin {
            Some(b) if b.program == program => b.install.to_owned(),
            _ if self.docker.is_some() => "install Docker".to_owned(),
            _ => format!(
                "install it, or set `command` in [agents.{}] in config.toml",
                self.id
            ),
        };
        format!("{program} not found on PATH: {fix}")
    }

    /// The agent's own command line (no Docker wrapping): command, args, extra.
    pub fn command_line(&self, extra: &[String]) -> Vec<String> {
        self.command
            .iter()
            .chain(&self.args)
            .chain(extra)
            .cloned()
            .collect()
    }
}

/// Every agent: built-ins first (adjusted by config), then config-only agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRegistry {
    agents: Vec<AgentDef>,
}

impl AgentRegistry {
    /// The built-ins with `defined` applied (same id replaces, new ids append).
    pub fn new(defined: Vec<AgentDef>) -> Self {
        let mut agents: Vec<AgentDef> = BUILTINS
            .iter()
            .filter_map(|b| AgentDef::builtin(b.id))
            .collect();
        for def in defined {
            match agents.iter_mut().find(|a| a.id == def.id) {
                Some(slot) => *slot = def,
                None => agents.push(def),
            }
        }
        AgentRegistry { agents }
    }

    pub fn all(&self) -> &[AgentDef] {
        &self.agents
    }

    pub fn get(&self, id: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.id == id)
    }

    /// The agents a task's foreground process can be: every agent that runs
    /// on the host (a Docker agent's process is in its container).
    pub fn foreground_agents(&self) -> ForegroundAgents {
        ForegroundAgents::new(self.agents.iter().filter(|d| d.docker.is_none()).map(|d| {
            AgentCommand {
                id: &d.id,
                profile: d.profile_id(),
                command: &d.command,
            }
        }))
    }

    /// Ids, for error messages ("one of ...").
    pub fn ids(&self) -> Vec<&str> {
        self.agents.iter().map(|a| a.id.as_str()).collect()
    }
}

impl Default for AgentRegistry {
    fn default() -> Self {
        AgentRegistry::new(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_their_own_base_and_map_to_schemas() {
        let reg = AgentRegistry::default();
        assert_eq!(
            reg.ids(),
            ["claude", "codex", "grok", "agy", "opencode", "gemini", "copilot", "qwen"]
        );
        let claude = reg.get("claude").unwrap();
        assert_eq!(claude.profile_id(), "claude");
        assert_eq!(claude.schema(), Some(AgentSchema::CLAUDE));
        // Codex needs no hooks: no schema.
        assert_eq!(reg.get("codex").unwrap().schema(), None);
        assert_eq!(
            reg.get("copilot").unwrap().schema(),
            Some(AgentSchema::COPILOT)
        );
    }

    #[test]
    fn config_agents_replace_builtins_by_id_and_append_clones() {
        let mut adjusted = AgentDef::builtin("claude").unwrap();
        adjusted.args = vec!["--verbose".into()];
        adjusted.origin = Origin::Config;
        let clone = AgentDef {
            id: "claude-work".into(),
            origin: Origin::Config,
            ..AgentDef::builtin("claude").unwrap()
        };
        let reg = AgentRegistry::new(vec![adjusted.clone(), clone]);
        assert_eq!(reg.get("claude"), Some(&adjusted));
        assert_eq!(reg.all().len(), BUILTINS.len() + 1);
        let c = reg.get("claude-work").unwrap();
        assert_eq!(c.schema(), Some(AgentSchema::CLAUDE));
        assert_eq!(c.command_line(&["-p".into()]), ["claude", "-p"]);
    }

    #[test]
    fn the_foreground_table_has_config_agents_but_no_docker_agent() {
        let mine = AgentDef {
            id: "mine".into(),
            command: vec!["/opt/bin/my-agent".into()],
            origin: Origin::Config,
            ..AgentDef::builtin("claude").unwrap()
        };
        let boxed = AgentDef {
            id: "box".into(),
            command: vec!["boxed".into()],
            docker: Some(DockerOptions {
                image: "i".into(),
                ..Default::default()
            }),
            origin: Origin::Config,
            ..AgentDef::builtin("codex").unwrap()
        };
        let t = AgentRegistry::new(vec![mine, boxed]).foreground_agents();
        let id = |cmd: &[u8]| t.identify(None, cmd).map(|a| a.agent.clone());
        assert_eq!(id(b"my-agent\0"), Some("mine".into()));
        assert_eq!(id(b"codex\0"), Some("codex".into()));
        assert_eq!(id(b"boxed\0"), None);
        // The built-in table is the default registry's.
        assert_eq!(
            AgentRegistry::default().foreground_agents(),
            ForegroundAgents::builtin()
        );
    }
}
