//! The Claude-compatible shape, case by case (the plan's writer tests).

use serde_json::{json, Value};
use termic_hooks::edit::{
    install_grouped_hooks, query_grouped_hooks, remove_grouped_hooks, EditError, EventHandler,
    InstallRecord,
};

use super::support::{handler, is_ours, wanted, wanted_v1};

fn install(text: Option<&str>) -> termic_hooks::edit::Edit {
    install_grouped_hooks(text, &wanted(), &is_ours, &InstallRecord::default()).expect("install")
}

/// Install then remove; asserts the removal is byte-exact and returns the installed text.
fn round_trip(original: &str) -> String {
    let installed = install(Some(original));
    assert!(installed.changed);
    let body = installed.text.trim_start_matches('\u{feff}');
    serde_json::from_str::<serde::de::IgnoredAny>(body).expect("output is strict JSON");
    let removed = remove_grouped_hooks(&installed.text, &wanted(), &is_ours, &installed.record)
        .expect("remove");
    assert_eq!(
        removed.text, original,
        "install then remove must give back the original bytes"
    );
    assert!(removed.left_alone.is_empty());
    assert!(!removed.delete_file);
    installed.text
}

fn ours_in(text: &str) -> Vec<EventHandler> {
    query_grouped_hooks(text, &is_ours).expect("query").ours
}

fn sorted(mut list: Vec<EventHandler>) -> Vec<EventHandler> {
    list.sort_by_key(|e| e.event.clone());
    list
}

#[test]
fn install_into_an_empty_config() {
    let created = install(None);
    assert!(created.changed && created.record.created_file);
    assert!(created.text.ends_with("}\n"));
    assert!(created.text.contains(
        "\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\n        \"hooks\": [\n"
    ));
    assert_eq!(sorted(ours_in(&created.text)), sorted(wanted()));
    let removed =
        remove_grouped_hooks(&created.text, &wanted(), &is_ours, &created.record).unwrap();
    assert!(
        removed.delete_file,
        "termic created the file, so removal deletes it"
    );

    for original in ["{}", "{}\n", "{ }", "{\n}\n", "\u{feff}{}"] {
        let text = round_trip(original);
        assert_eq!(sorted(ours_in(&text)), sorted(wanted()), "{original:?}");
    }
}

const USER_HOOKS: &str = r#"{
  "permissions": {
    "allow": ["Bash(git status:*)"]
  },
  "hooks": {
    "PermissionRequest": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "notify-send \"needs you\"" }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "afplay /System/Library/Sounds/Glass.aiff",
            "timeout": 10
          },
          {
            "type": "command",
            "command": "~/bin/log-stop.sh"
          }
        ]
      }
    ]
  }
}
"#;

#[test]
fn install_into_a_config_with_user_hooks() {
    let text = round_trip(USER_HOOKS);
    // Theirs first, verbatim, ours appended as new groups.
    let theirs = "      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          { \"type\": \"command\", \"command\": \"notify-send \\\"needs you\\\"\" }\n        ]\n      },\n      {\n        \"hooks\": [";
    assert!(text.contains(theirs), "{text}");
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["hooks"]["PermissionRequest"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        value["hooks"]["Stop"][0],
        serde_json::from_str::<Value>(USER_HOOKS).unwrap()["hooks"]["Stop"][0]
    );
    assert_eq!(
        super::support::without_ours(&text),
        super::support::without_ours(USER_HOOKS)
    );
}

#[test]
fn install_twice_is_idempotent() {
    let once = install(Some(USER_HOOKS));
    let twice = install_grouped_hooks(Some(&once.text), &wanted(), &is_ours, &once.record).unwrap();
    assert!(!twice.changed);
    assert_eq!(twice.text, once.text);
    assert_eq!(twice.record, once.record);
    assert_eq!(ours_in(&twice.text).len(), wanted().len());
}

