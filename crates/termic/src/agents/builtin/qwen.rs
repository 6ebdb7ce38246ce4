//! Qwen Code: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "qwen",
    program: "qwen",
    install: "npm install -g @qwen-code/qwen-code",
    linked_dirs: &[".qwen"],
    config_dir_var: None,
};
