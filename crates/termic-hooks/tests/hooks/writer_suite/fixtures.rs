//! The hand-written fixture corpus (tests/fixtures): realistic configs in
//! varied styles. Install, query, install again, remove: byte-identical.

use std::path::{Path, PathBuf};

use termic_hooks::edit::{
    install_named_entry, query_grouped_hooks, query_named_entry, remove_named_entry, InstallRecord,
};

use super::support::{claude_round_trip, is_ours, named_entry, without_ours};

fn fixtures(kind: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

#[test]
fn claude_fixtures_round_trip_byte_for_byte() {
    let files = fixtures("claude");
    assert!(
        files.len() >= 15,
        "the fixture corpus has at least 15 Claude configs"
    );
    for (path, original) in &files {
        let name = path.file_name().unwrap().to_string_lossy();
        let had_ours = !query_grouped_hooks(original, &is_ours)
            .unwrap()
            .ours
            .is_empty();
        let (_, removed) =
            claude_round_trip(&name, original).expect("fixtures have an object hooks");
        if had_ours {
            // An older termic install: replaced by ours, so removal takes it away too.
            assert_eq!(without_ours(&removed), without_ours(original), "{name}");
        } else {
            assert!(
                removed == *original,
                "{name}: not byte-identical after remove:\n{removed}"
            );
        }
    }
}

#[test]
fn agy_fixtures_round_trip_byte_for_byte() {
    let files = fixtures("agy");
    assert!(files.len() >= 3);
    let entry = named_entry();
    for (path, original) in &files {
        let name = path.file_name().unwrap().to_string_lossy();
        let had_ours = query_named_entry(original, "termic").unwrap().is_some();
        let installed =
            install_named_entry(Some(original), "termic", &entry, &InstallRecord::default())
                .unwrap();
        assert_eq!(
            query_named_entry(&installed.text, "termic").unwrap(),
            Some(entry.clone()),
            "{name}"
        );
        assert_eq!(
            installed.text.contains("\r\n"),
            original.contains("\r\n"),
            "{name}: line ends"
        );
        let again = install_named_entry(Some(&installed.text), "termic", &entry, &installed.record)
            .unwrap();
        assert!(!again.changed, "{name}");
        let removed = remove_named_entry(&installed.text, "termic", &installed.record).unwrap();
        let expected = remove_named_entry(original, "termic", &InstallRecord::default())
            .unwrap()
            .text;
        assert_eq!(removed.text, expected, "{name}");
        if !had_ours {
            assert_eq!(
                removed.text, *original,
                "{name}: not byte-identical after remove"
            );
        }
    }
}
