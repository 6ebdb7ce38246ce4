//! `termic config path|check|reference` and the unknown-key warning at
//! start-up, through the real binary.

use crate::harness;

use crate::cli_fixture::text;
use harness::{Fixture, Termic};

const MISSPELT: &str = "[ui]\nprefx_key = \"C-a\"\nwizard_shown = true\n";
const WARNING: &str =
    "config.toml:2: unknown key `prefx_key` in [ui], ignored; did you mean `prefix_key`?";

#[test]
fn path_and_check_report_the_file_its_errors_and_unknown_keys() {
    let f = Fixture::new();
    let file = f.config_dir.join("config.toml");
    let out = f.cli(&f.work, &["config", "path"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), format!("{}\n", file.display()));

    // Missing: the defaults, fine.
    let out = f.cli(&f.work, &["config", "check"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("does not exist: termic uses the defaults"));

    f.config(MISSPELT);
    let out = f.cli(&f.work, &["config", "check"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("{}:2: unknown key `prefx_key`", file.display())),
        "{err}"
    );
    assert!(err.contains(WARNING), "{err}");
    assert!(text(&out.stdout).contains("1 key will be ignored"));

    // A wrong type stops termic: exit 1, the line and the fix.
    f.config("[terminal]\nscrollback = \"lots\"\n");
    let out = f.cli(&f.work, &["config", "check"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("config.toml:2:"), "{err}");
    assert!(
        err.contains("fix: write e.g. `scrollback = 10000`"),
        "{err}"
    );

    f.config("[ui]\nwizard_shown = true\n");
    let out = f.cli(&f.work, &["config", "check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("fine"));

    let out = f.cli(&f.work, &["config", "reference"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("| `prefix_key` |"));
}

#[test]
fn hooks_commands_warn_about_unknown_keys_and_go_on() {
    let f = Fixture::new();
    f.config(MISSPELT);
    let out = f.cli(&f.work, &["hooks", "status"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains(WARNING), "{}", text(&out.stderr));
}

#[test]
fn the_workspace_starts_with_an_unknown_key_and_shows_the_warning() {
    let f = Fixture::new();
    f.config(MISSPELT);
    let mut t = Termic::start(&f, &["run", "--", "sh"]);
    // On the message line, and the workspace is up (the task is listed).
    let screen = t.wait_text("did you mean `prefix_key`?");
    assert!(screen.contains(WARNING), "{screen}");
    // Printed to stderr before the screen was taken over, too.
    assert!(harness_contains(&t.raw(), WARNING.as_bytes()));
    assert!(t.quit(), "termic did not quit");
}

fn harness_contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
