//! Verified status on a fixture HOME: each state, checked on disk.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use termic_hooks::plan::AgentVersions;

use common::tree::HomeFixture;
use termic_hooks::agents::{agy, claude, opencode, AgentSchema};
use termic_hooks::apply::{self, read_snapshot};
use termic_hooks::plan::InstallFacts;
use termic_hooks::status::{status_report, target_status, wired, Reason, State};
use termic_hooks::target::{AgentRef, InstallTarget};

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

fn state(fx: &HomeFixture, schema: AgentSchema, facts: &InstallFacts) -> State {
    let t = InstallTarget::host(schema, &fx.paths, &fx.no_guard()).unwrap();
    target_status(&t, &read_snapshot(&t).unwrap(), facts).state
}

fn install(fx: &HomeFixture, schema: AgentSchema) {
    let t = InstallTarget::host(schema, &fx.paths, &fx.no_guard()).unwrap();
    apply::install(&t, &FACTS).unwrap();
}

fn reasons(s: State) -> Vec<Reason> {
    match s {
        State::NotWired(r) => r,
        other => panic!("expected not wired, got {other:?}"),
    }
}

#[test]
fn not_installed_then_wired_for_every_agent() {
    let fx = HomeFixture::new();
    for schema in AgentSchema::all() {
        assert_eq!(
            state(&fx, schema, &FACTS),
            State::NotInstalled,
            "{}",
            schema.id()
        );
        install(&fx, schema);
        assert_eq!(state(&fx, schema, &FACTS), State::Wired, "{}", schema.id());
    }
    let report = status_report(&[], &fx.paths, &fx.no_guard(), &FACTS);
    for schema in AgentSchema::all() {
        assert!(wired(&report, schema.id()));
    }
    assert!(!wired(&report, "codex"));
    let codex = report.target("codex", "-").unwrap();
    assert_eq!(
        codex.state,
        State::NotNeeded("not needed (its terminal already reports this)")
    );
    assert_eq!(
        report.target("cursor", "-").unwrap().state,
        State::NotSupported("not supported yet")
    );
}

#[test]
fn an_entry_removed_by_someone_else_is_not_wired() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::CLAUDE);
    // The user (or a tool) rewrites the file without our entries.
    fx.write(".claude/settings.json", b"{\"model\": \"opus\"}\n");
    let r = reasons(state(&fx, AgentSchema::CLAUDE, &FACTS));
    assert_eq!(r.len(), 4, "{r:?}");
    assert!(r.iter().all(|r| matches!(r, Reason::EntryMissing { .. })));
    assert!(r[0].to_string().contains("something rewrote the file"));
}

/// The reasons after `edit` rewrites the installed config text.
fn reasons_after(schema: AgentSchema, rel: &str, edit: impl Fn(&str) -> String) -> Vec<Reason> {
    let fx = HomeFixture::new();
    install(&fx, schema);
    let text = std::fs::read_to_string(fx.paths.home.join(rel)).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit must change the file");
    fx.write(rel, edited.as_bytes());
    reasons(state(&fx, schema, &FACTS))
}

