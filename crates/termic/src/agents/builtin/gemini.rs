//! Gemini CLI: how termic launches it.

use termic_runtime::agents::gemini::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @google/gemini-cli",
    linked_dirs: &[".gemini"],
    config_dir_var: None,
    // Gemini CLI 0.61.0: `--resume UUID` (its help says "latest" or an
    // index; its error text and session finder take the UUID its hooks
    // send as `session_id`), else `--resume latest`; the restore's e2e
    // measured both (docs/gotchas.md, "Resume").
    resume: Resume::Args {
        with_id: &["--resume", "{id}"],
        latest: Some(&["--resume", "latest"]),
        saved: None,
        in_use: None,
    },
};
