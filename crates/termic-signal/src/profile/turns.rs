//! Where a profile's turns come from: the agent heuristics, or the plain
//! rules for a command or a shell that is not a coding agent.

/// What starts and ends a "turn" for a task with this profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Turns {
    /// A coding agent: hooks, native status, titles, notifications and the
    /// timed fallbacks (rules/heuristics.rs).
    Agent,
    /// Any command: working while output flows, idle after a quiet spell.
    /// Never needs you and never done: silence from a command says nothing
    /// about whether it waits for the user.
    Output,
    /// A shell with termic's integration: OSC 133 `C` starts a command
    /// (working), `D` ends it (done, with its exit status). Until the first
    /// mark arrives (integration not loaded) it reads like [`Turns::Output`].
    ShellMarks,
}
