//! Qwen Code: how termic launches it.

use termic_runtime::agents::qwen::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @qwen-code/qwen-code",
    linked_dirs: &[".qwen"],
    config_dir_var: None,
    // Not measured yet (docs/gotchas.md, "Resume"): a restore starts it
    // fresh in its directory.
    resume: Resume::Fresh,
};