#[test]
fn install_over_an_older_schema_version_replaces_not_appends() {
    let v1 = install_grouped_hooks(
        Some(USER_HOOKS),
        &wanted_v1(),
        &is_ours,
        &InstallRecord::default(),
    )
    .unwrap();
    assert_eq!(sorted(ours_in(&v1.text)), sorted(wanted_v1()));
    let v2 = install_grouped_hooks(Some(&v1.text), &wanted(), &is_ours, &v1.record).unwrap();
    assert_eq!(
        sorted(ours_in(&v2.text)),
        sorted(wanted()),
        "no v1 handler may survive"
    );
    let value: Value = serde_json::from_str(&v2.text).unwrap();
    assert!(
        value["hooks"].get("Notification").is_none(),
        "the array termic created for v1 is gone"
    );
    assert_eq!(
        value["hooks"]["PermissionRequest"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "replaced, not appended"
    );
    let removed = remove_grouped_hooks(&v2.text, &wanted(), &is_ours, &v2.record).unwrap();
    assert_eq!(removed.text, USER_HOOKS);
}

#[test]
fn install_replaces_duplicates_of_ours_with_one() {
    let once = install(Some(USER_HOOKS));
    let stop = serde_json::to_string(&handler("stop.sh", "termic: done")).unwrap();
    let doubled = once.text.replacen(
        "\"Stop\": [\n",
        &format!("\"Stop\": [\n      {{\"hooks\": [{stop}]}},\n"),
        1,
    );
    assert_eq!(
        ours_in(&doubled)
            .iter()
            .filter(|h| h.event == "Stop")
            .count(),
        2
    );
    let fixed = install_grouped_hooks(Some(&doubled), &wanted(), &is_ours, &once.record).unwrap();
    assert_eq!(
        ours_in(&fixed.text)
            .iter()
            .filter(|h| h.event == "Stop")
            .count(),
        1
    );
}

#[test]
fn remove_restores_the_pre_install_bytes() {
    for original in [
        USER_HOOKS,
        "{\"model\": \"opus\"}",
        "{\"hooks\": {}}",
        "{\"hooks\": {\"Stop\": []}}\n",
    ] {
        round_trip(original);
    }
}

#[test]
fn remove_leaves_a_hand_edited_entry_alone() {
    let installed = install(Some(USER_HOOKS));
    let ours = "\"statusMessage\": \"termic: done\",\n            \"timeout\": 5";
    let edited = installed.text.replace(
        ours,
        "\"statusMessage\": \"termic: done\",\n            \"timeout\": 30",
    );
    assert_ne!(
        edited, installed.text,
        "the test must really edit our Stop handler"
    );
    let removed = remove_grouped_hooks(&edited, &wanted(), &is_ours, &installed.record).unwrap();
    assert_eq!(removed.left_alone.len(), 1);
    assert_eq!(removed.left_alone[0].event, "Stop");
    assert_eq!(removed.left_alone[0].handler["timeout"], json!(30));
    let left: Value = serde_json::from_str(&removed.text).unwrap();
    assert_eq!(
        left["hooks"]["Stop"].as_array().unwrap().len(),
        2,
        "the user's group and the edited one"
    );
    assert!(left["hooks"].get("PermissionRequest").is_some());
    assert_eq!(ours_in(&removed.text).len(), 1);
}

#[test]
fn user_changes_after_install_are_kept_by_remove() {
    let installed = install(Some(USER_HOOKS));
    let changed = installed.text.replace(
        "\"Bash(git status:*)\"",
        "\"Bash(git status:*)\", \"Bash(ls:*)\"",
    );
    let changed = changed.replace(
        "\"Stop\": [\n",
        "\"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]},\n",
    );
    let removed = remove_grouped_hooks(&changed, &wanted(), &is_ours, &installed.record).unwrap();
    let expected = USER_HOOKS.replace(
        "\"Bash(git status:*)\"",
        "\"Bash(git status:*)\", \"Bash(ls:*)\"",
    );
    let expected = expected.replace(
        "\"Stop\": [\n",
        "\"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]},\n",
    );
    assert_eq!(removed.text, expected);
}

#[test]
fn a_user_group_added_to_an_array_termic_created_keeps_the_array() {
    let installed = install(Some("{\n  \"model\": \"opus\"\n}\n"));
    let value: Value = serde_json::from_str(&installed.text).unwrap();
    assert!(value["hooks"]["Stop"].is_array());
    let theirs = installed.text.replacen(
        "\"Stop\": [\n",
        "\"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]},\n",
        1,
    );
    assert_ne!(theirs, installed.text);
    let removed = remove_grouped_hooks(&theirs, &wanted(), &is_ours, &installed.record).unwrap();
    let left: Value = serde_json::from_str(&removed.text).unwrap();
    assert_eq!(
        left["hooks"],
        json!({"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]})
    );
    assert_eq!(left["model"], "opus");
}

#[test]
fn an_empty_file_is_refused_as_empty_naming_the_minimal_valid_file() {
    for text in ["", "\n", " \t\r\n"] {
        for err in [
            install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default())
                .map(|_| ()),
            query_grouped_hooks(text, &is_ours).map(|_| ()),
            remove_grouped_hooks(text, &wanted(), &is_ours, &InstallRecord::default()).map(|_| ()),
        ] {
            assert_eq!(err, Err(EditError::Empty), "{text:?}");
        }
    }
    let msg = EditError::Empty.to_string();
    assert!(
        msg.contains("is empty; `{}` is the minimal valid file"),
        "{msg}"
    );
}

#[test]
fn malformed_json_is_refused_without_writing() {
    let cases = [
        ("{\n  \"a\": 1,\n}\n", 3),
        ("{\n  // comment\n  \"a\": 1\n}\n", 2),
        ("{\n  \"a\": 1\n  \"b\": 2\n}\n", 3),
        ("{\"a\": 'x'}", 1),
    ];
    for (text, line) in cases {
        match install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default()) {
            Err(EditError::NotStrictJson { line: got, .. }) => assert_eq!(got, line, "{text:?}"),
            other => panic!("{text:?} gave {other:?}"),
        }
        assert!(matches!(
            query_grouped_hooks(text, &is_ours),
            Err(EditError::NotStrictJson { .. })
        ));
        assert!(matches!(
            remove_grouped_hooks(text, &wanted(), &is_ours, &InstallRecord::default()),
            Err(EditError::NotStrictJson { .. })
        ));
    }
    let err = install_grouped_hooks(
        Some("{\"a\": 1,}"),
        &wanted(),
        &is_ours,
        &InstallRecord::default(),
    )
    .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("line 1, column 9") && message.contains("not strict JSON"),
        "{message}"
    );
}

