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

use crate::agents::{self, Support, VersionGate};
use crate::apply::{read_snapshot, ApplyError};
use crate::plan::InstallFacts;
use crate::target::{targets_for, AgentRef, ForbiddenRoots, Paths};

mod check;

pub use check::target_status;

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
    /// The agent is older than its adapter's version gate (host only).
    AgentTooOld {
        gate: &'static VersionGate,
        found: (u32, u32, u32),
    },
    /// A file or directory of the target another user owns or can write
    /// (`fsio::foreign`): they could change what the agent runs.
    Untrusted(Box<crate::fsio::Untrusted>),
    /// One agent's own trap, found by its adapter: `why` names `{path}`.
    Trap {
        path: PathBuf,
        why: &'static str,
        /// An install would refuse while this holds.
        refuses_install: bool,
    },
}

impl Reason {
    /// Whether an install would refuse while this holds: worth a note even
    /// when nothing is installed yet.
    pub fn refuses_install(&self) -> bool {
        matches!(
            self,
            Reason::AgentTooOld { .. }
                | Reason::Untrusted(_)
                | Reason::Trap {
                    refuses_install: true,
                    ..
                }
        )
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::ScriptMissing(p) => write!(f, "{} is missing", p.display()),
            Reason::ScriptNotExecutable(p) => write!(f, "{} is not executable", p.display()),
            Reason::ScriptChanged(p) => {
                write!(f, "{} differs from what this termic generates", p.display())
            }
            Reason::ConfigMissing(p) => write!(f, "{} is gone", p.display()),
            Reason::EntryMissing { path, event } => write!(
                f,
                "termic's {event} entry is gone from {} (something rewrote the file)",
                path.display()
            ),
            Reason::EntryWrong { path, event, why } => {
                write!(f, "termic's {event} entry in {} {why}", path.display())
            }
            Reason::AgentTooOld {
                gate,
                found: (a, b, c),
            } => {
                let (x, y, z) = gate.min;
                write!(
                    f,
                    "{} {a}.{b}.{c} is older than {x}.{y}.{z}, which {} needs",
                    gate.product, gate.needs_short
                )
            }
            Reason::Untrusted(u) => f.write_str(&u.describe("install hooks")),
            Reason::Trap { path, why, .. } => {
                f.write_str(&why.replace("{path}", &path.display().to_string()))
            }
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
