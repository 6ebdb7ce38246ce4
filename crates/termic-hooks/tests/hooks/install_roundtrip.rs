//! Install and remove end to end on a fixture HOME: snapshot, plan, apply.

use crate::common;

use std::os::unix::fs::{symlink, PermissionsExt};
use termic_hooks::plan::AgentVersions;

use common::tree::{tree, HomeFixture};
use termic_hooks::agents::{claude, AgentSchema};
use termic_hooks::apply::{self, read_snapshot};
use termic_hooks::plan::{self, Action, InstallFacts, PlanError};
use termic_hooks::status::{target_status, State};
use termic_hooks::target::{targets_for, AgentRef, InstallTarget};

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

fn host(fx: &HomeFixture, schema: AgentSchema) -> InstallTarget {
    InstallTarget::host(schema, &fx.paths, &fx.no_guard()).unwrap()
}

fn every_builtin() -> Vec<AgentRef> {
    AgentSchema::all()
        .into_iter()
        .map(AgentRef::builtin)
        .collect()
}

const USER_SETTINGS: &str = "{\r\n\t\"model\": \"opus\",\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [\r\n\t\t\t{ \"hooks\": [ { \"type\": \"command\", \"command\": \"say done\" } ] }\r\n\t\t]\r\n\t},\r\n\t\"env\": { \"A\": \"\\u00e9\\/\" }\r\n}";

