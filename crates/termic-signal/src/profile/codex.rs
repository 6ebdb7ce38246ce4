//! Codex. Measured on 0.171.0 (real-agents README) and 0.142.5 (plan).

use super::{AgentProfile, NativeStatus, TitleRule, TitleState};

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "codex",
    &[],
    "Codex 0.171.0, 0.142.5",
    &[
        TitleRule {
            id: "codex.action-required",
            pattern: r"^\[ [!.] \] Action Required( \||$)",
            state: TitleState::NeedsYou,
            why: "'[ . ] Action Required | <thread> | proj', alternating with '[ ! ]' every ~1 s \
                  while an approval waits. Held until 1 s after the last key press, so ~1 s late; \
                  OSC 7501 'blocked' arrives at ~90 ms.",
        },
        TitleRule {
            id: "codex.busy-spinner",
            pattern: r"^[\x{2800}-\x{28FF}] ",
            state: TitleState::Busy,
            why: "'<braille spinner> <thread title> | proj' while a turn runs.",
        },
        TitleRule {
            id: "codex.project-name",
            pattern: r"^\S",
            state: TitleState::Idle,
            why: "at the prompt the title is the project directory name alone. Any other title \
                  format reads as idle too, which is why OSC 7501 (always on in codex) outranks \
                  titles.",
        },
    ],
    &[],
)
// 0.171.0 reports OSC 7501 from start-up without any probe.
.speaks_native(NativeStatus::Always);
