//! The earned prompt (the plan's "Later" section): termic does not nag about
//! hooks on install. When an agent without wired hooks has said "done" and
//! then needed the user within seconds (the engine's false-done count) a few
//! times, the status line offers the fix once per session, with the evidence.

use std::collections::BTreeSet;

use termic_hooks::agents::AgentSchema;

/// False dones before the offer is made.
pub const EARNED_AFTER: u32 = 3;

/// Which agents were already offered the fix this session.
#[derive(Debug, Default)]
pub struct EarnedPrompt {
    offered: BTreeSet<String>,
}

impl EarnedPrompt {
    /// The message to show when `profile` has earned the offer, else `None`.
    /// `false_dones` is summed over that agent's tasks.
    pub fn check(
        &mut self,
        profile: &str,
        false_dones: u32,
        wired: bool,
        prefix: &str,
    ) -> Option<String> {
        if wired
            || false_dones < EARNED_AFTER
            // Only agents termic can install hooks for: the offer must be
            // deliverable.
            || AgentSchema::from_id(profile).is_none()
            || self.offered.contains(profile)
        {
            return None;
        }
        self.offered.insert(profile.to_string());
        Some(format!(
            "{profile} said done {false_dones} times when it was waiting for you. Its hooks fix that: {prefix} then s."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_once_after_enough_false_dones() {
        let mut e = EarnedPrompt::default();
        assert_eq!(e.check("claude", 2, false, "Ctrl-]"), None);
        assert_eq!(
            e.check("claude", 3, false, "Ctrl-]").as_deref(),
            Some("claude said done 3 times when it was waiting for you. Its hooks fix that: Ctrl-] then s.")
        );
        assert_eq!(e.check("claude", 4, false, "Ctrl-]"), None, "once");
    }

    #[test]
    fn never_for_wired_or_unwireable_agents() {
        let mut e = EarnedPrompt::default();
        assert_eq!(e.check("claude", 9, true, "Ctrl-]"), None);
        assert_eq!(e.check("codex", 9, false, "Ctrl-]"), None);
        assert!(e.check("agy", 3, false, "Ctrl-]").is_some());
    }
}
