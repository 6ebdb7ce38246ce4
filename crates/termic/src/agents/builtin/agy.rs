//! Antigravity (agy): how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "agy",
    program: "agy",
    install: "install Google Antigravity, then put agy on PATH",
    linked_dirs: &[".agents"],
    config_dir_var: None,
};
