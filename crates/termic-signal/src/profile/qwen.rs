//! Qwen Code. Titles measured on 0.24.4 (termic-fakemodel's
//! fakemodel/more.rs): OSC 0 and OSC 2 (only OSC 2 under tmux, screen or
//! zellij), the glyph followed by U+FE0E (text presentation), padded with
//! spaces to 80 columns.

use super::{
    AgentProfile, Dialog, DialogChoice, ErrorText, Keys, Region, ScreenImplies, ScreenRule,
    TitleRule, TitleState,
};
use crate::stop::StopReason;

/// The glyph, then an optional U+FE0E / U+FE0F selector, then ` Qwen`.
macro_rules! glyph {
    ($glyph:literal) => {
        concat!("^", $glyph, r"[\x{FE0E}\x{FE0F}]? Qwen\b")
    };
}

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "qwen",
    &["qwen-code"],
    "Qwen Code 0.24.4",
    &[
        TitleRule {
            id: "qwen.blocked",
            // U+2733, Claude Code's IDLE glyph: here it means blocked. The
            // rule is Qwen's own, so a Qwen task never reads it as idle.
            pattern: glyph!(r"\x{2733}"),
            state: TitleState::NeedsYou,
            why: "'✳︎ Qwen - <dir>' while a tool waits for approval (63-560 ms after the \
                  PermissionRequest hook). The same star is Claude Code's idle glyph: read with \
                  a Claude-shaped rule it would say idle, then done, while Qwen waits for you.",
        },
        TitleRule {
            id: "qwen.busy",
            pattern: glyph!(r"\x{25D0}"),
            state: TitleState::Busy,
            why: "'◐︎ Qwen - <dir>' from the Enter (before UserPromptSubmit) until the turn ends \
                  or a tool waits; the glyph does not animate.",
        },
        TitleRule {
            id: "qwen.idle",
            pattern: r"^Qwen( - | *$)",
            state: TitleState::Idle,
            why: "'Qwen - <dir>' at the prompt: at start-up and 70-560 ms after the Stop hook.",
        },
    ],
    &[],
)
.with_screen_rules(SCREEN_RULES)
.with_dialogs(DIALOGS)
.with_continue_prompt("continue")
.with_error_text(ERROR_TEXT)
.with_screen_stop_ending_hooked_turns(
    "Qwen Code 0.24.4 fires no Stop hook when it gives up on a 401 (only UserPromptSubmit \
     fired; the turn read working for 90 s; measured 2026-12-06, real_agents \
     matrix::cell_qwen_error_hooks)",
);

/// Qwen Code's confirmation and its keys (issue 30): its select list picks
/// the option whose number is typed (termic-sim's qwen, after 0.24.4).
static DIALOGS: &[Dialog] = &[Dialog {
    id: "qwen.permission",
    kind: "permission",
    region: Region::LastRows(6),
    pattern: r"(?ms)^ +› 1\. Yes, allow once$.*^ +[\x{2800}-\x{28FF}] Waiting for user confirmation\.\.\.$",
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^ +(?:› +)?(?P<n>1)\. (?P<label>Yes, allow once)$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "approve_always",
            row: r"^ +(?:› +)?(?P<n>[2-9])\. (?P<label>Yes, allow always.*)$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "deny",
            row: r"^ +(?:› +)?(?P<n>[2-9])\. (?P<label>No\b.*)$",
            numbered: false,
            keys: Keys::Number,
        },
    ],
    measured_on: "Qwen Code 0.24.4",
    why: "'Apply this change?', '› 1. Yes, allow once', '2. Yes, allow always', '3. No, \
          suggest changes (esc)' over the spinner row 'Waiting for user confirmation...'.",
}];

