//! GitHub Copilot CLI. Measured on 1.0.102 (termic-fakemodel's
//! fakemodel/more.rs): its title carries no state at all.

use super::{
    AgentProfile, Dialog, DialogChoice, ErrorText, Keys, Region, ScreenImplies, ScreenRule,
    TitleRule, TitleState,
};
use crate::stop::StopReason;

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
.with_error_text(ERROR_TEXT)
.with_screen_stop_ending_hooked_turns(
    "Copilot CLI 1.0.102 fires no agentStop when it gives up on a 429 or a 401 (only \
     sessionStart and userPromptSubmitted fired; measured 2026-12-06 with the fake model's \
     usage-limit and bad-key replies)",
)
.with_dialogs(DIALOGS)
.with_continue_prompt("continue");

/// How Copilot 1.0.102 words the API error it stopped on (its `✗` line).
static ERROR_TEXT: &[ErrorText] = &[
    ErrorText {
        id: "copilot.error-429",
        contains: "✗ 429 ",
        reason: StopReason::RateLimited,
        why: "'✗ 429 Usage limit reached for this key. Your limit resets at 15:00.' (the \
              provider's message after the status) one request after a 429 with retry-after \
              3600: it does not retry (measured 2026-12-06).",
    },
    // Its give-up line after retrying a 5xx names the last status
    // (measured 2026-12-07 on a 500: five retries over 15 s).
    ErrorText {
        id: "copilot.error-529",
        contains: "Last error: 529 ",
        reason: StopReason::Overloaded,
        why: "'✗ Failed to get response from the AI model; retried 5 times (...) Last error: \
              529 ...' (the 500 line measured, the status differing).",
    },
    ErrorText {
        id: "copilot.error-5xx",
        contains: "Last error: 5",
        reason: StopReason::ServerError,
        why: "'✗ Failed to get response from the AI model; retried 5 times (total retry wait \
              time: 14.93 seconds) Last error: 500 The fake model had an internal error.' \
              after six requests that got a 500 (measured 2026-12-07).",
    },
    ErrorText {
        id: "copilot.error-401",
        contains: "✗ Authentication failed ",
        reason: StopReason::AuthFailed,
        why: "'✗ Authentication failed with provider at <url> (HTTP 401).' after three \
              requests that got a 401 (measured 2026-12-06).",
    },
];

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
static SCREEN_RULES: &[ScreenRule] = &[
    ScreenRule {
        id: "copilot.permission-prompt",
        region: Region::LastRows(7),
        pattern: r"(?s)│ ❯ 1\. Yes +│\n.*│ ↑/↓ to navigate · enter to select · esc to cancel +│",
        implies: ScreenImplies::NeedsYou { kind: "permission" },
        measured_on: "GitHub Copilot CLI 1.0.102",
        why: "a box with 'Create file', the diff, 'Do you want to create <path>?', '❯ 1. Yes', \
          '2. Yes, and don't ask again ...', '3. No, and tell Copilot what to do differently \
          (Esc to stop)' and the footer '↑/↓ to navigate · enter to select · esc to cancel' \
          while a tool waits for approval. Its title and progress say nothing of it.",
    },
    ScreenRule {
        id: "copilot.rate-limit",
        region: Region::LastRows(10),
        pattern: RATE_LIMIT_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "GitHub Copilot CLI 1.0.102",
        why: "after it gives up on a 429: ' ✗ 429 <provider message>' (wrapped rows \
              indented) as the last transcript entry, then its working directory row and its \
              own empty prompt box ('╻▄▄▄', '┃', '╹▀▀▀') over its footer. The box is Copilot's \
              own: text a turn prints lands above the directory row (measured 2026-12-06).",
    },
    ScreenRule {
        id: "copilot.gave-up",
        region: Region::LastRows(10),
        pattern: GAVE_UP_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "GitHub Copilot CLI 1.0.102",
        why: "after it gives up on a 500 (six requests over 15 s, five ' ● Request failed due \
              to a transient API error. Retrying...' rows): ' ✗ Failed to get response from the \
              AI model; retried 5 times (total retry wait time: 14.93 seconds) Last error: 500 \
              <provider message>' as the last transcript entry, then its working directory row \
              and its own empty prompt box over its footer; its hooks send no agentStop, so \
              without this a hooked turn read working for good (measured 2026-12-07).",
    },
    ScreenRule {
        id: "copilot.auth-failed",
        region: Region::LastRows(10),
        pattern: AUTH_FAILED_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "GitHub Copilot CLI 1.0.102",
        why: "after it gives up on a 401 (three requests, two ' ● Request failed due to a \
              transient API error. Retrying...' rows): ' ✗ Authentication failed with \
              provider at <url> (HTTP 401).' and its indented hint 'Check your \
              COPILOT_PROVIDER_API_KEY, ...' as the last transcript entry, then its working \
              directory row and its own empty prompt box over its footer; its hooks send no \
              agentStop (real_agents matrix::cell_copilot_error_hooks, 2026-12-06).",
    },
];

