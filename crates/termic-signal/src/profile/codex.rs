//! Codex. Measured on 0.171.0 (real-agents README) and 0.142.5 (plan).

use super::{
    AgentProfile, Dialog, DialogChoice, Keys, NativeStatus, Region, TitleRule, TitleState,
};

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
.speaks_native(NativeStatus::Always)
.with_dialogs(DIALOGS)
.with_continue_prompt("continue");

/// Codex's approval and its keys (issue 30), as 0.171.0 painted it under
/// termic (measured 2026-12-06): 'Would you like to run the following
/// command?', the command, then '› 1. Yes, proceed (y)', '2. No, and tell
/// Codex what to do differently (esc)' and 'Press enter to confirm or esc
/// to cancel'. Each option names its own key in parentheses; a choice is
/// read only with that key on its row, and sends it (`y`, `a`, Esc).
static DIALOGS: &[Dialog] = &[Dialog {
    id: "codex.approval",
    kind: "permission",
    region: Region::LastRows(8),
    pattern: r"(?m)^ *Press enter to confirm or esc to cancel$",
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^ *(?:› *)?(?P<n>1)\. (?P<label>Yes, proceed) \(y\)$",
            numbered: false,
            keys: Keys::Fixed(b"y"),
        },
        DialogChoice {
            id: "approve_always",
            row: r"^ *(?:› *)?(?P<n>[2-9])\. (?P<label>Yes, and don't ask again[^()]*) \(a\)$",
            numbered: false,
            keys: Keys::Fixed(b"a"),
        },
        DialogChoice {
            id: "deny",
            row: r"^ *(?:› *)?(?P<n>[2-9])\. (?P<label>No\b[^()]*) \(esc\)$",
            numbered: false,
            keys: Keys::Fixed(b"\x1b"),
        },
    ],
    measured_on: "Codex 0.171.0",
    why: "the approval's options each end with their key: '(y)', '(a)' when offered, '(esc)'; \
          the footer 'Press enter to confirm or esc to cancel' is the dialog's last row.",
}];

#[cfg(test)]
mod tests {
    use super::super::{profile_for, ScreenRows};

    /// The approval as 0.171.0 painted it (2026-12-06, tests/real_agents
    /// binary.rs' codex run, the task's pane).
    #[test]
    fn the_approval_offers_its_choices_with_their_own_keys() {
        let rows = [
            "  Would you like to run the following command?",
            "  Environment: local",
            "  Reason: The fake model wants to create a file.",
            "  $ printf %s 'hello from the fake model",
            "  ' > '/tmp/x/proj/out.txt'",
            "› 1. Yes, proceed (y)",
            "  2. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or esc to cancel",
        ];
        let read = profile_for("codex")
            .read_dialog("permission", &ScreenRows::new(rows))
            .unwrap();
        let got: Vec<(&str, &str, &[u8])> = read
            .choices
            .iter()
            .map(|c| (c.id.as_str(), c.label.as_str(), c.keys.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("approve_once", "Yes, proceed", b"y".as_slice()),
                (
                    "deny",
                    "No, and tell Codex what to do differently",
                    b"\x1b".as_slice()
                ),
            ]
        );
        // The options without the footer are not the dialog.
        assert!(profile_for("codex")
            .read_dialog("permission", &ScreenRows::new(&rows[..7]))
            .is_none());
    }
}
