//! Qwen Code: how termic launches it.

use termic_runtime::agents::qwen::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @qwen-code/qwen-code",
    linked_dirs: &[".qwen"],
    config_dir_var: None,
    // Qwen Code: `--resume ID` / `--continue` (its help); the restore's
    // e2e measured `--continue` (docs/gotchas.md, "Resume").
    resume: Resume::Args {
        with_id: &["--resume", "{id}"],
        latest: Some(&["--continue"]),
        saved: None,
        in_use: None,
    },
};
