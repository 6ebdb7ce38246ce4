//! The planners are pure: these build snapshots by hand, no filesystem.

use crate::plan::AgentVersions;
use std::path::PathBuf;

use super::*;
use crate::agents::AgentSchema;
use crate::manifest::{Manifest, PreInstallText};
use crate::target::{AgentRef, ForbiddenRoots, InstallTarget, Paths};

fn paths() -> Paths {
    Paths {
        home: PathBuf::from("/nonexistent-home/u"),
        data_dir: PathBuf::from("/nonexistent-data"),
    }
}

fn host(schema: AgentSchema) -> InstallTarget {
    InstallTarget::host(schema, &paths(), &ForbiddenRoots::default()).unwrap()
}

const FACTS: InstallFacts = InstallFacts {
    now_unix: 42,
    versions: AgentVersions::NONE,
};

/// A snapshot where nothing exists under HOME.
fn empty_home(t: &InstallTarget) -> Snapshot {
    let mut s = Snapshot::default();
    for d in [
        t.dir().to_path_buf(),
        t.path(t.schema().hooks_dir()),
        t.path("plugins"),
    ] {
        s.insert_missing_dir(d);
    }
    s
}

#[test]
fn a_fresh_claude_install_creates_dirs_first_then_scripts_then_the_manifest_journal_then_the_config(
) {
    let t = host(AgentSchema::CLAUDE);
    let p = plan_install(&t, &empty_home(&t), &FACTS).unwrap();
    let order: Vec<(Action, String)> = p
        .changes
        .iter()
        .map(|c| {
            (
                c.action,
                c.path
                    .strip_prefix(t.dir())
                    .unwrap_or(&c.path)
                    .display()
                    .to_string(),
            )
        })
        .collect();
    let want = [
        (Action::CreateDir, ""),
        (Action::CreateDir, "termic-hooks"),
        (Action::Create, "termic-hooks/user-prompt-submit.sh"),
        (Action::Create, "termic-hooks/permission-request.sh"),
        (Action::Create, "termic-hooks/stop.sh"),
        (Action::Create, "termic-hooks/stop-failure.sh"),
        (Action::Create, "termic-hooks/manifest.json"),
        (Action::Create, "settings.json"),
    ];
    let want: Vec<(Action, String)> = want.iter().map(|(a, p)| (*a, p.to_string())).collect();
    assert_eq!(order, want);
    let journal = &p.changes[p.changes.len() - 2];
    let manifest = Manifest::parse(journal.after.as_ref().unwrap()).unwrap();
    assert_eq!(manifest.installed_at_unix, 42);
    // The journal already names the exact bytes the config is about to get.
    let config_after = p.changes.last().unwrap().after.as_ref().unwrap();
    assert_eq!(
        manifest.config.as_ref().unwrap().last_written_sha256,
        termic_hooks_sha(config_after)
    );
    let config = manifest.config.unwrap();
    assert_eq!(config.pre_install, PreInstallText::Absent);
    assert_eq!(config.written.len(), 4);
    assert!(manifest.created_dirs.iter().any(|d| d.ends_with(".claude")));
}

fn termic_hooks_sha(bytes: &[u8]) -> String {
    crate::edit::sha256_hex(bytes)
}

#[test]
fn the_install_time_comes_from_the_facts_not_a_clock() {
    let t = host(AgentSchema::OPENCODE);
    let a = plan_install(
        &t,
        &empty_home(&t),
        &InstallFacts {
            now_unix: 1,
            ..FACTS
        },
    )
    .unwrap();
    let b = plan_install(
        &t,
        &empty_home(&t),
        &InstallFacts {
            now_unix: 2,
            ..FACTS
        },
    )
    .unwrap();
    let stamp = |p: &InstallPlan| {
        Manifest::parse(p.changes.last().unwrap().after.as_ref().unwrap())
            .unwrap()
            .installed_at_unix
    };
    assert_eq!((stamp(&a), stamp(&b)), (1, 2));
}

#[test]
fn removing_what_was_never_installed_plans_nothing() {
    for schema in AgentSchema::all() {
        let t = host(schema);
        let p = plan_remove(&t, &empty_home(&t)).unwrap();
        assert!(p.is_empty(), "{}: {}", schema.id(), p.describe());
    }
}

