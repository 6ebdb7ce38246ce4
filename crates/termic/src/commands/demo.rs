//! `termic demo`: the workspace with simulated agents, for a machine with no
//! agents installed. Everything happens in a throwaway directory: its own
//! HOME (where termic's hooks are installed for the simulated agents, through
//! termic-hooks as the Settings toggle would), termic config and data dirs,
//! and a small project. The user's real HOME is never read or written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::{AgentVersions, InstallFacts};
use termic_hooks::target::{ForbiddenRoots, InstallTarget, Paths};

use super::workspace::{open_with, InitialTask, WorkspaceArgs};
use crate::agents::BUILTINS;
use crate::printed::errln;

/// Try termic with simulated agents, without touching your real HOME.
///
/// Makes a throwaway directory, installs termic's hooks there for every
/// simulated built-in with a hooks adapter (codex needs none), and opens the
/// workspace with one task per agent looping a demo: a plain turn, then one
/// that asks your permission, so its badge turns to "needs you". Focus the
/// task and press 1 (or y, or Enter) to approve, or wait 20 s. Ctrl-] i
/// opens the Inspector, Ctrl-] s Settings, Ctrl-] q quits. The directory is
/// deleted when you quit.
///
/// Examples:
///   termic demo
///   termic demo --speed 2 --keep
///
/// Exit codes: 0 the demo was closed, 1 error (the throwaway directory
/// could not be made, no terminal), 2 usage.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DemoArgs {
    /// Run the simulated agents this many times faster.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Keep the throwaway directory when you quit (its path is printed).
    #[arg(long)]
    pub keep: bool,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    /// Internal: run as the agent simulator (`termic-sim` arguments after
    /// `--`). The demo's tasks are this binary in that mode.
    #[arg(long, hide = true)]
    pub simulate: bool,
    #[arg(last = true, hide = true)]
    pub sim_args: Vec<String>,
}

/// The simulated agents (every built-in: the ones with hooks first), each
/// with the hooks schema termic installs for it.
fn agents() -> Vec<(&'static str, Option<AgentSchema>)> {
    let all = BUILTINS.iter().map(|b| (b.id, AgentSchema::from_id(b.id)));
    let (mut hooked, plain): (Vec<_>, Vec<_>) = all.partition(|(_, s)| s.is_some());
    hooked.extend(plain);
    hooked
}

/// The demo's agents are this binary in `--simulate` mode, so a plain
/// `cargo run -p termic -- demo` needs nothing else built.
fn self_exe() -> Result<PathBuf> {
    std::env::current_exe().context("cannot find the termic binary to run the simulated agents")
}

/// The throwaway directory's layout.
struct DemoDirs {
    root: PathBuf,
    home: PathBuf,
    config: PathBuf,
    data: PathBuf,
    project: PathBuf,
}

impl DemoDirs {
    fn create() -> Result<DemoDirs> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let root =
            std::env::temp_dir().join(format!("termic-demo-{}-{nanos:x}", std::process::id()));
        let dirs = DemoDirs {
            home: root.join("home"),
            config: root.join("config"),
            data: root.join("data"),
            project: root.join("project"),
            root,
        };
        for d in [&dirs.home, &dirs.config, &dirs.data, &dirs.project] {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        std::fs::write(
            dirs.project.join("README.md"),
            "# demo project\n\nA throwaway project for `termic demo`.\n",
        )?;
        Ok(dirs)
    }
}

/// Install termic's hooks into the throwaway HOME, as the Settings toggle
/// would into a real one.
fn install_hooks(dirs: &DemoDirs) -> Result<()> {
    let paths = Paths {
        home: dirs.home.clone(),
        data_dir: dirs.data.clone(),
    };
    let facts = InstallFacts {
        now_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        versions: AgentVersions::NONE,
    };
    for schema in agents().into_iter().filter_map(|(_, s)| s) {
        let target = InstallTarget::host(schema, &paths, &ForbiddenRoots::default())?;
        apply::install(&target, &facts)
            .with_context(|| format!("cannot install the demo hooks for {}", schema.id()))?;
    }
    Ok(())
}

fn toml_string(s: &str) -> String {
    toml_edit::Value::from(s).to_string()
}

