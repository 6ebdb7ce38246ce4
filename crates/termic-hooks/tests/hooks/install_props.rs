//! Property: any sequence of installs, removals and user edits across the
//! agents keeps status truthful after every step, and removing everything
//! at the end gives back HOME exactly (when the user edited nothing) or
//! keeps every edit the user made.

use crate::common;

use common::tree::{tree, HomeFixture};
use proptest::prelude::*;
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply::{self, read_snapshot};
use termic_hooks::plan::AgentVersions;
use termic_hooks::plan::InstallFacts;
use termic_hooks::status::{target_status, State};
use termic_hooks::target::InstallTarget;

const FACTS: InstallFacts = InstallFacts {
    now_unix: 7,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

const CLAUDE_START: [&str; 3] = [
    "{\n  \"model\": \"opus\"\n}\n",
    "{\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"say hi\" } ] } ]\r\n\t}\r\n}",
    "\u{feff}{\"env\":{\"A\":\"\\u00e9\"},\"permissions\":{\"allow\":[]}}",
];

#[derive(Debug, Clone, Copy)]
enum Op {
    Install(AgentSchema),
    Remove(AgentSchema),
    /// The user adds a key to the agent's shared config, if it exists.
    UserEdit(AgentSchema),
}

fn schema() -> impl Strategy<Value = AgentSchema> {
    prop::sample::select(AgentSchema::all().to_vec())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => schema().prop_map(Op::Install),
        2 => schema().prop_map(Op::Remove),
        1 => schema().prop_map(Op::UserEdit),
    ]
}

/// Inserts `"userN": N,` right after the first `{` (keeps the file strict:
/// every start file and every installed file has at least one key).
fn user_edit(fx: &HomeFixture, schema: AgentSchema, n: usize) -> Option<String> {
    let rel = match schema.id() {
        "claude" => ".claude/settings.json",
        "agy" => ".gemini/config/hooks.json",
        _ => return None,
    };
    let path = fx.paths.home.join(rel);
    let text = std::fs::read_to_string(&path).ok()?;
    let at = text.find('{')? + 1;
    let key = format!("\"user{n}\"");
    let edited = format!("{}{key}: {n},{}", &text[..at], &text[at..]);
    std::fs::write(&path, edited).unwrap();
    Some(key)
}

/// Config dirs (relative to HOME) that more than one hook agent uses.
fn shared_config_dirs() -> Vec<std::path::PathBuf> {
    let dirs: Vec<&str> = AgentSchema::all()
        .iter()
        .map(|s| s.home_config_dir())
        .collect();
    let mut shared: Vec<std::path::PathBuf> = dirs
        .iter()
        .filter(|d| dirs.iter().filter(|e| e == d).count() > 1)
        .map(std::path::PathBuf::from)
        .collect();
    shared.dedup();
    shared
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_keeps_status_true_and_ends_where_it_started(
        start in 0..CLAUDE_START.len(),
        ops in prop::collection::vec(op(), 1..8),
    ) {
        let fx = HomeFixture::new();
        fx.write(".claude/settings.json", CLAUDE_START[start].as_bytes());
        let before = tree(&fx.paths.home);
        let mut user_keys = Vec::new();
        for (n, op) in ops.iter().enumerate() {
            match *op {
                Op::Install(s) | Op::Remove(s) => {
                    let t = InstallTarget::host(s, &fx.paths, &fx.no_guard()).unwrap();
                    let want = if matches!(op, Op::Install(_)) {
                        apply::install(&t, &FACTS).unwrap();
                        State::Wired
                    } else {
                        apply::remove(&t).unwrap();
                        State::NotInstalled
                    };
                    let got = target_status(&t, &read_snapshot(&t).unwrap(), &FACTS).state;
                    prop_assert_eq!(got, want, "{:?}", op);
                }
                Op::UserEdit(s) => user_keys.extend(user_edit(&fx, s, n)),
            }
        }
        for s in AgentSchema::all() {
            let t = InstallTarget::host(s, &fx.paths, &fx.no_guard()).unwrap();
            let p = apply::remove(&t).unwrap();
            // After a user edit the remove is not byte-exact, so termic keeps
            // the backup (the only exact copy of the original) and says so;
            // nothing else may be left alone.
            let kept_backup = |l: &String| {
                !user_keys.is_empty() && l.contains("kept, your config from before termic")
            };
            prop_assert!(p.left_alone.iter().all(kept_backup), "{:?}", p.left_alone);
        }
        if user_keys.is_empty() {
            // agy and Gemini CLI share ~/.gemini: when one install created it
            // and the other was still there at that one's removal, it stays,
            // empty (the agents create it anyway; docs/decisions.md).
            let mut now = tree(&fx.paths.home);
            for dir in shared_config_dirs() {
                let empty = !now.keys().any(|k| k.starts_with(&dir) && *k != dir);
                if empty && !before.contains_key(&dir) {
                    now.remove(&dir);
                }
            }
            prop_assert_eq!(now, before);
        } else {
            let mut all = String::new();
            for rel in [".claude/settings.json", ".gemini/config/hooks.json"] {
                all += &std::fs::read_to_string(fx.paths.home.join(rel)).unwrap_or_default();
            }
            for k in &user_keys {
                prop_assert!(all.contains(k.as_str()), "{} lost:\n{}", k, all);
            }
            prop_assert!(!all.contains("termic-hooks"), "{}", all);
        }
    }
}
