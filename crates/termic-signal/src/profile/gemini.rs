//! Gemini CLI. Titles measured on 0.61.0 (termic-fakemodel's
//! real_agents_more.rs and termic's real_agents_more.rs): OSC 0, one write
//! per change, padded with spaces to 80 columns.

use super::{AgentProfile, TitleRule, TitleState};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "gemini",
    &["gemini-cli"],
    "Gemini CLI 0.61.0",
    &[
        TitleRule {
            id: "gemini.action-required",
            // U+270B, an optional emoji selector, two spaces.
            pattern: r"^\x{270B}\x{FE0F}? +Action Required\b",
            state: TitleState::NeedsYou,
            why: "'✋  Action Required (<dir>)' while a tool waits for approval, painted 44-280 ms \
                  after the Notification hook (ToolPermission). Right for as long as it waits.",
        },
        TitleRule {
            id: "gemini.working",
            pattern: r"^\x{2726}\x{FE0F}? +Working\b",
            state: TitleState::Busy,
            why: "'✦  Working… (<dir>)' from BeforeAgent (7-110 ms later) until the turn ends or \
                  a tool waits; back to it right after an approval.",
        },
        TitleRule {
            id: "gemini.ready",
            pattern: r"^\x{25C7}\x{FE0F}? +Ready\b",
            state: TitleState::Idle,
            why: "'◇  Ready (<dir>)' at the prompt: at start-up and 32-250 ms after AfterAgent.",
        },
    ],
    &[],
);

#[cfg(test)]
mod tests {
    use super::super::{profile_for, TitleState};

    /// The titles 0.61.0 painted, padded to 80 columns as it sends them.
    #[test]
    fn measured_titles() {
        let gemini = profile_for("gemini");
        let padded = |t: &str| format!("{t:<80}");
        for (title, state) in [
            ("◇  Ready (proj)", TitleState::Idle),
            ("✦  Working… (proj)", TitleState::Busy),
            ("✋  Action Required (proj)", TitleState::NeedsYou),
            ("✋\u{FE0F}  Action Required (a b)", TitleState::NeedsYou),
            ("Gemini CLI", TitleState::Unknown),
            // A directory named like a state is not one.
            ("Action Required", TitleState::Unknown),
        ] {
            assert_eq!(gemini.classify_title(&padded(title)), state, "{title:?}");
        }
        assert_eq!(profile_for("gemini-cli").id, "gemini");
    }
}