/// config.toml: the wizard skipped, hooks consented for the simulated
/// agents, and each built-in agent's command running this binary as the
/// simulator.
fn config_text(exe: &Path, dirs: &DemoDirs, speed: f64) -> String {
    let banner = format!(
        "termic demo: a simulated agent. HOME is {} (throwaway); your real HOME is not read or changed. Ctrl-] i: Inspector.",
        dirs.home.display()
    );
    let mut text = String::from("[ui]\nwizard_shown = true\n\n[hooks]\n");
    for (agent, schema) in agents() {
        if schema.is_some() {
            text.push_str(&format!("{agent} = true\n"));
        }
    }
    for (agent, _) in agents() {
        let argv = [
            exe.display().to_string(),
            "demo".into(),
            "--simulate".into(),
            "--".into(),
            agent.to_string(),
            "demo".into(),
            "--auto".into(),
            "--auto-approve-ms".into(),
            "20000".into(),
            "--speed".into(),
            speed.to_string(),
            "--banner".into(),
            banner.clone(),
        ];
        let items: Vec<String> = argv.iter().map(|a| toml_string(a)).collect();
        text.push_str(&format!(
            "\n[agents.{agent}]\ncommand = [{}]\n",
            items.join(", ")
        ));
    }
    text
}

pub fn run(ws: WorkspaceArgs, args: DemoArgs) -> Result<ExitCode> {
    if args.simulate {
        let argv = std::iter::once("termic-sim".to_string()).chain(args.sim_args);
        return Ok(termic_sim::cli::run(argv));
    }
    let exe = self_exe()?;
    let dirs = DemoDirs::create()?;
    let result = demo(ws, &args, &exe, &dirs);
    if args.keep {
        errln!("termic demo: kept {}", dirs.root.display());
    } else {
        let _ = std::fs::remove_dir_all(&dirs.root);
    }
    errln!("termic demo: your real HOME was not read or changed.");
    result
}

fn demo(mut ws: WorkspaceArgs, args: &DemoArgs, exe: &Path, dirs: &DemoDirs) -> Result<ExitCode> {
    // Paths given on the command line keep meaning what they meant here.
    ws.event_log = ws.event_log.map(std::path::absolute).transpose()?;
    ws.record = ws.record.map(std::path::absolute).transpose()?;
    install_hooks(dirs)?;
    let config = dirs.config.join("config.toml");
    std::fs::write(&config, config_text(exe, dirs, args.speed))
        .with_context(|| format!("cannot write {}", config.display()))?;
    // termic and every task it starts see only the throwaway dirs. Set
    // before any thread exists.
    std::env::set_var("HOME", &dirs.home);
    std::env::set_var("TERMIC_CONFIG_DIR", &dirs.config);
    std::env::set_var("TERMIC_DATA_DIR", &dirs.data);
    std::env::set_current_dir(&dirs.project)?;
    let tasks = agents()
        .iter()
        .map(|(agent, _)| InitialTask {
            program: crate::app::services::Program::Agent(agent.to_string()),
            name: Some(format!("{agent}-demo")),
            worktree: false,
            args: Vec::new(),
        })
        .collect();
    open_with(ws, tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_points_every_agent_at_the_simulator_and_parses() {
        let dirs = DemoDirs {
            root: "/t".into(),
            home: "/t/home".into(),
            config: "/t/config".into(),
            data: "/t/data".into(),
            project: "/t/project".into(),
        };
        let text = config_text(Path::new("/bin dir/termic"), &dirs, 2.0);
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        for (agent, schema) in agents() {
            let cmd = doc["agents"][agent]["command"].as_array().unwrap();
            assert_eq!(cmd.get(0).unwrap().as_str(), Some("/bin dir/termic"));
            let rest: Vec<_> = cmd
                .iter()
                .skip(1)
                .take(4)
                .filter_map(|v| v.as_str())
                .collect();
            assert_eq!(rest, ["demo", "--simulate", "--", agent]);
            assert_eq!(
                doc["hooks"].get(agent).and_then(|v| v.as_bool()),
                schema.map(|_| true)
            );
        }
        assert!(text.contains("your real HOME is not read or changed"));
    }

    #[test]
    fn every_builtin_is_a_demo_task_the_ones_with_hooks_first() {
        let order: Vec<_> = agents()
            .iter()
            .map(|(a, s)| (*a, s.map(|s| s.id())))
            .collect();
        assert_eq!(
            order,
            [
                ("claude", Some("claude")),
                ("grok", Some("grok")),
                ("agy", Some("agy")),
                ("opencode", Some("opencode")),
                ("gemini", Some("gemini")),
                ("copilot", Some("copilot")),
                ("qwen", Some("qwen")),
                ("codex", None),
            ]
        );
    }
}
