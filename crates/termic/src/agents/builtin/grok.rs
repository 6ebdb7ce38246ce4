//! Grok: how termic launches it.

use termic_runtime::agents::grok::AGENT;

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "pip install grok-cli-bin",
    linked_dirs: &[".grok"],
    config_dir_var: None,
};
