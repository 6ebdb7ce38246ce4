//! GitHub Copilot CLI: what the runtime knows of it.

use super::Agent;

pub const AGENT: Agent = Agent {
    id: "copilot",
    program: "copilot",
};
