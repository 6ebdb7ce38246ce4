//! opencode: how termic launches it.

use termic_runtime::agents::opencode::AGENT;

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g opencode-ai",
    linked_dirs: &[".opencode"],
    config_dir_var: None,
};
