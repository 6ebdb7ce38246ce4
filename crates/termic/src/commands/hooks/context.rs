//! What every `termic hooks` subcommand needs, read once at the edge:
//! HOME and the data dir, the agents that run in Docker (from config.toml),
//! the project paths around the working directory (never written into), and
//! the versions of the agents whose hooks need a minimum one.

use anyhow::Result;
use termic_hooks::agents::{self, AgentAdapter, AgentSchema, Support};
use termic_hooks::plan::InstallFacts;
use termic_hooks::target::{targets_for, AgentRef, ForbiddenRoots, InstallTarget, Paths};

use crate::agents::detect;
use crate::config::Config;
use crate::printed::errln;

pub struct Context {
    pub paths: Paths,
    /// termic's own config dir (config.toml: the per-agent consent).
    config_dir: std::path::PathBuf,
    /// Agents that run in Docker: each has its own Docker target.
    pub docker_agents: Vec<AgentRef>,
    /// Clones by id, mapped to their base (`termic hooks install my-claude`).
    clones: Vec<(String, String)>,
    pub forbidden: ForbiddenRoots,
    /// A warning to print once (an unreadable config.toml).
    pub warning: Option<String>,
    /// Every agent termic knows here (built-ins and config.toml's), for
    /// `install --detected`.
    agents: Vec<crate::agents::AgentDef>,
}

impl Context {
    pub fn from_env() -> Result<Context> {
        let p = crate::paths::TermicPaths::from_env()?;
        let (agents, warning) = match Config::load(&p.config_dir) {
            Ok(c) => {
                let warnings: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
                (
                    c.agents.all().to_vec(),
                    (!warnings.is_empty()).then(|| warnings.join("\ntermic: warning: ")),
                )
            }
            Err(e) => (
                crate::agents::AgentRegistry::default().all().to_vec(),
                Some(format!("{e}; using the built-in agents only")),
            ),
        };
        let docker_agents = agents
            .iter()
            .filter(|a| a.docker.is_some() && a.schema().is_some())
            .map(|a| AgentRef {
                id: a.id.clone(),
                base: Some(a.base.clone()),
            })
            .collect();
        let clones = agents
            .iter()
            .filter(|a| a.id != a.base)
            .map(|a| (a.id.clone(), a.base.clone()))
            .collect();
        // The one project-path rule, shared with the workspace.
        let cwd = std::env::current_dir()?;
        let forbidden = crate::project::forbidden_roots(&p.home, &cwd, &p.data_dir)?;
        Ok(Context {
            paths: Paths {
                home: p.home,
                data_dir: p.data_dir,
            },
            config_dir: p.config_dir,
            docker_agents,
            clones,
            forbidden,
            warning,
            agents,
        })
    }

    /// The adapter for a name given on the command line (a clone means its base).
    pub fn adapter(&self, name: &str) -> Result<&'static dyn AgentAdapter, String> {
        let base = self
            .clones
            .iter()
            .find(|(id, _)| id == name)
            .map_or(name, |(_, base)| base.as_str());
        agents::adapter(base).ok_or_else(|| {
            format!(
                "unknown agent {name:?}: termic installs hooks for {} (or a clone of one \
                 defined in config.toml)",
                agents::installable_ids().join(", ")
            )
        })
    }

    /// The schema to install for `name`, or why there is nothing to install.
    pub fn schema(&self, name: &str) -> Result<AgentSchema, String> {
        match self.adapter(name)?.support() {
            Support::Hooks(schema) => Ok(schema),
            Support::NotNeeded(why) | Support::NotSupported(why) => {
                Err(format!("{name}: {why}; nothing to install"))
            }
        }
    }

    /// The agents on PATH (a Docker agent: `docker` on PATH) that termic can
    /// wire, as the distinct schemas to install, and the ids of those it
    /// cannot wire (no hooks needed or none exist), for the plan's heading.
    pub fn detected(&self) -> (Vec<AgentSchema>, Vec<String>) {
        let path_var = std::env::var_os("PATH").unwrap_or_default();
        let mut wire = Vec::new();
        let mut other = Vec::new();
        for a in &self.agents {
            if !detect::is_detected(a, &path_var, detect::is_executable_file) {
                continue;
            }
            match a.schema() {
                Some(s) if !wire.contains(&s) => wire.push(s),
                Some(_) => {}
                None => other.push(a.id.clone()),
            }
        }
        (wire, other)
    }

    /// The distinct schemas for the names on the command line.
    pub fn schemas(&self, names: &[String]) -> Result<Vec<AgentSchema>, String> {
        let mut out = Vec::new();
        for name in names {
            let s = self.schema(name)?;
            if !out.contains(&s) {
                out.push(s);
            }
        }
        Ok(out)
    }

    /// Records the agent's hooks toggle in termic's config.toml, as the
    /// Settings pane does, so the toggle matches what is on disk. A failure
    /// is only a warning: the hooks themselves are in place or gone.
    pub fn record_consent(&self, schema: AgentSchema, on: bool) {
        let path = Config::path_in(&self.config_dir);
        let edit = crate::config::edit::SettingEdit::HooksConsent {
            agent: schema.id().to_string(),
            on,
        };
        if let Err(e) = crate::config::edit::save(&path, &[edit]) {
            errln!(
                "termic: warning: could not record the {} hooks setting: {e}",
                schema.id()
            );
        }
    }

    /// Refuses, before any hook is written, when config.toml (through its
    /// links) or the directory it is written in is another user's: the
    /// toggle could not be recorded, and termic's own config must be ours.
    pub fn config_writable(&self) -> Result<(), String> {
        termic_hooks::fsio::refuse_untrusted(&Config::path_in(&self.config_dir))
            .map_err(|e| e.to_string())
    }

    pub fn targets(&self, schema: AgentSchema) -> Result<Vec<InstallTarget>, String> {
        targets_for(schema, &self.docker_agents, &self.paths, &self.forbidden)
            .map_err(|e| e.to_string())
    }

    /// Install time and the versions of the version-gated agents among
    /// `schemas` (only those are looked up).
    pub fn facts(&self, schemas: &[AgentSchema]) -> InstallFacts {
        let now_unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let path_var = std::env::var_os("PATH").unwrap_or_default();
        InstallFacts {
            now_unix,
            versions: crate::agents::version::probe(schemas, &path_var),
        }
    }
}
