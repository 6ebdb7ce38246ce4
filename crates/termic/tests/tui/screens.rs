//! End-to-end: the first-run wizard and Settings against a fixture HOME,
//! driven through the real `termic` binary in a PTY.

use crate::harness;

use harness::{hook, Fixture, Termic};
use std::os::unix::fs::FileTypeExt;

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn wizard_lists_exactly_the_agents_on_path_and_installs_what_was_chosen() {
    let f = Fixture::new();
    f.fake_agent("claude");
    f.fake_agent("codex");
    let mut t = Termic::start(&f, &[]);
    let s = t.wait_text("Welcome to termic");
    assert!(s.contains("Step 1 of 3"), "{s}");
    assert!(s.contains("Agent CLIs found on your PATH:"), "{s}");
    let listed: Vec<&str> = s
        .lines()
        .filter_map(|l| l.split('│').nth(2))
        .map(str::trim)
        .filter(|l| ["claude", "codex", "grok", "agy", "opencode"].contains(l))
        .collect();
    assert_eq!(listed, ["claude", "codex"], "{s}");

    t.send(b"\r");
    let s = t.wait_text("Step 2 of 3");
    assert!(s.contains("> [off] claude"), "{s}");
    assert!(
        s.contains("codex: not needed (its terminal already reports this)"),
        "{s}"
    );
    assert!(!s.contains("[off] codex"), "codex gets no toggle: {s}");
    t.send(b" ");
    let s = t.wait_text("> [on]  claude");
    assert!(
        s.contains("settings.json"),
        "the files are named before writing: {s}"
    );
    t.send(b"\r");
    t.wait_text("Step 3 of 3");
    t.send(b"\r");
    t.wait_for("wizard closed", |s| !s.contains("Welcome to termic"));

    let settings = read(&f.home.join(".claude/settings.json"));
    assert!(
        settings.contains(".claude/termic-hooks/"),
        "claude hooks installed: {settings}"
    );
    let config = read(&f.config_dir.join("config.toml"));
    assert!(config.contains("wizard_shown = true"), "{config}");
    assert!(config.contains("claude = true"), "consent stored: {config}");

    // Shown once: the next plain `termic` opens straight to the workspace.
    t.prefix(b"q");
    assert_eq!(t.wait_exit(), 0);
    let t = Termic::start(&f, &[]);
    let s = t.wait_text("No task is open.");
    assert!(!s.contains("Welcome to termic"), "{s}");
}

#[test]
fn wizard_offers_no_toggle_for_an_agent_too_old_to_wire() {
    let f = Fixture::new();
    f.fake_agent("opencode");
    let old_claude = f.bin.join("claude");
    std::fs::write(
        &old_claude,
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo '1.0.0 (Claude Code)'; exit 0; }\nexec sleep 600\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&old_claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut t = Termic::start(&f, &[]);
    t.wait_text("Step 1 of 3");
    t.send(b"\r");
    let s = t.wait_text("Step 2 of 3");
    assert!(s.contains("> [off] opencode"), "{s}");
    assert!(
        !s.contains("[off] claude"),
        "no promise it cannot keep: {s}"
    );
    assert!(
        s.contains("claude: cannot be wired: Claude Code 1.0.0"),
        "{s}"
    );
}

#[test]
fn wizard_with_no_agents_says_so_in_two_steps() {
    let f = Fixture::new();
    let mut t = Termic::start(&f, &[]);
    let s = t.wait_text("Step 1 of 2");
    assert!(s.contains("No agent CLIs were found on your PATH."), "{s}");
    t.send(b"\x1b");
    t.wait_for("wizard skipped", |s| !s.contains("Welcome to termic"));
    t.wait_for("skip is remembered", |_| {
        read(&f.config_dir.join("config.toml")).contains("wizard_shown = true")
    });
}

#[test]
fn wizard_never_opens_in_front_of_termic_run() {
    let f = Fixture::new();
    f.fake_agent("claude");
    f.fake_sh_agent("echo agent is up; sleep 600");
    let t = Termic::start(&f, &["run", "fake"]);
    let s = t.wait_text("agent is up");
    assert!(!s.contains("Welcome to termic"), "{s}");
}

const USER_SETTINGS: &str =
    "{\n  \"permissions\": {\n    \"defaultMode\": \"default\"\n  },\n  \"theme\": \"dark\"\n}\n";

