//! From an agent definition to a [`TaskSpec`] the runtime can spawn.

use std::path::{Path, PathBuf};

use super::AgentDef;
use crate::docker;
use termic_runtime::{TaskSpec, TermSize};

/// Everything about a new task that is not the agent.
#[derive(Debug, Clone)]
pub struct LaunchRequest<'a> {
    pub name: &'a str,
    pub cwd: PathBuf,
    pub size: TermSize,
    /// termic's data dir (Docker agents mount their config dir from it).
    pub data_dir: &'a Path,
    /// Arguments after `--` on the command line.
    pub extra_args: &'a [String],
}

/// The spec for running `agent`: its command line (Docker-wrapped for a
/// Docker agent, whose env then travels as `-e` flags, in a container named
/// after the agent and a random suffix), its env, and its base as the
/// engine profile.
pub fn task_spec(agent: &AgentDef, req: &LaunchRequest<'_>) -> TaskSpec {
    let container = agent
        .docker
        .as_ref()
        .map(|_| docker::ContainerTask::new(&agent.id, &container_suffix()));
    let docker_argv = container.as_ref().and_then(|container| {
        let who = docker::RunIdentity {
            container,
            owner_pid: std::process::id(),
            owner_pidns: own_pidns(),
        };
        docker::docker_argv(agent, req.data_dir, &req.cwd, req.extra_args, who)
    });
    let (argv, env) = match docker_argv {
        Some(argv) => (argv, Vec::new()),
        None => (
            agent.command_line(req.extra_args),
            agent
                .env
                .iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        ),
    };
    TaskSpec {
        name: req.name.to_owned(),
        agent: agent.id.clone(),
        argv: argv.into_iter().map(Into::into).collect(),
        cwd: req.cwd.clone(),
        env,
        profile: agent.profile_id().to_owned(),
        size: req.size,
        container,
    }
}

/// This process's pid namespace, read once.
fn own_pidns() -> &'static str {
    static NS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NS.get_or_init(docker::sweep::own_pid_namespace)
}

/// 12 random hex digits: two tasks of one agent never share a name.
fn container_suffix() -> String {
    let mut id = termic_runtime::env::new_task_id().unwrap_or_else(|_| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        format!("{:012x}", nanos ^ u128::from(std::process::id()))
    });
    id.truncate(12);
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{DockerOptions, Origin};

    fn req<'a>(extra: &'a [String]) -> LaunchRequest<'a> {
        LaunchRequest {
            name: "t1",
            cwd: PathBuf::from("/w"),
            size: TermSize { rows: 24, cols: 80 },
            data_dir: Path::new("/d"),
            extra_args: extra,
        }
    }

    #[test]
    fn a_clone_runs_its_command_with_its_env_and_its_bases_profile() {
        let agent = AgentDef {
            id: "claude-work".into(),
            env: vec![("A".into(), "1".into())],
            args: vec!["--x".into()],
            origin: Origin::Config,
            ..AgentDef::builtin("claude").unwrap()
        };
        let extra = ["-p".to_owned()];
        let spec = task_spec(&agent, &req(&extra));
        assert_eq!(
            spec.argv,
            ["claude", "--x", "-p"].map(std::ffi::OsString::from)
        );
        assert_eq!(spec.agent, "claude-work");
        assert_eq!(spec.profile, "claude");
        assert_eq!(spec.env, [("A".into(), "1".into())]);
    }

    #[test]
    fn a_docker_agent_runs_docker_and_passes_env_as_flags() {
        let agent = AgentDef {
            id: "box".into(),
            env: vec![("A".into(), "1".into())],
            docker: Some(DockerOptions {
                image: "img".into(),
                ..Default::default()
            }),
            origin: Origin::Config,
            ..AgentDef::builtin("codex").unwrap()
        };
        let spec = task_spec(&agent, &req(&[]));
        assert_eq!(spec.argv[0], "docker");
        assert!(spec.argv.iter().any(|a| a == "A=1"));
        assert!(spec.env.is_empty());
        assert_eq!(spec.profile, "codex");
        // The container is named after the agent, uniquely per task, and
        // the argv runs it under that name.
        let name = spec.container.as_ref().unwrap().name.clone();
        assert!(name.starts_with("termic-box-") && name.len() == "termic-box-".len() + 12);
        assert!(spec.argv.iter().any(|a| *a == *name));
        let again = task_spec(&agent, &req(&[]));
        assert_ne!(again.container.unwrap().name, name);
        let host = task_spec(&AgentDef::builtin("codex").unwrap(), &req(&[]));
        assert_eq!(host.container, None);
    }
}