#[test]
fn an_old_claude_is_refused_only_on_the_host() {
    let old = InstallFacts {
        versions: AgentVersions::fixed(&[("claude", (2, 1, 0))]),
        ..FACTS
    };
    let t = host(AgentSchema::CLAUDE);
    assert_eq!(
        plan_install(&t, &empty_home(&t), &old).unwrap_err(),
        PlanError::AgentTooOld {
            gate: &crate::agents::claude::VERSION_GATE,
            found: (2, 1, 0)
        }
    );
    // The host's claude says nothing about the container's.
    let d = InstallTarget::docker(
        &AgentRef::builtin(AgentSchema::CLAUDE),
        &paths(),
        &ForbiddenRoots::default(),
    )
    .unwrap();
    assert!(plan_install(&d, &Snapshot::default(), &old).is_ok());
}

#[test]
fn a_non_utf8_config_is_refused_naming_the_file() {
    let t = host(AgentSchema::AGY);
    let mut s = empty_home(&t);
    s.insert_file(t.path("config/hooks.json"), vec![b'{', 0xff, b'}'], 0o644);
    let err = plan_install(&t, &s, &FACTS).unwrap_err();
    assert!(err.to_string().contains("config/hooks.json"), "{err}");
    assert!(plan_remove(&t, &s).is_err());
}

#[test]
fn a_read_only_config_is_refused_by_install_and_remove() {
    for schema in [AgentSchema::CLAUDE, AgentSchema::AGY] {
        let t = host(schema);
        let file = t.path(t.schema().adapter().config_entry().file().unwrap());
        let mut s = empty_home(&t);
        s.insert_file(file.clone(), b"{}\n".to_vec(), 0o444);
        let err = plan_install(&t, &s, &FACTS).unwrap_err();
        assert_eq!(err, PlanError::ReadOnly { path: file.clone() });
        assert!(err.to_string().contains("chmod u+w"), "{err}");
        // Writable, it installs; then made read-only, removal refuses too.
        s.insert_file(file.clone(), b"{}\n".to_vec(), 0o644);
        let p = plan_install(&t, &s, &FACTS).unwrap();
        let after = p.changes.iter().find(|c| c.path == file).unwrap();
        s.insert_file(file.clone(), after.after.clone().unwrap(), 0o444);
        let err = plan_remove(&t, &s).unwrap_err();
        assert_eq!(
            err,
            PlanError::ReadOnly { path: file.clone() },
            "{}",
            schema.id()
        );
        // A read-only file termic does not need to change is no reason to refuse.
        s.insert_file(file, b"{}\n".to_vec(), 0o444);
        assert!(plan_remove(&t, &s).unwrap().is_empty());
    }
}

#[test]
fn the_diff_shows_the_added_entries_among_the_users_keys_and_the_head_of_new_files() {
    let t = host(AgentSchema::CLAUDE);
    let mut s = empty_home(&t);
    let settings = t.path("settings.json");
    let user = "{\n    \"model\": \"opus\",\n    \"theme\": \"dark\"\n}\n";
    s.insert_file(settings.clone(), user.as_bytes().to_vec(), 0o644);
    let p = plan_install(&t, &s, &FACTS).unwrap();
    let diff = p.diff();
    let shown = format!("--- {0}\n+++ {0}\n@@ ", settings.display());
    let at = diff.find(&shown).unwrap_or_else(|| panic!("{diff}"));
    let settings_diff = &diff[at..];
    assert!(
        settings_diff.contains("\n     \"model\": \"opus\",\n"),
        "{diff}"
    );
    assert!(
        settings_diff
            .lines()
            .any(|l| l.starts_with('+') && l.contains("termic-hooks/stop.sh")),
        "{diff}"
    );
    assert!(
        !settings_diff
            .lines()
            .any(|l| l.starts_with("-    \"model\"")),
        "{diff}"
    );
    // A new script: its head, then how much more there is.
    let stop = t.path("termic-hooks/stop.sh");
    let script = format!("--- /dev/null\n+++ {}\n@@ -0,0 +1,", stop.display());
    assert!(diff.contains(&script), "{diff}");
    assert!(diff.contains("+#!/bin/sh\n"), "{diff}");
    assert!(diff.contains(" more lines\n"), "{diff}");
    // Directories are listed by describe(), not diffed.
    assert!(
        !diff.contains(&format!("+++ {}\n", t.dir().display())),
        "{diff}"
    );
    // Removing it again: the same settings diff, the other way round.
    let mut after = empty_home(&t);
    for c in &p.changes {
        if let Some(bytes) = &c.after {
            after.insert_file(c.path.clone(), bytes.clone(), 0o644);
        }
    }
    let r = plan_remove(&t, &after).unwrap();
    let back = r.diff();
    assert!(
        back.lines()
            .any(|l| l.starts_with('-') && l.contains("termic-hooks/stop.sh")),
        "{back}"
    );
    assert!(
        back.contains(&format!("--- {}\n+++ /dev/null\n", stop.display())),
        "{back}"
    );
}