/// Copilot's `✗` line that starts with `$head` (and its indented wrapped
/// rows), right above its directory row, its empty prompt box and its
/// footer (the last rows).
macro_rules! gave_up_on {
    ($head:literal) => {
        concat!(
            r"(?m)^ ✗ ",
            $head,
            r"[^\n]*(?:\n {2,}[^\n]*)*\n [^\n]*\n╻▄+ *\n┃ *\n╹▀+ *\n[^\n]*\z"
        )
    };
}

/// Its `✗ 429` line.
const RATE_LIMIT_PATTERN: &str = gave_up_on!("429 ");

/// Its `✗ Failed to get response` line (it gave up retrying, a 5xx).
const GAVE_UP_PATTERN: &str = gave_up_on!("Failed to get response from the AI model");

/// Its `✗ Authentication failed` line (a 401).
const AUTH_FAILED_PATTERN: &str = gave_up_on!("Authentication failed ");

#[cfg(test)]
mod tests {
    use super::super::{profile_for, ScreenRows, TitleState};
    use crate::limit::ResetAt;
    use crate::stop::StopReason;

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

    /// The bottom of the screen as 1.0.102 painted it under termic on the
    /// fake model's usage-limit reply (2026-12-06, 120 columns; the blank
    /// rows between are dropped by the region).
    const LIMIT_SCREEN: [&str; 9] = [
        " ▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄",
        "  ❯ say hello                                           19:04  ",
        " ▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀",
        " ✗ 429 Usage limit reached for this key. Your limit resets at 15:00. ",
        " /tmp/termic-real-termic-copilot-1287-0/proj",
        "╻▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄",
        "┃  ",
        "╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀",
        " ← open sidebar · Interactive · Manual Approval · / commands · ? help       fake-model",
    ];

    /// `screen` (Copilot's `✗` line at row `line`, its directory row at
    /// row 4, its prompt box's middle row at row 6) is `rule`, naming
    /// `reason` by the error text `by` (and `until`). Not its error: a
    /// prompt typed into the box, the line printed by a turn (indented),
    /// or a spinner row under it (the turn goes on).
    fn assert_gave_up<const N: usize>(
        screen: [&str; N],
        line: usize,
        rule: &str,
        (reason, by, until): (StopReason, &str, Option<ResetAt>),
    ) {
        let copilot = profile_for("copilot");
        let rows = ScreenRows::new(screen);
        let found = copilot.screen_match(&rows).unwrap();
        assert_eq!(found.id, rule);
        let stop = copilot.screen_stop_reason(found, &rows).unwrap();
        assert_eq!(
            (stop.reason, stop.by, stop.until),
            (reason, Some(by), until)
        );
        assert!(copilot.screen_stop_ends_hooked_turn.is_some());
        let rows = || screen.map(str::to_string).to_vec();
        let mut typed = rows();
        let prompt = screen.iter().position(|r| r.starts_with('┃')).unwrap();
        typed[prompt] = "┃ continue".to_string();
        let mut printed = rows();
        printed[line] = format!("  {}", screen[line]);
        let mut below = rows();
        below.insert(4, " ◐ Thinking (Esc to cancel)".to_string());
        for rows in [typed, printed, below] {
            let found = copilot.screen_match(&ScreenRows::new(rows.iter().map(String::as_str)));
            assert!(found.is_none(), "{rows:?}");
        }
    }