#[test]
fn every_agent_installs_and_removes_back_to_the_exact_tree() {
    let fx = HomeFixture::new();
    fx.write(".claude/settings.json", USER_SETTINGS.as_bytes());
    fx.write(
        ".gemini/config/hooks.json",
        b"{\n  \"mine\": {\"enabled\": true, \"Stop\": [{\"type\": \"command\", \"command\": \"x\"}]}\n}\n",
    );
    let before = tree(&fx.paths.home);
    for schema in AgentSchema::all() {
        for t in targets_for(schema, &every_builtin(), &fx.paths, &fx.no_guard()).unwrap() {
            apply::install(&t, &FACTS).unwrap();
            // Installing again changes nothing.
            let again = plan::plan_install(&t, &read_snapshot(&t).unwrap(), &FACTS).unwrap();
            assert!(
                again.is_empty(),
                "{} {}: second install plans {:?}",
                schema.id(),
                t.label(),
                again.describe()
            );
        }
    }
    assert_ne!(tree(&fx.paths.home), before);
    for schema in AgentSchema::all() {
        for t in targets_for(schema, &every_builtin(), &fx.paths, &fx.no_guard()).unwrap() {
            let p = apply::remove(&t).unwrap();
            assert!(p.left_alone.is_empty(), "{:?}", p.left_alone);
        }
    }
    assert_eq!(tree(&fx.paths.home), before);
    // termic's own data dir keeps at most empty directories shared by
    // several Docker agents (docker-agents/), never a file.
    let left: Vec<_> = tree(&fx.paths.data_dir)
        .into_iter()
        .filter(|(_, e)| !matches!(e, common::tree::Entry::Dir(_)))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn claude_install_writes_synchronous_entries_with_the_host_command_and_keeps_user_hooks() {
    let fx = HomeFixture::new();
    fx.write(".claude/settings.json", USER_SETTINGS.as_bytes());
    let t = host(&fx, AgentSchema::CLAUDE);
    apply::install(&t, &FACTS).unwrap();
    let text = String::from_utf8(fx.read(".claude/settings.json")).unwrap();
    assert!(text.contains("\"say done\""), "user hook survives");
    assert!(text.contains(r#""A": "\u00e9\/""#), "escapes survive");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (event, file) in [
        ("UserPromptSubmit", "user-prompt-submit.sh"),
        ("PermissionRequest", "permission-request.sh"),
        ("Stop", "stop.sh"),
        ("StopFailure", "stop-failure.sh"),
    ] {
        let groups = v["hooks"][event].as_array().unwrap();
        let ours: Vec<_> = groups
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().unwrap().contains("termic-hooks"))
            .collect();
        assert_eq!(ours.len(), 1, "{event}");
        let h = ours[0];
        let want = fx.paths.home.join(".claude/termic-hooks").join(file);
        assert_eq!(h["command"], want.to_str().unwrap());
        assert_eq!(h["timeout"], 5);
        assert!(h["statusMessage"].is_string());
        assert!(h.get("async").is_none());
        for control in ["decision", "permissionDecision", "continue"] {
            assert!(h.get(control).is_none());
        }
        let script = fx.paths.home.join(".claude/termic-hooks").join(file);
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    // The one-time backup holds the original bytes.
    assert_eq!(
        fx.read(".claude/termic-hooks/backup/settings.json"),
        USER_SETTINGS.as_bytes()
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&fx.read(".claude/termic-hooks/manifest.json")).unwrap();
    assert_eq!(manifest["installed_at_unix"], 1_790_000_000u64);
    assert_eq!(manifest["files"].as_array().unwrap().len(), 4);
}

#[test]
fn docker_target_writes_the_container_path_host_target_writes_the_host_path() {
    let fx = HomeFixture::new();
    let host = host(&fx, AgentSchema::CLAUDE);
    let docker = InstallTarget::docker(
        &AgentRef::builtin(AgentSchema::CLAUDE),
        &fx.paths,
        &fx.no_guard(),
    )
    .unwrap();
    apply::install(&host, &FACTS).unwrap();
    apply::install(&docker, &FACTS).unwrap();
    let host_text = String::from_utf8(fx.read(".claude/settings.json")).unwrap();
    let docker_text =
        std::fs::read_to_string(fx.paths.data_dir.join("docker-agents/claude/settings.json"))
            .unwrap();
    let host_cmd = fx.paths.home.join(".claude/termic-hooks/stop.sh");
    assert!(host_text.contains(host_cmd.to_str().unwrap()));
    assert!(!host_text.contains("/root/"));
    assert!(docker_text.contains("\"/root/.claude/termic-hooks/stop.sh\""));
    assert!(!docker_text.contains(fx.paths.home.to_str().unwrap()));
    assert!(fx
        .paths
        .data_dir
        .join("docker-agents/claude/termic-hooks/stop.sh")
        .is_file());
}

#[test]
fn a_cloned_agent_resolves_its_own_dir_but_claudes_schema_shape() {
    let fx = HomeFixture::new();
    let clone = AgentRef {
        id: "claude-work".into(),
        base: Some("claude".into()),
    };
    let targets = targets_for(AgentSchema::CLAUDE, &[clone], &fx.paths, &fx.no_guard()).unwrap();
    assert_eq!(targets.len(), 2);
    for t in &targets {
        apply::install(t, &FACTS).unwrap();
    }
    let dir = fx.paths.data_dir.join("docker-agents/claude-work");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("settings.json")).unwrap()).unwrap();
    // Claude's shape: hooks.<Event>[] = {hooks: [handler]}.
    assert_eq!(
        v["hooks"]["PermissionRequest"][0]["hooks"][0]["command"],
        "/root/.claude/termic-hooks/permission-request.sh"
    );
    assert!(dir.join("termic-hooks/permission-request.sh").is_file());
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("termic-hooks/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["agent_id"], "claude-work");
    assert_eq!(m["target"], "docker:claude-work");
}

#[test]
fn grok_gets_its_own_file_and_agy_its_named_entry_directly_under_each_event() {
    let fx = HomeFixture::new();
    apply::install(&host(&fx, AgentSchema::GROK), &FACTS).unwrap();
    apply::install(&host(&fx, AgentSchema::AGY), &FACTS).unwrap();
    let grok: serde_json::Value =
        serde_json::from_slice(&fx.read(".grok/hooks/termic.json")).unwrap();
    for event in ["UserPromptSubmit", "Notification", "Stop", "StopCancelled"] {
        assert!(
            grok["hooks"][event][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .ends_with(".sh"),
            "{event}"
        );
    }
    assert!(
        !fx.paths.home.join(".claude").exists(),
        "grok never touches claude's files"
    );
    let agy: serde_json::Value =
        serde_json::from_slice(&fx.read(".gemini/config/hooks.json")).unwrap();
    let entry = &agy["termic"];
    assert_eq!(entry["enabled"], true);
    for event in ["PreInvocation", "Stop"] {
        let h = &entry[event][0];
        assert_eq!(h["type"], "command");
        assert!(
            h.get("hooks").is_none() && h.get("matcher").is_none(),
            "{event} must not be wrapped"
        );
    }
    assert!(!fx.paths.home.join(".gemini/antigravity-cli").exists());
    apply::install(&host(&fx, AgentSchema::OPENCODE), &FACTS).unwrap();
    assert!(fx
        .paths
        .home
        .join(".config/opencode/plugins/termic.js")
        .is_file());
    assert!(!fx.paths.home.join(".config/opencode/plugin").exists());
}

#[test]
fn gemini_copilot_and_qwen_get_their_own_handler_shapes() {
    let fx = HomeFixture::new();
    for s in [AgentSchema::GEMINI, AgentSchema::COPILOT, AgentSchema::QWEN] {
        apply::install(&host(&fx, s), &FACTS).unwrap();
    }
    let gemini: serde_json::Value =
        serde_json::from_slice(&fx.read(".gemini/settings.json")).unwrap();
    for event in ["BeforeAgent", "Notification", "AfterAgent"] {
        let h = &gemini["hooks"][event][0]["hooks"][0];
        assert_eq!(h["type"], "command", "{event}");
        // Gemini reads milliseconds: 5 would kill the hook after 5 ms.
        assert_eq!(h["timeout"], 5000, "{event}");
        assert!(h["command"]
            .as_str()
            .unwrap()
            .contains("/.gemini/termic-hooks-gemini/"));
    }
    let copilot: serde_json::Value =
        serde_json::from_slice(&fx.read(".copilot/settings.json")).unwrap();
    for event in ["userPromptSubmitted", "permissionRequest", "agentStop"] {
        let h = &copilot["hooks"][event][0];
        assert_eq!(h["type"], "command", "{event}");
        assert_eq!(h["timeoutSec"], 5, "{event}");
        assert!(h.get("hooks").is_none() && h.get("command").is_none());
        assert!(h["bash"].as_str().unwrap().ends_with(".sh"), "{event}");
    }
    let qwen: serde_json::Value = serde_json::from_slice(&fx.read(".qwen/settings.json")).unwrap();
    for event in ["UserPromptSubmit", "PermissionRequest", "Stop"] {
        let h = &qwen["hooks"][event][0]["hooks"][0];
        assert_eq!(h["timeout"], 5, "{event}");
        assert!(h.get("statusMessage").is_none(), "{event}");
    }
}

#[test]
fn agy_and_gemini_share_gemini_dir_and_removing_one_leaves_the_other_byte_identical() {
    for (first, second) in [
        (AgentSchema::AGY, AgentSchema::GEMINI),
        (AgentSchema::GEMINI, AgentSchema::AGY),
    ] {
        let fx = HomeFixture::new();
        fx.write(".gemini/settings.json", b"{\n  \"theme\": \"dark\"\n}\n");
        let original = tree(&fx.paths.home);
        apply::install(&host(&fx, first), &FACTS).unwrap();
        let only_first = tree(&fx.paths.home);
        apply::install(&host(&fx, second), &FACTS).unwrap();
        for s in [first, second] {
            let t = host(&fx, s);
            let st = target_status(&t, &read_snapshot(&t).unwrap(), &FACTS).state;
            assert_eq!(st, State::Wired, "{} beside {}", s.id(), first.id());
        }
        apply::remove(&host(&fx, second)).unwrap();
        assert_eq!(
            tree(&fx.paths.home),
            only_first,
            "removing {} touched {}",
            second.id(),
            first.id()
        );
        apply::remove(&host(&fx, first)).unwrap();
        assert_eq!(tree(&fx.paths.home), original);
    }
}

#[test]
fn a_symlinked_settings_json_stays_a_symlink_with_its_target_updated_and_mode_kept() {
    let fx = HomeFixture::new();
    let dotfiles = fx.root().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("claude-settings.json");
    std::fs::write(&real, b"{\n  \"model\": \"opus\"\n}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::create_dir_all(fx.paths.home.join(".claude")).unwrap();
    let link = fx.paths.home.join(".claude/settings.json");
    symlink(&real, &link).unwrap();
    let t = host(&fx, AgentSchema::CLAUDE);
    apply::install(&t, &FACTS).unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_link(&link).unwrap(), real);
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("termic-hooks/stop.sh"));
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
    apply::remove(&t).unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&real).unwrap(),
        b"{\n  \"model\": \"opus\"\n}\n"
    );
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn disable_all_hooks_makes_install_a_no_op_and_an_old_claude_is_refused() {
    let fx = HomeFixture::new();
    let original = b"{\"disableAllHooks\": true}\n";
    fx.write(".claude/settings.json", original);
    let before = tree(&fx.root());
    let t = host(&fx, AgentSchema::CLAUDE);
    let err = plan::plan_install(&t, &read_snapshot(&t).unwrap(), &FACTS).unwrap_err();
    assert!(matches!(err, PlanError::Refused { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "{}: disableAllHooks is set, so Claude Code would run no hook at all; termic installed \
             nothing. Remove disableAllHooks from that file if you want termic's hooks",
            fx.paths.home.join(".claude/settings.json").display()
        )
    );
    assert!(apply::install(&t, &FACTS).is_err());
    assert_eq!(tree(&fx.root()), before);

    let fx = HomeFixture::new();
    let old = InstallFacts {
        versions: AgentVersions::fixed(&[("claude", (2, 1, 140))]),
        ..FACTS
    };
    let t = host(&fx, AgentSchema::CLAUDE);
    let err = plan::plan_install(&t, &read_snapshot(&t).unwrap(), &old).unwrap_err();
    assert_eq!(
        err,
        PlanError::AgentTooOld {
            gate: &claude::VERSION_GATE,
            found: (2, 1, 140)
        }
    );
    assert_eq!(
        err.to_string(),
        "Claude Code 2.1.140 is too old: hook output (terminalSequence) needs 2.1.141 or newer. \
         Update Claude Code (`claude update`), then install again"
    );
}

#[test]
fn a_malformed_config_is_refused_naming_line_and_column_and_nothing_is_written() {
    let fx = HomeFixture::new();
    fx.write(".claude/settings.json", b"{\n  \"model\": \"opus\",\n}\n");
    let before = tree(&fx.root());
    let t = host(&fx, AgentSchema::CLAUDE);
    let err = apply::install(&t, &FACTS).unwrap_err().to_string();
    assert!(
        err.contains("settings.json") && err.contains("line"),
        "{err}"
    );
    assert_eq!(tree(&fx.root()), before);
}

#[test]
fn removal_without_a_manifest_finds_our_entries_by_path_prefix() {
    let fx = HomeFixture::new();
    fx.write(".claude/settings.json", USER_SETTINGS.as_bytes());
    let t = host(&fx, AgentSchema::CLAUDE);
    apply::install(&t, &FACTS).unwrap();
    std::fs::remove_file(fx.paths.home.join(".claude/termic-hooks/manifest.json")).unwrap();
    apply::remove(&t).unwrap();
    let text = String::from_utf8(fx.read(".claude/settings.json")).unwrap();
    assert!(!text.contains("termic-hooks"), "{text}");
    assert!(text.contains("say done"));
    assert!(!fx.paths.home.join(".claude/termic-hooks/stop.sh").exists());
}

#[test]
fn an_entry_the_user_edited_is_left_alone_and_reported() {
    let fx = HomeFixture::new();
    let t = host(&fx, AgentSchema::CLAUDE);
    apply::install(&t, &FACTS).unwrap();
    let path = fx.paths.home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"timeout\": 5", "\"timeout\": 9")).unwrap();
    let plan = plan::plan_remove(&t, &read_snapshot(&t).unwrap()).unwrap();
    assert_eq!(plan.left_alone.len(), 4, "{:?}", plan.left_alone);
    apply::remove(&t).unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert_eq!(after.matches("\"timeout\": 9").count(), 4);
}

