//! `termic hooks` run as the real binary against a fixture HOME.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::cli_fixture;
use crate::git_support;

use cli_fixture::{termic_command, text};

use git_support::git;

const SETTINGS: &str = "{\n    \"$schema\": \"https://json.schemastore.org/claude-code-settings.json\",\n    \"permissions\": {\n        \"allow\": [\"Bash(git status)\"],\n        \"defaultMode\": \"default\"\n    },\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"afplay /System/Library/Sounds/Glass.aiff\"\n                    }\n                ]\n            }\n        ]\n    },\n    \"statusLine\": {\"type\": \"command\", \"command\": \"~/.claude/statusline.sh\"},\n    \"env\": {\"NAME\": \"Ren\\u00e9e\"}\n}";

struct Fx {
    root: cli_fixture::Root,
}

impl Fx {
    fn new() -> Fx {
        Fx {
            root: cli_fixture::Root::new(),
        }
    }
    fn root(&self) -> PathBuf {
        self.root.path()
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    /// A `claude` on PATH that prints `version`.
    fn fake_claude(&self, version: &str) {
        cli_fixture::fake_claude(&self.root(), version);
    }
    fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.home().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    fn termic_in(&self, cwd: &Path, args: &[&str]) -> Output {
        termic_command(&self.root(), cwd)
            .args(args)
            .output()
            .unwrap()
    }
    fn termic(&self, args: &[&str]) -> Output {
        self.termic_in(&self.root(), args)
    }
    /// `termic hooks status --json`: state key per (agent, target).
    fn states(&self) -> BTreeMap<(String, String), serde_json::Value> {
        let out = self.termic(&["hooks", "status", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut m = BTreeMap::new();
        for a in v["agents"].as_array().unwrap() {
            for t in a["targets"].as_array().unwrap() {
                let key = (
                    a["agent"].as_str().unwrap().to_string(),
                    t["target"].as_str().unwrap().to_string(),
                );
                m.insert(key, t["state"].clone());
            }
        }
        m
    }
    /// Claude's host row is "not wired" and its first reason says `why`.
    fn assert_not_wired_because(&self, why: &str) {
        let st = self.claude_state();
        assert_eq!(st["key"], "not_wired", "{st}");
        let first = st["reasons"][0].as_str().unwrap_or_default();
        assert!(first.contains(why), "{why:?} not in {st}");
    }

    fn claude_state(&self) -> serde_json::Value {
        self.states()[&("claude".to_string(), "host".to_string())].clone()
    }
}

/// Files (bytes and mode) and symlinks under `root`; directories by name.
fn tree(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (Vec<u8>, u32)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if m.is_dir() {
                out.insert(rel, (Vec::new(), m.permissions().mode()));
                walk(root, &p, out);
            } else {
                out.insert(rel, (std::fs::read(&p).unwrap(), m.permissions().mode()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn install_claude_then_remove_leaves_every_file_byte_identical() {
    let fx = Fx::new();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    fx.write(".claude/statusline.sh", b"#!/bin/sh\necho hi\n");
    let before = tree(&fx.home());
    let out = fx.termic(&["hooks", "install", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("termic will write these files:"),
        "{stdout}"
    );
    assert!(stdout.contains("settings.json"));
    assert!(
        stdout.contains("claude (host): installed and wired"),
        "{stdout}"
    );
    let settings = std::fs::read_to_string(fx.home().join(".claude/settings.json")).unwrap();
    assert!(settings.contains("afplay") && settings.contains("termic-hooks/stop.sh"));
    assert_ne!(tree(&fx.home()), before);

    // The Settings toggle follows: termic's own config.toml records consent.
    let consent = || std::fs::read_to_string(fx.root().join("config/config.toml")).unwrap();
    assert!(consent().contains("claude = true"), "{}", consent());

    let out = fx.termic(&["hooks", "remove", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tree(&fx.home()), before);
    assert!(consent().contains("claude = false"), "{}", consent());
    // Removing again finds nothing and still succeeds, with nothing to ask.
    let out = fx.termic(&["hooks", "remove", "claude"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("nothing to remove"));
}

#[test]
fn a_refused_removal_leaves_the_stored_toggle_on() {
    let fx = Fx::new();
    let out = fx.termic(&["hooks", "install", "claude", "grok", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let consent = || std::fs::read_to_string(fx.root().join("config/config.toml")).unwrap();
    assert!(
        consent().contains("claude = true") && consent().contains("grok = true"),
        "{}",
        consent()
    );
    // settings.json no longer parses: claude's removal is refused.
    let settings = fx.home().join(".claude/settings.json");
    let mut broken = std::fs::read(&settings).unwrap();
    broken.extend_from_slice(b",}");
    std::fs::write(&settings, &broken).unwrap();
    let out = fx.termic(&["hooks", "remove", "claude", "grok", "--yes"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("claude (host): nothing removed"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&settings).unwrap(), broken);
    // claude keeps the user's toggle; grok, removed, is off.
    assert!(consent().contains("claude = true"), "{}", consent());
    assert!(consent().contains("grok = false"), "{}", consent());
    assert!(!fx.home().join(".grok/hooks/termic.json").exists());
}

#[test]
fn dry_run_writes_nothing() {
    let fx = Fx::new();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let before = tree(&fx.root());
    let out = fx.termic(&[
        "hooks",
        "install",
        "claude",
        "grok",
        "agy",
        "opencode",
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Dry run: nothing was written."));
    for f in [
        ".claude/termic-hooks/stop.sh",
        ".grok/hooks/termic.json",
        ".gemini/config/hooks.json",
        ".config/opencode/plugins/termic.js",
    ] {
        assert!(stdout.contains(f), "{f} not listed:\n{stdout}");
    }
    assert_eq!(tree(&fx.root()), before);
}

#[test]
fn status_tells_the_truth_in_each_state() {
    let fx = Fx::new();
    let s = fx.states();
    assert_eq!(s[&("claude".into(), "host".into())]["key"], "not_installed");
    assert_eq!(s[&("codex".into(), "-".into())]["key"], "not_needed");
    assert_eq!(
        s[&("codex".into(), "-".into())]["summary"],
        "not needed (its terminal already reports this)"
    );
    assert_eq!(
        s[&("cursor".into(), "-".into())]["summary"],
        "not supported yet"
    );
    for id in ["gemini", "copilot", "qwen"] {
        assert_eq!(
            s[&(id.into(), "host".into())]["key"],
            "not_installed",
            "{id}"
        );
    }

    assert_eq!(
        fx.termic(&["hooks", "install", "claude", "--yes"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(fx.claude_state()["key"], "wired");

    // A script loses its execute bit.
    let stop = fx.home().join(".claude/termic-hooks/stop.sh");
    std::fs::set_permissions(&stop, std::fs::Permissions::from_mode(0o644)).unwrap();
    fx.assert_not_wired_because("not executable");
    std::fs::set_permissions(&stop, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(fx.claude_state()["key"], "wired");

    // Something rewrites settings.json without our entries.
    let settings = fx.home().join(".claude/settings.json");
    let ours = std::fs::read(&settings).unwrap();
    std::fs::write(&settings, b"{\"model\": \"opus\"}\n").unwrap();
    fx.assert_not_wired_because("something rewrote the file");

    // disableAllHooks.
    let text_ours = String::from_utf8(ours.clone()).unwrap();
    std::fs::write(
        &settings,
        text_ours.replacen('{', "{\"disableAllHooks\": true, ", 1),
    )
    .unwrap();
    fx.assert_not_wired_because("disableAllHooks");

    // A malformed file: an error naming it with line and column.
    std::fs::write(&settings, b"{\n  \"model\": \"opus\"\n  \"x\": 1\n}\n").unwrap();
    let st = fx.claude_state();
    assert_eq!(st["key"], "error");
    let summary = st["summary"].as_str().unwrap();
    assert!(
        summary.contains("settings.json") && summary.contains("line 3"),
        "{summary}"
    );

    // An old Claude Code.
    std::fs::write(&settings, &ours).unwrap();
    fx.fake_claude("2.1.100 (Claude Code)");
    fx.assert_not_wired_because("2.1.100");

    // The human form says the same.
    let human = text(&fx.termic(&["hooks", "status"]).stdout);
    assert!(
        human.contains("installed but NOT wired") && human.contains("2.1.100"),
        "{human}"
    );
}

/// `termic hooks install claude --yes` exits 3, says `needles` on stderr
/// and changes no file under the fixture root.
fn assert_install_refused(fx: &Fx, needles: &[&str]) {
    let before = tree(&fx.root());
    let out = fx.termic(&["hooks", "install", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    for n in needles {
        assert!(err.contains(n), "{n:?} not in {err}");
    }
    assert_eq!(tree(&fx.root()), before);
}

#[test]
fn refusals_exit_3_and_write_nothing() {
    let fx = Fx::new();
    fx.write(".claude/settings.json", b"{\"disableAllHooks\": true}\n");
    assert_install_refused(&fx, &["disableAllHooks"]);
    fx.write(".claude/settings.json", b"{\"model\": \"opus\",}\n");
    assert_install_refused(
        &fx,
        &["settings.json", "line 1, column 18", "Fix it by hand"],
    );
    // A read-only settings.json is the user's to protect, even for root.
    fx.write(".claude/settings.json", b"{\"model\": \"opus\"}\n");
    let settings = fx.home().join(".claude/settings.json");
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o444)).unwrap();
    assert_install_refused(&fx, &["settings.json", "read-only", "chmod u+w"]);
    // One refused agent does not stop the others.
    let out = fx.termic(&["hooks", "install", "claude", "grok", "--yes"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("grok (host): installed and wired"));
    assert!(!fx.home().join(".claude/termic-hooks").exists());
    let fx = Fx::new();
    fx.fake_claude("2.1.140 (Claude Code)");
    assert_install_refused(&fx, &["2.1.141"]);
    assert!(!fx.home().join(".claude").exists());
}

#[test]
fn usage_errors_exit_2() {
    let fx = Fx::new();
    let out = fx.termic(&["hooks", "install", "emacs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown agent"));
    let out = fx.termic(&["hooks", "install", "codex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not needed"));
    assert_eq!(fx.termic(&["hooks", "install"]).status.code(), Some(2));
    for (cmd, codes) in [
        (
            "install",
            &["0 installed", "1 error", "2 unknown agent", "3 refused"][..],
        ),
        (
            "remove",
            &[
                "0 removed",
                "1 error or cancelled",
                "2 unknown agent",
                "--yes missing",
                "3 refused",
            ][..],
        ),
        ("status", &["0 status printed", "1 error"][..]),
        (
            "",
            &["3 refused", "$HOME", "$TERMIC_DATA_DIR", "--dry-run"][..],
        ),
    ] {
        let args: Vec<&str> = ["hooks", cmd, "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let help = text(&fx.termic(&args).stdout);
        assert!(help.contains("Exit codes:"), "{help}");
        for c in codes {
            assert!(help.contains(c), "{cmd} --help lacks {c:?}: {help}");
        }
    }
}

#[test]
fn installing_every_agent_from_inside_a_git_repository_leaves_it_untouched() {
    let fx = Fx::new();
    let repo = fx.root().join("project");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("src/main.rs"), b"fn main() {}\n").unwrap();
    // A project-level config the user already has: termic must not touch it.
    std::fs::create_dir_all(repo.join(".claude")).unwrap();
    std::fs::write(
        repo.join(".claude/settings.json"),
        b"{\"model\": \"haiku\"}\n",
    )
    .unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "init"]);
    let before = tree(&repo);
    let sub = repo.join("src");
    let out = fx.termic_in(
        &sub,
        &[
            "hooks", "install", "claude", "grok", "agy", "opencode", "gemini", "copilot", "qwen",
            "--yes",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(git(&repo, &["status", "--porcelain", "--ignored"]), "");
    assert_eq!(tree(&repo), before);
    for f in [
        ".claude/settings.json",
        ".grok/hooks/termic.json",
        ".gemini/config/hooks.json",
        ".config/opencode/plugins/termic.js",
        ".gemini/settings.json",
        ".gemini/termic-hooks-gemini/after-agent.sh",
        ".copilot/settings.json",
        ".qwen/settings.json",
    ] {
        assert!(fx.home().join(f).is_file(), "{f}");
    }
    let out = fx.termic_in(
        &sub,
        &[
            "hooks", "remove", "claude", "grok", "agy", "opencode", "gemini", "copilot", "qwen",
            "--yes",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tree(&repo), before);
}

#[test]
fn a_home_inside_the_working_repository_is_refused() {
    let fx = Fx::new();
    let repo = fx.root().join("home");
    git(&repo, &["init", "-q"]);
    let project = repo.join("work/project");
    std::fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q"]);
    // HOME is a dotfiles repo: installing from ~ itself is allowed...
    let out = fx.termic_in(&repo, &["hooks", "install", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // ...but a project whose tree holds the config dir is never written.
    let out = fx.termic_in(&fx.home(), &["hooks", "remove", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0));
    let inner = Fx::new();
    let proj = inner.root().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    git(&proj, &["init", "-q"]);
    let out = Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["hooks", "install", "opencode", "--yes"])
        .current_dir(&proj)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", proj.join("nested-home"))
        .env("TERMIC_DATA_DIR", inner.root().join("data"))
        .env("TERMIC_CONFIG_DIR", inner.root().join("config"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("never a project's"),
        "{}",
        text(&out.stderr)
    );
    assert!(!proj.join("nested-home").exists());
}

/// Runs `termic hooks install claude` with a terminal as stdin and `answer`
/// typed into it.
fn install_answering(fx: &Fx, answer: &[u8]) -> Output {
    answering(fx, &["hooks", "install", "claude"], answer)
}

/// Runs termic with `args` and a terminal as stdin, `answer` typed into it.
fn answering(fx: &Fx, args: &[&str], answer: &[u8]) -> Output {
    use std::io::Write;
    let pair = termic_fakemodel::pty::open_pty(80, 24).unwrap();
    let (mut master, slave) = (std::fs::File::from(pair.master), pair.slave);
    master.write_all(answer).unwrap();
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        fx.root().join("bin").display()
    );
    Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(args)
        .current_dir(fx.root())
        .env_clear()
        .env("PATH", path)
        .env("HOME", fx.home())
        .env("TERMIC_DATA_DIR", fx.root().join("data"))
        .env("TERMIC_CONFIG_DIR", fx.root().join("config"))
        .stdin(slave)
        .output()
        .unwrap()
}

#[test]
fn on_a_terminal_install_asks_first_and_no_writes_nothing() {
    let fx = Fx::new();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let before = tree(&fx.root());
    let out = install_answering(&fx, b"n\n");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Write these files? [y/N]"), "{stdout}");
    assert!(stdout.contains("Nothing was written."), "{stdout}");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(&fx.root()), before);

    let out = install_answering(&fx, b"y\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("installed and wired"));
    assert_eq!(fx.claude_state()["key"], "wired");
}

#[test]
fn a_docker_clone_in_config_toml_gets_its_own_dir_with_container_paths() {
    let fx = Fx::new();
    let config = fx.root().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[agents.boxed-claude]\nbase = \"claude\"\ndocker = true\nimage = \"ghcr.io/me/claude\"\n",
    )
    .unwrap();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let before = tree(&fx.home());
    // The clone's name means its base: one toggle, host and Docker.
    let out = fx.termic(&["hooks", "install", "boxed-claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let docker = fx.root().join("data/docker-agents/boxed-claude");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(docker.join("settings.json")).unwrap()).unwrap();
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "/root/.claude/termic-hooks/stop.sh"
    );
    assert!(docker.join("termic-hooks/stop.sh").is_file());
    let host: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fx.home().join(".claude/settings.json")).unwrap())
            .unwrap();
    let host_cmd = host["hooks"]["Stop"][1]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert_eq!(
        host_cmd,
        fx.home()
            .join(".claude/termic-hooks/stop.sh")
            .to_str()
            .unwrap()
    );
    let st = fx.states();
    assert_eq!(st[&("claude".into(), "host".into())]["key"], "wired");
    assert_eq!(
        st[&("claude".into(), "docker:boxed-claude".into())]["key"],
        "wired"
    );
    let out = fx.termic(&["hooks", "remove", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tree(&fx.home()), before);
    assert!(!docker.exists(), "termic created that dir and it is empty");
}

#[test]
fn without_a_terminal_install_needs_yes_and_writes_nothing() {
    use std::io::Write;
    use std::process::Stdio;
    let fx = Fx::new();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let before = tree(&fx.root());
    // stdin closed, then a pipe that even says yes: nobody was asked.
    let out = fx.termic(&["hooks", "install", "claude"]);
    let piped = {
        let mut child = termic_command(&fx.root(), &fx.root())
            .args(["hooks", "install", "claude"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"y\n").unwrap();
        child.wait_with_output().unwrap()
    };
    for out in [out, piped] {
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("not a terminal"), "{err}");
        assert!(err.contains("--yes"), "{err}");
        assert!(err.contains("nothing was written"), "{err}");
        // The plan is still shown, so the user sees what --yes would do.
        assert!(text(&out.stdout).contains("settings.json"));
        assert_eq!(tree(&fx.root()), before);
    }
    let help = text(&fx.termic(&["hooks", "install", "--help"]).stdout);
    assert!(help.contains("stdin is not a terminal"), "{help}");
}

#[test]
fn an_unknown_agent_is_answered_with_the_installable_agents_only() {
    let fx = Fx::new();
    let out = fx.termic(&["hooks", "install", "claud", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for id in termic_hooks::agents::installable_ids() {
        assert!(err.contains(id), "{id} not suggested: {err}");
    }
    for id in ["codex", "cursor"] {
        assert!(
            !err.contains(id),
            "{id} suggested but cannot be installed: {err}"
        );
    }
}

/// An executable `name` in the fixture's bin dir (what detection looks for).
fn on_path(fx: &Fx, name: &str) {
    let p = fx.root().join("bin").join(name);
    std::fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn install_detected_wires_every_detected_agent_after_one_plan() {
    let fx = Fx::new(); // claude is on PATH
    on_path(&fx, "opencode");
    on_path(&fx, "codex");
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let before = tree(&fx.root());
    let dry = fx.termic(&["hooks", "install", "--detected", "--dry-run"]);
    assert_eq!(dry.status.code(), Some(0), "{}", text(&dry.stderr));
    let plan = text(&dry.stdout);
    assert!(plan.contains("Found on PATH: claude, opencode."), "{plan}");
    assert!(plan.contains("nothing to install: codex"), "{plan}");
    assert!(plan.contains("claude (host)") && plan.contains("opencode (host)"));
    // (The scripts' text, shown in the diff, names grok: look at the plans.)
    assert!(
        !plan.contains("grok (host)") && !plan.contains("agy (host)"),
        "{plan}"
    );
    assert_eq!(tree(&fx.root()), before);

    let out = fx.termic(&["hooks", "install", "--detected", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let st = fx.states();
    assert_eq!(st[&("claude".into(), "host".into())]["key"], "wired");
    assert_eq!(st[&("opencode".into(), "host".into())]["key"], "wired");
    assert_eq!(st[&("grok".into(), "host".into())]["key"], "not_installed");
    assert_eq!(st[&("agy".into(), "host".into())]["key"], "not_installed");
    // The consent is recorded per agent, as the Settings toggle would.
    let config = std::fs::read_to_string(fx.root().join("config/config.toml")).unwrap();
    assert!(config.contains("claude = true") && config.contains("opencode = true"));

    // Nothing termic can wire on PATH: said, nothing written, exit 0.
    let fx = Fx::new();
    std::fs::remove_file(fx.root().join("bin/claude")).unwrap();
    let before = tree(&fx.root());
    let out = fx.termic(&["hooks", "install", "--detected", "--yes"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("No agent termic can wire is on PATH"));
    assert_eq!(tree(&fx.root()), before);
    // Naming agents and --detected at once is a usage error.
    let out = fx.termic(&["hooks", "install", "--detected", "claude"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_empty_settings_file_or_a_directory_gets_the_real_fix() {
    let fx = Fx::new();
    for blank in [&b""[..], b"\n  \n"] {
        fx.write(".claude/settings.json", blank);
        assert_install_refused(
            &fx,
            &[
                "settings.json",
                "is empty",
                "`{}` is the minimal valid file",
            ],
        );
        let err = text(&fx.termic(&["hooks", "install", "claude", "--yes"]).stderr);
        assert!(!err.contains("EOF"), "{err}");
    }
    std::fs::remove_file(fx.home().join(".claude/settings.json")).unwrap();
    std::fs::create_dir(fx.home().join(".claude/settings.json")).unwrap();
    assert_install_refused(
        &fx,
        &["settings.json is a directory, not a file: move it away"],
    );
    let err = text(&fx.termic(&["hooks", "install", "claude", "--yes"]).stderr);
    assert!(!err.contains("may read"), "{err}");
}

#[test]
fn install_detected_on_a_terminal_asks_once_for_every_agent() {
    let fx = Fx::new(); // claude is on PATH
    on_path(&fx, "opencode");
    let out = answering(&fx, &["hooks", "install", "--detected"], b"y\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        stdout.matches("Write these files? [y/N]").count(),
        1,
        "{stdout}"
    );
    let st = fx.states();
    assert_eq!(st[&("claude".into(), "host".into())]["key"], "wired");
    assert_eq!(st[&("opencode".into(), "host".into())]["key"], "wired");
}

/// The settings file's diff in termic's output: from its `---` line to the
/// blank line after it.
fn settings_diff(fx: &Fx, stdout: &str) -> String {
    let settings = fx.home().join(".claude/settings.json");
    let head = format!("--- {0}\n+++ {0}\n", settings.display());
    let at = stdout
        .find(&head)
        .unwrap_or_else(|| panic!("no diff of settings.json:\n{stdout}"));
    let rest = &stdout[at..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
}

#[test]
fn install_shows_the_diff_of_each_file_before_asking_and_dry_run_the_same() {
    let fx = Fx::new();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let before = tree(&fx.root());
    let out = install_answering(&fx, b"n\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(tree(&fx.root()), before, "answering n writes nothing");
    let diff = settings_diff(&fx, &stdout);
    let stop = fx.home().join(".claude/termic-hooks/stop.sh");
    // termic's entry is added...
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+')
                && l.contains(&format!("\"command\": \"{}\"", stop.display()))),
        "{diff}"
    );
    // ...among the user's own lines, shown unchanged as context.
    assert!(
        diff.lines()
            .any(|l| l.starts_with(' ') && l.contains("afplay /System/Library/Sounds/Glass.aiff")),
        "{diff}"
    );
    assert!(
        !diff
            .lines()
            .any(|l| l.starts_with('-') && l.contains("afplay")),
        "{diff}"
    );
    // A new script: its first lines, then how many more.
    let script = format!("--- /dev/null\n+++ {}\n@@ -0,0 +1,", stop.display());
    assert!(stdout.contains(&script), "{stdout}");
    assert!(stdout.contains("+#!/bin/sh\n"), "{stdout}");
    assert!(stdout.contains(" more lines\n"), "{stdout}");
    // The diff comes before the question.
    let asked = stdout.find("Write these files? [y/N]").expect("asked");
    assert!(stdout.find(&diff).unwrap() < asked, "{stdout}");

    let out = fx.termic(&["hooks", "install", "claude", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dry = text(&out.stdout);
    assert_eq!(settings_diff(&fx, &dry), diff);
    assert!(dry.contains(&script), "{dry}");
    assert!(dry.contains("Dry run: nothing was written."), "{dry}");
    assert_eq!(tree(&fx.root()), before, "a dry run writes nothing");
}

#[test]
fn remove_shows_the_diff_and_asks_as_install_does() {
    let fx = Fx::new();
    fx.write(".claude/settings.json", SETTINGS.as_bytes());
    let out = fx.termic(&["hooks", "install", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let installed = tree(&fx.root());
    let stop = fx.home().join(".claude/termic-hooks/stop.sh");
    let removes_stop = |stdout: &str| {
        settings_diff(&fx, stdout)
            .lines()
            .any(|l| l.starts_with('-') && l.contains(&stop.display().to_string()))
    };

    // No terminal and no --yes: refused, nothing changed, the plan shown.
    let out = fx.termic(&["hooks", "remove", "claude"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not a terminal") && err.contains("--yes"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(removes_stop(&text(&out.stdout)), "{}", text(&out.stdout));
    assert_eq!(tree(&fx.root()), installed);

    // On a terminal, n: every file keeps its bytes, and the toggle stays.
    let out = answering(&fx, &["hooks", "remove", "claude"], b"n\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("Remove these hooks? [y/N]"), "{stdout}");
    assert!(stdout.contains("Nothing was written."), "{stdout}");
    assert!(removes_stop(&stdout), "{stdout}");
    assert_eq!(tree(&fx.root()), installed);

    // --dry-run: the same diff, nothing written, nothing asked.
    let out = fx.termic(&["hooks", "remove", "claude", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        settings_diff(&fx, &text(&out.stdout)),
        settings_diff(&fx, &stdout)
    );
    assert_eq!(tree(&fx.root()), installed);

    // y: removed, the user's settings back byte for byte.
    let out = answering(&fx, &["hooks", "remove", "claude"], b"y\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("claude (host): removed"));
    assert_eq!(
        std::fs::read(fx.home().join(".claude/settings.json")).unwrap(),
        SETTINGS.as_bytes()
    );
    assert!(!stop.exists());
}
