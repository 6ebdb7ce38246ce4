//! bash, zsh and fish started with termic's shell integration: OSC 133
//! command marks decide the turn (rules/plain.rs). Titles and printed
//! notifications are a program's output and decide nothing here.

use super::{AgentProfile, Turns};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "shell",
    &[],
    "bash 5.2, zsh 5.9, fish 3.7 with termic's integration (OSC 133 A/B/C/D)",
    &[],
    &[],
)
.with_turns(Turns::ShellMarks);
