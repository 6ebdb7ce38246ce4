//! Grok: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "grok",
    program: "grok",
    install: "pip install grok-cli-bin",
    linked_dirs: &[".grok"],
    config_dir_var: None,
};
