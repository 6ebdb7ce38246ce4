//! Claude Code. Measured on 2.1.332 (real-agents README) and 2.1.250 (plan).

use super::{AgentProfile, ErrorText, NativeStatus, NotifyIgnore, TitleRule, TitleState};
use crate::stop::StopReason;

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "claude",
    &["claude-code"],
    "Claude Code 2.1.332 (titles, 7501), 2.1.250 (notify filter)",
    &[
        TitleRule {
            id: "claude.busy-glyph",
            // U+25D0..U+25D3, the quarter-circle spinner family.
            pattern: r"^[\x{25D0}-\x{25D3}] ",
            state: TitleState::Busy,
            why:
                "2.1.332 alternates '◐ Claude Code' and '◑ Claude Code' every 960 ms while a turn \
                  runs (OSC 0 only); the other two frames of the family are accepted too. After a \
                  focus-out the glyph stops alternating but stays a busy glyph.",
        },
        TitleRule {
            id: "claude.idle-glyph",
            pattern: r"^\x{2733}( |$)",
            state: TitleState::Idle,
            why: "'✳ Claude Code' (U+2733) at the prompt. It also shows while blocked on a \
                  permission prompt (painted ~25 ms before PermissionRequest fires), so idle here \
                  is never proof of done: hooks or OSC 7501 correct it.",
        },
        TitleRule {
            id: "claude.plain-title",
            pattern: r"^Claude Code$",
            state: TitleState::Unknown,
            why: "once termic answers the OSC 7501 probe, 2.1.332 drops the glyph and the title \
                  says nothing about state; OSC 7501 carries it instead. Not idle.",
        },
    ],
    &[NotifyIgnore {
        id: "claude.waiting-nudge",
        contains: "is waiting for your input",
        why: "Claude's idle nudge ('Claude is waiting for your input'), sent seconds after a turn \
              or a prompt, is not a new block. termic's own attention message never contains it.",
    }],
)
// 2.1.332 sends `OSC 7501 ; ?` at start-up and reports its state only once
// the terminal answered; before that any 7501 in its output is printed text.
.speaks_native(NativeStatus::AfterProbe)
.with_error_text(ERROR_TEXT)
// 2.1.332 on a 401 reports `state=blocked:kind=auth` ("Invalid API key ·
// Fix external API key") where every other API error is `state=error`; its
// StopFailure says authentication_failed. The turn is over, not waiting.
.with_error_kinds(&[("auth", StopReason::AuthFailed)]);

/// The `msg=` of 2.1.332's `state=error` after it gave up (measured with
/// termic-fakemodel's error-429/500/529 scenarios; the same words are on
/// its screen after a bullet).
static ERROR_TEXT: &[ErrorText] = &[
    ErrorText {
        id: "claude.error-429",
        contains: "(429)",
        reason: StopReason::RateLimited,
        why: "'API Error: Request rejected (429) · <provider message>' after 10 retries \
              (~3 minutes with the default CLAUDE_CODE_MAX_RETRIES).",
    },
    ErrorText {
        id: "claude.error-529",
        contains: "529 Overloaded",
        reason: StopReason::Overloaded,
        why: "'API Error: Repeated 529 Overloaded errors. The API is at capacity ...'.",
    },
    ErrorText {
        id: "claude.error-529-once",
        contains: "API Error: 529",
        reason: StopReason::Overloaded,
        why: "a single 529 with CLAUDE_CODE_MAX_RETRIES=0: StopFailure says server_error, the \
              native message keeps the status.",
    },
    ErrorText {
        id: "claude.error-overloaded",
        contains: "Overloaded",
        reason: StopReason::Overloaded,
        why: "the same family worded without the status.",
    },
    ErrorText {
        id: "claude.error-5xx",
        contains: "API Error: 5",
        reason: StopReason::ServerError,
        why: "'API Error: 500 <provider message> This is a server-side issue ...'.",
    },
    ErrorText {
        id: "claude.error-auth",
        contains: "Invalid API key",
        reason: StopReason::AuthFailed,
        why:
            "a 401 is reported as blocked kind=auth with 'Invalid API key · Fix external API key'.",
    },
];
