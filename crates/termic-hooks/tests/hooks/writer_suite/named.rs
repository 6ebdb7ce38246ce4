//! The Antigravity named-entry shape: termic owns one top-level key.

use serde_json::{json, Value};
use termic_hooks::edit::{
    install_named_entry, query_named_entry, remove_named_entry, EditError, InstallRecord,
};

fn termic_entry(version: u32) -> Value {
    json!({
        "enabled": true,
        "PreInvocation": [{"type": "command", "command": format!("/home/u/.gemini/termic-hooks/pre-invocation.sh v{version}")}],
        "Stop": [{"type": "command", "command": "/home/u/.gemini/termic-hooks/stop.sh"}],
    })
}

const USER_ENTRIES: &str = r#"{
  "context-file-gate": {
    "PreToolUse": [
      {
        "matcher": "run_command|view_file",
        "hooks": [
          {
            "type": "command",
            "command": "bash \"$HOME/.dotfiles/.gemini/hooks/context-file-gate.sh\"",
            "timeout": 30
          }
        ]
      }
    ]
  },
  "notify": {"enabled": false, "Stop": [{"type": "command", "command": "notify-send \u00e9t\u00e9"}]}
}
"#;

#[test]
fn agy_entry_install_and_remove_keep_other_named_entries_verbatim() {
    let installed = install_named_entry(
        Some(USER_ENTRIES),
        "termic",
        &termic_entry(1),
        &InstallRecord::default(),
    )
    .unwrap();
    assert!(installed.changed);
    assert!(
        installed
            .text
            .starts_with(&USER_ENTRIES[..USER_ENTRIES.len() - 3]),
        "{}",
        installed.text
    );
    assert!(installed
        .text
        .contains(",\n  \"termic\": {\n    \"PreInvocation\": [\n      {\n"));
    assert_eq!(
        query_named_entry(&installed.text, "termic").unwrap(),
        Some(termic_entry(1))
    );
    let removed = remove_named_entry(&installed.text, "termic", &installed.record).unwrap();
    assert_eq!(removed.text, USER_ENTRIES);
    assert!(!removed.delete_file);
}

#[test]
fn agy_entry_install_twice_is_idempotent_and_a_new_version_replaces() {
    let v1 = install_named_entry(
        Some(USER_ENTRIES),
        "termic",
        &termic_entry(1),
        &InstallRecord::default(),
    )
    .unwrap();
    let again =
        install_named_entry(Some(&v1.text), "termic", &termic_entry(1), &v1.record).unwrap();
    assert!(!again.changed);
    assert_eq!(again.text, v1.text);
    let v2 = install_named_entry(Some(&v1.text), "termic", &termic_entry(2), &v1.record).unwrap();
    assert!(v2.changed);
    assert_eq!(
        query_named_entry(&v2.text, "termic").unwrap(),
        Some(termic_entry(2))
    );
    assert_eq!(v2.text.matches("\"termic\"").count(), 1);
    let removed = remove_named_entry(&v2.text, "termic", &v2.record).unwrap();
    assert_eq!(removed.text, USER_ENTRIES);
}

#[test]
fn agy_file_created_by_termic_is_deleted_on_remove() {
    let created =
        install_named_entry(None, "termic", &termic_entry(1), &InstallRecord::default()).unwrap();
    assert!(created.record.created_file);
    assert!(created
        .text
        .starts_with("{\n  \"termic\": {\n    \"PreInvocation\": [\n"));
    let removed = remove_named_entry(&created.text, "termic", &created.record).unwrap();
    assert!(removed.delete_file);
    assert_eq!(removed.text, "{}\n");
}

#[test]
fn agy_empty_object_and_minified_round_trip() {
    for original in ["{}", "{ }\n", "{\"a\":{\"Stop\":[]}}", "{\n\t\"a\": 1\n}"] {
        let installed = install_named_entry(
            Some(original),
            "termic",
            &termic_entry(1),
            &InstallRecord::default(),
        )
        .unwrap();
        serde_json::from_str::<Value>(&installed.text).unwrap();
        let removed = remove_named_entry(&installed.text, "termic", &installed.record).unwrap();
        assert_eq!(removed.text, original);
        assert!(!removed.delete_file);
    }
}

#[test]
fn agy_duplicate_termic_key_is_refused() {
    let text = "{\"termic\": {}, \"termic\": {}}";
    let err = install_named_entry(
        Some(text),
        "termic",
        &termic_entry(1),
        &InstallRecord::default(),
    )
    .unwrap_err();
    assert!(matches!(err, EditError::DuplicateKey { .. }));
    assert!(remove_named_entry(text, "termic", &InstallRecord::default()).is_err());
    assert_eq!(query_named_entry(text, "termic").unwrap(), Some(json!({})));
}
