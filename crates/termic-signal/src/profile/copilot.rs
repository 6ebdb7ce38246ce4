//! GitHub Copilot CLI. Measured on 1.0.102 (termic-fakemodel's
//! fakemodel/more.rs): its title carries no state at all.

use super::{
    AgentProfile, Dialog, DialogChoice, Keys, Region, ScreenImplies, ScreenRule, TitleRule,
    TitleState,
};

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
)
.with_screen_rules(SCREEN_RULES)
.with_dialogs(DIALOGS)
.with_continue_prompt("continue");

/// Copilot's permission box and its keys (issue 30): its select list
/// picks the option whose number is typed (termic-sim's copilot, after
/// 1.0.102); the rows are inside a box, so a label ends at its border.
static DIALOGS: &[Dialog] = &[Dialog {
    id: "copilot.permission",
    kind: "permission",
    region: Region::LastRows(8),
    pattern: r"(?s)│ ❯ 1\. Yes +│\n.*│ ↑/↓ to navigate · enter to select · esc to cancel +│",
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^ *│ +(?:❯ +)?(?P<n>1)\. (?P<label>Yes) *│$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "approve_always",
            row: r"^ *│ +(?:❯ +)?(?P<n>[2-9])\. (?P<label>Yes, .*?) *│$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "deny",
            row: r"^ *│ +(?:❯ +)?(?P<n>[2-9])\. (?P<label>No\b.*?) *│$",
            numbered: false,
            keys: Keys::Number,
        },
    ],
    measured_on: "GitHub Copilot CLI 1.0.102",
    why: "'❯ 1. Yes', '2. Yes, and don't ask again ...', '3. No, and tell Copilot what to do \
          differently (Esc to stop)' over the footer '↑/↓ to navigate · enter to select · esc \
          to cancel', in a box.",
}];

/// Copilot 1.0.102's permission prompt as painted under termic (termic's
/// tests/real_agents/more.rs): the only sign on its terminal that it waits.
/// The question row holds the file's absolute path and wraps when it is
/// long, so the rule reads the first choice and the footer.
static SCREEN_RULES: &[ScreenRule] = &[ScreenRule {
    id: "copilot.permission-prompt",
    region: Region::LastRows(7),
    pattern: r"(?s)│ ❯ 1\. Yes +│\n.*│ ↑/↓ to navigate · enter to select · esc to cancel +│",
    implies: ScreenImplies::NeedsYou { kind: "permission" },
    measured_on: "GitHub Copilot CLI 1.0.102",
    why: "a box with 'Create file', the diff, 'Do you want to create <path>?', '❯ 1. Yes', \
          '2. Yes, and don't ask again ...', '3. No, and tell Copilot what to do differently \
          (Esc to stop)' and the footer '↑/↓ to navigate · enter to select · esc to cancel' \
          while a tool waits for approval. Its title and progress say nothing of it.",
}];

#[cfg(test)]
mod tests {
    use super::super::{profile_for, ScreenRows, TitleState};

    #[test]
    fn no_title_says_anything() {
        let copilot = profile_for("copilot");
        for title in [
            "GitHub Copilot",
            "create the file out.txt please - GitHub Copilot",
            "Working - GitHub Copilot",
        ] {
            assert_eq!(
                copilot.classify_title(title),
                TitleState::Unknown,
                "{title:?}"
            );
        }
        assert_eq!(profile_for("github-copilot").id, "copilot");
    }

    /// The bottom of the screen as 1.0.102 painted it under termic (120
    /// columns, borders cut here).
    #[test]
    fn the_measured_permission_prompt_is_needs_you() {
        let rows = [
            "│ Do you want to create /tmp/x/proj/out.txt?                        │",
            "│                                                                   │",
            "│ ❯ 1. Yes                                                          │",
            "│   2. Yes, and don't ask again for file operations when in this di │",
            "│   3. No, and tell Copilot what to do differently (Esc to stop)    │",
            "│                                                                   │",
            "│ ↑/↓ to navigate · enter to select · esc to cancel                 │",
            "╰───────────────────────────────────────────────────────────────────╯",
        ];
        let copilot = profile_for("copilot");
        let found = copilot.screen_match(&ScreenRows::new(rows)).unwrap();
        assert_eq!(found.id, "copilot.permission-prompt");
        let working = ScreenRows::new([" ○ Create out.txt                    1m 56s"]);
        assert!(copilot.screen_match(&working).is_none());
        // The same words printed without the dialog's box are not it.
        let printed = ScreenRows::new([
            "❯ 1. Yes",
            "↑/↓ to navigate · enter to select · esc to cancel",
        ]);
        assert!(copilot.screen_match(&printed).is_none());
    }

    use super::super::dialog::{choice, offered_on as offered};

    /// The 1.0.102 box above (its second option cut by the box's width).
    #[test]
    fn the_permission_box_offers_its_choices() {
        let rows = [
            "│ Do you want to create /tmp/x/proj/out.txt?                        │",
            "│                                                                   │",
            "│ ❯ 1. Yes                                                          │",
            "│   2. Yes, and don't ask again for file operations when in this di │",
            "│   3. No, and tell Copilot what to do differently (Esc to stop)    │",
            "│                                                                   │",
            "│ ↑/↓ to navigate · enter to select · esc to cancel                 │",
            "╰───────────────────────────────────────────────────────────────────╯",
        ];
        assert_eq!(
            offered("copilot", "permission", &rows),
            [
                choice("approve_once", "Yes", "1"),
                choice(
                    "approve_always",
                    "Yes, and don't ask again for file operations when in this di",
                    "2"
                ),
                choice(
                    "deny",
                    "No, and tell Copilot what to do differently (Esc to stop)",
                    "3"
                ),
            ]
        );
        let printed = [
            "❯ 1. Yes",
            "↑/↓ to navigate · enter to select · esc to cancel",
        ];
        assert!(offered("copilot", "permission", &printed).is_empty());
    }
}