fn only_wrong(r: &[Reason], event: &str, why: &str) {
    assert_eq!(r.len(), 1, "{r:?}");
    match &r[0] {
        Reason::EntryWrong {
            event: e, why: w, ..
        } => assert_eq!((e.as_str(), *w), (event, why)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_entry_of_the_wrong_shape_path_or_type_or_a_deleted_config_is_not_wired() {
    // Our prefix, another script: an older or hand-moved entry.
    let r = reasons_after(AgentSchema::CLAUDE, ".claude/settings.json", |t| {
        t.replace("termic-hooks/stop.sh", "termic-hooks/stop-v0.sh")
    });
    only_wrong(&r, "Stop", "points at another path");
    // Claude's first entry is UserPromptSubmit's.
    let r = reasons_after(AgentSchema::CLAUDE, ".claude/settings.json", |t| {
        t.replacen("\"type\": \"command\"", "\"type\": \"prompt\"", 1)
    });
    only_wrong(&r, "UserPromptSubmit", "is not a command hook");
    let r = reasons_after(AgentSchema::AGY, ".gemini/config/hooks.json", |t| {
        t.replace("\"enabled\": true", "\"enabled\": false")
    });
    only_wrong(&r, "termic", "is not enabled");
    let r = reasons_after(AgentSchema::GROK, ".grok/hooks/termic.json", |t| {
        t.replace("termic-hooks/notification.sh", "termic-hooks/other.sh")
    });
    only_wrong(&r, "Notification", "points at another path");

    // Scripts and manifest still there, the config file gone.
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::GROK);
    let config = fx.paths.home.join(".grok/hooks/termic.json");
    std::fs::remove_file(&config).unwrap();
    let r = reasons(state(&fx, AgentSchema::GROK, &FACTS));
    assert_eq!(r, [Reason::ConfigMissing(config)]);
}

#[test]
fn a_script_that_is_missing_not_executable_or_changed_is_not_wired() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::CLAUDE);
    let dir = fx.paths.home.join(".claude/termic-hooks");
    std::fs::set_permissions(dir.join("stop.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(dir.join("user-prompt-submit.sh")).unwrap();
    std::fs::write(dir.join("permission-request.sh"), b"#!/bin/sh\nexit 0\n").unwrap();
    let r = reasons(state(&fx, AgentSchema::CLAUDE, &FACTS));
    assert!(
        r.contains(&Reason::ScriptNotExecutable(dir.join("stop.sh"))),
        "{r:?}"
    );
    assert!(r.contains(&Reason::ScriptMissing(dir.join("user-prompt-submit.sh"))));
    assert!(r.contains(&Reason::ScriptChanged(dir.join("permission-request.sh"))));
}

#[test]
fn disable_all_hooks_async_and_an_old_claude_are_not_wired() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::CLAUDE);
    let path = fx.paths.home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen('{', "{\"disableAllHooks\": true,", 1)).unwrap();
    let r = reasons(state(&fx, AgentSchema::CLAUDE, &FACTS));
    assert_eq!(
        r,
        [Reason::Trap {
            path: path.clone(),
            why: claude::ALL_HOOKS_OFF,
            refuses_install: true
        }]
    );
    assert_eq!(
        r[0].to_string(),
        format!(
            "disableAllHooks is set in {}: Claude runs no hook",
            path.display()
        )
    );

    std::fs::write(
        &path,
        text.replace("\"timeout\": 5", "\"timeout\": 5, \"async\": true"),
    )
    .unwrap();
    let r = reasons(state(&fx, AgentSchema::CLAUDE, &FACTS));
    assert_eq!(r.len(), 4);
    assert!(r[0].to_string().contains("async"));

    std::fs::write(&path, &text).unwrap();
    let old = InstallFacts {
        versions: AgentVersions::fixed(&[("claude", (2, 1, 100))]),
        ..FACTS
    };
    assert_eq!(
        reasons(state(&fx, AgentSchema::CLAUDE, &old)),
        [Reason::AgentTooOld {
            gate: &claude::VERSION_GATE,
            found: (2, 1, 100)
        }]
    );
    assert_eq!(
        reasons(state(&fx, AgentSchema::CLAUDE, &old))[0].to_string(),
        "Claude Code 2.1.100 is older than 2.1.141, which hook output needs"
    );
}

#[test]
fn before_any_install_status_says_why_an_install_would_refuse() {
    let fx = HomeFixture::new();
    let t = InstallTarget::host(AgentSchema::CLAUDE, &fx.paths, &fx.no_guard()).unwrap();
    let notes = |facts: &InstallFacts| {
        let s = target_status(&t, &read_snapshot(&t).unwrap(), facts);
        assert_eq!(s.state, State::NotInstalled);
        s.notes
    };
    assert_eq!(notes(&FACTS), Vec::<String>::new());
    fx.write(".claude/settings.json", b"{\"disableAllHooks\": true}\n");
    let n = notes(&FACTS);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].starts_with("disableAllHooks is set in ") && n[0].ends_with("; install would refuse"),
        "{n:?}"
    );
    fx.write(".claude/settings.json", b"{}\n");
    let old = InstallFacts {
        versions: AgentVersions::fixed(&[("claude", (2, 1, 140))]),
        ..FACTS
    };
    let n = notes(&old);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(n[0].contains("2.1.140 is older than 2.1.141"), "{n:?}");
}

