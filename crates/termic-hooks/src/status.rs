//! (in progress)

use crate::agents::AgentSchema;

/// Files beyond the install's own that status reads for a schema.
pub fn extra_files(schema: AgentSchema) -> &'static [&'static str] {
    match schema {
        AgentSchema::Claude => &[],
        AgentSchema::Grok => &[crate::agents::grok::CONFIG_TOML],
        AgentSchema::Agy => &[crate::agents::agy::DEAD_HOOKS_FILE],
        AgentSchema::Opencode => &[crate::agents::opencode::LEGACY_PLUGIN_FILE],
    }
}
