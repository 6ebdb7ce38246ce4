//! Fallback for agents termic has not measured (and user-defined agents
//! whose base id is unknown): no title states, every notification counts.

use super::AgentProfile;

pub(super) static PROFILE: AgentProfile =
    AgentProfile::new("generic", &[], "nothing measured", &[], &[]);
