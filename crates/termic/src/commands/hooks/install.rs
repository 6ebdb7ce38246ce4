//! `termic hooks install <agent>...`

use anyhow::Result;
use clap::Args;
use termic_hooks::agents::{self, AgentSchema};
use termic_hooks::apply;
use termic_hooks::plan::{self, InstallFacts, InstallPlan};
use termic_hooks::status::target_status;
use termic_hooks::target::InstallTarget;

use super::context::Context;
use super::AgentsArgs;
use super::{EXIT_OK, EXIT_REFUSED, EXIT_USAGE};
use crate::printed::{errln, outln};

/// The files each agent's install writes, from the hooks registry.
fn files_help() -> String {
    let mut text = String::from("Files written, per agent:\n");
    for id in termic_hooks::agents::installable_ids() {
        if let Some(adapter) = termic_hooks::agents::adapter(id) {
            let files = termic_hooks::agents::files_in_words(adapter);
            text.push_str(&format!("  {id:<9} {files}\n"));
        }
    }
    text
}

/// Install termic's lifecycle hooks for one or more agents.
///
/// Writes only global, per-user files (never a project's); each agent's are
/// listed below. Agents that run in Docker (config.toml) get the same files in
/// <data dir>/docker-agents/<agent>/. Your other settings keep their exact bytes,
/// and `termic hooks remove` gives them back.
///
/// The exact files are listed before anything is written, with the change
/// to each as a diff (a new file: its first lines), then termic asks to go
/// ahead; --dry-run shows the same and writes nothing. When stdin is not
/// a terminal (a script, a pipe) nobody can answer, so termic writes
/// nothing unless you pass --yes.
///
/// --detected installs every agent found on PATH that termic can wire
/// (a Docker agent counts when docker is on PATH): one plan for all of
/// them, one question.
///
/// Examples:
///   termic hooks install claude
///   termic hooks install claude opencode --dry-run
///   termic hooks install --detected
///   termic hooks install grok --yes          in a script: no question
///
/// Exit codes: 0 installed (or nothing to do), 1 error or cancelled,
/// 2 unknown agent, nothing to install for it, or --yes missing when
/// stdin is not a terminal, 3 refused (a malformed, empty or
/// read-only config, disableAllHooks, Claude Code older than 2.1.141,
/// a target inside a project, a config dir or termic's config.toml that
/// another user owns or can write); nothing is written for a refused agent.
/// With several agents, each is installed or refused on its own and the
/// code is that of the first failure.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = files_help(),
    group(clap::ArgGroup::new("which").required(true).args(["agents", "detected"]))
)]
pub struct InstallArgs {
    #[command(flatten)]
    pub common: AgentsArgs,
    /// Every agent on PATH that termic can wire, instead of naming them.
    #[arg(long, conflicts_with = "agents")]
    pub detected: bool,
    /// Write without asking (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(ctx: &Context, args: &InstallArgs) -> Result<u8> {
    if let Some(w) = &ctx.warning {
        errln!("termic: warning: {w}");
    }
    let schemas = if args.detected {
        let (schemas, others) = ctx.detected();
        if !others.is_empty() {
            outln!("Also found, nothing to install: {}.", others.join(", "))?;
        }
        if schemas.is_empty() {
            outln!(
                "No agent termic can wire is on PATH (termic installs hooks for {}).",
                agents::installable_ids().join(", ")
            )?;
            return Ok(EXIT_OK);
        }
        let ids: Vec<&str> = schemas.iter().map(|s| s.id()).collect();
        outln!("Found on PATH: {}.", ids.join(", "))?;
        schemas
    } else {
        match ctx.schemas(&args.common.agents) {
            Ok(s) => s,
            Err(msg) => {
                errln!("termic: {msg}");
                return Ok(EXIT_USAGE);
            }
        }
    };
    // The toggle goes into config.toml after the hooks: a config.toml that
    // is not ours to write refuses the install before anything is written.
    if let Err(msg) = ctx.config_writable() {
        crate::printed::errln!("termic: nothing was installed: {msg}");
        return Ok(EXIT_REFUSED);
    }
    let facts = ctx.facts(&schemas);
    let mut refused = false;
    let mut planned: Vec<(InstallTarget, InstallPlan)> = Vec::new();
    for schema in schemas {
        match plan_agent(ctx, schema, &facts) {
            Ok(plans) => planned.extend(plans),
            Err(msg) => {
                errln!("termic: {}: not installed: {msg}", schema.id());
                refused = true;
            }
        }
    }
    let refused_code = if refused { EXIT_REFUSED } else { EXIT_OK };
    if planned.iter().all(|(_, p)| p.is_empty()) {
        if !planned.is_empty() {
            outln!("Nothing to do: the hooks are already installed.")?;
        }
        return Ok(refused_code);
    }
    outln!("termic will write these files:")?;
    for (t, p) in &planned {
        if !p.is_empty() {
            outln!("{} ({}):\n{}", t.agent_id(), t.label(), p.describe())?;
        }
    }
    super::show_diffs(planned.iter().map(|(_, p)| p))?;
    if args.common.dry_run {
        outln!("Dry run: nothing was written.")?;
        return Ok(refused_code);
    }
    if let Some(code) = super::consent(args.yes, "Write these files?", "write these files")? {
        return Ok(code);
    }
    // One target's failure does not stop the others: each is applied (or
    // not) on its own, and the toggle is recorded for every agent that now
    // has hooks on disk, so it matches what status reports.
    let mut code = refused_code;
    let mut installed: Vec<AgentSchema> = Vec::new();
    for (t, p) in planned {
        let agent = format!("{} ({})", t.agent_id(), t.label());
        match apply::apply(&t, p, |t, s| plan::plan_install(t, s, &facts)) {
            Ok(_) => {
                if !installed.contains(&t.schema()) {
                    installed.push(t.schema());
                }
                let state = apply::read_snapshot(&t)
                    .map(|s| target_status(&t, &s, &facts).state.summary())
                    .unwrap_or_else(|e| e.to_string());
                outln!("{agent}: {state}")?;
            }
            Err(e) => {
                errln!("termic: {agent}: {e}");
                if code == EXIT_OK {
                    code = if matches!(e, apply::ApplyError::Plan(_)) {
                        EXIT_REFUSED
                    } else {
                        1
                    };
                }
            }
        }
    }
    for schema in installed {
        ctx.record_consent(schema, true);
    }
    Ok(code)
}

/// Plans every target of one agent; any refusal refuses the whole agent
/// (one toggle covers host and Docker).
fn plan_agent(
    ctx: &Context,
    schema: AgentSchema,
    facts: &InstallFacts,
) -> Result<Vec<(InstallTarget, InstallPlan)>, String> {
    let mut out = Vec::new();
    for t in ctx.targets(schema)? {
        let snap = apply::read_snapshot(&t).map_err(|e| e.to_string())?;
        let p = plan::plan_install(&t, &snap, facts).map_err(|e| e.to_string())?;
        out.push((t, p));
    }
    Ok(out)
}
