//! End-to-end: one project-path rule. termic started from HOME, from `/`,
//! from a repository, a plain folder, a worktree, and a folder inside HOME
//! with a `.claude` of its own: `termic hooks status`, the wizard, Settings
//! and a new task's hooks_wired (the recording's header) all say the same,
//! and a project's own agent config is never written.

use crate::git_support;
use crate::harness;

use std::path::{Path, PathBuf};

use git_support::git;
use harness::{Fixture, Termic};

/// What each place says about claude's hooks.
#[derive(Debug, PartialEq, Eq)]
struct Verdicts {
    /// `termic hooks status`: claude's host row.
    cli_wired: bool,
    /// The wizard's hooks step offers claude a toggle.
    wizard_toggle: bool,
    /// Settings shows claude's hooks as installed.
    settings_installed: bool,
    /// The task's recording header.
    task_wired: bool,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fixture with a fake claude (2.1.332) on PATH and its hooks installed
/// by `termic hooks install` run in `cwd`; returns the install's exit code.
fn install_from(f: &Fixture, cwd: &Path) -> Option<i32> {
    f.fake_agent("claude");
    f.cli(cwd, &["hooks", "install", "claude", "--yes"])
        .status
        .code()
}

/// Asks every place, each started in `cwd`.
fn verdicts(f: &Fixture, cwd: &Path) -> Verdicts {
    let status = text(&f.cli(cwd, &["hooks", "status"]).stdout);
    let row = status
        .lines()
        .find(|l| l.starts_with("claude "))
        .unwrap_or_else(|| panic!("no claude host row:\n{status}"))
        .to_string();
    let cli_wired = row.contains("installed and wired");

    // The wizard (a plain `termic`, wizard not yet shown): step 2.
    let config = f.config_dir.join("config.toml");
    let kept = std::fs::read_to_string(&config)
        .unwrap_or_default()
        .replace("wizard_shown = true", "wizard_shown = false");
    std::fs::write(&config, kept).unwrap();
    let mut t = Termic::start_in(f, cwd, &[], &[]);
    let s = t.wait_text("Step 1 of");
    // Without a hooks toggle the wizard drops its hooks step (2 steps).
    let wizard_toggle = if s.contains("Step 1 of 3") {
        t.send(b"\r");
        let s = t.wait_text("Step 2 of 3");
        s.contains("] claude") || s.contains("]  claude")
    } else {
        false
    };
    t.send(b"\x1b");
    t.wait_for("wizard skipped", |s| !s.contains("Welcome to termic"));
    assert!(t.quit(), "termic quits");

    // A task and Settings.
    let rec = f
        .data_dir
        .join(format!("rec-{}", cwd.display().to_string().len()));
    let mut t = Termic::start_in(
        f,
        cwd,
        &["--record", rec.to_str().unwrap(), "run", "claude"],
        &[],
    );
    t.wait_text("claude");
    t.prefix(b"s");
    let s = t.wait_text("Settings");
    let line = s
        .lines()
        .find(|l| l.contains("claude ") && l.contains("Hooks:"))
        .unwrap_or_else(|| panic!("no claude row in Settings:\n{s}"))
        .to_string();
    let settings_installed =
        line.contains("Hooks: installed [") || line.ends_with("Hooks: installed");
    t.send(b"\x1b");
    t.wait_for("settings closed", |s| !s.contains("Settings"));
    assert!(t.quit(), "termic quits:\n{}", t.screen());
    let cast = std::fs::read_dir(&rec)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "cast"))
        .expect("a recording");
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&cast)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    std::fs::remove_dir_all(&rec).unwrap();
    let task_wired = header["termic"]["hooks_wired"]
        .as_bool()
        .unwrap_or_else(|| panic!("no hooks_wired in {header}"));
    eprintln!("{}: status {row:?}; settings {line:?}", cwd.display());
    Verdicts {
        cli_wired,
        wizard_toggle,
        settings_installed,
        task_wired,
    }
}

const WIRED: Verdicts = Verdicts {
    cli_wired: true,
    wizard_toggle: true,
    settings_installed: true,
    task_wired: true,
};

fn assert_wired_from(f: &Fixture, cwd: &Path) {
    assert_eq!(
        install_from(f, cwd),
        Some(0),
        "install from {}",
        cwd.display()
    );
    assert_eq!(verdicts(f, cwd), WIRED, "started from {}", cwd.display());
}

#[test]
fn started_from_home_installed_hooks_are_wired_everywhere() {
    let f = Fixture::new();
    assert_wired_from(&f, &f.home.clone());
}

#[test]
fn started_from_the_root_directory_installed_hooks_are_wired_everywhere() {
    let f = Fixture::new();
    assert_wired_from(&f, Path::new("/"));
}

#[test]
fn started_from_a_plain_folder_installed_hooks_are_wired_everywhere() {
    let f = Fixture::new();
    assert_wired_from(&f, &f.work.clone());
}

/// A repository at `dir` with one commit.
fn scratch_repo(dir: &Path) {
    git(dir, &["init", "-q"]);
    std::fs::write(dir.join("README"), "r\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
}

#[test]
fn started_from_a_repository_or_its_worktree_hooks_are_wired_and_the_repository_untouched() {
    let f = Fixture::new();
    scratch_repo(&f.work);
    assert_wired_from(&f, &f.work.clone());
    let wt: PathBuf = f.data_dir.parent().unwrap().join("wt");
    git(
        &f.work,
        &["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()],
    );
    assert_eq!(verdicts(&f, &wt), WIRED, "started from the worktree");
    assert_eq!(git(&f.work, &["status", "--porcelain", "--ignored"]), "");
    assert_eq!(git(&wt, &["status", "--porcelain", "--ignored"]), "");
}

#[test]
fn a_folder_inside_home_with_its_own_claude_config_is_never_written() {
    let f = Fixture::new();
    let proj = f.home.join("proj");
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    let own = b"{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}\n";
    std::fs::write(proj.join(".claude/settings.json"), own).unwrap();
    assert_wired_from(&f, &proj);
    let entries: Vec<_> = std::fs::read_dir(proj.join(".claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries,
        ["settings.json"],
        "nothing added to the project's .claude"
    );
    assert_eq!(
        std::fs::read(proj.join(".claude/settings.json")).unwrap(),
        own
    );
    assert!(
        f.home.join(".claude/settings.json").exists(),
        "the global one was"
    );
}

#[test]
fn a_home_inside_the_repository_is_refused_and_every_place_says_so() {
    let f = Fixture::new();
    // The fixture's root holds HOME: a repository there is a project that
    // would commit ~/.claude.
    let root = f.home.parent().unwrap().to_path_buf();
    scratch_repo(&root);
    assert_eq!(install_from(&f, &f.work), Some(3), "the install is refused");
    assert!(!f.home.join(".claude").exists());
    let v = verdicts(&f, &f.work);
    assert_eq!(
        v,
        Verdicts {
            cli_wired: false,
            wizard_toggle: false,
            settings_installed: false,
            task_wired: false,
        }
    );
}
