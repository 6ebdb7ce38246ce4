//! GitHub Copilot CLI: how termic launches it.

use termic_runtime::agents::copilot::AGENT;

use super::{Builtin, InUse, Resume};

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
        // Measured 2026-12-06 (docs/gotchas.md, "Copilot's session in
        // use"): a running Copilot holds `inuse.<pid>.lock` in the
        // conversation's directory; one started with `--resume ID` while
        // that pid lives opens on its "Session in use" dialog, which eats
        // the next prompt. A dead pid's lock does not stop it.
        in_use: Some(InUse {
            dir: ".copilot/session-state/{id}",
            prefix: "inuse.",
            suffix: ".lock",
        }),
    },
};
