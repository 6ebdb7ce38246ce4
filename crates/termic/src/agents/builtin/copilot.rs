//! GitHub Copilot CLI: how termic launches it.

use termic_runtime::agents::copilot::AGENT;

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @github/copilot",
    linked_dirs: &[],
    config_dir_var: None,
};
