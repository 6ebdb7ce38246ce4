//! Grok: how termic launches it.

use termic_runtime::agents::grok::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "pip install grok-cli-bin",
    linked_dirs: &[".grok"],
    config_dir_var: None,
    // Grok 0.2.111: `--resume ID` / `--continue` (the directory's last
    // session, its help); the restore's e2e measured `--continue`
    // (docs/gotchas.md, "Resume").
    resume: Resume::Args {
        with_id: &["--resume", "{id}"],
        latest: Some(&["--continue"]),
        saved: None,
        in_use: None,
    },
};
