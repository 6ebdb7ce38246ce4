//! `[agents.<id>]` tables in config.toml: user-defined agents and clones.
//!
//! ```toml
//! [agents.claude-work]
//! base = "claude"                 # a built-in: its profile and hooks schema
//! command = ["claude"]            # default: the base's command
//! args = ["--model", "opus"]      # appended
//! env = { CLAUDE_CONFIG_DIR = "/home/me/.claude-work" }
//! docker = true                   # run in a container ...
//! image = "ghcr.io/me/claude"     # ... from this image (required with docker)
//! docker_args = ["--network", "none"]  # extra `docker run` options
//! ```

use toml_edit::Table;

use super::{AgentDef, DockerOptions, Origin, BUILTINS};
use crate::config::{ConfigError, Source};

/// The built-in agent ids, for messages: `a, b, c`.
pub fn builtin_list() -> String {
    BUILTINS.iter().map(|b| b.id).collect::<Vec<_>>().join(", ")
}

/// Whether `id` can name an agent (it becomes a directory name).
pub fn is_valid_agent_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Every `[agents.*]` table, in file order.
pub fn parse_agents(src: &Source<'_>, root: &Table) -> Result<Vec<AgentDef>, ConfigError> {
    let mut errors = Vec::new();
    let defs = parse_agents_into(src, root, &mut errors);
    errors.into_iter().next().map_or(Ok(defs), Err)
}

/// Every agent definition that reads; a bad one is left out and its error
/// goes to `errors`.
pub fn parse_agents_into(
    src: &Source<'_>,
    root: &Table,
    errors: &mut Vec<ConfigError>,
) -> Vec<AgentDef> {
    let agents = match src.table(root, "agents") {
        Ok(Some(agents)) => agents,
        Ok(None) => return Vec::new(),
        Err(e) => {
            errors.push(e);
            return Vec::new();
        }
    };
    let mut defs = Vec::new();
    for (id, item) in agents.iter() {
        let span = agents
            .key(id)
            .and_then(|k| k.span())
            .or_else(|| item.span());
        let Some(table) = item.as_table() else {
            errors.push(src.error(
                span,
                format!("`agents.{id}` must be a table"),
                format!("write it as a `[agents.{id}]` section"),
            ));
            continue;
        };
        if !is_valid_agent_id(id) {
            errors.push(src.error(
                span,
                format!("agent id `{id}` may only use letters, digits, `-` and `_`"),
                "rename the section, e.g. `[agents.claude-work]`",
            ));
            continue;
        }
        match parse_agent(src, id, table, span) {
            Ok(def) => defs.push(def),
            Err(e) => errors.push(e),
        }
    }
    defs
}

fn parse_agent(
    src: &Source<'_>,
    id: &str,
    table: &Table,
    span: Option<std::ops::Range<usize>>,
) -> Result<AgentDef, ConfigError> {
    let base_span = table.get("base").and_then(|i| i.span()).or(span.clone());
    let base = match (src.string(table, "base")?, AgentDef::builtin(id)) {
        (None, Some(_)) => id.to_owned(),
        (None, None) => {
            return Err(src.error(
                span,
                format!("agent `{id}` has no `base`"),
                format!("add `base = \"claude\"` (one of {})", builtin_list()),
            ))
        }
        (Some(base), Some(_)) if base != id => {
            return Err(src.error(
                base_span,
                format!(
                    "`[agents.{id}]` adjusts the built-in {id}, so its base cannot be `{base}`"
                ),
                format!(
                    "remove `base`, or rename the section to define a new agent based on {base}"
                ),
            ))
        }
        (Some(base), _) => base,
    };
    let Some(mut def) = AgentDef::builtin(&base) else {
        return Err(src.error(
            base_span,
            format!("unknown base agent `{base}`"),
            format!("use one of {}", builtin_list()),
        ));
    };
    def.id = id.to_owned();
    def.origin = Origin::Config;
    if let Some(command) = src.strings(table, "command")? {
        if command.first().is_none_or(|p| p.is_empty()) {
            return Err(src.error(
                table.get("command").and_then(|i| i.span()),
                "`command` must name a program",
                "write e.g. `command = [\"claude\"]`, or remove it to use the base's",
            ));
        }
        def.command = command;
    }
    def.args = src.strings(table, "args")?.unwrap_or_default();
    def.env = src.string_map(table, "env")?.unwrap_or_default();
    let image = src.string(table, "image")?;
    let docker_args = src.strings(table, "docker_args")?.unwrap_or_default();
    if src.bool(table, "docker")?.unwrap_or(false) {
        let Some(image) = image.filter(|i| !i.is_empty()) else {
            return Err(src.error(
                table.get("docker").and_then(|i| i.span()),
                format!("agent `{id}` runs in Docker but names no image"),
                "add `image = \"<docker image>\"`",
            ));
        };
        def.docker = Some(DockerOptions {
            image,
            args: docker_args,
        });
    }
    Ok(def)
}
