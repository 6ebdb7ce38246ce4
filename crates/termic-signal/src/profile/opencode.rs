//! opencode. Measured on 1.18.33 (real-agents README) and 1.17.11 (plan).

use super::{
    AgentProfile, Dialog, DialogChoice, FollowUp, Keys, Region, ScreenImplies, ScreenRule,
    TitleRule, TitleState,
};

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
.with_dialogs(DIALOGS)
.with_continue_prompt("continue");

/// The choices row of the permission prompt (the region's last rows).
const PERMISSION_PATTERN: &str = r"(?m)^[ ┃]*Allow once +Allow always +Reject\b.*\benter confirm$";

/// The prompt's options, left to right, as painted.
const PERMISSION_OPTIONS: &[&str] = &["Allow once", "Allow always", "Reject"];

/// opencode 1.18.33's permission prompt and its keys (issue 30), measured
/// 2026-12-06 on the real binary under termic and in its own keymap: the
/// row 'Allow once   Allow always   Reject' marks the selected option only
/// with its background colour; Left/Right (and h/l) move the selection
/// round the three and Enter picks it, and no key picks an option
/// whatever is selected (a mouse click on one does, at a place termic
/// would have to compute). So "Allow once" and "Allow always" are offered
/// only when the screen was read with its colours and one option's
/// background stands out: the arrows from it, then Enter. Escape is the
/// prompt's own reject key, whatever is selected: for the session the user
/// talks to it replies reject at once (a subagent's prompt asks for a
/// reason first).
///
/// "Allow always" opens a second prompt (2026-12-07, [`ALWAYS_CONFIRM`]),
/// answered once it shows with Confirm on the colour the first prompt
/// painted its selection.
static DIALOGS: &[Dialog] = &[Dialog {
    id: "opencode.permission",
    kind: "permission",
    region: Region::LastRows(3),
    pattern: PERMISSION_PATTERN,
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^[ ┃]*(?P<label>Allow once) +Allow always +Reject\b.*\benter confirm$",
            numbered: false,
            keys: Keys::Across {
                options: PERMISSION_OPTIONS,
                then: None,
            },
        },
        DialogChoice {
            id: "approve_always",
            row: r"^[ ┃]*Allow once +(?P<label>Allow always) +Reject\b.*\benter confirm$",
            numbered: false,
            keys: Keys::Across {
                options: PERMISSION_OPTIONS,
                then: Some(&ALWAYS_CONFIRM),
            },
        },
        DialogChoice {
            id: "deny",
            row: r"^[ ┃]*Allow once +Allow always +(?P<label>Reject)\b.*\benter confirm$",
            numbered: false,
            keys: Keys::Fixed(b"\x1b"),
        },
    ],
    measured_on: "opencode 1.18.33",
    why: "Escape on the prompt rejected the write (permission.replied reject, no file, then \
          session.idle); Left or Right from the option painted on the odd background, then \
          Enter, allowed it once (permission.replied once, the file written, session.idle), \
          measured 2026-12-06; the prompt starts on Allow once.",
}];

/// The second prompt "Allow always" opens, measured on 1.18.33 under
/// termic (2026-12-07): '△ Always allow', 'This will allow edit until
/// OpenCode is restarted.' (or the patterns it allows), then the row
/// 'Confirm   Cancel ... ⇆ select  enter confirm' (no fullscreen key),
/// painted 149 ms after the Enter that opened it. It opens on Confirm,
/// painted on the first prompt's selected colour (rgb(245,167,66)),
/// Cancel on its unselected one (rgb(30,30,30)); Left/Right move, Enter
/// picks (Confirm: the write happened, one done); Escape is Cancel, back
/// to the first prompt on Allow once. In its source (the binary's
/// `options:{confirm:"Confirm",cancel:"Cancel"}`, `selected: keys[0]`)
/// it is a fresh prompt each time, so it always opens on Confirm.
pub(super) static ALWAYS_CONFIRM: FollowUp = FollowUp {
    region: Region::LastRows(3),
    row: r"^[ ┃]*Confirm +Cancel\b.*\benter confirm$",
    options: &["Confirm", "Cancel"],
    pick: 0,
};

