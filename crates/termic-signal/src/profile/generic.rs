//! Fallback for agents termic has not measured (and user-defined agents
//! whose base id is unknown): no title states, and printed notifications
//! and OSC 7501 are recorded, never obeyed.

use super::AgentProfile;

pub(super) static PROFILE: AgentProfile =
    AgentProfile::new("generic", &[], "nothing measured", &[], &[])
        // Any command or shell: what it prints (a `cat` of a file, a test's
        // output) is only text, so no printed notification or OSC 7501 moves it.
        .without_printed_notifications();
