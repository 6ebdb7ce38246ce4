//! Property tests: JSON documents in many formatting styles, with user
//! hooks in several shapes, printed by an independent printer here.

use proptest::prelude::*;
use serde_json::json;
use termic_hooks::edit::{
    install_grouped_hooks, install_named_entry, query_grouped_hooks, query_named_entry,
    remove_grouped_hooks, remove_named_entry, InstallRecord,
};

use super::support::{is_ours, wanted, wanted_v1, without_ours};

/// A JSON value with its own layout; scalars hold their exact spelling.
#[derive(Clone, Debug)]
enum J {
    Lit(String),
    Arr(Vec<J>, bool),
    Obj(Vec<(String, J)>, bool),
}

#[derive(Clone, Debug)]
struct Style {
    unit: &'static str,
    newline: &'static str,
    colon: &'static str,
    compact: bool,
    final_newline: bool,
    bom: bool,
}

fn style() -> impl Strategy<Value = Style> {
    (
        prop::sample::select(vec!["  ", "    ", "\t", "   "]),
        prop::sample::select(vec!["\n", "\r\n"]),
        prop::sample::select(vec![": ", ":", " : "]),
        prop::bool::weighted(0.15),
        any::<bool>(),
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(unit, newline, colon, compact, final_newline, bom)| Style {
                unit,
                newline,
                colon,
                compact,
                final_newline,
                bom,
            },
        )
}

fn scalar() -> impl Strategy<Value = J> {
    let samples = vec![
        "null",
        "true",
        "false",
        "0",
        "-0",
        "1.0e3",
        "1E+2",
        "-12.50",
        "3.14159",
        "1e-7",
        "12345678901234567890",
        r#""""#,
        r#""opus""#,
        r#""caf\u00e9""#,
        r#""a\/b""#,
        r#""tab\tnew\nline""#,
        r#""quote \" back \\""#,
        r#""日本語""#,
        r#""emoji 😀""#,
        r#""\ud83d\ude00""#,
        r#""Bash(git status:*)""#,
    ];
    prop_oneof![
        prop::sample::select(samples).prop_map(|s| J::Lit(s.to_string())),
        "[a-z ]{0,10}".prop_map(|s| J::Lit(format!("\"{s}\""))),
    ]
}

fn unique(entries: Vec<(String, J)>) -> Vec<(String, J)> {
    let mut seen = Vec::new();
    entries
        .into_iter()
        .filter(|(k, _)| {
            !seen.contains(k) && {
                seen.push(k.clone());
                true
            }
        })
        .collect()
}

fn key() -> impl Strategy<Value = String> {
    let keys = vec![
        "model",
        "env",
        "permissions",
        "statusLine",
        "enabledPlugins",
        r"caf\u00e9",
        r"a\/b",
        "x y",
        "日本",
        "$schema",
        "n1",
        "n2",
        "termic-other",
    ];
    prop::sample::select(keys).prop_map(|k| format!("\"{k}\""))
}

fn value() -> impl Strategy<Value = J> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..4), any::<bool>())
                .prop_map(|(v, inline)| J::Arr(v, inline)),
            (prop::collection::vec((key(), inner), 0..4), any::<bool>())
                .prop_map(|(v, inline)| J::Obj(unique(v), inline)),
        ]
    })
}

fn lit(s: &str) -> J {
    J::Lit(s.to_string())
}

/// A user's handler: never ours.
fn user_handler() -> impl Strategy<Value = J> {
    let commands = vec![
        r#""say done""#,
        r#""notify-send \"needs you\"""#,
        r#""~/bin/log.sh""#,
        r#""/home/u/.claude/hooks/x.sh""#,
    ];
    (
        prop::sample::select(commands),
        prop::option::of(1u32..100),
        any::<bool>(),
    )
        .prop_map(|(command, timeout, inline)| {
            let mut entries = vec![
                ("\"type\"".to_string(), lit("\"command\"")),
                ("\"command\"".to_string(), lit(command)),
            ];
            if let Some(t) = timeout {
                entries.push(("\"timeout\"".to_string(), J::Lit(t.to_string())));
            }
            J::Obj(entries, inline)
        })
}

