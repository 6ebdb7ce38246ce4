//! The real users' corpus (/work/shared/corpus), read in place: every
//! strict-JSON file survives install then remove byte for byte with its
//! user content untouched; every other file is refused with nothing changed.

use std::path::{Path, PathBuf};

use serde_json::json;
use termic_hooks::edit::{
    install_grouped_hooks, install_named_entry, query_named_entry, remove_named_entry, EditError,
    InstallRecord,
};

pub use super::support::is_strict;
use super::support::{claude_round_trip, is_ours, named_entry, wanted};

/// TERMIC_CORPUS_DIR, else `<manifest>/../../../shared/corpus` (the main
/// checkout's view of /work/shared/corpus), else the nearest ancestor's
/// `shared/corpus` (worktrees sit one level deeper).
fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TERMIC_CORPUS_DIR") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let default = manifest.join("../../../shared/corpus");
    let nearest = manifest
        .ancestors()
        .map(|a| a.join("shared/corpus"))
        .find(|d| d.is_dir());
    if default.is_dir() {
        default
    } else {
        nearest.unwrap_or(default)
    }
}

/// The corpus files of one agent, or None (with a notice) when the corpus
/// is not on this machine.
pub fn corpus_files(agent: &str) -> Option<Vec<(String, String)>> {
    let dir = corpus_dir().join(agent);
    if !dir.is_dir() {
        eprintln!(
            "NOTICE: no corpus at {}; set TERMIC_CORPUS_DIR. Skipping.",
            dir.display()
        );
        return None;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("readable corpus dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no .json file", dir.display());
    let read = |p: &PathBuf| {
        (
            p.display().to_string(),
            String::from_utf8(std::fs::read(p).unwrap()).expect("UTF-8"),
        )
    };
    Some(files.iter().map(read).collect())
}

/// Runs `round_trip` on strict files and checks the others are refused.
/// Returns (passed, refused).
fn run(files: &[(String, String)], round_trip: impl Fn(&str, &str)) -> (usize, usize) {
    let (mut passed, mut refused) = (0, 0);
    for (name, text) in files {
        if is_strict(text) {
            round_trip(name, text);
            passed += 1;
        } else {
            let err =
                install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default());
            assert!(
                matches!(err, Err(EditError::NotStrictJson { .. } | EditError::Empty)),
                "{name}: {err:?}"
            );
            let err =
                install_named_entry(Some(text), "termic", &json!({}), &InstallRecord::default());
            assert!(
                matches!(err, Err(EditError::NotStrictJson { .. } | EditError::Empty)),
                "{name}: {err:?}"
            );
            refused += 1;
        }
    }
    (passed, refused)
}

#[test]
fn real_claude_settings_round_trip_byte_for_byte() {
    let Some(files) = corpus_files("claude") else {
        return;
    };
    let shape_refused = std::cell::Cell::new(0);
    let (strict, refused) = run(&files, |name, text| match claude_round_trip(name, text) {
        Some((_, removed)) => assert!(
            removed == text,
            "{name}: install then remove is not byte-identical"
        ),
        None => shape_refused.set(shape_refused.get() + 1),
    });
    let passed = strict - shape_refused.get();
    eprintln!(
        "corpus claude: {passed} passed install+query+remove byte-exact, {refused} refused as not strict JSON, {} \
         refused because `hooks` is not an object",
        shape_refused.get()
    );
    assert_eq!(passed + refused + shape_refused.get(), files.len());
    assert!(passed >= files.len() / 2, "most of the corpus must pass");
}

/// The gemini corpus is mostly Gemini CLI `settings.json` files (a Claude
/// shaped `hooks` object) plus one Antigravity named-entry `hooks.json`.
/// Any top-level object can take a named entry, so every file gets both
/// shapes; a `hooks` value that is not an object is refused in Claude shape.
#[test]
fn real_gemini_and_agy_files_round_trip_byte_for_byte() {
    let Some(files) = corpus_files("gemini") else {
        return;
    };
    let entry = named_entry();
    let (passed, refused) = run(&files, |name, text| {
        let installed =
            install_named_entry(Some(text), "termic", &entry, &InstallRecord::default()).unwrap();
        assert!(is_strict(&installed.text), "{name}");
        assert_eq!(
            query_named_entry(&installed.text, "termic").unwrap(),
            Some(entry.clone()),
            "{name}"
        );
        let removed = remove_named_entry(&installed.text, "termic", &installed.record).unwrap();
        assert!(
            removed.text == text,
            "{name}: named entry round trip is not byte-identical"
        );
        let (_, removed) =
            claude_round_trip(name, text).expect("every gemini file has an object hooks or none");
        assert!(
            removed == text,
            "{name}: Claude-shape round trip is not byte-identical"
        );
    });
    eprintln!("corpus gemini: {passed} passed (named entry and Claude shape), {refused} refused as not strict JSON");
    assert_eq!(passed + refused, files.len());
}
