//! Grok Build CLI. Titles measured on 0.2.111 (real-agents README); 1.0.5
//! (plan) paints the same busy titles but never 'Action Required'.

use super::{
    AgentProfile, Dialog, DialogChoice, ErrorText, Keys, Region, ScreenImplies, ScreenRule,
    TitleRule, TitleState,
};
use crate::stop::StopReason;

/// Braille spinner (~4 Hz) followed by grok's ` - ` separator.
macro_rules! spinner {
    ($rest:literal) => {
        concat!(r"^[\x{2800}-\x{28FF}] - ", $rest)
    };
}

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "grok",
    &[],
    "grok 0.2.111 (titles), 1.0.5 (plan)",
    &[
        TitleRule {
            id: "grok.action-required",
            pattern: r"^\x{26A0}\x{FE0F}? Action Required\b",
            state: TitleState::NeedsYou,
            why:
                "0.2.111: '⚠ Action Required - <spinner> - Running: ... - grok' while a permission \
                  prompt waits. 1.0.5 instead froze on a busy spinner (217 s measured), so there \
                  only the Notification hook says needs-you.",
        },
        TitleRule {
            id: "grok.waiting-for-model",
            pattern: spinner!(r"Waiting for response(\x{2026}|\.\.\.)"),
            state: TitleState::Busy,
            why: "'<spinner> - Waiting for response… - [<session> - ]grok' means waiting on the \
                  MODEL, never on the user: a 'Waiting|Action Required' pattern would badge \
                  needs-you on every turn.",
        },
        TitleRule {
            id: "grok.busy-spinner",
            pattern: spinner!(""),
            state: TitleState::Busy,
            why:
                "'<spinner> - Running: <tool> ... - grok', '<spinner> - Responding - ... - grok', \
                  '<spinner> - Thinking - grok' while a turn runs.",
        },
        TitleRule {
            id: "grok.idle",
            pattern: r"(^| - )grok$",
            state: TitleState::Idle,
            why: "'grok' at start and '<session title> - grok' at the prompt (also 10-26 ms after \
                  an Escape).",
        },
    ],
    &[],
)
.with_screen_rules(SCREEN_RULES)
.with_dialogs(DIALOGS)
.with_error_text(ERROR_TEXT)
.with_continue_prompt("continue");

/// grok 0.2.111's permission prompt as painted under termic (tests/
/// real_agents/tasks.rs). Its title says Action Required too; the screen rule is
/// the second, independent sign (and the only one on a version whose title
/// freezes, as the plan measured on 1.0.5, if it paints the same dialog).
static SCREEN_RULES: &[ScreenRule] = &[
    ScreenRule {
        id: "grok.permission-prompt",
        region: Region::LastRows(10),
        pattern: PERMISSION_PATTERN,
        implies: ScreenImplies::NeedsYou { kind: "permission" },
        measured_on: "grok 0.2.111",
        why: "'┃  Allow Edit to /path/out.txt?', four '(○)' choices, then the footer \
          '1/4:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel' while a tool waits for \
          approval.",
    },
    ScreenRule {
        id: "grok.turn-failed",
        region: Region::LastRows(14),
        pattern: TURN_FAILED_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "grok 0.2.111",
        why: "after it gives up on an API error, the last transcript entry is its own failure \
              line right above its empty prompt box: 'Retry failed: API error (status 529 ...)' \
              then 'Turn failed in 0.0s: Internal error: {...\"http_status\": 529}' (529), \
              'Retry failed: rate_limit_error: ...' (429), '┃  Authentication required — ... \
              Run /login to re-authenticate' (401); its title is idle (529, 401) or a frozen \
              spinner (429).",
    },
];

