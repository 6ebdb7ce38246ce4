//! GitHub Copilot CLI. Measured on 1.0.102 (termic-fakemodel's
//! real_agents_more.rs): its title carries no state at all.

use super::{AgentProfile, TitleRule, TitleState};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "copilot",
    &["github-copilot"],
    "GitHub Copilot CLI 1.0.102",
    &[TitleRule {
        id: "copilot.session-title",
        pattern: r"(^| - )GitHub Copilot$",
        state: TitleState::Unknown,
        why: "'GitHub Copilot', then '<first prompt> - GitHub Copilot' for the rest of the \
              session: the same while it works, waits for approval or sits at its prompt. Its \
              OSC 9;4 progress (TERM_PROGRAM=ghostty only) stays busy through a permission \
              prompt, so it is not read either. Without its hooks nothing on its terminal says \
              done.",
    }],
    &[],
);

#[cfg(test)]
mod tests {
    use super::super::{profile_for, TitleState};

    #[test]
    fn no_title_says_anything() {
        let copilot = profile_for("copilot");
        for title in [
            "GitHub Copilot",
            "create the file out.txt please - GitHub Copilot",
            "Working - GitHub Copilot",
        ] {
            assert_eq!(copilot.classify_title(title), TitleState::Unknown, "{title:?}");
        }
        assert_eq!(profile_for("github-copilot").id, "copilot");
    }
}
