//! Gemini CLI: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "gemini",
    program: "gemini",
    install: "npm install -g @google/gemini-cli",
    linked_dirs: &[".gemini"],
    config_dir_var: None,
};
