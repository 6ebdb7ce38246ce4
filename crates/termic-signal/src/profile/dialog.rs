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
    /// number) to this one, then Enter. A row without a number (the
    /// highlighted one or this one) comes right after the numbered choice
    /// row above it. Options whose label starts with one of `not_offered`
    /// (a free-text entry, a checkbox) are not offered.
    Select {
        highlighted: &'static str,
        not_offered: &'static [&'static str],
    },
    /// Options side by side on one row, the selected one marked by its
    /// background colour alone (opencode's permission prompt): Right (or
    /// Left) from the selected option to this one, then Enter. The
    /// selected option is the one of `options` (as painted, left to right)
    /// whose background differs from all the others', which share one;
    /// when the screen was read without colours, or no option stands out
    /// that way, the choice is not offered (nothing is sent blind). With
    /// `then`, picking it opens a second prompt the agent asks before it
    /// acts (opencode's "Always allow"), answered as [`Then`] says.
    Across {
        options: &'static [&'static str],
        then: Option<&'static FollowUp>,
    },
}

/// A second prompt a choice opens (opencode 1.18.33's "Always allow",
/// Confirm or Cancel): its options side by side on one row, marked by
/// colour alone as the first prompt's were.
#[derive(Debug, PartialEq, Eq)]
pub struct FollowUp {
    pub region: Region,
    /// A `regex` pattern over one row of the region: the options row.
    pub row: &'static str,
    /// Its options, left to right, as painted.
    pub options: &'static [&'static str],
    /// The option to pick (an index in `options`).
    pub pick: usize,
}

/// What is left to send after a choice's keys opened a [`FollowUp`]: the
/// second prompt's keys, once the screen shows it as measured. Two
/// options cannot say by themselves which one is selected (each is the
/// odd one out), so the colours the first prompt painted its selected
/// option and the others on, read before its keys were sent, say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Then {
    pub follow_up: &'static FollowUp,
    /// The first prompt's selected option's background.
    pub selected: u32,
    /// The background its other options shared.
    pub unselected: u32,
}

impl Then {
    /// The keys that pick the follow-up's option on `screen`: the arrows
    /// from its selected option, then Enter. `None` unless its options row
    /// is in its region with exactly one option on the first prompt's
    /// selected colour and every other on its unselected one (the prompt
    /// is not drawn yet, or it is not what was measured: send nothing).
    pub fn keys(&self, screen: &ScreenRows) -> Option<Vec<u8>> {
        let follow = self.follow_up;
        let row = Regex::new(follow.row).ok()?;
        let at = follow
            .region
            .indices(screen)
            .into_iter()
            .find(|&i| row.is_match(&screen.rows[i]))?;
        let shades = option_shades(screen, at, follow.options)?;
        let selected: Vec<usize> = (0..shades.len())
            .filter(|&i| shades[i] == self.selected)
            .collect();
        let others_unselected = shades
            .iter()
            .enumerate()
            .all(|(i, s)| selected.contains(&i) || *s == self.unselected);
        match selected.as_slice() {
            [from] if others_unselected && self.selected != self.unselected => {
                Some(across_keys(*from, follow.pick))
            }
            _ => None,
        }
    }
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

/// The keys that move a row of options' selection from option `from` to
/// option `to` (0 is the leftmost), then pick it (Enter).
pub fn across_keys(from: usize, to: usize) -> Vec<u8> {
    let (arrow, steps): (&[u8], usize) = if to >= from {
        (b"\x1b[C", to - from)
    } else {
        (b"\x1b[D", from - to)
    };
    let mut keys = arrow.repeat(steps);
    keys.push(b'\r');
    keys
}

/// Which of `options` is selected on row `row` of `screen` (its index),
/// read from the background colours, with its background and the one the
/// others share: the one option whose background differs from the
/// others', which all share one, each option's text painted on one
/// background. `None` when the row lacks an option, the screen was read
/// without colours, or no single option stands out (two options cannot
/// say which one is the odd one).
fn across_shades(screen: &ScreenRows, row: usize, options: &[&str]) -> Option<(usize, u32, u32)> {
    let shades = option_shades(screen, row, options)?;
    if shades.len() < 3 {
        return None;
    }
    let odd: Vec<usize> = (0..shades.len())
        .filter(|&i| shades.iter().filter(|&&s| s == shades[i]).count() == 1)
        .collect();
    let rest = |i: usize| {
        let mut others = shades.iter().enumerate().filter(|(j, _)| *j != i);
        let first = others.next().map(|(_, s)| *s)?;
        others.all(|(_, s)| *s == first).then_some(first)
    };
    match odd.as_slice() {
        [i] => rest(*i).map(|other| (*i, shades[*i], other)),
        _ => None,
    }
}

/// Each of `options`' background on row `row` (found left to right);
/// `None` when one is missing, the screen has no colours, or an option's
/// text is painted on more than one background.
fn option_shades(screen: &ScreenRows, row: usize, options: &[&str]) -> Option<Vec<u32>> {
    let text = screen.rows.get(row)?;
    let mut from = 0;
    let mut shades = Vec::with_capacity(options.len());
    for option in options {
        let at = from + text.get(from..)?.find(option)?;
        from = at + option.len();
        let first = text[..at].chars().count();
        let chars = option.chars().count();
        let shade = screen.background(row, first)?;
        if (first..first + chars).any(|ch| screen.background(row, ch) != Some(shade)) {
            return None;
        }
        shades.push(shade);
    }
    Some(shades)
}

/// A choice on the screen now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedChoice {
    pub id: String,
    /// The option's text, cleaned (no control or bidi characters, capped).
    pub label: String,
    /// Exactly what answering with it sends to the task.
    pub keys: Vec<u8>,
    /// The second prompt those keys open, answered once it shows.
    pub then: Option<Then>,
}

