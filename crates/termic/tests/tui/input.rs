//! End-to-end: what reaches the agent. Paste, mouse and resize go through the
//! real `termic` binary to a small sh agent that reports what it received.

use crate::harness;

use crate::git_support;

use git_support::git;
use harness::{Fixture, Termic};
use std::time::Duration;

#[test]
fn bracketed_paste_and_mouse_reach_the_agent_as_it_asked() {
    let f = Fixture::new();
    // Bracketed paste and SGR mouse on; then show the next 24 input bytes.
    f.fake_sh_agent(
        "printf '\\033[?2004h\\033[?1000h\\033[?1006h'; stty raw -echo; echo ready; \
         head -c 24 | cat -v; echo; echo END; sleep 600",
    );
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    // Outer terminal: a bracketed paste, then a left click at column 41,
    // row 6 (1-based), which is column 11 of the pane (the sidebar is 30 wide).
    t.send(b"\x1b[200~hi\x1b[201~");
    t.send(b"\x1b[<0;41;6M");
    let s = t.wait_text("END");
    assert!(s.contains("^[[200~hi^[[201~^[[<0;11;6M"), "{s}");
}

#[test]
fn without_bracketed_paste_newlines_arrive_as_enter() {
    let f = Fixture::new();
    f.fake_sh_agent("stty raw -echo; echo ready; head -c 4 | od -An -c; echo END; sleep 600");
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    t.send(b"\x1b[200~a\nb\x1b[201~");
    t.send(b"!");
    let s = t.wait_text("END");
    assert!(s.contains("a  \\r   b   !"), "{s}");
}

#[test]
fn mouse_is_not_sent_to_an_agent_that_did_not_ask() {
    let f = Fixture::new();
    f.fake_sh_agent("stty raw -echo; echo ready; head -c 1 | od -An -c; echo END; sleep 600");
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    t.send(b"\x1b[<0;41;6M");
    t.send(b"z");
    let s = t.wait_text("END");
    assert!(s.contains("   z"), "only the key arrived: {s}");
}

#[test]
fn resizing_the_outer_terminal_resizes_the_agent() {
    let f = Fixture::new();
    f.fake_sh_agent("trap 'echo size $(stty size)' WINCH; echo ready; while :; do sleep 0.1; done");
    let t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    t.resize(30, 100);
    // 30 rows less the status line; 100 columns less the sidebar (a
    // quarter of the width: 25 columns).
    t.wait_text("size 29 75");
}

/// A key typed right after the terminal is resized reaches the agent at
/// once. crossterm's default event source (mio, edge-triggered) handled a
/// resize and a key that woke it together by returning the resize and
/// leaving the key unread until the next key came (53 of 300 keys in a
/// direct test of crossterm 0.29); termic builds crossterm with its poll(2)
/// event source (`use-dev-tty`), which reads both. Here a key follows each
/// of 40 resizes, and each must show before the next is typed.
#[test]
fn a_key_typed_right_after_a_resize_reaches_the_agent() {
    let f = Fixture::new();
    f.fake_sh_agent("stty raw -echo; echo ready; exec cat -v");
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    let mut typed = String::new();
    for (i, key) in ('a'..='z').chain('A'..='N').enumerate() {
        t.resize(24 + (i % 2) as u16, 100);
        t.send(key.to_string().as_bytes());
        typed.push(key);
        t.wait_within(
            &format!("{typed} on the agent's line"),
            Duration::from_secs(5),
            |s| s.contains(&typed),
        );
    }
}

#[test]
fn closing_a_worktree_task_can_remove_its_worktree() {
    let f = Fixture::new();
    git(&f.work, &["init", "-q"]);
    std::fs::write(f.work.join("a.txt"), "a\n").unwrap();
    git(&f.work, &["add", "a.txt"]);
    git(&f.work, &["commit", "-qm", "first"]);
    f.fake_sh_agent("echo in $(pwd); sleep 600");
    let mut t = Termic::start(&f, &["run", "fake", "--worktree", "--name", "wt1"]);
    let s = t.wait_text("in /");
    let dir = s
        .lines()
        .find_map(|l| l.split("in ").nth(1))
        .unwrap()
        .trim()
        .to_string();
    assert!(dir.contains("wt1"), "{s}");
    assert!(
        std::path::Path::new(&dir).join("a.txt").exists(),
        "a checkout of the repository"
    );
    t.prefix(b"x");
    let s = t.wait_text("Close wt1? Its agent is stopped.");
    assert!(s.contains("w close and remove the worktree"), "{s}");
    t.send(b"w");
    t.wait_text("No task is open.");
    assert!(
        crate::wait::eventually(harness::TIMEOUT, || !std::path::Path::new(&dir).exists()),
        "worktree {dir} still there"
    );
}

#[test]
fn prefix_page_up_opens_copy_mode_a_page_back_and_q_returns_to_live() {
    let f = Fixture::new();
    f.fake_sh_agent("i=1; while [ $i -le 120 ]; do echo line$i; i=$((i+1)); done; echo bottom; stty -echo; read x; echo typed:$x; sleep 600");
    let mut t = Termic::start(&f, &["run", "fake"]);
    let s = t.wait_text("bottom");
    assert!(
        !s.contains("line60\n") && !s.contains("line60 "),
        "line 60 is off screen: {s}"
    );
    // The pane is 39 rows: a page back shows line 60 or so.
    t.prefix(b"\x1b[5~");
    let s = t.wait_text("copy mode [");
    assert!(s.lines().any(|l| l.contains("line60")), "{s}");
    // In copy mode PgUp needs no prefix.
    t.send(b"\x1b[5~");
    t.wait_for("line 30 in view", |s| {
        s.lines().any(|l| l.contains("line30"))
    });
    t.send(b"q");
    t.wait_for("live again", |s| !s.contains("copy mode ["));
    t.send(b"ok\r");
    t.wait_text("typed:ok");
}

#[test]
fn focus_changes_reach_an_agent_that_enabled_focus_reporting() {
    let f = Fixture::new();
    f.fake_sh_agent("printf '\\033[?1004h'; stty raw -echo; echo ready; head -c 6 | cat -v; echo; echo END; sleep 600");
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    t.send(b"\x1b[O");
    t.send(b"\x1b[I");
    let s = t.wait_text("END");
    assert!(s.contains("^[[O^[[I"), "{s}");
}

#[test]
fn the_prefix_twice_sends_the_prefix_byte_to_the_agent() {
    let f = Fixture::new();
    f.fake_sh_agent("stty raw -echo; echo ready; head -c 2 | od -An -c; echo END; sleep 600");
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("ready");
    t.send(b"\x1d\x1d");
    t.send(b"k");
    let s = t.wait_text("END");
    assert!(s.contains("035   k"), "Ctrl-] then k: {s}");
}