    #[test]
    fn the_measured_usage_limit_screen_is_a_rate_limit_until_its_reset() {
        let limit = (
            StopReason::RateLimited,
            "copilot.error-429",
            ResetAt::new(15, 0),
        );
        assert_gave_up(LIMIT_SCREEN, 3, "copilot.rate-limit", limit);
        // Another status on the same line is not the limit.
        let mut other = LIMIT_SCREEN;
        other[3] = " ✗ 500 The fake model had an internal error.";
        assert!(profile_for("copilot")
            .screen_match(&ScreenRows::new(other))
            .is_none());
    }

    /// The bottom of the screen as 1.0.102 painted it under termic on the
    /// fake model's 401 (2026-12-06, 120 columns; blank rows dropped).
    const AUTH_SCREEN: [&str; 9] = [
        " ● Request failed due to a transient API error. Retrying...",
        " ● Request failed due to a transient API error. Retrying...",
        " ✗ Authentication failed with provider at http://127.0.0.1:33591/v1 (HTTP 401).",
        "     Check your COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN.",
        " /tmp/termic-real-termic-copilot-21187-1/proj",
        "╻▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄",
        "┃  ",
        "╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀",
        " ← open sidebar · Interactive · Manual Approval · / commands · ? help · tab next tab   fake-model",
    ];

    /// The bottom of the screen as 1.0.102 painted it on the fake model's
    /// 500 (2026-12-07, 120 columns; blank rows dropped).
    const GAVE_UP_SCREEN: [&str; 10] = [
        " ● Request failed due to a transient API error. Retrying...",
        " ● Request failed due to a transient API error. Retrying...",
        " ● Request failed due to a transient API error. Retrying...",
        " ✗ Failed to get response from the AI model; retried 5 times (total retry wait time: 14.93 seconds) Last error: 500 Th",
        "   fake model had an internal error.",
        " /tmp/termic-real-copilot-3046-1/proj",
        "╻▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄",
        "┃",
        "╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀",
        " ← open sidebar · Interactive · Manual Approval · / commands · ? help · tab next tab   fake-model",
    ];

    #[test]
    fn the_measured_500_screen_is_a_server_error_and_a_529_is_overloaded() {
        let rows = GAVE_UP_SCREEN;
        let server = (StopReason::ServerError, "copilot.error-5xx", None);
        assert_gave_up(rows, 3, "copilot.gave-up", server);
        let mut overloaded = rows;
        overloaded[3] = " ✗ Failed to get response from the AI model; retried 5 times (total retry wait time: 14.93 seconds) Last error: 529 Ov";
        let copilot = profile_for("copilot");
        let screen = ScreenRows::new(overloaded);
        let found = copilot.screen_match(&screen).expect("the 529 line");
        let stop = copilot.screen_stop_reason(found, &screen).unwrap();
        assert_eq!(
            (stop.reason, stop.by),
            (StopReason::Overloaded, Some("copilot.error-529"))
        );
        // Retrying, not given up: nothing.
        let retrying = &rows[..3];
        assert!(copilot
            .screen_match(&ScreenRows::new(retrying.iter().copied()))
            .is_none());
    }

    #[test]
    fn the_measured_401_screen_is_an_auth_failure() {
        let auth = (StopReason::AuthFailed, "copilot.error-401", None);
        assert_gave_up(AUTH_SCREEN, 2, "copilot.auth-failed", auth);
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
