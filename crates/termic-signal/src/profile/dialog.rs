//! Dialogs: how an agent's permission, question or plan dialog looks at
//! the bottom of its screen, the choices it offers and the keys each takes
//! (issue 30, one-tap answers). An agent's dialogs live in its own profile
//! file, as data like its screen rules.
//!
//! Reading a dialog never moves a task (screen rules do that, and only
//! for an agent whose hooks or native status are off); it only says which
//! of the agent's answers are on the screen right now, so a client can
//! offer them and the server can check, just before it sends a choice's
//! keys, that the dialog still shows it. The choice ids are termic's own
//! (from the profile, never from the screen); a label is the option's text
//! as painted, cleaned.
//!
//! ```
//! use termic_signal::profile::{profile_for, ScreenRows};
//!
//! let rows = ScreenRows::new([
//!     " Do you want to create out.txt?",
//!     " ❯ 1. Yes",
//!     "   2. Yes, allow all edits during this session (shift+tab)",
//!     "   3. No, and tell Claude what to do differently (esc)",
//! ]);
//! let read = profile_for("claude").read_dialog("permission", &rows).unwrap();
//! let ids: Vec<&str> = read.choices.iter().map(|c| c.id.as_str()).collect();
//! assert_eq!(ids, ["approve_once", "approve_always", "deny"]);
//! assert_eq!(read.choices[2].keys, b"3");
//! assert!(profile_for("claude").read_dialog("question", &rows).is_none());
//! ```

use regex::Regex;

use super::{Region, ScreenRows};
use crate::engine::sanitize_output_text;

/// One dialog of one agent.
#[derive(Debug)]
pub struct Dialog {
    /// Stable id, `<agent>.<name>`.
    pub id: &'static str,
    /// The attention kind it answers, as a hook or native status says it
    /// (`permission`, `question`, `plan`): a dialog is read only for a
    /// task that needs you for that kind.
    pub kind: &'static str,
    pub region: Region,
    /// A `regex` pattern over the region's rows joined with `\n` that
    /// recognises the dialog.
    pub pattern: &'static str,
    /// Its choices, in the order they are offered.
    pub choices: &'static [DialogChoice],
    pub measured_on: &'static str,
    pub why: &'static str,
}

/// One choice a dialog can offer, found on one of the region's rows.
#[derive(Debug)]
pub struct DialogChoice {
    /// termic's id for it (`approve_once`); with [`DialogChoice::numbered`]
    /// the prefix of one id per matching row (`option` gives `option_1`).
    pub id: &'static str,
    /// A `regex` pattern over one row: the named group `n` is the option's
    /// number as painted (one digit, 1 to 9), `label` its text.
    pub row: &'static str,
    /// Every row that matches is a choice, `<id>_<n>` (a question's
    /// options); otherwise the first row that matches.
    pub numbered: bool,
    pub keys: Keys,
}

/// What a choice types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// The option's number (its row's `n`): the agent's select list picks
    /// the option whose number is typed.
    Number,
    /// These bytes.
    Fixed(&'static [u8]),
    /// A list moved with the arrow keys: Down (or Up) from the highlighted
    /// option (the first row matching `highlighted`, whose group `n` is its
    /// number) to this one, then Enter. Options whose label starts with one
    /// of `not_offered` (a free-text entry, a checkbox) are not offered.
    Select {
        highlighted: &'static str,
        not_offered: &'static [&'static str],
    },
}

/// The keys that move a select list's highlight from option `from` to
/// option `to`, then pick it (Enter).
pub fn select_keys(from: u8, to: u8) -> Vec<u8> {
    let (arrow, steps): (&[u8], u8) = if to >= from {
        (b"\x1b[B", to - from)
    } else {
        (b"\x1b[A", from - to)
    };
    let mut keys = arrow.repeat(usize::from(steps));
    keys.push(b'\r');
    keys
}

/// A choice on the screen now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedChoice {
    pub id: String,
    /// The option's text, cleaned (no control or bidi characters, capped).
    pub label: String,
    /// Exactly what answering with it sends to the task.
    pub keys: Vec<u8>,
}

/// A dialog found on the screen and its choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogRead {
    pub dialog: &'static str,
    pub choices: Vec<OfferedChoice>,
}

