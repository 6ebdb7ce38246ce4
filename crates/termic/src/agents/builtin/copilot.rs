//! GitHub Copilot CLI: how termic launches it.

use termic_runtime::agents::copilot::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @github/copilot",
    linked_dirs: &[],
    config_dir_var: None,
    // Not measured yet (docs/gotchas.md, "Resume"): a restore starts it
    // fresh in its directory.
    resume: Resume::Fresh,
};