#[test]
fn a_concurrent_writer_between_plan_and_apply_keeps_its_edit() {
    let fx = HomeFixture::new();
    fx.write(".claude/settings.json", b"{\n  \"model\": \"opus\"\n}\n");
    let t = host(&fx, AgentSchema::CLAUDE);
    let first = plan::plan_install(&t, &read_snapshot(&t).unwrap(), &FACTS).unwrap();
    // The agent rewrites its settings after termic read them.
    fx.write(
        ".claude/settings.json",
        b"{\n  \"model\": \"sonnet\",\n  \"theme\": \"dark\"\n}\n",
    );
    let applied = apply::apply(&t, first, |t, s| plan::plan_install(t, s, &FACTS)).unwrap();
    assert!(applied.changes.iter().any(|c| c.action == Action::Modify));
    let text = String::from_utf8(fx.read(".claude/settings.json")).unwrap();
    assert!(
        text.contains("\"theme\": \"dark\"") && text.contains("sonnet"),
        "{text}"
    );
    assert!(text.contains("termic-hooks/stop.sh"));
}

#[test]
fn a_home_with_a_space_and_a_quote_still_installs_a_working_recognisable_command() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().canonicalize().unwrap().join("it's a home");
    std::fs::create_dir_all(&home).unwrap();
    let paths = termic_hooks::target::Paths {
        home: home.clone(),
        data_dir: tmp.path().join("data"),
    };
    let t = InstallTarget::host(AgentSchema::CLAUDE, &paths, &Default::default()).unwrap();
    apply::install(&t, &FACTS).unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    let cmd = v["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(cmd.starts_with('\''), "{cmd}");
    // The quoted command runs the script through a shell, as the agent does.
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(&cmd)
        .env("TERMIC_TASK_ID", "t-1")
        .env_remove("GROK_HOOK_EVENT")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("terminalSequence"));
    apply::remove(&t).unwrap();
    assert!(!home.join(".claude").exists());
}

