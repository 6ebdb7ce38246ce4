//! GitHub Copilot CLI: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "copilot",
    program: "copilot",
    install: "npm install -g @github/copilot",
    linked_dirs: &[],
    config_dir_var: None,
};
