//! Antigravity (agy). Measured on 1.1.22 (plan): it emits no OSC at all.

use super::AgentProfile;

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "agy",
    &["antigravity"],
    "Antigravity 1.1.22",
    // No title states: agy paints no title and no notification. Its turn
    // comes from its hooks (PreInvocation, Stop) or the byte-quiet fallback.
    &[],
    &[],
)
// PreInvocation and Stop are all agy has: no hook says it waits for you.
.without_hook_attention();