/// A fixture HOME whose `.claude/settings.json` holds `text`, termic running
/// an idle agent, and the Settings key just pressed. Returns the settings
/// file's path too; the caller keeps the fixture alive as long as termic.
fn open_settings_over(text: &str) -> (Fixture, Termic, std::path::PathBuf) {
    let f = Fixture::new();
    std::fs::create_dir_all(f.home.join(".claude")).unwrap();
    let settings_path = f.home.join(".claude/settings.json");
    std::fs::write(&settings_path, text).unwrap();
    f.fake_sh_agent("sleep 600");
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("fake");
    t.prefix(b"s");
    (f, t, settings_path)
}

#[test]
fn settings_rows_follow_the_fixture_home_and_install_then_remove_restores_the_file() {
    let (f, mut t, settings_path) = open_settings_over(USER_SETTINGS);
    let s = t.wait_text("Settings");
    assert!(
        s.contains("> claude    Hooks: not installed [Install]"),
        "{s}"
    );
    assert!(
        s.contains("codex     Hooks: not needed (its terminal already reports this)"),
        "{s}"
    );
    assert!(
        s.contains("[compat.claude] hooks = false"),
        "grok's opt-out is explained: {s}"
    );

    // Install: the files first, then the write.
    t.send(b"\r");
    let s = t.wait_text("Install hooks for claude");
    assert!(s.contains("termic will write exactly these files:"), "{s}");
    assert!(s.contains(".claude/settings.json"), "{s}");
    assert_eq!(
        read(&settings_path),
        USER_SETTINGS,
        "nothing is written before yes"
    );
    t.send(b"y");
    let s = t.wait_text("claude    Hooks: installed [Remove]");
    assert!(s.contains("Installed claude hooks"), "{s}");
    let installed = read(&settings_path);
    assert!(
        installed.contains("\"theme\": \"dark\""),
        "the user's keys survive: {installed}"
    );
    assert!(installed.contains("\"PermissionRequest\""), "{installed}");
    assert!(
        installed.contains(&format!("{}/.claude/termic-hooks/", f.home.display())),
        "{installed}"
    );
    assert!(read(&f.config_dir.join("config.toml")).contains("claude = true"));

    // Remove: the file comes back byte for byte.
    t.send(b"r");
    t.wait_text("Remove hooks for claude");
    t.send(b"y");
    t.wait_text("claude    Hooks: not installed [Install]");
    assert_eq!(read(&settings_path), USER_SETTINGS);
    assert!(read(&f.config_dir.join("config.toml")).contains("claude = false"));
}

#[test]
fn settings_rereads_the_disk_each_time_it_opens() {
    let (_f, mut t, settings_path) = open_settings_over(USER_SETTINGS);
    t.wait_text("> claude    Hooks: not installed [Install]");
    t.send(b"\r");
    t.wait_text("Install hooks for claude");
    t.send(b"y");
    t.wait_text("claude    Hooks: installed [Remove]");
    t.send(b"\x1b");
    t.wait_for("settings closed", |s| !s.contains("Hooks:"));

    // The agent rewrites its config without our entries: not wired, and
    // both ways out are offered.
    std::fs::write(&settings_path, USER_SETTINGS).unwrap();
    t.prefix(b"s");
    let s = t.wait_text("claude    Hooks: installed but not wired");
    assert!(
        s.contains("Stop, StopFailure entries are gone from")
            && s.contains("rewrote the file) [Reinstall] [Remove]"),
        "{s}"
    );

    // A file termic cannot parse is named, and nothing is offered but Remove.
    t.send(b"\x1b");
    t.wait_for("settings closed", |s| !s.contains("Hooks:"));
    std::fs::write(&settings_path, "{ not json").unwrap();
    t.prefix(b"s");
    let s = t.wait_text("claude    Hooks: error");
    assert!(s.contains("settings.json"), "the error names the file: {s}");
    assert_eq!(
        read(&settings_path),
        "{ not json",
        "an unparsable file is left alone"
    );
}

#[test]
fn settings_explains_disable_all_hooks_instead_of_installing() {
    let text = "{\n  \"disableAllHooks\": true\n}\n";
    let (_f, mut t, settings_path) = open_settings_over(text);
    t.wait_text("> claude    Hooks: not installed [Install]");
    t.send(b"\r");
    let s = t.wait_text("disableAllHooks is set");
    assert!(!s.contains("Installed claude hooks"), "{s}");
    assert_eq!(read(&settings_path), text);
}

