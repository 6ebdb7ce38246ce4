//! Docker tasks for real: a Docker engine, an image built offline from this
//! machine's files (`.ci/docker-test-image`), and Docker agents from
//! config.toml running the agent simulator (mounted read-only) in their
//! containers, with termic's hooks installed in the agents' termic-owned
//! Docker dirs, judged by the event log and the screen of the real binary.
//!
//! Ignored in the normal suite (they need an engine): `.ci/run`'s Docker step
//! installs and starts one and runs them with `--ignored`. Where the kernel
//! refuses to run any container, each test prints why and returns.

#[path = "docker_tasks/agents.rs"]
mod agents;

#[path = "docker_tasks/lifecycle.rs"]
mod lifecycle;

#[path = "docker_tasks/latency.rs"]
mod latency;

#[path = "docker_tasks/real_claude.rs"]
mod real_claude;

#[path = "docker_tasks/non_root.rs"]
mod non_root;

#[path = "docker_tasks/real_codex.rs"]
mod real_codex;
