//! Grok: how termic launches it.

use termic_runtime::agents::grok::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "pip install grok-cli-bin",
    linked_dirs: &[".grok"],
    config_dir_var: None,
    // Not measured yet (docs/gotchas.md, "Resume"): a restore starts it
    // fresh in its directory.
    resume: Resume::Fresh,
};