/// The permission prompt's choices as 0.2.111 paints them (measured
/// 2026-12-06 under termic, tests/real_agents/binary.rs' grok runs):
/// '┃  Allow Edit to /path/out.txt?', then '┃  1 (●) Yes, and don't ask
/// again for anything (always-approve mode)', '2 (○) Yes, allow all edits
/// during this session', '3 (○) Yes', '4 (○) No, reject (type to add
/// feedback)' over the footer '1/4:select │ Ctrl+o:always-approve │
/// Ctrl+c:cancel'. A typed digit picks its option at once, whichever is
/// marked `(●)`: `3` approves this call, `4` rejects it. Option 1 turns on
/// always-approve mode for everything, more than a tap on one permission
/// should grant: it is not offered.
static DIALOGS: &[Dialog] = &[Dialog {
    id: "grok.permission",
    kind: "permission",
    region: Region::LastRows(10),
    pattern: PERMISSION_PATTERN,
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^ *┃ +(?P<n>[1-9]) \([●○]\) (?P<label>Yes)$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "approve_always",
            row: r"^ *┃ +(?P<n>[1-9]) \([●○]\) (?P<label>Yes, allow all [^\n]* during this session)$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "deny",
            row: r"^ *┃ +(?P<n>[1-9]) \([●○]\) (?P<label>No\b.*)$",
            numbered: false,
            keys: Keys::Number,
        },
    ],
    measured_on: "grok 0.2.111",
    why: "each option's row starts with its digit; '3' answered 'Yes' (post_tool_use, then \
          one stop) and '4' rejected (permission_denied), measured 2026-12-06.",
}];

/// The question line, the radio rows, then the footer with the keys.
const PERMISSION_PATTERN: &str =
    r"(?s)┃ +Allow [^\n]*\?\n.*\n *\d+/\d+:select +│ +Ctrl\+o:always-approve";

/// A failure line, at most eight more transcript rows (the error's JSON,
/// a wrapped row), then the empty prompt box `╭─` / `│ ❯ │` / `╰─` and at
/// most one footer row: nothing else may sit between them or below.
const TURN_FAILED_PATTERN: &str = r"(?m)^ {2,}(Turn failed in [0-9.]+m?s: |Retry failed: |┃ +Authentication required\b)[^\n]*(\n {2,}[^\n╭]*){0,8}\n *╭─+[^\n]*\n *│ ❯[ \x{A0}]*│\n *╰─+[^\n]*(\n[^\n]*)?\z";

/// How 0.2.111 words the API error it gave up on (its screen; the same
/// words are in its `agent_error` Notification), first match wins.
static ERROR_TEXT: &[ErrorText] = &[
    ErrorText {
        id: "grok.error-429",
        contains: "rate_limit_error",
        reason: StopReason::RateLimited,
        why: "'Retry failed: rate_limit_error: <provider message>' after one retry of a 429.",
    },
    ErrorText {
        id: "grok.error-status-429",
        contains: "(status 429",
        reason: StopReason::RateLimited,
        why: "'API error (status 429 Too Many Requests)' in its Notification's message.",
    },
    ErrorText {
        id: "grok.error-529",
        contains: "(status 529",
        reason: StopReason::Overloaded,
        why: "'API error (status 529 <unknown status code>): ...' on a 529, no retry.",
    },
    ErrorText {
        id: "grok.error-auth",
        contains: "Authentication required",
        reason: StopReason::AuthFailed,
        why: "'Authentication required — your session has expired or your credentials were \
              rejected' on a 401, no retry.",
    },
    ErrorText {
        id: "grok.error-5xx",
        contains: "(status 5",
        reason: StopReason::ServerError,
        why: "'API error (status 5NN ...)' for the other server errors.",
    },
];

#[cfg(test)]
mod tests {
    use super::super::dialog::{choice, offered_on};

    /// The prompt as 0.2.111 painted it under termic (2026-12-06, the
    /// real binary against the fake model).
    const PROMPT: &[&str] = &[
        "    ◆ Run Write `/tmp/p/out.txt` 2.6s                 2.8s ⇣20 [stop]",
        "  ┃",
        "  ┃  Allow Edit to /tmp/p/out.txt?",
        "  ┃",
        "  ┃  1 (●) Yes, and don't ask again for anything (always-approve mode)",
        "  ┃  2 (○) Yes, allow all edits during this session",
        "  ┃  3 (○) Yes",
        "  ┃  4 (○) No, reject (type to add feedback)",
        "  ┃",
        "",
        "  1/4:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel",
    ];

    #[test]
    fn the_permission_prompt_offers_its_digits_but_not_always_approve_mode() {
        assert_eq!(
            offered_on("grok", "permission", PROMPT),
            [
                choice("approve_once", "Yes", "3"),
                choice(
                    "approve_always",
                    "Yes, allow all edits during this session",
                    "2"
                ),
                choice("deny", "No, reject (type to add feedback)", "4"),
            ]
        );
        // The choices without the footer are not the prompt.
        assert!(offered_on("grok", "permission", &PROMPT[..9]).is_empty());
        assert!(offered_on("grok", "question", PROMPT).is_empty());
    }
}