#[test]
fn a_top_level_that_is_not_an_object_is_refused() {
    for (text, found) in [("[]", "an array"), ("null", "null"), ("\"x\"", "a string")] {
        let err = install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default())
            .unwrap_err();
        assert_eq!(err, EditError::TopLevelNotObject { found });
    }
}

#[test]
fn hooks_that_is_not_an_object_is_refused() {
    let text = "{\n  \"hooks\": [\n    {\"Stop\": []}\n  ]\n}\n";
    let err = install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default())
        .unwrap_err();
    assert_eq!(
        err,
        EditError::WrongType {
            key: "hooks".into(),
            expected: "an object",
            found: "an array",
            line: 2,
            column: 12
        }
    );
    assert!(err.to_string().contains("will not replace your value"));
    assert!(query_grouped_hooks(text, &is_ours).is_err());
}

#[test]
fn an_event_that_is_not_an_array_is_refused() {
    let text = "{\"hooks\": {\"Stop\": {\"hooks\": []}}}";
    let err = install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default())
        .unwrap_err();
    assert!(
        matches!(err, EditError::WrongType { ref key, expected: "an array", found: "an object", line: 1, column: 20 } if key == "hooks.Stop"),
        "{err:?}"
    );
}

#[test]
fn duplicate_keys_are_refused() {
    let cases = [
        ("{\"hooks\": {}, \"hooks\": {}}", "hooks"),
        ("{\"hooks\": {\"Stop\": [], \"Stop\": []}}", "hooks.Stop"),
        (
            "{\"hooks\": {\"Stop\": [{\"hooks\": [], \"hooks\": []}]}}",
            "hooks.Stop.hooks",
        ),
    ];
    for (text, key) in cases {
        let err = install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default())
            .unwrap_err();
        assert!(
            matches!(err, EditError::DuplicateKey { key: ref k, line: 1, .. } if k == key),
            "{text}: {err:?}"
        );
    }
    // Duplicates elsewhere are the user's business.
    round_trip("{\"env\": {\"A\": \"1\", \"A\": \"2\"}}");
}

