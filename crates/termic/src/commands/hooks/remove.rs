//! `termic hooks remove <agent>...`

use anyhow::Result;
use clap::Args;
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::{self, InstallPlan};
use termic_hooks::target::InstallTarget;

use super::context::Context;
use super::AgentsArgs;
use super::{EXIT_OK, EXIT_REFUSED, EXIT_USAGE};
use crate::printed::{errln, outln};

/// Remove termic's hooks for one or more agents, from the host and from
/// every Docker agent dir.
///
/// Works whether or not termic thinks hooks are on, and without termic's
/// manifest (termic's entries are known by their path). When a config file
/// is still exactly what termic wrote, you get back its exact bytes from
/// before the install; otherwise only termic's entries go and your later
/// changes stay. An entry of termic's that you edited is left alone and
/// listed.
///
/// The files are listed with the change to each as a diff, then termic
/// asks to go ahead, as install does; --dry-run shows the same and writes
/// nothing. When stdin is not a terminal (a script, a pipe) nobody can
/// answer, so termic writes nothing unless you pass --yes.
///
/// Examples:
///   termic hooks remove claude
///   termic hooks remove claude grok agy opencode
///   termic hooks remove claude --yes         in a script: no question
///
/// Exit codes: 0 removed (or nothing to remove), 1 error or cancelled,
/// 2 unknown agent, or --yes missing when stdin is not a terminal,
/// 3 refused (a malformed or read-only config: fix it, then run again).
/// The agent's Settings toggle goes off only when its removal went through.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    group(clap::ArgGroup::new("which").required(true).args(["agents"]))
)]
pub struct RemoveArgs {
    #[command(flatten)]
    pub common: AgentsArgs,
    /// Write without asking (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(ctx: &Context, args: &RemoveArgs) -> Result<u8> {
    let schemas = match ctx.schemas(&args.common.agents) {
        Ok(s) => s,
        Err(msg) => {
            errln!("termic: {msg}");
            return Ok(EXIT_USAGE);
        }
    };
    let mut code = EXIT_OK;
    // Every target is planned (and refused) before anything is asked or
    // written; an agent with any refused target goes into `unclean`.
    let mut planned: Vec<(String, InstallTarget, InstallPlan)> = Vec::new();
    let mut unclean: Vec<AgentSchema> = Vec::new();
    for &schema in &schemas {
        let targets = match ctx.targets(schema) {
            Ok(t) => t,
            Err(msg) => {
                errln!("termic: {}: {msg}", schema.id());
                code = EXIT_REFUSED;
                unclean.push(schema);
                continue;
            }
        };
        for t in targets {
            let agent = format!("{} ({})", t.agent_id(), t.label());
            let planned_one = apply::read_snapshot(&t)
                .map_err(|e| e.to_string())
                .and_then(|s| plan::plan_remove(&t, &s).map_err(|e| e.to_string()));
            match planned_one {
                Ok(p) if p.is_empty() => outln!("{agent}: nothing to remove")?,
                Ok(p) => {
                    outln!("{agent}:\n{}", p.describe())?;
                    planned.push((agent, t, p));
                }
                Err(msg) => {
                    errln!("termic: {agent}: nothing removed: {msg}");
                    code = EXIT_REFUSED;
                    unclean.push(schema);
                }
            }
        }
    }
    super::show_diffs(planned.iter().map(|(_, _, p)| p))?;
    if args.common.dry_run {
        outln!("Dry run: nothing was written.")?;
        return Ok(code);
    }
    if !planned.is_empty() {
        if let Some(code) = super::consent(args.yes, "Remove these hooks?", "remove these hooks")? {
            return Ok(code);
        }
    }
    for (agent, t, p) in planned {
        match apply::apply(&t, p, plan::plan_remove) {
            Ok(done) if done.left_alone.is_empty() => outln!("{agent}: removed")?,
            Ok(_) => outln!("{agent}: removed, except the entries listed as left alone")?,
            Err(e) => {
                errln!("termic: {agent}: {e}");
                if code == EXIT_OK {
                    code = 1;
                }
                unclean.push(t.schema());
            }
        }
    }
    // The toggle goes off only for an agent whose every target is now clean:
    // a refused or failed removal leaves hooks on disk, and the stored
    // toggle keeps saying what the user last chose.
    for schema in schemas {
        if !unclean.contains(&schema) {
            ctx.record_consent(schema, false);
        }
    }
    Ok(code)
}