/// A dialog's compiled patterns: the dialog's, then one per choice.
#[derive(Debug)]
pub(super) struct Compiled {
    pattern: Regex,
    rows: Vec<Regex>,
    /// Per choice: its highlighted row's pattern ([`Keys::Select`]).
    highlighted: Vec<Option<Regex>>,
}

/// Every dialog's patterns, in order (patterns are tested to compile).
pub(super) fn compile(dialogs: &[Dialog]) -> Vec<Compiled> {
    dialogs
        .iter()
        .map(|d| Compiled {
            pattern: Regex::new(d.pattern).expect("dialog patterns are tested to compile"),
            rows: d
                .choices
                .iter()
                .map(|c| Regex::new(c.row).expect("dialog patterns are tested to compile"))
                .collect(),
            highlighted: d
                .choices
                .iter()
                .map(|c| match c.keys {
                    Keys::Select { highlighted, .. } => Some(
                        Regex::new(highlighted).expect("dialog patterns are tested to compile"),
                    ),
                    _ => None,
                })
                .collect(),
        })
        .collect()
}

/// The first of `dialogs` for `kind` that is on `screen`, with the choices
/// it shows; `None` when none is, or it shows no choice termic knows.
pub(super) fn read(
    dialogs: &'static [Dialog],
    compiled: &[Compiled],
    kind: &str,
    screen: &ScreenRows,
) -> Option<DialogRead> {
    dialogs
        .iter()
        .zip(compiled)
        .filter(|(d, _)| d.kind == kind)
        .find_map(|(d, c)| {
            let text = d.region.text(screen);
            if !c.pattern.is_match(&text) {
                return None;
            }
            let choices = offered(d, c, &text);
            (!choices.is_empty()).then_some(DialogRead {
                dialog: d.id,
                choices,
            })
        })
}

fn offered(dialog: &Dialog, compiled: &Compiled, text: &str) -> Vec<OfferedChoice> {
    let mut out: Vec<OfferedChoice> = Vec::new();
    for ((choice, re), highlight) in dialog
        .choices
        .iter()
        .zip(&compiled.rows)
        .zip(&compiled.highlighted)
    {
        // The option highlighted now, for a select list's arrows.
        let from = highlight.as_ref().and_then(|h| {
            text.split('\n').find_map(|row| {
                h.captures(row)?
                    .name("n")?
                    .as_str()
                    .parse::<u8>()
                    .ok()
                    .filter(|n| (1..=9).contains(n))
            })
        });
        for row in text.split('\n') {
            let Some(caps) = re.captures(row) else {
                continue;
            };
            let number = caps
                .name("n")
                .and_then(|n| n.as_str().parse::<u8>().ok())
                .filter(|n| (1..=9).contains(n));
            let label = caps
                .name("label")
                .map(|l| sanitize_output_text(l.as_str()))
                .unwrap_or_default();
            let keys = match (choice.keys, number) {
                (Keys::Fixed(bytes), _) => bytes.to_vec(),
                (Keys::Number, Some(n)) => vec![b'0' + n],
                (Keys::Select { not_offered, .. }, Some(n)) => {
                    let Some(from) = from else { continue };
                    if not_offered.iter().any(|p| label.starts_with(p)) {
                        continue;
                    }
                    select_keys(from, n)
                }
                (Keys::Number | Keys::Select { .. }, None) => continue,
            };
            let id = match (choice.numbered, number) {
                (true, Some(n)) => format!("{}_{n}", choice.id),
                (true, None) => continue,
                (false, _) => choice.id.to_string(),
            };
            if label.is_empty() || out.iter().any(|o| o.id == id) {
                continue;
            }
            out.push(OfferedChoice { id, label, keys });
            if !choice.numbered {
                break;
            }
        }
    }
    out
}

/// How many of the screen's last non-blank rows `dialogs` read.
pub(super) fn rows_wanted(dialogs: &[Dialog]) -> usize {
    dialogs
        .iter()
        .map(|d| match d.region {
            Region::LastRows(n) => n,
        })
        .max()
        .unwrap_or(0)
        .min(super::SCREEN_ROWS_MAX)
}

/// For each agent's tests: the choices the dialog of `agent` for `kind`
/// offers on `rows`, as (id, label, keys).
#[cfg(test)]
pub(crate) fn offered_on(agent: &str, kind: &str, rows: &[&str]) -> Vec<(String, String, String)> {
    super::profile_for(agent)
        .read_dialog(kind, &ScreenRows::new(rows))
        .map(|d| d.choices)
        .unwrap_or_default()
        .into_iter()
        .map(|c| (c.id, c.label, String::from_utf8(c.keys).unwrap()))
        .collect()
}

