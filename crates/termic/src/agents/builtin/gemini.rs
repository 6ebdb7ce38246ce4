//! Gemini CLI: how termic launches it.

use termic_runtime::agents::gemini::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @google/gemini-cli",
    linked_dirs: &[".gemini"],
    config_dir_var: None,
    // Gemini CLI: `--resume latest` (its help: "latest" or an index, not
    // an id); the restore's e2e measured it (docs/gotchas.md, "Resume").
    resume: Resume::Args {
        with_id: &["--resume", "latest"],
        latest: Some(&["--resume", "latest"]),
    },
};
