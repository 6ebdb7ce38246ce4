//! Gemini CLI. Titles measured on 0.61.0 (termic-fakemodel's
//! fakemodel/more.rs and termic's real_agents/more.rs): OSC 0, one write
//! per change, padded with spaces to 80 columns.

use super::{
    AgentProfile, Dialog, DialogChoice, ErrorText, Keys, NotifyIgnore, Region, ScreenImplies,
    ScreenRule, TitleRule, TitleState,
};
use crate::stop::StopReason;

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
            why:
                "'✋  Action Required (<dir>)' while a tool waits for approval, painted 44-430 ms \
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
    &[NotifyIgnore {
        id: "gemini.session-complete",
        contains: "Gemini CLI session complete",
        why: "with its general.enableNotifications on, 0.61.0 prints OSC 9 (iTerm.app, termic's \
              default TERM_PROGRAM) 'Gemini CLI session complete | Run finished | Gemini CLI \
              finished responding.' at the end of every turn: a turn end, not a block. Its \
              block is 'Gemini CLI needs your attention | Approval required | ...'.",
    }],
)
.with_screen_rules(SCREEN_RULES)
.with_dialogs(DIALOGS)
.with_continue_prompt("continue")
.with_error_text(ERROR_TEXT)
.with_done_hook_on_interrupt(
    "0.61.0 fires AfterAgent (with the partial answer) 110-150 ms after Escape stops a turn, \
     racing its Ready title (real_agents matrix::cell_gemini_escape_hooks, 2026-12-06)",
)
.with_error_message(
    "[no response text]",
    "0.61.0 fires AfterAgent as for a done when an API error (a 401) ended the turn, its \
     prompt_response \"[no response text]\" (docs/state-truth.md, gemini error hooks, \
     2026-12-06)",
);

/// Gemini CLI's confirmation box and its keys (issue 30): its radio list
/// picks the option whose number is typed (termic-sim's gemini, after
/// 0.61.0); `3. Modify with external editor` opens an editor, so it is not
/// offered.
static DIALOGS: &[Dialog] = &[Dialog {
    id: "gemini.permission",
    kind: "permission",
    region: Region::LastRows(8),
    pattern: r"(?m)│ +● 1\. Allow once +│$",
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^ *│ +(?:● +)?(?P<n>1)\. (?P<label>Allow once) *│$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "approve_always",
            row: r"^ *│ +(?:● +)?(?P<n>[2-9])\. (?P<label>Allow (?:for this session|always).*?) *│$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "deny",
            row: r"^ *│ +(?:● +)?(?P<n>[2-9])\. (?P<label>No\b.*?) *│$",
            numbered: false,
            keys: Keys::Number,
        },
    ],
    measured_on: "Gemini CLI 0.61.0",
    why: "'Apply this change?', '● 1. Allow once', '2. Allow for this session', '3. Modify \
          with external editor', '4. No, suggest changes (esc)' in a box.",
}];

/// Gemini CLI 0.61.0's write_file confirmation as painted under termic
/// (termic's tests/real_agents/more.rs). Its title says Action Required too;
/// the screen rule is the second, independent sign.
static SCREEN_RULES: &[ScreenRule] = &[
    ScreenRule {
        id: "gemini.permission-prompt",
        region: Region::LastRows(6),
        pattern: r"(?s)│ +● 1\. Allow once +│\n *│ +2\. Allow for this session +│",
        implies: ScreenImplies::NeedsYou { kind: "permission" },
        measured_on: "Gemini CLI 0.61.0",
        why: "a box with '? WriteFile  Writing to out.txt', the diff, 'Apply this change?', \
              then '● 1. Allow once', '2. Allow for this session', '3. Modify with external \
              editor', '4. No, suggest changes (esc)' while the tool waits for approval.",
    },
    ScreenRule {
        id: "gemini.api-error",
        region: Region::LastRows(16),
        pattern: API_ERROR_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "Gemini CLI 0.61.0",
        why: "after a 401 the last transcript entry is its own '✕ [API Error: {...}]' (the \
              JSON wrapped on indented rows) and 'ℹ This request failed. Press F12 for \
              diagnostics, ...', then '? for shortcuts', a rule, the mode row and its empty \
              prompt box ('>   Type your message or @path/to/file') with the workspace footer; \
              its title is '◇  Ready' and its AfterAgent hook fires as for a done \
              (real_agents matrix::cell_gemini_error_neither, 2026-12-06).",
    },
];

