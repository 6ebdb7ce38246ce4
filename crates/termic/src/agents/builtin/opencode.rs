//! opencode: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "opencode",
    program: "opencode",
    install: "npm install -g opencode-ai",
    linked_dirs: &[".opencode"],
    config_dir_var: None,
};
