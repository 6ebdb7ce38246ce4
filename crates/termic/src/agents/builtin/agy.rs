//! Antigravity (agy): how termic launches it.

use termic_runtime::agents::agy::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "install Google Antigravity, then put agy on PATH",
    linked_dirs: &[".agents"],
    config_dir_var: None,
    // Not measured yet (docs/gotchas.md, "Resume"): a restore starts it
    // fresh in its directory.
    resume: Resume::Fresh,
};