/// For each agent's tests: one expected (id, label, keys).
#[cfg(test)]
pub(crate) fn choice(id: &str, label: &str, keys: &str) -> (String, String, String) {
    (id.into(), label.into(), keys.into())
}

#[cfg(test)]
mod tests {
    use super::super::PROFILES;
    use super::*;

    #[test]
    fn every_dialog_pattern_compiles_and_is_named_for_its_agent() {
        for profile in PROFILES {
            for dialog in profile.dialogs {
                assert!(dialog.id.starts_with(&format!("{}.", profile.id)));
                assert!(Regex::new(dialog.pattern).is_ok(), "{}", dialog.id);
                assert!(!dialog.choices.is_empty(), "{}", dialog.id);
                for choice in dialog.choices {
                    let re = Regex::new(choice.row).unwrap();
                    let names: Vec<&str> = re.capture_names().flatten().collect();
                    assert!(names.contains(&"label"), "{}: {}", dialog.id, choice.id);
                    if choice.keys == Keys::Number || choice.numbered {
                        assert!(names.contains(&"n"), "{}: {}", dialog.id, choice.id);
                    }
                    if let Keys::Select { highlighted, .. } = choice.keys {
                        let h = Regex::new(highlighted).unwrap();
                        assert!(
                            h.capture_names().flatten().any(|n| n == "n"),
                            "{}",
                            dialog.id
                        );
                        assert!(names.contains(&"n"), "{}: {}", dialog.id, choice.id);
                    }
                }
            }
        }
    }

    /// A numbered choice is one id per option row, `<id>_<n>`, its keys
    /// the number (Claude's question and plan lists are numbered too, with
    /// `Keys::Select`: see claude.rs).
    #[test]
    fn numbered_choices_take_one_id_per_row() {
        static LIST: &[Dialog] = &[Dialog {
            id: "test.list",
            kind: "question",
            region: Region::LastRows(6),
            pattern: r"(?m)^Pick one:$",
            choices: &[DialogChoice {
                id: "option",
                row: r"^ *(?P<n>[1-9])\. (?P<label>\S.*)$",
                numbered: true,
                keys: Keys::Number,
            }],
            measured_on: "a test",
            why: "a test",
        }];
        let compiled = compile(LIST);
        let screen = ScreenRows::new(["Pick one:", " 1. Red", "    why", " 2. Blue", " 0. no"]);
        let read = super::read(LIST, &compiled, "question", &screen).unwrap();
        let got: Vec<(&str, &str, &[u8])> = read
            .choices
            .iter()
            .map(|c| (c.id.as_str(), c.label.as_str(), c.keys.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("option_1", "Red", b"1".as_slice()),
                ("option_2", "Blue", b"2".as_slice())
            ]
        );
        assert!(super::read(LIST, &compiled, "permission", &screen).is_none());
    }

    /// A select list's keys: the arrows from the highlighted option to
    /// the chosen one, then Enter.
    #[test]
    fn select_keys_move_from_the_highlight_then_enter() {
        assert_eq!(select_keys(1, 1), b"\r");
        assert_eq!(select_keys(1, 3), b"\x1b[B\x1b[B\r");
        assert_eq!(select_keys(3, 2), b"\x1b[A\r");
    }

    /// Printed text is data: a label is cleaned, and what is sent is only
    /// ever the profile's keys or one digit.
    #[test]
    fn labels_are_cleaned_and_keys_are_a_digit_or_the_profiles() {
        let rows = ScreenRows::new([
            " Do you want to create x?",
            " ❯ 1. Yes\u{202e}\u{9b}31m",
            "   2. Yes, allow all edits during this session",
        ]);
        let read = crate::profile::profile_for("claude")
            .read_dialog("permission", &rows)
            .unwrap();
        assert_eq!(read.choices[0].label, "Yes31m");
        assert!(read
            .choices
            .iter()
            .all(|c| c.keys.len() == 1 && c.keys[0].is_ascii_digit() && c.keys[0] != b'0'));
        // The deny row is not on this screen: it is not offered.
        assert!(read.choices.iter().all(|c| c.id != "deny"));
    }
}
