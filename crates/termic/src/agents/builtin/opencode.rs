//! opencode: how termic launches it.

use termic_runtime::agents::opencode::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g opencode-ai",
    linked_dirs: &[".opencode"],
    config_dir_var: None,
    // opencode 1.18.33: `--session ID` / `--continue` (its help); the
    // restore's e2e measured `--continue` (docs/gotchas.md, "Resume").
    resume: Resume::Args {
        with_id: &["--session", "{id}"],
        latest: Some(&["--continue"]),
        saved: None,
        in_use: None,
    },
};
