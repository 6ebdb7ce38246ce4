//! What the runtime knows of each built-in agent: one file each (its id and
//! the program that runs it, which is also the name its process has in a
//! task's foreground), listed once in [`AGENTS`]. What the user is shown
//! about an agent (how to install it, the dirs a worktree links, its
//! Docker config) is the binary's (`termic::agents::builtin`), which takes
//! the id and program from here; its hooks adapter (termic-hooks) and
//! detection profile (termic-signal) are found by its id.
//!
//! - [`foreground`]: which agent a task's foreground process is.

pub mod agy;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod foreground;
pub mod gemini;
pub mod grok;
pub mod opencode;
pub mod qwen;

/// One built-in agent as the runtime knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent {
    /// Its id: the detection profile and hooks adapter are found by it.
    pub id: &'static str,
    /// The program that runs it, looked up on PATH.
    pub program: &'static str,
}

/// The built-in agents, one line each, in the order the UI lists them.
pub const AGENTS: &[Agent] = &[
    claude::AGENT,
    codex::AGENT,
    grok::AGENT,
    agy::AGENT,
    opencode::AGENT,
    gemini::AGENT,
    copilot::AGENT,
    qwen::AGENT,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_each_has_a_detection_profile() {
        let mut ids: Vec<_> = AGENTS.iter().map(|a| a.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), AGENTS.len());
        for a in AGENTS {
            assert_eq!(termic_signal::profile::profile_for(a.id).id, a.id);
        }
    }
}
