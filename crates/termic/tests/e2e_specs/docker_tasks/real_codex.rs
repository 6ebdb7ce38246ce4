//! Real Codex 0.171.0 in a container: no hooks at all, its native status
//! (OSC 7501, emitted without a probe) crosses the docker client's relay to
//! termic's PTY. A Write-style approval turn goes working, needs you
//! (`native_blocked`, no done before it) and one done; its config
//! (`config.toml`, the fake provider, the project trusted) sits in the
//! termic-owned dir mounted at `/root/.codex`; after quit no container is
//! left, so none of the app-server daemons Codex starts survives either
//! (on the host they outlive `/quit`: docs/gotchas.md).
//!
//! Needs TERMIC_REAL_AGENTS. Codex's npm install and node are bind-mounted
//! read-only; the image needs `ps` for Codex's app-server bookkeeping
//! (without it Codex exits at start: "failed to invoke ps").

use std::path::{Path, PathBuf};

use termic_fakemodel::agents::Agent;
use termic_fakemodel::drive::serve_scenario;
use termic_fakemodel::ScenarioName;

use super::real_claude::{Running, Side};
use crate::docker_support::{containers_of, image, toml_str, wait_containers, CONFIG_HEAD};
use crate::real_agents_support::{assert_honest_turn, begin, permission_turn, Driven};
use crate::support::{Fixture, SEC};

/// The npm install Codex runs from: its Node launcher finds the native
/// binary and its package root there (the bare binary refuses to start
/// without them: "this CLI has no complete local package").
fn node_modules(cache: &Path) -> PathBuf {
    let dir = cache.join("npm/node_modules");
    assert!(
        dir.join("@openai/codex/bin/codex.js").is_file(),
        "no Codex in {}: run .ci/real-agents-install",
        dir.display()
    );
    dir
}

fn codex_side(cache: &Path, image: &str) -> Side {
    let fx = Fixture::new();
    let server = serve_scenario(fx.root.path(), &fx.project(), ScenarioName::Write, None).unwrap();
    let env = Agent::Codex
        .prepare(cache, &fx.home(), &fx.project(), &server.base_url())
        .unwrap();
    let dir = fx.data_dir().join("docker-agents/codex-box");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fx.home().join(".codex/config.toml"),
        dir.join("config.toml"),
    )
    .unwrap();
    let pairs: Vec<String> = env
        .iter()
        .map(|(k, v)| format!("{k} = {}", toml_str(v)))
        .collect();
    // The install at its own path (the launcher resolves real paths), and
    // node, which the test image has the libraries for.
    let modules = node_modules(cache);
    let node = which_node();
    let docker_args = [
        "--network".to_owned(),
        "host".to_owned(),
        "--mount".to_owned(),
        format!("type=bind,src={0},dst={0},readonly", modules.display()),
        "--mount".to_owned(),
        format!(
            "type=bind,src={},dst=/usr/bin/node,readonly",
            node.display()
        ),
    ];
    let launcher = modules.join("@openai/codex/bin/codex.js");
    let quoted: Vec<String> = docker_args.iter().map(|a| toml_str(a)).collect();
    let config = format!(
        "{CONFIG_HEAD}[agents.codex-box]\nbase = \"codex\"\ndocker = true\nimage = {}\n\
         command = [\"/usr/bin/node\", {}]\nenv = {{ {} }}\ndocker_args = [{}]\n",
        toml_str(image),
        toml_str(&launcher.display().to_string()),
        pairs.join(", "),
        quoted.join(", ")
    );
    std::fs::write(fx.config_dir().join("config.toml"), config).unwrap();
    Side {
        place: "codex container",
        log: fx.log_path(),
        fx,
        agent_id: "codex-box",
        ready: "OpenAI Codex",
        _server: server,
    }
}

#[test]
#[ignore = "needs a Docker engine and TERMIC_REAL_AGENTS: run by .ci/run's Docker step"]
fn real_codex_in_a_container_reports_natively_working_needs_you_done() {
    let Some(image) = image() else { return };
    let (cache, _one) = begin();
    let side = codex_side(&cache, &image);
    let running = Running::start(&side);
    let (t0, states) = permission_turn(&running, b"y");
    assert_honest_turn(&states);
    running.assert_needs_you_from(t0, "native_blocked", Some("permission"));
    let done = running.first("done", t0);
    assert_eq!(done.rule, "native_done", "{states:?}");
    // The server the workspace started owns the container.
    let pid = super::lifecycle::server_pid(&side.fx);
    assert!(running.termic().quit(), "termic quits");
    wait_containers(pid, "after quit", 20 * SEC, <[String]>::is_empty);
    assert!(containers_of(pid).is_empty());
}

fn which_node() -> PathBuf {
    let path = std::env::var_os("PATH").expect("PATH");
    std::env::split_paths(&path)
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
        .expect("node on PATH (.ci/run requires it)")
}
