//! opencode. Measured on 1.18.33 (real-agents README) and 1.17.11 (plan).

use super::{AgentProfile, TitleRule, TitleState};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "opencode",
    &[],
    "opencode 1.18.33",
    &[TitleRule {
        id: "opencode.session-title",
        pattern: r"^(OpenCode|OC \| .*)$",
        state: TitleState::Unknown,
        why: "'OpenCode', then 'OC | <session title>': no busy or idle state. Its turn comes \
              from its plugin (session.status, permission.asked, session.idle).",
    }],
    &[],
);
