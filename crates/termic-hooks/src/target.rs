//! Install targets: WHERE an agent's hooks go.
//!
//! Two kinds, both global or termic-owned, never per project:
//! - host: the agent's own config dir under `$HOME` (`~/.claude`, ...);
//! - Docker: `<data_dir>/docker-agents/<agent_id>/`, which a Docker task
//!   mounts at the agent's config dir in the container, so the paths written
//!   INSIDE its files are container paths (`/root/.claude/termic-hooks/...`).
//!
//! A user-defined clone (an agent with a `base`) gets its own Docker dir,
//! keyed on its own id, with its base's schema. One toggle per agent covers
//! the host target and every Docker target of that agent and its clones.
//!
//! The constructors refuse any target that would resolve (symlinks
//! followed) under a task's worktree or repository root: termic never
//! writes a project-level agent config, and this makes that mechanical.

use std::path::{Component, Path, PathBuf};

use crate::agents::AgentSchema;

/// The roots every path comes from, resolved once at the edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// `$HOME`: agent configs live under it.
    pub home: PathBuf,
    /// termic's data dir: holds `docker-agents/`.
    pub data_dir: PathBuf,
}

/// Docker agent dirs live here, inside the data dir.
pub const DOCKER_AGENTS_DIR: &str = "docker-agents";

/// Where a Docker task mounts `<data_dir>/docker-agents/<agent_id>/` in the
/// container: the config dir of the agent's schema (e.g. `/root/.claude`).
pub fn container_config_dir(schema: AgentSchema) -> String {
    schema.container_config_dir()
}

/// An agent as the rest of termic defines it: built-in (`base` is `None`)
/// or a user-defined clone of a built-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRef {
    pub id: String,
    pub base: Option<String>,
}

impl AgentRef {
    pub fn builtin(schema: AgentSchema) -> AgentRef {
        AgentRef {
            id: schema.id().to_string(),
            base: None,
        }
    }

    /// The schema this agent's files follow: its base's, else its own.
    pub fn schema(&self) -> Option<AgentSchema> {
        AgentSchema::from_id(self.base.as_deref().unwrap_or(&self.id))
    }
}

/// Host or Docker.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TargetKind {
    Host,
    Docker { agent_id: String },
}

/// Why a target cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error(
        "{path} is inside {root}, a task's worktree or repository; termic only writes global agent \
         configs, never a project's. Move the file (or HOME, or TERMIC_DATA_DIR) out of it"
    )]
    InsideProject { path: PathBuf, root: PathBuf },
    #[error("agent id {0:?} cannot name a directory: use letters, digits, '.', '_' and '-' only")]
    BadAgentId(String),
    #[error(
        "agent \"{id}\" {}; termic installs hooks for {}. Set base to one of them in its \
         [agents.{id}] table, or leave its hooks off",
        match base {
            Some(base) => format!("is based on \"{base}\", which has no hooks"),
            None => "has no hooks of its own and no base".to_string(),
        },
        crate::agents::installable_in_words()
    )]
    NoSchema { id: String, base: Option<String> },
    #[error("{path}: a chain of symbolic links too deep to follow")]
    LinkLoop { path: PathBuf },
}

/// Where termic runs, as the edge found it: the one input of the
/// project-path rule ([`project_roots`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProjectFacts {
    /// `$HOME`.
    pub home: PathBuf,
    /// The directory termic was started in.
    pub cwd: PathBuf,
    /// The top of the repository around `cwd`, if it is in one.
    pub repo_root: Option<PathBuf>,
    /// Every worktree of that repository (the main one included) and the
    /// directories termic keeps task worktrees in.
    pub worktree_roots: Vec<PathBuf>,
}

