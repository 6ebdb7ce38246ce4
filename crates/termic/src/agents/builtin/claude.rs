//! Claude Code: how termic launches it.

use termic_runtime::agents::claude::AGENT;

use super::{Builtin, Resume};

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @anthropic-ai/claude-code",
    linked_dirs: &[".claude"],
    // `~/.claude.json` (onboarding, trusted folders, approved API keys)
    // sits beside `~/.claude/`; with this variable Claude keeps it inside.
    config_dir_var: Some("CLAUDE_CONFIG_DIR"),
    // Measured on 2.1.332 offline (docs/gotchas.md): `--resume ID`
    // continues that conversation; `--continue` the directory's last one.
    resume: Resume::Args {
        with_id: &["--resume", "{id}"],
        latest: Some(&["--continue"]),
        saved: None,
        in_use: None,
    },
};