/// opencode 1.18.33's permission prompt as painted under termic (tests/
/// real_agents/screen.rs): without its plugin nothing else says it waits
/// (its titles carry no state, session.status stays busy).
static SCREEN_RULES: &[ScreenRule] = &[ScreenRule {
    id: "opencode.permission-prompt",
    // The diff between the title and the choices grows with the edit, so
    // the rule reads the choices row, which carries the prompt's own keys.
    region: Region::LastRows(3),
    pattern: PERMISSION_PATTERN,
    implies: ScreenImplies::NeedsYou { kind: "permission" },
    measured_on: "opencode 1.18.33",
    why: "'┃  △ Permission required', '┃    → Edit out.txt', the diff (a dozen '┃' rows or \
          more), then '┃   Allow once   Allow always   Reject ... ⇆ select  enter confirm' \
          while a tool waits for approval.",
}];

#[cfg(test)]
mod tests {
    use super::super::dialog::{choice, offered_on};
    use super::super::{profile_for, ScreenRows};

    /// The bottom of the prompt as 1.18.33 painted it under termic
    /// (2026-12-06, the real binary against the fake model).
    const PROMPT: &[&str] = &[
        "  ┃  △ Permission required",
        "  ┃    → Edit out.txt",
        "  ┃",
        "  ┃  1 + hello from the fake model",
        "  ┃",
        "  ┃   Allow once   Allow always   Reject                \
         ctrl+f fullscreen  ⇆ select  enter confirm",
        "  ┃",
    ];

    /// The background colours of the options row as 1.18.33 painted them
    /// under termic (tests/real_agents/binary.rs prints them, 2026-12-06),
    /// as the runtime keys them: the row and an unselected option's box
    /// share rgb(30,30,30); the selected one is rgb(245,167,66), the
    /// theme's warning colour.
    const PANEL: u32 = 0x0200_0000 | 0x1e1e1e;
    const MENU: u32 = PANEL;
    const SELECTED: u32 = 0x0200_0000 | 0xf5a742;

    /// The prompt read with colours, option `selected` (0 to 2) painted on
    /// the warning colour; `None`: every option on one colour.
    fn painted(selected: Option<usize>) -> ScreenRows {
        let rows = PROMPT.iter().map(|row| {
            let mut runs = vec![(0, PANEL)];
            if row.contains("Allow once") {
                for (i, option) in ["Allow once", "Allow always", "Reject"].iter().enumerate() {
                    let at = row.find(option).unwrap();
                    // The box: one space of padding each side.
                    let first = row[..at].chars().count() - 1;
                    let shade = if selected == Some(i) { SELECTED } else { MENU };
                    runs.push((first as u16, shade));
                    runs.push((first as u16 + option.chars().count() as u16 + 2, PANEL));
                }
            }
            (row.to_string(), runs)
        });
        ScreenRows::bottom_shaded(rows.collect(), 40)
    }

