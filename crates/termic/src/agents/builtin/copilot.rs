//! GitHub Copilot CLI: how termic launches it.

use termic_runtime::agents::copilot::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @github/copilot",
    linked_dirs: &[],
    config_dir_var: None,
    // Copilot CLI: `--resume ID` / `--continue` (its help); the
    // restore's e2e measured `--continue` (docs/gotchas.md, "Resume").
    resume: Resume::Args {
        with_id: &["--resume", "{id}"],
        latest: Some(&["--continue"]),
        // Measured 2026-12-06 (docs/gotchas.md, "Copilot's `--resume ID`"):
        // the conversation is on disk once this file is; without it
        // `--resume ID` exits 1 with "No session, task, or name matched".
        saved: Some(".copilot/session-state/{id}/events.jsonl"),
    },
};