#[test]
fn query_sees_what_the_agent_sees_last_duplicate_wins() {
    let ours = serde_json::to_string(&handler("stop.sh", "termic: done")).unwrap();
    let text = format!("{{\"hooks\": {{\"Stop\": [{{\"hooks\": [{ours}]}}]}}, \"hooks\": {{}}}}");
    assert!(ours_in(&text).is_empty(), "the first hooks is shadowed");
    let text = format!("{{\"hooks\": {{}}, \"hooks\": {{\"Stop\": [{{\"hooks\": [{ours}]}}]}}, \"disableAllHooks\": true}}");
    let status = query_grouped_hooks(&text, &is_ours).unwrap();
    assert_eq!(
        status.ours,
        vec![EventHandler::new(
            "Stop",
            handler("stop.sh", "termic: done")
        )]
    );
    assert!(status.disable_all_hooks);
}

#[test]
fn unknown_top_level_keys_round_trip_unchanged() {
    let original = "{\n  \"zzz\": {\"nested\": [1, 2, {\"x\": null}]},\n  \"$schema\": \"https://json.schemastore.org/claude-code-settings.json\",\n  \"aaa\": true\n}\n";
    let text = round_trip(original);
    assert!(text.starts_with("{\n  \"zzz\": {\"nested\": [1, 2, {\"x\": null}]},\n  \"$schema\": \"https://json.schemastore.org/claude-code-settings.json\",\n  \"aaa\": true,\n  \"hooks\": {\n"));
}

#[test]
fn bom_is_kept() {
    let text = round_trip("\u{feff}{\n  \"model\": \"opus\"\n}\n");
    assert!(text.starts_with("\u{feff}{\n  \"model\": \"opus\",\n  \"hooks\""));
}

#[test]
fn crlf_line_ends_are_kept() {
    let text = round_trip("{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\"hooks\": []}\r\n    ]\r\n  }\r\n}\r\n");
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "every new line ends in CRLF too: {text:?}"
    );
}

#[test]
fn tab_indents_are_kept() {
    let text = round_trip("{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"Stop\": []\n\t}\n}\n");
    assert!(text.contains("\n\t\t\"Stop\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\""), "{text}");
    assert!(
        !text.contains("  "),
        "no spaces used for indentation: {text}"
    );
}

#[test]
fn four_space_and_spaced_colon_styles_are_followed() {
    let text = round_trip("{\n    \"model\" : \"opus\"\n}");
    assert!(
        text.contains("\n    \"hooks\" : {\n        \"UserPromptSubmit\" : [\n"),
        "{text}"
    );
    assert!(text.ends_with('}'), "no final newline added");
}

#[test]
fn escapes_and_number_spellings_are_kept() {
    let original = "{\n  \"name\": \"caf\\u00e9 \\/ b\\u00E9\",\n  \"n\": [1.0e3, -0, 1E+2, 0.50, 1e400],\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo \\u0041\\/\"}]}]\n  }\n}\n";
    let text = round_trip(original);
    assert!(text.starts_with(
        "{\n  \"name\": \"caf\\u00e9 \\/ b\\u00E9\",\n  \"n\": [1.0e3, -0, 1E+2, 0.50, 1e400],\n"
    ));
}

#[test]
fn single_line_and_minified_documents_round_trip() {
    for original in [
        "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"say hi\"}]}]}}",
        "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say hi\"}]}]}}\n",
        "{\"a\":1}",
        "{\n  \"hooks\": {\"Stop\": [{\"hooks\": []}], \"PermissionRequest\": []}\n}\n",
    ] {
        let text = round_trip(original);
        if !original.contains('\n') {
            assert!(!text.contains('\n'), "a one-line file stays one line: {text}");
        }
    }
}

#[test]
fn missing_final_newline_is_kept() {
    let text = round_trip("{\n  \"model\": \"opus\"\n}");
    assert!(text.ends_with("\n}"));
}

#[test]
fn valid_json_the_editor_cannot_hold_is_refused_with_its_place() {
    let text = "{\n  \"s\": \"\\ud800\"\n}";
    let err = install_grouped_hooks(Some(text), &wanted(), &is_ours, &InstallRecord::default())
        .unwrap_err();
    assert!(
        matches!(
            err,
            EditError::Unsupported {
                line: 2,
                column: 9,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("unpaired high surrogate"), "{err}");
}

#[test]
fn blank_lines_around_the_object_and_no_indentation_are_kept() {
    round_trip("\n\n  {\"a\": 1}  \n\n");
    let text = round_trip("{\r\n\"a\": 1\r\n}");
    assert!(
        text.starts_with("{\r\n\"a\": 1,\r\n\"hooks\": {\r\n"),
        "{text:?}"
    );
}
