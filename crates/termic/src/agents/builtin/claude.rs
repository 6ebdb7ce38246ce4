//! Claude Code: how termic launches it.

use super::Builtin;

pub const BUILTIN: Builtin = Builtin {
    id: "claude",
    program: "claude",
    install: "npm install -g @anthropic-ai/claude-code",
    linked_dirs: &[".claude"],
};