/// THE rule for "is this a project path", used by the hooks CLI, Settings,
/// the wizard and task spawn alike: the roots no install may resolve under.
/// Pure: compares the paths as given (the edge resolves them first, see
/// [`ForbiddenRoots::for_project`]).
///
/// - The repository root and every worktree root are projects, unless the
///   root IS `$HOME` (a dotfiles repository at ~: `~/.claude` is the global
///   config whichever way one looks at it). A repository that holds `$HOME`
///   deeper inside its tree stays a project: the config would be committed.
/// - The working directory is a project, unless it is `$HOME` or contains it
///   (`/`, `/home`): a folder that is not a repository and holds HOME is not
///   a project of its own, and its own `.claude` is not a path termic writes.
///   A folder inside HOME (with or without a `.claude` of its own) stays a
///   project, so a `~/.claude` that links into it is still refused.
pub fn project_roots(facts: &ProjectFacts) -> Vec<PathBuf> {
    let home = facts.home.as_path();
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut add = |root: &Path| {
        if !roots.iter().any(|r| r == root) {
            roots.push(root.to_path_buf());
        }
    };
    if !home.starts_with(&facts.cwd) {
        add(&facts.cwd);
    }
    for root in facts.repo_root.iter().chain(&facts.worktree_roots) {
        if root != home {
            add(root);
        }
    }
    roots
}

/// The roots no target may resolve under: each task's worktree and
/// repository root. Canonicalised on construction.
#[derive(Debug, Clone, Default)]
pub struct ForbiddenRoots(Vec<PathBuf>);

impl ForbiddenRoots {
    /// The roots of [`project_roots`], every input resolved first (symlinks
    /// followed) so a HOME reached through a link still compares equal.
    pub fn for_project(facts: &ProjectFacts) -> Result<Self, TargetError> {
        let resolved = ProjectFacts {
            home: resolve(&facts.home)?,
            cwd: resolve(&facts.cwd)?,
            repo_root: facts.repo_root.as_deref().map(resolve).transpose()?,
            worktree_roots: facts
                .worktree_roots
                .iter()
                .map(|r| resolve(r))
                .collect::<Result<_, _>>()?,
        };
        Ok(ForbiddenRoots(project_roots(&resolved)))
    }

    pub fn new<I: IntoIterator<Item = PathBuf>>(roots: I) -> Result<Self, TargetError> {
        let roots = roots
            .into_iter()
            .map(|r| resolve(&r))
            .collect::<Result<_, _>>()?;
        Ok(ForbiddenRoots(roots))
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.0
    }

    fn check(&self, path: &Path) -> Result<(), TargetError> {
        let resolved = resolve(path)?;
        match self.0.iter().find(|root| resolved.starts_with(root)) {
            Some(root) => Err(TargetError::InsideProject {
                path: path.to_path_buf(),
                root: root.clone(),
            }),
            None => Ok(()),
        }
    }
}

/// One place an agent's hooks are installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallTarget {
    agent_id: String,
    schema: AgentSchema,
    kind: TargetKind,
    /// The agent's config dir on this machine.
    dir: PathBuf,
    /// The same dir as the agent sees it (differs in Docker).
    agent_dir: String,
}

impl InstallTarget {
    /// The agent's global config dir under `$HOME`.
    pub fn host(
        schema: AgentSchema,
        paths: &Paths,
        forbidden: &ForbiddenRoots,
    ) -> Result<Self, TargetError> {
        let dir = paths.home.join(schema.home_config_dir());
        let agent_dir = dir.to_string_lossy().into_owned();
        Self::checked(
            schema.id().to_string(),
            schema,
            TargetKind::Host,
            dir,
            agent_dir,
            forbidden,
        )
    }

    /// `<data_dir>/docker-agents/<agent.id>/`, with the schema of the
    /// agent's base and container paths written inside.
    pub fn docker(
        agent: &AgentRef,
        paths: &Paths,
        forbidden: &ForbiddenRoots,
    ) -> Result<Self, TargetError> {
        let schema = agent.schema().ok_or_else(|| TargetError::NoSchema {
            id: agent.id.clone(),
            base: agent.base.clone(),
        })?;
        let id_ok = !agent.id.is_empty()
            && agent.id != "."
            && agent.id != ".."
            && agent
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !id_ok {
            return Err(TargetError::BadAgentId(agent.id.clone()));
        }
        let dir = paths.data_dir.join(DOCKER_AGENTS_DIR).join(&agent.id);
        let kind = TargetKind::Docker {
            agent_id: agent.id.clone(),
        };
        let agent_dir = container_config_dir(schema);
        Self::checked(agent.id.clone(), schema, kind, dir, agent_dir, forbidden)
    }