#[test]
fn reinstalling_repairs_a_script_that_lost_its_execute_bit() {
    let fx = HomeFixture::new();
    let t = host(&fx, AgentSchema::GROK);
    apply::install(&t, &FACTS).unwrap();
    let stop = fx.paths.home.join(".grok/termic-hooks/stop.sh");
    std::fs::set_permissions(&stop, std::fs::Permissions::from_mode(0o600)).unwrap();
    let p = plan::plan_install(&t, &read_snapshot(&t).unwrap(), &FACTS).unwrap();
    assert_eq!(p.changes.len(), 1, "{}", p.describe());
    apply::install(&t, &FACTS).unwrap();
    assert_eq!(
        std::fs::metadata(&stop).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[test]
fn install_over_an_older_termic_entry_replaces_it_and_removal_does_not_bring_it_back() {
    let fx = HomeFixture::new();
    let old_cmd = fx.paths.home.join(".claude/termic-hooks/notification.sh");
    let original = format!(
        "{{\n  \"hooks\": {{\n    \"Notification\": [\n      {{ \"hooks\": [ {{ \"type\": \"command\", \"command\": \"{}\" }} ] }}\n    ],\n    \"Stop\": [ {{ \"hooks\": [ {{ \"type\": \"command\", \"command\": \"say done\" }} ] }} ]\n  }}\n}}\n",
        old_cmd.display()
    );
    fx.write(".claude/settings.json", original.as_bytes());
    let t = host(&fx, AgentSchema::CLAUDE);
    apply::install(&t, &FACTS).unwrap();
    let installed = String::from_utf8(fx.read(".claude/settings.json")).unwrap();
    assert!(
        !installed.contains("notification.sh"),
        "old entry replaced:\n{installed}"
    );
    apply::remove(&t).unwrap();
    let after = String::from_utf8(fx.read(".claude/settings.json")).unwrap();
    assert!(
        !after.contains("termic-hooks"),
        "a stale termic hook came back:\n{after}"
    );
    assert!(after.contains("say done"));
}

fn chmod(path: &std::path::Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Issue 27: a dir another user can write (here world-writable, no sticky
/// bit) is refused for an install, nothing is written, and status says why.
#[test]
fn a_world_writable_agent_dir_refuses_the_install_and_status_says_why() {
    let fx = HomeFixture::new();
    fx.write(".claude/settings.json", USER_SETTINGS.as_bytes());
    let dir = fx.paths.home.join(".claude");
    chmod(&dir, 0o777);
    let t = host(&fx, AgentSchema::CLAUDE);
    let before = tree(&fx.root());
    let err = apply::install(&t, &FACTS).unwrap_err().to_string();
    assert!(
        err.contains(&format!("{} is writable by every user", dir.display())),
        "{err}"
    );
    assert!(err.contains("termic will not install hooks there"), "{err}");
    assert!(err.contains("chmod go-w"), "{err}");
    assert_eq!(tree(&fx.root()), before, "nothing written");
    let status = target_status(&t, &read_snapshot(&t).unwrap(), &FACTS);
    assert_eq!(status.state, State::NotInstalled);
    assert!(
        status
            .notes
            .iter()
            .any(|n| n.contains("writable by every user")),
        "{status:?}"
    );

    // A sticky world-writable dir (as /tmp) is fine: nobody may replace our files.
    chmod(&dir, 0o1777);
    apply::install(&t, &FACTS).unwrap();
    let status = target_status(&t, &read_snapshot(&t).unwrap(), &FACTS);
    assert_eq!(status.state, State::Wired, "{status:?}");

    // Installed, then the hooks folder becomes writable by all: not wired,
    // and a removal is refused too (nothing written).
    chmod(&dir, 0o755);
    let hooks = dir.join("termic-hooks");
    chmod(&hooks, 0o777);
    let status = target_status(&t, &read_snapshot(&t).unwrap(), &FACTS);
    match &status.state {
        State::NotWired(reasons) => assert!(
            reasons.iter().any(|r| r
                .to_string()
                .contains(&format!("{} is writable by every user", hooks.display()))),
            "{reasons:?}"
        ),
        other => panic!("{other:?}"),
    }
    let before = tree(&fx.root());
    let err = apply::remove(&t).unwrap_err().to_string();
    assert!(err.contains("termic will not remove hooks there"), "{err}");
    assert_eq!(tree(&fx.root()), before, "nothing written");
}

#[test]
fn a_world_writable_opencode_plugins_dir_refuses_the_install() {
    let fx = HomeFixture::new();
    let plugins = fx.paths.home.join(".config/opencode/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    chmod(&plugins, 0o777);
    let t = host(&fx, AgentSchema::OPENCODE);
    let before = tree(&fx.root());
    let err = apply::install(&t, &FACTS).unwrap_err().to_string();
    assert!(
        err.contains(&format!("{} is writable by every user", plugins.display())),
        "{err}"
    );
    assert_eq!(tree(&fx.root()), before, "nothing written");
}

/// The atomic writer itself (config.toml's path) refuses a world-writable
/// file or directory: no temp file, no byte changed.
#[test]
fn the_atomic_writer_refuses_a_file_or_dir_anyone_can_write() {
    use termic_hooks::fsio::{edit_file, Change, WriteOptions};
    let fx = HomeFixture::new();
    let dir = fx.root().join("config");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    std::fs::write(&file, "[ui]\n").unwrap();
    let write = || {
        edit_file(&file, &WriteOptions::default(), |_| {
            Ok::<_, std::io::Error>(Change::Write(b"[ui]\nwizard_shown = true\n".to_vec()))
        })
    };
    for (dir_mode, file_mode, named) in [(0o777, 0o644, &dir), (0o755, 0o666, &file)] {
        chmod(&dir, dir_mode);
        chmod(&file, file_mode);
        let before = tree(&fx.root());
        let err = write().unwrap_err().to_string();
        assert!(
            err.contains(&format!("{} is writable by every user", named.display())),
            "{err}"
        );
        assert_eq!(tree(&fx.root()), before, "nothing written");
    }
    chmod(&file, 0o644);
    write().unwrap();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "[ui]\nwizard_shown = true\n"
    );
}
