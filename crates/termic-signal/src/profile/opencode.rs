//! opencode. Measured on 1.18.33 (real-agents README) and 1.17.11 (plan).

use super::{AgentProfile, Region, ScreenImplies, ScreenRule, TitleRule, TitleState};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "opencode",
    &[],
    "opencode 1.18.33",
    &[TitleRule {
        id: "opencode.session-title",
        pattern: r"^(OpenCode|OC \| .*)$",
        state: TitleState::Unknown,
        why: "'OpenCode', then 'OC | <session title>': no busy or idle state. Its turn comes \
              from its plugin (session.status, permission.asked, session.idle).",
    }],
    &[],
)
.with_screen_rules(SCREEN_RULES)
.with_continue_prompt("continue");

/// opencode 1.18.33's permission prompt as painted under termic (tests/
/// real_agents/screen.rs): without its plugin nothing else says it waits
/// (its titles carry no state, session.status stays busy).
static SCREEN_RULES: &[ScreenRule] = &[ScreenRule {
    id: "opencode.permission-prompt",
    // The diff between the title and the choices grows with the edit, so
    // the rule reads the choices row, which carries the prompt's own keys.
    region: Region::LastRows(3),
    pattern: r"(?m)^[ ┃]*Allow once +Allow always +Reject\b.*\benter confirm$",
    implies: ScreenImplies::NeedsYou { kind: "permission" },
    measured_on: "opencode 1.18.33",
    why: "'┃  △ Permission required', '┃    → Edit out.txt', the diff (a dozen '┃' rows or \
          more), then '┃   Allow once   Allow always   Reject ... ⇆ select  enter confirm' \
          while a tool waits for approval.",
}];