/// A dialog found on the screen and its choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogRead {
    pub dialog: &'static str,
    pub choices: Vec<OfferedChoice>,
    /// The dialog's region as read (its rows joined with `\n`): what must
    /// hold still before an agent that refuses early keys is sent one.
    pub shown: String,
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
            let choices = offered(d, c, screen, &d.region.indices(screen));
            (!choices.is_empty()).then_some(DialogRead {
                dialog: d.id,
                choices,
                shown: text,
            })
        })
}

/// A row's option number (its `n`, 1 to 9).
fn number(caps: &regex::Captures<'_>) -> Option<u8> {
    caps.name("n")
        .and_then(|n| n.as_str().parse::<u8>().ok())
        .filter(|n| (1..=9).contains(n))
}

/// The choices of `dialog` on `screen`'s rows `indices` (its region's).
fn offered(
    dialog: &Dialog,
    compiled: &Compiled,
    screen: &ScreenRows,
    indices: &[usize],
) -> Vec<OfferedChoice> {
    let rows: Vec<&str> = indices.iter().map(|&i| screen.rows[i].as_str()).collect();
    // Each row's option number, if one of the dialog's choice rows reads
    // one there: a select list's unnumbered row (Claude's "Submit") comes
    // right after the numbered row above it.
    let numbered: Vec<Option<u8>> = rows
        .iter()
        .map(|row| {
            compiled
                .rows
                .iter()
                .find_map(|re| number(&re.captures(row)?))
        })
        .collect();
    let position = |i: usize, n: Option<u8>| {
        n.or_else(|| numbered[..i].iter().rev().find_map(|x| *x).map(|m| m + 1))
    };
    let mut out: Vec<OfferedChoice> = Vec::new();
    for ((choice, re), highlight) in dialog
        .choices
        .iter()
        .zip(&compiled.rows)
        .zip(&compiled.highlighted)
    {
        // The option highlighted now, for a select list's arrows.
        let from = highlight.as_ref().and_then(|h| {
            rows.iter()
                .enumerate()
                .find_map(|(i, row)| h.captures(row).map(|caps| position(i, number(&caps))))
                .flatten()
        });
        for (i, row) in rows.iter().enumerate() {
            let Some(caps) = re.captures(row) else {
                continue;
            };
            let number = number(&caps);
            let mut follow = None;
            let label = caps
                .name("label")
                .map(|l| sanitize_output_text(l.as_str()))
                .unwrap_or_default();
            let keys = match (choice.keys, number) {
                (Keys::Fixed(bytes), _) => bytes.to_vec(),
                (Keys::Number, Some(n)) => vec![b'0' + n],
                (Keys::Select { not_offered, .. }, _) => {
                    let (Some(from), Some(to)) = (from, position(i, number)) else {
                        continue;
                    };
                    if not_offered.iter().any(|p| label.starts_with(p)) {
                        continue;
                    }
                    select_keys(from, to)
                }
                (Keys::Across { options, then }, _) => {
                    let to = options.iter().position(|o| *o == label);
                    let read = across_shades(screen, indices[i], options);
                    let (Some((from, selected, unselected)), Some(to)) = (read, to) else {
                        continue;
                    };
                    follow = then.map(|follow_up| Then {
                        follow_up,
                        selected,
                        unselected,
                    });
                    across_keys(from, to)
                }
                (Keys::Number, None) => continue,
            };
            let id = match (choice.numbered, number) {
                (true, Some(n)) => format!("{}_{n}", choice.id),
                (true, None) => continue,
                (false, _) => choice.id.to_string(),
            };
            if label.is_empty() || out.iter().any(|o| o.id == id) {
                continue;
            }
            out.push(OfferedChoice {
                id,
                label,
                keys,
                then: follow,
            });
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

    fn selected_across(screen: &ScreenRows, row: usize, options: &[&str]) -> Option<usize> {
        across_shades(screen, row, options).map(|(i, _, _)| i)
    }

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
                    if let Keys::Across {
                        then: Some(follow), ..
                    } = choice.keys
                    {
                        assert!(Regex::new(follow.row).is_ok(), "{}", dialog.id);
                        assert!(follow.pick < follow.options.len(), "{}", dialog.id);
                    }
                    if let Keys::Select { highlighted, .. } = choice.keys {
                        let h = Regex::new(highlighted).unwrap();
                        assert!(
                            h.capture_names().flatten().any(|n| n == "n"),
                            "{}",
                            dialog.id
                        );
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

    /// A row of options marked by colour alone: the one whose background
    /// differs from the others' (which share one) is selected; two options,
    /// a tie, an option in two colours or a screen read without colours
    /// say nothing.
    #[test]
    fn the_selected_option_across_is_the_odd_background() {
        let options = ["Yes", "Always", "No"];
        let row = " Yes  Always  No";
        let shaded =
            |runs: Vec<(u16, u32)>| ScreenRows::bottom_shaded(vec![(row.to_string(), runs)], 5);
        // Yes at 1..4, Always at 6..12, No at 14..16.
        let marks = |yes: u32, always: u32, no: u32| {
            shaded(vec![
                (0, 9),
                (1, yes),
                (4, 9),
                (6, always),
                (12, 9),
                (14, no),
            ])
        };
        assert_eq!(selected_across(&marks(1, 2, 2), 0, &options), Some(0));
        assert_eq!(selected_across(&marks(2, 1, 2), 0, &options), Some(1));
        assert_eq!(selected_across(&marks(2, 2, 1), 0, &options), Some(2));
        assert_eq!(selected_across(&marks(2, 2, 2), 0, &options), None);
        assert_eq!(selected_across(&marks(1, 2, 3), 0, &options), None);
        assert_eq!(selected_across(&marks(1, 2, 2), 0, &options[..2]), None);
        let split = shaded(vec![
            (0, 9),
            (1, 1),
            (2, 2),
            (4, 9),
            (6, 2),
            (12, 9),
            (14, 2),
        ]);
        assert_eq!(selected_across(&split, 0, &options), None);
        assert_eq!(selected_across(&ScreenRows::new([row]), 0, &options), None);
        assert_eq!(
            selected_across(&marks(1, 2, 2), 0, &["Yes", "Maybe", "No"]),
            None
        );
        assert_eq!(across_keys(0, 0), b"\r");
        assert_eq!(across_keys(0, 2), b"\x1b[C\x1b[C\r");
        assert_eq!(across_keys(2, 1), b"\x1b[D\r");
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