    fn offered(screen: &ScreenRows) -> Vec<(String, Vec<u8>)> {
        profile_for("opencode")
            .read_dialog("permission", screen)
            .map(|d| d.choices)
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.id, c.keys))
            .collect()
    }

    /// Allow once and Allow always from wherever the selection is: the
    /// arrows from the option on the odd background, then Enter; Reject
    /// is Escape.
    #[test]
    fn allow_once_is_the_arrows_from_the_selected_option_then_enter() {
        let expect = |once: &[u8], always: &[u8]| {
            vec![
                ("approve_once".to_string(), once.to_vec()),
                ("approve_always".to_string(), always.to_vec()),
                ("deny".to_string(), b"\x1b".to_vec()),
            ]
        };
        assert_eq!(offered(&painted(Some(0))), expect(b"\r", b"\x1b[C\r"));
        assert_eq!(offered(&painted(Some(1))), expect(b"\x1b[D\r", b"\r"));
        assert_eq!(
            offered(&painted(Some(2))),
            expect(b"\x1b[D\x1b[D\r", b"\x1b[D\r")
        );
    }

    /// The second prompt as 1.18.33 painted it under termic (2026-12-07),
    /// option `selected` on `on` and the other on `off`.
    fn always_prompt(selected: Option<usize>, on: u32, off: u32) -> ScreenRows {
        let rows = [
            "  ┃  △ Always allow",
            "  ┃",
            "  ┃  This will allow edit until OpenCode is restarted.",
            "  ┃",
            "  ┃   Confirm   Cancel                                      ⇆ select  enter confirm",
            "  ┃",
        ];
        let rows = rows.iter().map(|row| {
            let mut runs = vec![(0, PANEL)];
            if row.contains("Confirm ") {
                for (i, option) in ["Confirm", "Cancel"].iter().enumerate() {
                    let first = row[..row.find(option).unwrap()].chars().count() - 1;
                    let shade = if selected == Some(i) { on } else { off };
                    runs.push((first as u16, shade));
                    runs.push((first as u16 + option.chars().count() as u16 + 2, PANEL));
                }
            }
            (row.to_string(), runs)
        });
        ScreenRows::bottom_shaded(rows.collect(), 40)
    }

    /// Allow always is two steps: its arrows and Enter, then, once the
    /// "Always allow" prompt shows with one option on the colour the first
    /// prompt painted its selection (and the other on its unselected one),
    /// the arrows from it to Confirm and Enter. Anything else sends
    /// nothing more: the first prompt still up, a screen without colours,
    /// both options alike, colours other than the first prompt's.
    #[test]
    fn allow_always_confirms_only_the_prompt_it_measured() {
        let read = profile_for("opencode")
            .read_dialog("permission", &painted(Some(0)))
            .unwrap();
        let always = read
            .choices
            .iter()
            .find(|c| c.id == "approve_always")
            .unwrap();
        assert_eq!(always.keys, b"\x1b[C\r");
        let then = always.then.expect("a second prompt");
        assert_eq!((then.selected, then.unselected), (SELECTED, MENU));
        let once = &read.choices[0];
        assert_eq!((once.id.as_str(), once.then), ("approve_once", None));
        // It opens on Confirm: Enter.
        let confirm = always_prompt(Some(0), SELECTED, MENU);
        assert_eq!(then.keys(&confirm), Some(b"\r".to_vec()));
        // On Cancel (moved there): Left, Enter.
        let cancel = always_prompt(Some(1), SELECTED, MENU);
        assert_eq!(then.keys(&cancel), Some(b"\x1b[D\r".to_vec()));
        // Not drawn yet, or not as measured: nothing.
        assert_eq!(then.keys(&painted(Some(1))), None);
        let rows: Vec<String> = confirm.rows.clone();
        assert_eq!(then.keys(&ScreenRows::new(rows)), None);
        assert_eq!(then.keys(&always_prompt(None, SELECTED, MENU)), None);
        let other = 0x0200_0000 | 0x123456;
        assert_eq!(then.keys(&always_prompt(Some(0), other, MENU)), None);
        assert_eq!(then.keys(&always_prompt(Some(0), SELECTED, other)), None);
        // The first prompt offers no second step for its other choices.
        assert!(read
            .choices
            .iter()
            .all(|c| c.then.is_none() || c.id == "approve_always"));
    }

    /// When the selection cannot be read (no colours, or no option stands
    /// out) Allow once and Allow always are not offered: only Reject,
    /// whatever is selected.
    #[test]
    fn an_unreadable_selection_offers_reject_only() {
        let deny = [choice("deny", "Reject", "\x1b")];
        assert_eq!(offered_on("opencode", "permission", PROMPT), deny);
        let deny_only = vec![("deny".to_string(), b"\x1b".to_vec())];
        assert_eq!(offered(&painted(None)), deny_only);
        assert!(offered_on("opencode", "permission", &PROMPT[..4]).is_empty());
        assert!(offered_on("opencode", "question", PROMPT).is_empty());
    }
}
