//! termic: vttest's screens, checked against the same screens drawn by
//! tmux (issue 34). `termic-vttest/` holds recordings made by
//! `termic-vttest/record.py`: vttest 2.7 run in tmux 3.3a at 83x24, the
//! bytes vttest wrote (`log`) and, for each screen, the byte offset at
//! which it was captured (`index`) and tmux's text and cursor there
//! (`NAME.tmux`). Where tmux draws a screen wrongly against xterm, a
//! `NAME.xterm` beside it is the expected screen instead, and the
//! README says why.
//!
//! Text and cursor are compared; colours and attributes are not (tmux's
//! plain capture has none).

extern crate std;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use std::path::{Path, PathBuf};

const ROWS: u16 = 24;
const COLS: u16 = 83;

/// The screen as `record.py` writes tmux's: each row without trailing
/// blanks and ended by `|`, then the cursor.
fn capture(p: &crate::Parser) -> String {
    let mut out = String::new();
    for row in p.screen().rows(0, COLS) {
        out.push_str(row.trim_end_matches(' '));
        out.push_str("|\n");
    }
    let (y, x) = p.screen().cursor_position();
    out.push_str(&format!("cursor={y},{x}\n"));
    out
}

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("termic-vttest")
        .join(name)
}

/// Every screen of one recording that does not read as expected, as
/// `NAME` followed by both screens.
fn mismatches(name: &str) -> (usize, Vec<String>) {
    let dir = dir(name);
    let log = std::fs::read(dir.join("log")).unwrap();
    let index = std::fs::read_to_string(dir.join("index")).unwrap();
    let mut parser = crate::Parser::new(
        core::num::NonZeroU16::new(ROWS).unwrap(),
        core::num::NonZeroU16::new(COLS).unwrap(),
        0,
    );
    let mut fed = 0;
    let mut screens = 0;
    let mut bad = Vec::new();
    for line in index.lines() {
        let (screen, offset) = line.split_once(' ').unwrap();
        let offset: usize = offset.parse().unwrap();
        assert!(
            offset >= fed,
            "{name}/index is not in byte order at {screen}"
        );
        parser.process(&log[fed..offset]);
        fed = offset;
        let xterm = dir.join(format!("{screen}.xterm"));
        let expected_file = if xterm.exists() {
            xterm
        } else {
            dir.join(format!("{screen}.tmux"))
        };
        let expected = std::fs::read_to_string(&expected_file).unwrap();
        let got = capture(&parser);
        screens += 1;
        if got != expected {
            bad.push(format!(
                "{screen} ({}):\n--- expected\n{expected}--- vt100\n{got}",
                expected_file.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    (screens, bad)
}

fn assert_all_read_the_same(name: &str, at_least: usize) {
    let (screens, bad) = mismatches(name);
    assert!(screens >= at_least, "{name}: only {screens} screens");
    assert!(
        bad.is_empty(),
        "{} of {screens} screens differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn vttest_menus_1_2_and_8_read_as_tmux_draws_them() {
    assert_all_read_the_same("menus-1-2-8", 34);
}

#[test]
fn vttest_menu_11_reads_as_tmux_draws_it() {
    assert_all_read_the_same("menu-11", 30);
}
