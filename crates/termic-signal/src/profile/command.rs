//! Any command run as a task (`termic run -- CMD`), and a shell whose
//! integration is off or unknown: only output and silence, never a guess.

use super::{AgentProfile, Turns};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "command",
    &[],
    "any command: output and silence only",
    &[],
    &[],
)
.with_turns(Turns::Output);
