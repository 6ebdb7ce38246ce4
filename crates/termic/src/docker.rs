//! The `docker run` command line for an agent configured with `docker = true`.
//!
//! termic only BUILDS this argv; it runs like any other task command, in a
//! PTY. There is no Docker engine on the machine this was developed on, so
//! the argv is unit-tested and never run here (docs/gotchas.md says so).
//!
//! The container gets: the termic-owned `<data_dir>/docker-agents/<agent_id>/`
//! mounted at the agent's config dir inside the container (`/root/.claude`
//! for claude and its clones: the dir is keyed on the agent's OWN id, the
//! mount point on its base), the work dir mounted at the same path, and the
//! terminal env. `TERMIC_TASK_ID` is passed by name (`-e NAME` copies the
//! docker client's value, which the runtime set). `TERMIC_PTY` is NOT passed:
//! the container has its own PTY, and a host device path means nothing there.

use std::path::{Path, PathBuf};

use termic_hooks::agents::AgentSchema;

use crate::agents::AgentDef;

/// Variables copied into the container from the docker client's env.
pub const PASSED_ENV: [&str; 4] = ["TERMIC_TASK_ID", "TERM", "COLORTERM", "TERM_PROGRAM"];

/// The host dir termic owns for a Docker agent's config.
pub fn agent_config_dir(data_dir: &Path, agent_id: &str) -> PathBuf {
    data_dir.join("docker-agents").join(agent_id)
}

/// Where the agent's base keeps its config inside the container.
pub fn container_config_dir(base: &str) -> Option<&'static str> {
    match AgentSchema::from_id(base) {
        Some(schema) => Some(schema.container_config_dir()),
        // Codex has no hooks schema but still has a config dir.
        None if base == "codex" => Some("/root/.codex"),
        None => None,
    }
}

/// The full argv, or `None` when the agent is not a Docker agent.
pub fn docker_argv(
    agent: &AgentDef,
    data_dir: &Path,
    work_dir: &Path,
    extra_args: &[String],
) -> Option<Vec<String>> {
    let docker = agent.docker.as_ref()?;
    let mut argv: Vec<String> = ["docker", "run", "-it", "--rm"].map(String::from).to_vec();
    if let Some(inside) = container_config_dir(&agent.base) {
        let host = agent_config_dir(data_dir, &agent.id);
        argv.push("-v".into());
        argv.push(format!("{}:{inside}", host.display()));
    }
    let work = work_dir.display().to_string();
    argv.extend(["-v".into(), format!("{work}:{work}"), "-w".into(), work]);
    for name in PASSED_ENV {
        argv.extend(["-e".into(), name.to_owned()]);
    }
    for (name, value) in &agent.env {
        argv.extend(["-e".into(), format!("{name}={value}")]);
    }
    argv.push(docker.image.clone());
    argv.extend(agent.command_line(extra_args));
    Some(argv)
}

/// The argv a task for `agent` runs: the Docker wrapping for a Docker
/// agent, else the agent's own command line.
pub fn launch_argv(
    agent: &AgentDef,
    data_dir: &Path,
    work_dir: &Path,
    extra_args: &[String],
) -> Vec<String> {
    docker_argv(agent, data_dir, work_dir, extra_args)
        .unwrap_or_else(|| agent.command_line(extra_args))
}

/// Create the host config dir before the first run: Docker would create a
/// missing mount source itself, owned by root.
pub fn prepare_host_dir(agent: &AgentDef, data_dir: &Path) -> std::io::Result<()> {
    if agent.docker.is_some() {
        std::fs::create_dir_all(agent_config_dir(data_dir, &agent.id))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{DockerOptions, Origin};

    fn docker_agent(id: &str, base: &str) -> AgentDef {
        AgentDef {
            id: id.into(),
            docker: Some(DockerOptions {
                image: "ghcr.io/me/agent:1".into(),
            }),
            env: vec![("FOO".into(), "bar baz".into())],
            args: vec!["--verbose".into()],
            origin: Origin::Config,
            ..AgentDef::builtin(base).unwrap()
        }
    }

    #[test]
    fn argv_mounts_the_agents_own_dir_at_its_bases_config_dir() {
        let agent = docker_agent("claude-box", "claude");
        let argv = docker_argv(
            &agent,
            Path::new("/data/termic"),
            Path::new("/work/proj"),
            &["-p".into()],
        )
        .unwrap();
        assert_eq!(
            argv,
            [
                "docker",
                "run",
                "-it",
                "--rm",
                "-v",
                "/data/termic/docker-agents/claude-box:/root/.claude",
                "-v",
                "/work/proj:/work/proj",
                "-w",
                "/work/proj",
                "-e",
                "TERMIC_TASK_ID",
                "-e",
                "TERM",
                "-e",
                "COLORTERM",
                "-e",
                "TERM_PROGRAM",
                "-e",
                "FOO=bar baz",
                "ghcr.io/me/agent:1",
                "claude",
                "--verbose",
                "-p",
            ]
        );
    }

    #[test]
    fn termic_pty_never_enters_the_container() {
        for base in ["claude", "codex", "grok", "agy", "opencode"] {
            let argv = docker_argv(
                &docker_agent("x", base),
                Path::new("/d"),
                Path::new("/w"),
                &[],
            )
            .unwrap();
            assert!(!argv.iter().any(|a| a.contains("TERMIC_PTY")), "{argv:?}");
            assert!(argv.iter().any(|a| a == "TERMIC_TASK_ID"));
        }
    }

    #[test]
    fn each_base_mounts_at_its_own_container_dir() {
        let mount = |base: &str| {
            let argv = docker_argv(
                &docker_agent("a", base),
                Path::new("/d"),
                Path::new("/w"),
                &[],
            )
            .unwrap();
            argv[5].clone()
        };
        assert_eq!(mount("grok"), "/d/docker-agents/a:/root/.grok");
        assert_eq!(mount("agy"), "/d/docker-agents/a:/root/.gemini");
        assert_eq!(
            mount("opencode"),
            "/d/docker-agents/a:/root/.config/opencode"
        );
        assert_eq!(mount("codex"), "/d/docker-agents/a:/root/.codex");
    }

    #[test]
    fn host_agents_get_no_docker_argv() {
        let agent = AgentDef::builtin("claude").unwrap();
        assert_eq!(
            docker_argv(&agent, Path::new("/d"), Path::new("/w"), &[]),
            None
        );
        assert_eq!(
            launch_argv(&agent, Path::new("/d"), Path::new("/w"), &["-c".into()]),
            ["claude", "-c"]
        );
    }

    #[test]
    fn the_host_dir_is_created_only_for_docker_agents() {
        let data = tempfile::tempdir().unwrap();
        prepare_host_dir(&AgentDef::builtin("claude").unwrap(), data.path()).unwrap();
        assert!(!data.path().join("docker-agents").exists());
        prepare_host_dir(&docker_agent("box", "claude"), data.path()).unwrap();
        assert!(data.path().join("docker-agents/box").is_dir());
    }
}
