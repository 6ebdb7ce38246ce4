//! Agents listed in status that termic installs nothing for: Codex, whose
//! terminal already reports its state (titles and OSC 7501), and the
//! unmeasured ones, for which no adapter is written from vendor docs.

use super::{AgentAdapter, Support};

/// An agent row with no install.
pub struct StatusOnly {
    id: &'static str,
    support: Support,
}

impl AgentAdapter for StatusOnly {
    fn id(&self) -> &'static str {
        self.id
    }
    fn support(&self) -> Support {
        self.support
    }
}

const NOT_SUPPORTED: &str = "not supported yet";

pub static CODEX: StatusOnly = StatusOnly {
    id: "codex",
    support: Support::NotNeeded("not needed (its terminal already reports this)"),
};
pub static GEMINI: StatusOnly = StatusOnly {
    id: "gemini",
    support: Support::NotSupported(NOT_SUPPORTED),
};
pub static COPILOT: StatusOnly = StatusOnly {
    id: "copilot",
    support: Support::NotSupported(NOT_SUPPORTED),
};
pub static CURSOR: StatusOnly = StatusOnly {
    id: "cursor",
    support: Support::NotSupported(NOT_SUPPORTED),
};
