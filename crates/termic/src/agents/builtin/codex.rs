//! Codex: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "codex",
    program: "codex",
    install: "npm install -g @openai/codex",
    linked_dirs: &[],
    config_dir_var: None,
};
