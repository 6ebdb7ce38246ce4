//! Agents listed in status that termic installs nothing for: an agent whose
//! terminal already reports its state, and the unmeasured ones, for which no
//! adapter is written from vendor docs. Each has its own file with its row.

use super::{AgentAdapter, Support};

/// An agent row with no install.
pub struct StatusOnly {
    id: &'static str,
    support: Support,
    config_dir: &'static str,
}

impl StatusOnly {
    /// An agent whose own terminal output already says what termic needs;
    /// `why` is the status row's text.
    pub const fn not_needed(id: &'static str, why: &'static str) -> StatusOnly {
        StatusOnly {
            id,
            support: Support::NotNeeded(why),
            config_dir: "",
        }
    }

    /// The agent's config dir (relative to HOME), which a Docker task
    /// mounts even when termic installs nothing there.
    pub const fn with_config_dir(self, dir: &'static str) -> StatusOnly {
        StatusOnly {
            config_dir: dir,
            ..self
        }
    }

    /// An agent termic has not measured yet.
    pub const fn not_supported(id: &'static str) -> StatusOnly {
        StatusOnly {
            id,
            support: Support::NotSupported("not supported yet"),
            config_dir: "",
        }
    }
}

impl AgentAdapter for StatusOnly {
    fn id(&self) -> &'static str {
        self.id
    }
    fn support(&self) -> Support {
        self.support
    }
    fn home_config_dir(&self) -> &'static str {
        self.config_dir
    }
}
