//! Codex: how termic launches it.

use termic_runtime::agents::codex::AGENT;

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @openai/codex",
    linked_dirs: &[],
    config_dir_var: None,
};
