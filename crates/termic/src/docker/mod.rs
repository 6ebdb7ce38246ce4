//! Docker tasks: the `docker run` command line for an agent configured with
//! `docker = true`, the container's identity, and (in [`engine`]) the calls
//! to the engine around it: the pre-flight check and stopping a container.
//!
//! The task runs like any other, in a PTY; its program is the docker client.
//! The container gets:
//! - the termic-owned `<data_dir>/docker-agents/<agent_id>/` mounted at the
//!   agent's config dir (`/root/.claude` for claude and its clones: the dir
//!   is keyed on the agent's OWN id, the mount point on its base), so its
//!   hooks run there with container paths;
//! - the task's PTY slave mounted at [`CONTAINER_PTY`], and `TERMIC_PTY`
//!   naming it: the hooks that write to the terminal by name (grok, agy,
//!   opencode) reach termic's PTY from inside (measured: the bytes arrive on
//!   termic's master). The slave is known only once the PTY is open, so the
//!   runtime adds that mount ([`ContainerTask::argv_with_pty`]);
//! - the work dir at the same path, and the env contract: `TERMIC_TASK_ID`,
//!   `TERM`, `COLORTERM`, `TERM_PROGRAM` copied from the docker client's env
//!   (which the runtime set, multiplexer variables already removed);
//! - `--init`, so the agent is not PID 1: a hang-up the docker client
//!   forwards (termic closed, or killed) ends it, where PID 1 would ignore
//!   it; `--rm`, a name and owner labels (pid, pid namespace), so termic can
//!   stop it on close and a later termic can remove it once its owner is
//!   gone ([`sweep`]);
//! - for claude, `CLAUDE_CONFIG_DIR` at the mount ([`config_dir_env`]), so
//!   `.claude.json` persists in the termic-owned dir.

pub mod engine;
pub mod problem;
pub mod sweep;

use std::path::{Path, PathBuf};

use crate::agents::AgentDef;
pub use termic_runtime::container::{ContainerTask, CONTAINER_PTY};

/// Variables copied into the container from the docker client's env.
pub const PASSED_ENV: [&str; 4] = ["TERMIC_TASK_ID", "TERM", "COLORTERM", "TERM_PROGRAM"];

/// The label holding the pid of the termic that started a container.
pub const OWNER_LABEL: &str = "io.termic.owner-pid";

/// The label holding the pid namespace that owner pid belongs to
/// (`pid:[N]`): a pid is only judged alive or gone in its own namespace
/// (see [`sweep`]).
pub const OWNER_PIDNS_LABEL: &str = "io.termic.owner-pidns";

/// The host dir termic owns for a Docker agent's config.
pub fn agent_config_dir(data_dir: &Path, agent_id: &str) -> PathBuf {
    data_dir.join("docker-agents").join(agent_id)
}

/// Where the agent's base keeps its config inside the container.
/// From the base's adapter, which knows it even when it installs no hooks.
pub fn container_config_dir(base: &str) -> Option<String> {
    termic_hooks::agents::adapter(base)
        .map(|a| a.container_config_dir())
        .filter(|dir| !dir.is_empty())
}

/// The variable (from the base's built-in definition) that tells the agent
/// its config dir is the mounted one, with that dir: for an agent that keeps
/// state outside its config dir by default, which a `--rm` container would
/// lose at every start (Claude's `.claude.json`: the onboarding and the
/// trust dialog came back each time). A user's own `env` entry for it comes
/// later and wins.
pub fn config_dir_env(base: &str) -> Option<(&'static str, String)> {
    let var = crate::agents::BUILTINS
        .iter()
        .find(|b| b.id == base)?
        .config_dir_var?;
    Some((var, container_config_dir(base)?))
}

/// Who is asking: the container's name and the owner label's value.
#[derive(Debug, Clone, Copy)]
pub struct RunIdentity<'a> {
    pub container: &'a ContainerTask,
    pub owner_pid: u32,
    /// [`sweep::own_pid_namespace`]; no label when empty.
    pub owner_pidns: &'a str,
}