    fn checked(
        agent_id: String,
        schema: AgentSchema,
        kind: TargetKind,
        dir: PathBuf,
        agent_dir: String,
        forbidden: &ForbiddenRoots,
    ) -> Result<Self, TargetError> {
        let target = InstallTarget {
            agent_id,
            schema,
            kind,
            dir,
            agent_dir,
        };
        forbidden.check(&target.dir)?;
        for rel in target.owned_rel_paths() {
            forbidden.check(&target.path(&rel))?;
        }
        Ok(target)
    }

    /// Every file this target's install may write, relative to its dir.
    pub fn owned_rel_paths(&self) -> Vec<String> {
        let adapter = self.schema.adapter();
        let mut rels: Vec<String> = adapter.assets().into_iter().map(|a| a.rel_path).collect();
        rels.extend(adapter.config_entry().file().map(str::to_string));
        rels.push(self.schema.manifest_file());
        rels
    }

    /// The agent id this target belongs to (a clone's own id in Docker).
    pub fn agent_id(&self) -> &str {
        &self.agent_id
    }
    pub fn schema(&self) -> AgentSchema {
        self.schema
    }
    pub fn kind(&self) -> &TargetKind {
        &self.kind
    }
    /// The agent's config dir on this machine.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// Where a file of the agent's config dir is on this machine.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }
    /// The same file as the agent sees it: what goes INTO config files.
    pub fn agent_path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.agent_dir.trim_end_matches('/'))
    }
    /// `host` or `docker:<agent_id>`.
    pub fn label(&self) -> String {
        match &self.kind {
            TargetKind::Host => "host".to_string(),
            TargetKind::Docker { agent_id } => format!("docker:{agent_id}"),
        }
    }
}

/// Every target one agent's toggle covers: the host target of its schema,
/// and a Docker target for each agent in `docker_agents` (the built-in
/// itself or a clone) whose schema it is. The caller lists the agents that
/// run in Docker; each gets its own dir, keyed on its own id.
pub fn targets_for(
    schema: AgentSchema,
    docker_agents: &[AgentRef],
    paths: &Paths,
    forbidden: &ForbiddenRoots,
) -> Result<Vec<InstallTarget>, TargetError> {
    let mut targets = vec![InstallTarget::host(schema, paths, forbidden)?];
    let mut seen: Vec<&str> = Vec::new();
    for agent in docker_agents {
        if agent.schema() == Some(schema) && !seen.contains(&agent.id.as_str()) {
            seen.push(&agent.id);
            targets.push(InstallTarget::docker(agent, paths, forbidden)?);
        }
    }
    Ok(targets)
}

/// `path` with every symlink resolved, also when its tail does not exist
/// yet (the nearest existing ancestor is resolved and the rest appended).
fn resolve(path: &Path) -> Result<PathBuf, TargetError> {
    let mut path = absolute(path);
    for _ in 0..40 {
        if let Ok(real) = path.canonicalize() {
            return Ok(real);
        }
        match std::fs::read_link(&path) {
            // A dangling link: follow it by hand.
            Ok(target) => {
                let parent = path.parent().unwrap_or(Path::new("/"));
                path = normalize(&parent.join(target));
            }
            Err(_) => {
                let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                    return Ok(path);
                };
                return Ok(resolve(parent)?.join(name));
            }
        }
    }
    Err(TargetError::LinkLoop { path })
}

fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    normalize(&joined)
}

/// Removes `.` and resolves `..` lexically (only used on link targets and
/// relative inputs, before the filesystem is asked).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