#[test]
fn a_malformed_config_is_an_error_with_line_and_column() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::CLAUDE);
    fx.write(".claude/settings.json", b"{\n  \"model\": \"opus\",,\n}\n");
    match state(&fx, AgentSchema::CLAUDE, &FACTS) {
        State::Error(e) => assert!(
            e.contains(".claude/settings.json") && e.contains("line 2, column 19"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn agy_wrapped_in_a_matcher_group_or_only_in_the_dead_path_is_not_wired() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::AGY);
    let live = fx.paths.home.join(".gemini/config/hooks.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&live).unwrap()).unwrap();
    let mut wrapped = v.clone();
    for event in ["PreInvocation", "Stop"] {
        let h = wrapped["termic"][event][0].clone();
        wrapped["termic"][event] = serde_json::json!([{ "matcher": "*", "hooks": [h] }]);
    }
    std::fs::write(&live, serde_json::to_vec_pretty(&wrapped).unwrap()).unwrap();
    let r = reasons(state(&fx, AgentSchema::AGY, &FACTS));
    assert_eq!(r.len(), 2);
    assert!(r[0].to_string().contains("matcher group"), "{}", r[0]);

    // The entry moved to antigravity-cli/hooks.json: loads, never runs.
    std::fs::remove_file(&live).unwrap();
    fx.write(
        ".gemini/antigravity-cli/hooks.json",
        &serde_json::to_vec_pretty(&v).unwrap(),
    );
    let r = reasons(state(&fx, AgentSchema::AGY, &FACTS));
    assert!(
        matches!(
            r[..],
            [Reason::Trap {
                why: agy::ONLY_IN_DEAD_FILE,
                ..
            }]
        ),
        "{r:?}"
    );
}

#[test]
fn opencode_with_a_copy_in_the_legacy_plugin_dir_is_not_wired() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::OPENCODE);
    fx.write(".config/opencode/plugin/termic.js", b"// old copy\n");
    let r = reasons(state(&fx, AgentSchema::OPENCODE, &FACTS));
    assert!(
        matches!(
            r[..],
            [Reason::Trap {
                why: opencode::ALSO_IN_LEGACY_DIR,
                ..
            }]
        ),
        "{r:?}"
    );
}

#[test]
fn grok_status_reports_the_claude_hooks_opt_out_and_docker_targets_are_wired_for_pty_agents_too() {
    let fx = HomeFixture::new();
    install(&fx, AgentSchema::GROK);
    fx.write(".grok/config.toml", b"[compat.claude]\nhooks = false\n");
    let docker_agents = [
        AgentRef::builtin(AgentSchema::GROK),
        AgentRef::builtin(AgentSchema::CLAUDE),
    ];
    let report = status_report(&docker_agents, &fx.paths, &fx.no_guard(), &FACTS);
    let grok = report.target("grok", "host").unwrap();
    assert_eq!(grok.state, State::Wired);
    assert!(grok.notes[0].contains("ignores"), "{:?}", grok.notes);
    // A broken config.toml: still wired (the note only informs), one line
    // naming the file, line and column.
    let toml = fx.write(".grok/config.toml", b"model = 1\n[compat.claude\n");
    let broken = status_report(&[], &fx.paths, &fx.no_guard(), &FACTS);
    let grok_broken = broken.target("grok", "host").unwrap();
    assert_eq!(grok_broken.state, State::Wired);
    assert_eq!(
        grok_broken.notes,
        [format!(
            "could not tell whether grok runs the hooks in ~/.claude/settings.json: {} is not valid TOML \
             (line 2, column 15: unclosed table, expected `]`)",
            toml.display()
        )]
    );
    fx.write(".grok/config.toml", b"[compat.claude]\nhooks = false\n");
    // A Docker agent's row says not installed until it is.
    assert_eq!(
        report.target("grok", "docker:grok").unwrap().state,
        State::NotInstalled
    );
    assert!(report.target("opencode", "docker:opencode").is_none());
    let t = InstallTarget::docker(
        &AgentRef::builtin(AgentSchema::GROK),
        &fx.paths,
        &fx.no_guard(),
    )
    .unwrap();
    apply::install(&t, &FACTS).unwrap();
    let report = status_report(&docker_agents, &fx.paths, &fx.no_guard(), &FACTS);
    // termic mounts the task's PTY in the container and points $TERMIC_PTY
    // at it: grok's hooks reach the terminal from inside (measured in
    // crates/termic/tests/e2e_specs/docker_tasks.rs).
    let docker = report.target("grok", "docker:grok").unwrap();
    assert_eq!(docker.state, State::Wired);
    let t = InstallTarget::docker(
        &AgentRef::builtin(AgentSchema::CLAUDE),
        &fx.paths,
        &fx.no_guard(),
    )
    .unwrap();
    apply::install(&t, &FACTS).unwrap();
    let report = status_report(&docker_agents, &fx.paths, &fx.no_guard(), &FACTS);
    assert_eq!(
        report.target("claude", "docker:claude").unwrap().state,
        State::Wired
    );
}
