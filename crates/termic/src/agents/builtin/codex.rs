//! Codex: how termic launches it.

use termic_runtime::agents::codex::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @openai/codex",
    linked_dirs: &[],
    config_dir_var: None,
    // `codex resume ID` / `codex resume --last` (0.171.0's help; the
    // conversation id is not reported: no hooks wired, docs/gotchas.md).
    resume: Resume::Args {
        with_id: &["resume", "{id}"],
        latest: Some(&["resume", "--last"]),
        saved: None,
        in_use: None,
    },
};
