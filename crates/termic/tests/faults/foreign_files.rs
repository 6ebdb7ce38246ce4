//! Issue 27: files and directories another user owns or can write. termic's
//! config.toml (written by the hooks toggle) and every dir a hook install
//! writes into follow the one ownership rule (termic-hooks `fsio::foreign`):
//! owned by a uid other than ours and not root, or writable by another user
//! (world-writable, or group-writable by a group that is not the user's own
//! private group, without the sticky bit), is refused with a message naming
//! the path, the owner and the fix, and nothing is written: no byte, no
//! mtime, no temp file, no new directory. The real binary, with HOME and
//! termic's dirs in a fixture.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::harness::{Fixture, Termic};
use crate::privileged;

/// Every entry under `root` (symlinks not followed): its kind, owner, mode,
/// mtime and, for a file, its bytes. Equal before and after: nothing written.
fn picture(root: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let stamp = format!(
                "{}:{} {:o} {}.{}",
                m.uid(),
                m.gid(),
                m.mode() & 0o7777,
                m.mtime(),
                m.mtime_nsec()
            );
            let what = if m.file_type().is_symlink() {
                format!("link {}", std::fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                walk(root, &p, out);
                format!("dir {stamp}")
            } else {
                let bytes = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                format!("file {stamp} {bytes:?}")
            };
            out.insert(p.strip_prefix(root).unwrap().to_path_buf(), what);
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn chown(path: &Path, uid: Option<u32>, gid: Option<u32>) {
    std::os::unix::fs::lchown(path, uid, gid).unwrap();
}

/// The fixture's root: HOME, config, data and work dirs all live in it.
fn root(f: &Fixture) -> PathBuf {
    f.home.parent().unwrap().to_path_buf()
}

/// A fixture with Claude Code on PATH and a `~/.claude/settings.json` of
/// the user's, the Settings wizard already seen.
fn claude_fixture() -> Fixture {
    let f = Fixture::new();
    f.fake_agent("claude");
    f.config("[ui]\nwizard_shown = true\n");
    std::fs::create_dir_all(f.home.join(".claude")).unwrap();
    std::fs::write(
        f.home.join(".claude/settings.json"),
        "{\n  \"model\": \"opus\"\n}\n",
    )
    .unwrap();
    f
}

/// `termic hooks install claude --yes` is refused (exit 3) with every one
/// of `needles` in its output, and writes nothing anywhere in the fixture.
fn install_is_refused(f: &Fixture, needles: &[&str]) -> String {
    let before = picture(&root(f));
    let out = f.cli(&f.work, &["hooks", "install", "claude", "--yes"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(3), "not refused:\n{all}");
    for needle in needles {
        assert!(all.contains(needle), "{needle:?} not in:\n{all}");
    }
    assert!(!all.contains("Os {"), "Debug output:\n{all}");
    assert_eq!(picture(&root(f)), before, "something was written:\n{all}");
    all
}

/// `termic hooks status` names the reason, and writes nothing.
fn status_says(f: &Fixture, needles: &[&str]) {
    let before = picture(&root(f));
    let out = f.cli(&f.work, &["hooks", "status"]);
    let all = text(&out);
    for needle in needles {
        assert!(all.contains(needle), "{needle:?} not in status:\n{all}");
    }
    assert_eq!(picture(&root(f)), before, "status wrote something");
}

#[test]
#[ignore = "needs root and a second user: .ci/run's fault step"]
fn a_config_toml_linked_to_another_users_file_is_refused_and_nothing_is_written() {
    let (name, uid, gid) = privileged::other_user();
    let f = claude_fixture();
    // A dotfiles repo of ours whose config.toml is someone else's file.
    let dotfiles = root(&f).join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("config.toml");
    std::fs::write(&real, "[ui]\nwizard_shown = true # theirs\n").unwrap();
    chown(&real, Some(uid), Some(gid));
    let link = f.config_dir.join("config.toml");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();

    let owned_by = format!("{} is owned by user {name}, not by you", real.display());
    install_is_refused(&f, &[&owned_by, "chown the file to you, or remove it"]);
    assert!(!f.home.join(".claude/termic-hooks").exists());
    // The atomic writer refuses it too, for any setting: a removal's toggle.
    let out = f.cli(&f.work, &["hooks", "remove", "claude", "--yes"]);
    assert!(text(&out).contains(&owned_by), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "[ui]\nwizard_shown = true # theirs\n"
    );
    assert_eq!(std::fs::metadata(&real).unwrap().uid(), uid);
}

#[test]
#[ignore = "needs root and a second user: .ci/run's fault step"]
fn a_claude_dir_owned_by_another_user_is_refused_and_status_says_why() {
    let (name, uid, _) = privileged::other_user();
    let f = claude_fixture();
    let dir = f.home.join(".claude");
    chown(&dir, Some(uid), None);
    let owned_by = format!("{} is owned by user {name}, not by you", dir.display());
    install_is_refused(
        &f,
        &[
            &owned_by,
            "termic will not install hooks there",
            "chown the directory to you, or remove it",
        ],
    );
    status_says(&f, &[&owned_by, "install would refuse"]);

    // Installed while it was ours, then given away: not wired, and why.
    chown(&dir, Some(0), None);
    let out = f.cli(&f.work, &["hooks", "install", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    chown(&dir, Some(uid), None);
    status_says(&f, &["installed but NOT wired", &owned_by]);
}

#[test]
fn a_world_writable_claude_dir_is_refused_and_status_says_why() {
    let f = claude_fixture();
    let dir = f.home.join(".claude");
    chmod(&dir, 0o777);
    let why = format!("{} is writable by every user (mode 777)", dir.display());
    install_is_refused(
        &f,
        &[
            &why,
            "termic will not install hooks there",
            &format!("Fix: chmod go-w {}", dir.display()),
        ],
    );
    status_says(&f, &[&why]);
    // With the sticky bit, as /tmp, nobody may replace our files: fine.
    chmod(&dir, 0o1777);
    let out = f.cli(&f.work, &["hooks", "install", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// Group-writable by a group that is not the user's own private group: the
/// hooks folder is refused. As root any gid will do; a user needs a second
/// group of theirs to hand the folder to.
#[test]
fn a_hooks_dir_writable_by_another_group_is_refused() {
    let f = claude_fixture();
    let hooks = f.home.join(".claude/termic-hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let ids = |flag: &str| -> Vec<u32> {
        let out = std::process::Command::new("id").arg(flag).output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|s| s.parse().ok())
            .collect()
    };
    let primary = ids("-g")[0];
    let gid = if ids("-u")[0] == 0 {
        Some(4322)
    } else {
        ids("-G").into_iter().find(|g| *g != primary)
    };
    let Some(gid) = gid else {
        // CI runs as root; a user in no second group cannot make one.
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run this test as root"
        );
        eprintln!(
            "NOT CHECKED: not root and in no second group, so no directory can be given \
             another group here; the unit tests of fsio::foreign cover the rule"
        );
        return;
    };
    chown(&hooks, None, Some(gid));
    chmod(&hooks, 0o775);
    install_is_refused(
        &f,
        &[
            &format!("{} is writable by group", hooks.display()),
            "so another user could change it",
            &format!("Fix: chmod g-w {}", hooks.display()),
        ],
    );
}

#[test]
fn a_world_writable_config_dir_refuses_the_install_before_any_hook_is_written() {
    let f = claude_fixture();
    chmod(&f.config_dir, 0o777);
    install_is_refused(
        &f,
        &[
            "nothing was installed",
            &format!("{} is writable by every user", f.config_dir.display()),
        ],
    );
    assert!(!f.home.join(".claude/termic-hooks").exists());
    // A world-writable config.toml in a dir of ours: the same.
    chmod(&f.config_dir, 0o755);
    let file = f.config_dir.join("config.toml");
    chmod(&file, 0o666);
    install_is_refused(
        &f,
        &[&format!(
            "{} is writable by every user (mode 666); termic will not replace it",
            file.display()
        )],
    );
}

/// The Settings toggle writes config.toml: in a dir anyone can write, the
/// refusal is shown in Settings, nothing is written, and termic goes on.
#[test]
fn the_settings_toggle_shows_the_refusal_as_a_message_and_termic_goes_on() {
    let f = Fixture::new();
    f.fake_sh_agent("echo agent is up; sleep 600");
    let file = f.config_dir.join("config.toml");
    chmod(&f.config_dir, 0o777);
    let before = picture(&f.config_dir);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "quiet"]);
    t.wait_text("agent is up");
    t.prefix(b"s");
    t.wait_text("[on]  No notification service");
    // Up from the first row: the wizard item, then the fallback switch.
    t.send(b"\x1b[A");
    t.wait_text("> Show the first-run wizard again");
    t.send(b"\x1b[A");
    t.wait_text("> [on]  No notification service");
    t.send(b"\r");
    let needle = format!("{} is writable by every user", f.config_dir.display());
    let s = t.wait_for("the refusal", |s| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&needle)
    });
    assert!(s.contains("chmod go-w"), "{s}");
    assert_eq!(picture(&f.config_dir), before, "config.toml was written");
    assert!(!std::fs::read_to_string(&file)
        .unwrap()
        .contains("osc_fallback"));
    // Still running: Settings closes and the task is there.
    t.send(b"\x1b");
    t.wait_for("settings closed", |s| {
        !s.contains("No notification service")
    });
    t.wait_text("agent is up");
}