/// Qwen Code 0.24.4's write_file confirmation as painted under termic
/// (termic's tests/real_agents/more.rs): no box, the choices, then a
/// spinner row that says what it waits for.
static SCREEN_RULES: &[ScreenRule] = &[
    ScreenRule {
        id: "qwen.permission-prompt",
        region: Region::LastRows(5),
        pattern: r"(?ms)^ +› 1\. Yes, allow once$.*^ +[\x{2800}-\x{28FF}] Waiting for user confirmation\.\.\.$",
        implies: ScreenImplies::NeedsYou { kind: "permission" },
        measured_on: "Qwen Code 0.24.4",
        why: "'? WriteFile Writing to out.txt', the diff, 'Apply this change?', '› 1. Yes, allow \
              once', '2. Yes, allow always', '3. No, suggest changes (esc)', then '⠏ Waiting for \
              user confirmation...' as the last row while the tool waits for approval.",
    },
    ScreenRule {
        id: "qwen.api-error",
        region: Region::LastRows(10),
        pattern: API_ERROR_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "Qwen Code 0.24.4",
        why: "after a 401 the last transcript entry is its own '✕ [API Error: 401 invalid \
              x-api-key] (Press Ctrl+Y to retry)', then a rule, its empty prompt ('>   Type \
              your message or @path/to/file'), a rule and two footer rows; its title is idle \
              (real_agents matrix::cell_qwen_error_neither, 2026-12-06).",
    },
];

/// The error line and its wrapped rows, then the empty prompt between two
/// rules and at most three footer rows: nothing else between.
const API_ERROR_PATTERN: &str = r"(?m)^ *✕ \[API Error: [^\n]*(\n   [^\n]*){0,6}\n─+\n> +Type your message or @path/to/file\n─+(\n[^\n]*){0,3}\z";

/// How Qwen Code 0.24.4 words the API error it stopped on.
static ERROR_TEXT: &[ErrorText] = &[
    ErrorText {
        id: "qwen.error-401",
        contains: "[API Error: 401 ",
        reason: StopReason::AuthFailed,
        why: "'✕ [API Error: 401 invalid x-api-key] (Press Ctrl+Y to retry)' after a 401.",
    },
    ErrorText {
        id: "qwen.error-529",
        contains: "[API Error: 529 ",
        reason: StopReason::Overloaded,
        why: "the 500 line below with another status.",
    },
    ErrorText {
        id: "qwen.error-5xx",
        contains: "[API Error: 5",
        reason: StopReason::ServerError,
        why: "'✕ [API Error: 500 The fake model had an internal error.] (Press Ctrl+Y to retry)' \
              after 28 requests over 101 s that got a 500, working all along; its hooks sent \
              only a Notification (idle_prompt), no Stop (measured 2026-12-07).",
    },
];

#[cfg(test)]
mod tests {
    use super::super::{profile_for, ScreenRows, TitleState};

    /// The bottom of the screen as 0.24.4 painted it on the fake model's
    /// 500, once it gave up retrying (2026-12-07, 120 columns).
    const SERVER_ERROR_SCREEN: [&str; 7] = [
        "  > say hello",
        "  ✕ [API Error: 500 The fake model had an internal error.] (Press Ctrl+Y to retry)",
        "─────────────────────────────────────────────────────────────────────────────────",
        ">   Type your message or @path/to/file",
        "─────────────────────────────────────────────────────────────────────────────────",
        "  ➜ proj · fake-model",
        "  ⏸ Ask permissions (shift + tab to cycle)",
    ];

    #[test]
    fn the_measured_500_screen_is_a_server_error_and_a_401_an_auth_failure() {
        use crate::stop::StopReason;
        let qwen = profile_for("qwen");
        let rows = SERVER_ERROR_SCREEN.to_vec();
        let read = |rows: &[&str]| {
            let screen = ScreenRows::new(rows.iter().copied());
            let found = qwen.screen_match(&screen)?;
            assert_eq!(found.id, "qwen.api-error");
            let stop = qwen.screen_stop_reason(found, &screen)?;
            Some((stop.reason, stop.by))
        };
        assert_eq!(
            read(&rows),
            Some((StopReason::ServerError, Some("qwen.error-5xx")))
        );
        let mut auth = rows.clone();
        auth[1] = "  ✕ [API Error: 401 invalid x-api-key] (Press Ctrl+Y to retry)";
        assert_eq!(
            read(&auth),
            Some((StopReason::AuthFailed, Some("qwen.error-401")))
        );
        let mut overloaded = rows.clone();
        overloaded[1] = "  ✕ [API Error: 529 Overloaded] (Press Ctrl+Y to retry)";
        assert_eq!(
            read(&overloaded),
            Some((StopReason::Overloaded, Some("qwen.error-529")))
        );
        // Something typed at the prompt: not the stopped screen.
        let mut typed = rows.clone();
        typed[3] = ">   continue";
        assert_eq!(read(&typed), None);
    }