/// The error line and its wrapped rows, the optional 'This request failed'
/// note, then the shortcuts row, a rule, at most two rows (the mode row),
/// the empty prompt box and at most two footer rows: nothing else between.
const API_ERROR_PATTERN: &str = r"(?m)^✕ \[API Error: [^\n]*(\n  [^\n]*){0,8}(\nℹ [^\n]*(\n  [^\n]*){0,3})?\n *\? for shortcuts\n─+(\n[^\n▄]*){0,2}\n▄+\n *> +Type your message or @path/to/file\n▀+(\n[^\n]*){0,2}\z";

/// How Gemini CLI 0.61.0 words the API error it stopped on.
static ERROR_TEXT: &[ErrorText] = &[ErrorText {
    id: "gemini.error-401",
    contains: "invalid_api_key",
    reason: StopReason::AuthFailed,
    why: "'✕ [API Error: {\"error\":{\"code\":\"invalid_api_key\",\"message\":\"invalid x-api-key\", \
          ...}}]' after a 401 (not retried).",
}];

#[cfg(test)]
mod tests {
    use super::super::{profile_for, ScreenRows, TitleState};

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

    /// The two OSC 9 bodies 0.61.0 prints with notifications on.
    #[test]
    fn only_the_approval_notification_wants_attention() {
        let gemini = profile_for("gemini");
        assert!(gemini.wants_attention(
            "Gemini CLI needs your attention | Approval required | Approve tool action: \
             Confirm Write: out.txt"
        ));
        assert!(!gemini.wants_attention(
            "Gemini CLI session complete | Run finished | Gemini CLI finished responding."
        ));
    }

    /// The bottom of the screen as 0.61.0 painted it under termic (120
    /// columns, borders cut here).
    #[test]
    fn the_measured_permission_prompt_is_needs_you() {
        let rows = [
            "│ Apply this change?                           │",
            "│                                              │",
            "│ ● 1. Allow once                              │",
            "│   2. Allow for this session                  │",
            "│   3. Modify with external editor             │",
            "│   4. No, suggest changes (esc)               │",
            "╰──────────────────────────────────────────────╯",
        ];
        let gemini = profile_for("gemini");
        let found = gemini.screen_match(&ScreenRows::new(rows)).unwrap();
        assert_eq!(found.id, "gemini.permission-prompt");
        // After the approval the box is gone: the prompt row is all there is.
        let after = ScreenRows::new([" > create the file out.txt please", "✦ Done."]);
        assert!(gemini.screen_match(&after).is_none());
        // Printed text of the same words without the dialog's box is not it.
        let printed = ScreenRows::new(["1. Allow once", "2. Allow for this session"]);
        assert!(gemini.screen_match(&printed).is_none());
    }

    use super::super::dialog::{choice, offered_on as offered};

    /// The 0.61.0 box above: the external editor is not offered, and the
    /// decline is its fourth option.
    #[test]
    fn the_confirmation_offers_its_choices() {
        let rows = [
            "│ Apply this change?                           │",
            "│                                              │",
            "│ ● 1. Allow once                              │",
            "│   2. Allow for this session                  │",
            "│   3. Modify with external editor             │",
            "│   4. No, suggest changes (esc)               │",
            "╰──────────────────────────────────────────────╯",
        ];
        assert_eq!(
            offered("gemini", "permission", &rows),
            [
                choice("approve_once", "Allow once", "1"),
                choice("approve_always", "Allow for this session", "2"),
                choice("deny", "No, suggest changes (esc)", "4"),
            ]
        );
        assert!(offered("gemini", "permission", &["1. Allow once", "4. No"]).is_empty());
    }
}
