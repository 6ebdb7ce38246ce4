//! Claude Code: what the runtime knows of it.

use super::Agent;

pub const AGENT: Agent = Agent {
    id: "claude",
    program: "claude",
};