    #[test]
    fn measured_titles() {
        let qwen = profile_for("qwen");
        for (title, state) in [
            ("Qwen - proj", TitleState::Idle),
            ("\u{25D0}\u{FE0E} Qwen - proj", TitleState::Busy),
            ("\u{2733}\u{FE0E} Qwen - proj", TitleState::NeedsYou),
            // Without the selector (another build, a terminal that strips it).
            ("\u{2733} Qwen - proj", TitleState::NeedsYou),
            ("Qwen", TitleState::Idle),
        ] {
            let padded = format!("{title:<80}");
            assert_eq!(qwen.classify_title(&padded), state, "{title:?}");
        }
    }

    /// Qwen's blocked star is Claude Code's idle glyph: under Qwen's own
    /// profile it is needs you, never idle, and Claude's rules are not the
    /// ones a Qwen task is read with.
    #[test]
    fn the_blocked_star_is_never_claudes_idle() {
        let blocked = "\u{2733}\u{FE0E} Qwen - proj";
        assert_eq!(
            profile_for("qwen").explain(blocked).decided_by,
            Some("qwen.blocked")
        );
        assert_ne!(
            profile_for("qwen").classify_title("✳ Qwen"),
            TitleState::Idle
        );
        // The bare star is what Claude's idle rule reads: Claude's profile
        // says idle for it, Qwen's says needs you.
        assert_eq!(
            profile_for("claude").classify_title("\u{2733} Qwen - proj"),
            TitleState::Idle
        );
        assert_eq!(profile_for("qwen-code").id, "qwen");
        // And a Claude title in a Qwen task is not Qwen's blocked state.
        assert_eq!(
            profile_for("qwen").classify_title("\u{2733} Claude Code"),
            TitleState::Unknown
        );
    }

    /// The bottom of the screen as 0.24.4 painted it under termic.
    #[test]
    fn the_measured_permission_prompt_is_needs_you() {
        let rows = [
            "  ? WriteFile Writing to out.txt ←",
            "   1 hello from the fake model",
            "   Apply this change?",
            "   › 1. Yes, allow once",
            "     2. Yes, allow always",
            "     3. No, suggest changes (esc)",
            "  ⠏ Waiting for user confirmation...",
        ];
        let qwen = profile_for("qwen");
        let found = qwen.screen_match(&ScreenRows::new(rows)).unwrap();
        assert_eq!(found.id, "qwen.permission-prompt");
        // Still thinking (the row the spinner paints before the prompt).
        let thinking = ScreenRows::new(["  > create the file", "  ⠏1Hmmm... let me think..."]);
        assert!(qwen.screen_match(&thinking).is_none());
    }

    use super::super::dialog::{choice, offered_on as offered};

    /// The 0.24.4 confirmation above: its three choices and their numbers;
    /// the choices without the spinner row under them are not the dialog.
    #[test]
    fn the_confirmation_offers_its_choices() {
        let rows = [
            "   Apply this change?",
            "   › 1. Yes, allow once",
            "     2. Yes, allow always",
            "     3. No, suggest changes (esc)",
            "  ⠏ Waiting for user confirmation...",
        ];
        assert_eq!(
            offered("qwen", "permission", &rows),
            [
                choice("approve_once", "Yes, allow once", "1"),
                choice("approve_always", "Yes, allow always", "2"),
                choice("deny", "No, suggest changes (esc)", "3"),
            ]
        );
        assert!(offered("qwen", "permission", &rows[..4]).is_empty());
        assert!(offered("qwen", "question", &rows).is_empty());
    }
}
