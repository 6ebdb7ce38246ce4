//! vttest through a termic task (issue 34): vttest 2.7 runs in a task of
//! a real server, viewed at 83x24 through protocol 4's `view`, driven by
//! the same keys `vendor/vt100/termic-vttest/record.py` pressed in tmux,
//! and every screen the view shows is compared with the screen tmux 3.3a
//! drew (`NAME.tmux`), or xterm's where tmux is wrong (`NAME.xterm`). The
//! vt100 unit test replays the same recordings into the screen model; this
//! one goes through the task's PTY, the runtime and a client.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::attach::streams::Viewer;
use crate::served::Served;

const COLS: u16 = 83;
const ROWS: u16 = 24;

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vendor/vt100/termic-vttest")
}

/// The screen as the recordings hold it: each row without trailing
/// blanks, ended by `|`, then the cursor.
fn capture(p: &vt100::Parser) -> String {
    let mut out = String::new();
    for row in p.screen().rows(0, COLS) {
        out.push_str(row.trim_end_matches(' '));
        out.push_str("|\n");
    }
    let (y, x) = p.screen().cursor_position();
    out.push_str(&format!("cursor={y},{x}\n"));
    out
}

/// The menu path a screen's name belongs to (`11.5.4.1`: `11.5.4`;
/// `2.end`: `2`), none for the main menu and the last screen.
fn path_of(screen: &str) -> Option<&str> {
    if screen == "menu" || screen == "final" {
        return None;
    }
    screen.rsplit_once('.').map(|(path, _)| path)
}

/// Each screen of a recording with the keys pressed before it (each
/// followed by Enter; "" is Enter alone), as record.py pressed them:
/// Enter after every screen but the main menu's; at a new path, "0" to
/// climb out of the last one's submenus, then the new path's steps (pure).
fn script(index: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut prev: Option<&str> = None;
    for line in index.lines() {
        let screen = line.split(' ').next().unwrap();
        let mut keys = Vec::new();
        if prev.is_some_and(|p| p != "menu") {
            keys.push(String::new());
        }
        let (before, now) = (prev.and_then(path_of), path_of(screen));
        if before != now {
            if let Some(before) = before {
                let depth = before.split('.').count();
                keys.extend(std::iter::repeat_n("0".to_string(), depth - 1));
            }
            if let Some(now) = now {
                keys.extend(now.split('.').map(str::to_owned));
            }
        }
        out.push((screen.to_owned(), keys));
        prev = Some(screen);
    }
    out
}

#[test]
fn the_key_script_follows_record_py() {
    let index = "menu 1\n1.1 2\n1.end 3\n2.1 4\nfinal 5\n";
    let keys: Vec<Vec<String>> = script(index).into_iter().map(|(_, k)| k).collect();
    assert_eq!(keys[0], Vec::<String>::new());
    assert_eq!(keys[1], ["1"]);
    assert_eq!(keys[2], [""]);
    assert_eq!(keys[3], ["", "2"]);
    assert_eq!(keys[4], [""]);
    let index = "menu 1\n11.5.4.1 2\n11.5.4.2 3\n11.8.7.3.1 4\n";
    let keys: Vec<Vec<String>> = script(index).into_iter().map(|(_, k)| k).collect();
    assert_eq!(keys[1], ["11", "5", "4"]);
    assert_eq!(keys[2], [""]);
    assert_eq!(keys[3], ["", "0", "0", "11", "8", "7", "3"]);
}

/// Drives one recording through a fresh vttest in a termic task; every
/// screen that does not read as recorded, with both screens.
fn differences(recording: &str) -> (usize, Vec<String>) {
    let dir = recordings().join(recording);
    let index = std::fs::read_to_string(dir.join("index")).unwrap();
    let s = Served::new("sleep 600");
    let _ = std::os::unix::fs::symlink("/usr/bin/vttest", s.f.tools.join("vttest"));
    // vttest starts once the view has given the task its size.
    s.expect(
        &[
            "run",
            "--detach",
            "--name",
            "vt",
            "--",
            "sh",
            "-c",
            "echo READY; read go; TERM=xterm exec vttest 24x80.132",
        ],
        0,
    );
    let (mut view, _) = Viewer::open(&s, "vt", COLS, ROWS);
    view.wait_text("READY");
    view.press("go");
    let mut bad = Vec::new();
    let steps = script(&index);
    for (screen, keys) in &steps {
        for key in keys {
            view.press(key);
        }
        // `.live`: where vttest prints what the terminal answered, and
        // tmux answered wrongly (README); then xterm's, then tmux's.
        let expected = ["live", "xterm", "tmux"]
            .iter()
            .map(|kind| dir.join(format!("{screen}.{kind}")))
            .find(|path| path.exists())
            .map(|path| std::fs::read_to_string(path).unwrap())
            .unwrap();
        if let Err(got) = view.wait_screen(&expected, capture, Duration::from_secs(10)) {
            bad.push(format!(
                "{screen}:\n--- expected\n{expected}--- termic\n{got}"
            ));
        }
    }
    (steps.len(), bad)
}

#[test]
fn vttest_in_a_task_reads_as_tmux_draws_it() {
    if !crate::requires::program("vttest", "vttest") {
        return;
    }
    for recording in ["menus-1-2-8", "menu-11"] {
        let (screens, bad) = differences(recording);
        assert!(
            bad.is_empty(),
            "{recording}: of {screens} screens, {} differ:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
}
