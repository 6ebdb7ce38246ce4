//! Grok Build CLI. Titles measured on 0.2.111 (real-agents README); 1.0.5
//! (plan) paints the same busy titles but never 'Action Required'.

use super::{AgentProfile, Region, ScreenImplies, ScreenRule, TitleRule, TitleState};

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
.with_screen_rules(SCREEN_RULES);

/// grok 0.2.111's permission prompt as painted under termic (tests/
/// real_agents.rs). Its title says Action Required too; the screen rule is
/// the second, independent sign (and the only one on a version whose title
/// freezes, as the plan measured on 1.0.5, if it paints the same dialog).
static SCREEN_RULES: &[ScreenRule] = &[ScreenRule {
    id: "grok.permission-prompt",
    region: Region::LastRows(10),
    pattern: r"(?s)┃ +Allow [^\n]*\?\n.*\n *\d+/\d+:select +│ +Ctrl\+o:always-approve",
    implies: ScreenImplies::NeedsYou { kind: "permission" },
    measured_on: "grok 0.2.111",
    why: "'┃  Allow Edit to /path/out.txt?', four '(○)' choices, then the footer \
          '1/4:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel' while a tool waits for \
          approval.",
}];
