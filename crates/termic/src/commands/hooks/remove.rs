//! `termic hooks remove <agent>...`

use anyhow::Result;
use clap::Args;
use termic_hooks::apply;
use termic_hooks::plan;

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
/// Examples:
///   termic hooks remove claude
///   termic hooks remove claude grok agy opencode
///
/// Exit codes: 0 removed (or nothing to remove), 1 error, 2 unknown agent,
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
    /// Accepted so `install --yes` and `remove --yes` read alike; removal
    /// never asks, because it only takes away what termic wrote.
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
    // The toggle goes off only for an agent whose every target is now clean:
    // a refused or failed removal leaves hooks on disk, and the stored
    // toggle keeps saying what the user last chose.
    let mut removed = Vec::new();
    for &schema in &schemas {
        let targets = match ctx.targets(schema) {
            Ok(t) => t,
            Err(msg) => {
                errln!("termic: {}: {msg}", schema.id());
                code = EXIT_REFUSED;
                continue;
            }
        };
        let mut clean = true;
        for t in targets {
            let agent = format!("{} ({})", t.agent_id(), t.label());
            let planned = apply::read_snapshot(&t)
                .map_err(|e| e.to_string())
                .and_then(|s| plan::plan_remove(&t, &s).map_err(|e| e.to_string()));
            let p = match planned {
                Ok(p) => p,
                Err(msg) => {
                    errln!("termic: {agent}: nothing removed: {msg}");
                    code = EXIT_REFUSED;
                    clean = false;
                    continue;
                }
            };
            if p.is_empty() {
                outln!("{agent}: nothing to remove")?;
                continue;
            }
            outln!("{agent}:\n{}", p.describe())?;
            if args.common.dry_run {
                continue;
            }
            match apply::apply(&t, p, plan::plan_remove) {
                Ok(done) if done.left_alone.is_empty() => outln!("{agent}: removed")?,
                Ok(_) => outln!("{agent}: removed, except the entries listed as left alone")?,
                Err(e) => {
                    errln!("termic: {agent}: {e}");
                    code = 1;
                    clean = false;
                }
            }
        }
        if clean {
            removed.push(schema);
        }
    }
    if args.common.dry_run {
        outln!("Dry run: nothing was written.")?;
    } else {
        for schema in removed {
            ctx.record_consent(schema, false);
        }
    }
    Ok(code)
}