#[test]
fn a_native_status_report_shows_on_the_agents_row_and_in_the_notification() {
    let f = Fixture::new();
    // A claude-based agent that speaks OSC 7501: working, then blocked with
    // its own words (base64 of "approve Write: src/main.rs"). It probes
    // first, as Claude Code does: its status counts only once termic answered.
    let script = "printf '\\033]7501;?\\033\\\\'; sleep 1; printf '\\033]7501;state=working:app=claude-code\\033\\\\'; \
                  printf '\\033]7501;state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBXcml0ZTogc3JjL21haW4ucnM=\\033\\\\'; \
                  sleep 600";
    f.fake_sh_agent(script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "nat"]);
    t.wait_text("nat");
    t.send(b"\x1b[O");
    t.wait_raw(b"\x1b]777;notify;termic;nat (fake) needs you: from the program's output: approve Write: src/main.rs\x07");
    t.send(b"\x1b[I");
    t.prefix(b"s");
    let s = t.wait_text("Settings");
    let claude_at = s.find("claude    Hooks:").unwrap();
    let next_row = s[claude_at..].find("grok      Hooks:").unwrap();
    assert!(
        s[claude_at..claude_at + next_row].contains("Also reports its state natively (OSC 7501)"),
        "{s}"
    );
}

#[test]
fn settings_reopens_the_wizard() {
    let f = Fixture::new();
    f.fake_agent("claude");
    f.config("[ui]\nwizard_shown = true\n");
    let mut t = Termic::start(&f, &[]);
    t.wait_text("No task is open.");
    t.prefix(b"s");
    t.wait_text("Show the first-run wizard again");
    // Up from the first row wraps to the last item: the wizard.
    t.send(b"\x1b[A");
    t.wait_text("> Show the first-run wizard again");
    t.send(b"\r");
    let s = t.wait_text("Welcome to termic");
    assert!(s.contains("Step 1 of 3") && s.contains("claude"), "{s}");
}

#[test]
fn switching_the_osc_fallback_off_in_settings_keeps_the_bell_only() {
    let f = Fixture::new();
    let script = format!(
        "read go; {}; {}; sleep 600",
        hook("working", ""),
        hook("attention", ";kind=permission")
    );
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "quiet"]);
    t.wait_text("quiet");
    t.prefix(b"s");
    t.wait_text("[on]  No notification service");
    // Up from the first row: the wizard item, then the fallback switch.
    t.send(b"\x1b[A");
    t.wait_text("> Show the first-run wizard again");
    t.send(b"\x1b[A");
    t.wait_text("> [on]  No notification service");
    t.send(b"\r");
    t.wait_text("> [off] No notification service");
    assert!(read(&f.config_dir.join("config.toml")).contains("osc_fallback = false"));
    t.send(b"\x1b");
    t.wait_for("settings closed", |s| {
        !s.contains("No notification service")
    });
    t.send(b"go\r");
    t.send(b"\x1b[O");
    t.wait_for("needs you", |s| s.contains("needs you [permission]"));
    t.wait_raw(b"\x07");
    assert!(
        !harness::contains(&t.raw(), b"]777;notify"),
        "the fallback is off"
    );
}

/// A FIFO where `~/.claude/settings.json` should be once hung the workspace
/// at start-up, after the terminal went raw. It must start, run its task,
/// and show the refusal in Settings, naming the file.
#[test]
fn a_fifo_settings_json_does_not_stop_the_workspace_and_settings_says_why() {
    let f = Fixture::new();
    f.fake_agent("claude");
    f.config("[ui]\nwizard_shown = true\n");
    let settings = f.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(settings.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let mut t = Termic::start(&f, &[]);
    t.wait_text("No task is open.");
    t.prefix(b"s");
    let s = t.wait_text("claude    Hooks:");
    let row = s
        .lines()
        .find(|l| l.contains("claude    Hooks:"))
        .unwrap_or_default();
    assert!(row.contains("error"), "{s}");
    // The message wraps onto the next row: it names the file and the fix.
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        ".claude/settings.json is a named pipe (FIFO)",
        "Move it away",
    ] {
        assert!(flat.contains(needle), "{needle:?} not in {s}");
    }
    assert!(std::fs::symlink_metadata(&settings)
        .unwrap()
        .file_type()
        .is_fifo());
}