fn user_group() -> impl Strategy<Value = J> {
    (
        prop::option::of(prop::sample::select(vec!["Bash", "", "Write|Edit"])),
        prop::collection::vec(user_handler(), 0..3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(matcher, handlers, inline_handlers, inline)| {
            let mut entries = Vec::new();
            if let Some(m) = matcher {
                entries.push(("\"matcher\"".to_string(), J::Lit(format!("\"{m}\""))));
            }
            entries.push(("\"hooks\"".to_string(), J::Arr(handlers, inline_handlers)));
            J::Obj(entries, inline)
        })
}

/// The user's `hooks` object: events of theirs, some sharing our names.
fn user_hooks() -> impl Strategy<Value = J> {
    let events = vec![
        "Stop",
        "PermissionRequest",
        "PreToolUse",
        "Notification",
        "SessionStart",
        "UserPromptSubmit",
    ];
    let event = (
        prop::sample::select(events),
        prop::collection::vec(user_group(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(name, groups, inline)| (format!("\"{name}\""), J::Arr(groups, inline)));
    (prop::collection::vec(event, 0..4), any::<bool>())
        .prop_map(|(events, inline)| J::Obj(unique(events), inline))
}

/// A whole settings file: user keys, maybe a `hooks` object at some place.
fn document() -> impl Strategy<Value = (J, Style)> {
    let entries = prop::collection::vec((key(), value()), 0..5).prop_map(unique);
    (
        entries,
        prop::option::of(user_hooks()),
        any::<prop::sample::Index>(),
        style(),
    )
        .prop_map(|(mut entries, hooks, at, style)| {
            if let Some(hooks) = hooks {
                let at = at.index(entries.len() + 1);
                entries.insert(at, ("\"hooks\"".to_string(), hooks));
            }
            (J::Obj(entries, false), style)
        })
}

fn print(j: &J, style: &Style) -> String {
    let mut out = String::new();
    if style.bom {
        out.push('\u{feff}');
    }
    write(&mut out, j, style, "", false);
    if style.final_newline {
        out.push_str(if style.compact { "\n" } else { style.newline });
    }
    out
}

fn write(out: &mut String, j: &J, style: &Style, indent: &str, forced_inline: bool) {
    let (open, close, items): (char, char, Vec<(Option<&str>, &J)>) = match j {
        J::Lit(s) => return out.push_str(s),
        J::Arr(items, _) => ('[', ']', items.iter().map(|v| (None, v)).collect()),
        J::Obj(items, _) => (
            '{',
            '}',
            items.iter().map(|(k, v)| (Some(k.as_str()), v)).collect(),
        ),
    };
    let inline = forced_inline || style.compact || matches!(j, J::Arr(_, true) | J::Obj(_, true));
    let colon = if style.compact { ":" } else { style.colon };
    out.push(open);
    if items.is_empty() {
        if !inline {
            out.push_str(style.newline);
            out.push_str(indent);
        }
        out.push(close);
        return;
    }
    let inner = format!("{indent}{}", style.unit);
    for (i, (k, v)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match (inline, style.compact) {
            (true, true) => {}
            (true, false) if i > 0 => out.push(' '),
            (true, false) => {}
            (false, _) => {
                out.push_str(style.newline);
                out.push_str(&inner);
            }
        }
        if let Some(k) = k {
            out.push_str(k);
            out.push_str(colon);
        }
        write(out, v, style, &inner, inline);
    }
    if !inline {
        out.push_str(style.newline);
        out.push_str(indent);
    }
    out.push(close);
}

fn strict(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim_start_matches('\u{feff}')).expect("strict JSON")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn install_then_remove_gives_identical_bytes((doc, style) in document()) {
        let original = print(&doc, &style);
        strict(&original);
        let installed = install_grouped_hooks(Some(&original), &wanted(), &is_ours, &InstallRecord::default()).unwrap();
        prop_assert!(installed.changed);
        strict(&installed.text);
        prop_assert_eq!(without_ours(&installed.text), without_ours(&original));
        prop_assert_eq!(query_grouped_hooks(&installed.text, &is_ours).unwrap().ours.len(), wanted().len());
        prop_assert_eq!(installed.text.starts_with('\u{feff}'), style.bom);
        if !strict(&original).as_object().unwrap().is_empty() {
            let one_line = |t: &str| !t.trim_end().contains('\n');
            prop_assert_eq!(one_line(&installed.text), one_line(&original), "a one-line file stays one line");
        }
        let removed = remove_grouped_hooks(&installed.text, &wanted(), &is_ours, &installed.record).unwrap();
        prop_assert_eq!(&removed.text, &original);
        prop_assert!(!removed.delete_file);
    }

    #[test]
    fn install_twice_equals_install_once((doc, style) in document()) {
        let original = print(&doc, &style);
        let once = install_grouped_hooks(Some(&original), &wanted(), &is_ours, &InstallRecord::default()).unwrap();
        let twice = install_grouped_hooks(Some(&once.text), &wanted(), &is_ours, &once.record).unwrap();
        prop_assert!(!twice.changed);
        prop_assert_eq!(&twice.text, &once.text);
        prop_assert_eq!(&twice.record, &once.record);
    }

    #[test]
    fn an_upgrade_then_remove_gives_identical_bytes((doc, style) in document()) {
        let original = print(&doc, &style);
        let v1 = install_grouped_hooks(Some(&original), &wanted_v1(), &is_ours, &InstallRecord::default()).unwrap();
        let v2 = install_grouped_hooks(Some(&v1.text), &wanted(), &is_ours, &v1.record).unwrap();
        strict(&v2.text);
        prop_assert_eq!(without_ours(&v2.text), without_ours(&original));
        let mut ours = query_grouped_hooks(&v2.text, &is_ours).unwrap().ours;
        ours.sort_by(|a, b| a.event.cmp(&b.event));
        let mut expected = wanted();
        expected.sort_by(|a, b| a.event.cmp(&b.event));
        prop_assert_eq!(ours, expected);
        let removed = remove_grouped_hooks(&v2.text, &wanted(), &is_ours, &v2.record).unwrap();
        prop_assert_eq!(&removed.text, &original);
    }

    #[test]
    fn a_named_entry_round_trips((doc, style) in document()) {
        let original = print(&doc, &style);
        let entry = json!({"Stop": [{"type": "command", "command": "/home/u/.gemini/termic-hooks/stop.sh"}], "enabled": true});
        let installed = install_named_entry(Some(&original), "termic", &entry, &InstallRecord::default()).unwrap();
        let mut theirs = strict(&installed.text);
        theirs.as_object_mut().unwrap().remove("termic");
        prop_assert_eq!(theirs, strict(&original));
        prop_assert_eq!(query_named_entry(&installed.text, "termic").unwrap(), Some(entry.clone()));
        let again = install_named_entry(Some(&installed.text), "termic", &entry, &installed.record).unwrap();
        prop_assert!(!again.changed);
        let removed = remove_named_entry(&installed.text, "termic", &installed.record).unwrap();
        prop_assert_eq!(&removed.text, &original);
    }
}

/// The user's own edit after termic's install: a new first key in the top
/// level object, made as plain text so it does not depend on the editor.
fn user_adds_a_first_key(text: &str) -> String {
    let open = text.find('{').expect("an object");
    format!(
        "{}{{\"user-added\": [1, \"x\"],{}",
        &text[..open],
        &text[open + 1..]
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn remove_keeps_what_the_user_changed_after_install((doc, style) in document()) {
        let original = print(&doc, &style);
        prop_assume!(!strict(&original).as_object().unwrap().is_empty());
        let installed = install_grouped_hooks(Some(&original), &wanted(), &is_ours, &InstallRecord::default()).unwrap();
        let edited = user_adds_a_first_key(&installed.text);
        let removed = remove_grouped_hooks(&edited, &wanted(), &is_ours, &installed.record).unwrap();
        prop_assert_eq!(removed.text, user_adds_a_first_key(&original));
    }

    #[test]
    fn a_hand_edited_handler_survives_removal((doc, style) in document()) {
        let original = print(&doc, &style);
        let installed = install_grouped_hooks(Some(&original), &wanted(), &is_ours, &InstallRecord::default()).unwrap();
        let ours = query_grouped_hooks(&installed.text, &is_ours).unwrap().ours;
        // Change the Stop handler's status text, wherever and however it is written.
        let edited = installed.text.replacen("\"termic: done\"", "\"termic: done (mine)\"", 1);
        prop_assert_ne!(&edited, &installed.text);
        let removed = remove_grouped_hooks(&edited, &wanted(), &is_ours, &installed.record).unwrap();
        prop_assert_eq!(removed.left_alone.len(), 1);
        prop_assert_eq!(&removed.left_alone[0].event, "Stop");
        prop_assert_eq!(&removed.left_alone[0].handler["statusMessage"], "termic: done (mine)");
        let left = query_grouped_hooks(&removed.text, &is_ours).unwrap().ours;
        prop_assert_eq!(left, removed.left_alone.clone());
        prop_assert_eq!(ours.len(), wanted().len());
        strict(&removed.text);
    }
}