/// The full argv (without the PTY mount, which the runtime adds), or
/// `None` when the agent is not a Docker agent.
pub fn docker_argv(
    agent: &AgentDef,
    data_dir: &Path,
    work_dir: &Path,
    extra_args: &[String],
    who: RunIdentity<'_>,
) -> Option<Vec<String>> {
    let docker = agent.docker.as_ref()?;
    let mut argv: Vec<String> = ["docker", "run", "-it", "--rm", "--init"]
        .map(String::from)
        .to_vec();
    argv.extend([
        "--name".into(),
        who.container.name.clone(),
        "--label".into(),
        format!("{OWNER_LABEL}={}", who.owner_pid),
    ]);
    if !who.owner_pidns.is_empty() {
        argv.extend([
            "--label".into(),
            format!("{OWNER_PIDNS_LABEL}={}", who.owner_pidns),
        ]);
    }
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
    argv.extend(["-e".into(), format!("TERMIC_PTY={CONTAINER_PTY}")]);
    if let Some((name, dir)) = config_dir_env(&agent.base) {
        argv.extend(["-e".into(), format!("{name}={dir}")]);
    }
    for (name, value) in &agent.env {
        argv.extend(["-e".into(), format!("{name}={value}")]);
    }
    argv.extend(docker.args.iter().cloned());
    argv.push(docker.image.clone());
    argv.extend(agent.command_line(extra_args));
    Some(argv)
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
    use std::ffi::OsString;

    use super::*;
    use crate::agents::{DockerOptions, Origin};

    fn docker_agent(id: &str, base: &str) -> AgentDef {
        AgentDef {
            id: id.into(),
            docker: Some(DockerOptions {
                image: "ghcr.io/me/agent:1".into(),
                args: vec!["--network".into(), "none".into()],
            }),
            env: vec![("FOO".into(), "bar baz".into())],
            args: vec!["--verbose".into()],
            origin: Origin::Config,
            ..AgentDef::builtin(base).unwrap()
        }
    }

    fn argv_of(agent: &AgentDef, extra: &[String]) -> Vec<String> {
        let container = ContainerTask::new(&agent.id, "0a1b");
        let who = RunIdentity {
            container: &container,
            owner_pid: 4242,
            owner_pidns: "pid:[4026531836]",
        };
        docker_argv(agent, Path::new("/d"), Path::new("/w"), extra, who).unwrap()
    }

    #[test]
    fn argv_mounts_the_agents_own_dir_at_its_bases_config_dir() {
        let agent = docker_agent("claude-box", "claude");
        let container = ContainerTask::new("claude-box", "0a1b");
        let who = RunIdentity {
            container: &container,
            owner_pid: 4242,
            owner_pidns: "pid:[4026531836]",
        };
        let argv = docker_argv(
            &agent,
            Path::new("/data/termic"),
            Path::new("/work/proj"),
            &["-p".into()],
            who,
        )
        .unwrap();
        assert_eq!(
            argv,
            [
                "docker",
                "run",
                "-it",
                "--rm",
                "--init",
                "--name",
                "termic-claude-box-0a1b",
                "--label",
                "io.termic.owner-pid=4242",
                "--label",
                "io.termic.owner-pidns=pid:[4026531836]",
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
                "TERMIC_PTY=/termic/pty",
                "-e",
                "CLAUDE_CONFIG_DIR=/root/.claude",
                "-e",
                "FOO=bar baz",
                "--network",
                "none",
                "ghcr.io/me/agent:1",
                "claude",
                "--verbose",
                "-p",
            ]
        );
    }

    #[test]
    fn termic_pty_inside_names_the_mounted_slave_for_every_base() {
        for base in ["claude", "codex", "grok", "agy", "opencode"] {
            let argv = argv_of(&docker_agent("x", base), &[]);
            let pty: Vec<&String> = argv.iter().filter(|a| a.contains("TERMIC_PTY")).collect();
            assert_eq!(pty, ["TERMIC_PTY=/termic/pty"], "{argv:?}");
            assert!(argv.iter().any(|a| a == "TERMIC_TASK_ID"));
            // No multiplexer variable is ever passed in.
            assert!(!argv.iter().any(|a| a.contains("TMUX") || a.contains("STY")));
        }
    }

    #[test]
    fn only_claude_is_told_its_config_dir_and_the_users_env_comes_after() {
        for base in ["codex", "grok", "agy", "opencode"] {
            let argv = argv_of(&docker_agent("x", base), &[]);
            assert!(
                !argv.iter().any(|a| a.contains("CONFIG_DIR")),
                "{base}: {argv:?}"
            );
        }
        let mut agent = docker_agent("x", "claude");
        agent.env = vec![("CLAUDE_CONFIG_DIR".into(), "/elsewhere".into())];
        let argv = argv_of(&agent, &[]);
        let set: Vec<usize> = argv
            .iter()
            .enumerate()
            .filter(|(_, a)| a.starts_with("CLAUDE_CONFIG_DIR="))
            .map(|(i, _)| i)
            .collect();
        // docker applies `-e` in order: the user's value is the last word.
        assert_eq!(set.len(), 2, "{argv:?}");
        assert_eq!(argv[set[0]], "CLAUDE_CONFIG_DIR=/root/.claude");
        assert_eq!(argv[set[1]], "CLAUDE_CONFIG_DIR=/elsewhere");
    }

    #[test]
    fn the_runtime_adds_the_pty_slave_mount_after_run() {
        let argv: Vec<OsString> = argv_of(&docker_agent("a", "grok"), &[])
            .into_iter()
            .map(Into::into)
            .collect();
        let container = ContainerTask::new("a", "0a1b");
        let with = container.argv_with_pty(&argv, Path::new("/dev/pts/7"));
        assert_eq!(with.len(), argv.len() + 2);
        assert_eq!(with[..2], argv[..2]);
        assert_eq!(with[2], "--mount");
        assert_eq!(with[3], "type=bind,src=/dev/pts/7,dst=/termic/pty");
        assert_eq!(with[4..], argv[2..]);
    }

    #[test]
    fn each_base_mounts_at_its_own_container_dir() {
        let mount = |base: &str| {
            let argv = argv_of(&docker_agent("a", base), &[]);
            let at = argv.iter().position(|a| a == "-v").unwrap();
            argv[at + 1].clone()
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
        let container = ContainerTask::new("claude", "x");
        let who = RunIdentity {
            container: &container,
            owner_pid: 1,
            owner_pidns: "",
        };
        assert_eq!(
            docker_argv(&agent, Path::new("/d"), Path::new("/w"), &[], who),
            None
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
