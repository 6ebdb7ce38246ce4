//! Claude Code: how termic launches it.

use termic_runtime::agents::claude::AGENT;

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: AGENT.id,
    program: AGENT.program,
    install: "npm install -g @anthropic-ai/claude-code",
    linked_dirs: &[".claude"],
    // `~/.claude.json` (onboarding, trusted folders, approved API keys)
    // sits beside `~/.claude/`; with this variable Claude keeps it inside.
    config_dir_var: Some("CLAUDE_CONFIG_DIR"),
};
