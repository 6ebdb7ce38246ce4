//! Process hygiene through the real binary in a PTY: quitting, closing a
//! task and `termic server stop` end the task's whole process tree, also
//! processes that ignore SIGHUP and SIGTERM; killing the workspace client
//! (TERM, HUP, INT, QUIT) detaches it, so the task keeps running in the
//! server; and every way out puts the user's terminal back. The process
//! table is checked afterwards: no process of the task is left, not even
//! with ppid 1.

use crate::harness;
use crate::process_table;

use std::path::Path;
use std::time::Duration;

use harness::{Fixture, Termic};
use process_table::alive;

/// A task that ignores SIGHUP and SIGTERM, with a background child that
/// ignores them too (in its own process group, like a shell job), writing
/// both pids to `pids` in the work dir.
const STUBBORN: &str = "trap '' HUP TERM; \
    (trap '' HUP TERM; exec sleep 600) & \
    echo $$ $! > pids; echo stubborn-ready; \
    while :; do sleep 1; done";

fn start_stubborn(f: &Fixture) -> (Termic, Vec<i32>) {
    let t = Termic::start(f, &["run", "--name", "stub", "--", "sh", "-c", STUBBORN]);
    t.wait_text("stubborn-ready");
    let pids = read_pids(&f.work.join("pids"));
    for &pid in &pids {
        assert!(alive(pid), "task process {pid} is running before the test");
    }
    (t, pids)
}

fn read_pids(path: &Path) -> Vec<i32> {
    let text = std::fs::read_to_string(path).unwrap();
    let pids: Vec<i32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{text:?}");
    pids
}

fn assert_gone(pids: &[i32], when: &str) {
    let left: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    assert!(
        left.is_empty(),
        "{when}: task processes still running: {left:?}"
    );
}

#[test]
fn quitting_ends_a_task_that_ignores_hup_and_term_before_termic_exits() {
    let f = Fixture::new();
    let (mut t, pids) = start_stubborn(&f);
    t.prefix(b"q");
    t.wait_text("Quitting stops");
    t.send(b"y");
    assert_eq!(t.wait_exit(), 0);
    // At once: termic waited for the SIGKILL, nothing is left with ppid 1.
    assert_gone(&pids, "right after quitting");
    assert!(
        t.terminal_is_cooked(),
        "the terminal is back in cooked mode"
    );
}

#[test]
fn closing_a_task_ends_its_whole_tree_while_termic_keeps_running() {
    let f = Fixture::new();
    let (mut t, pids) = start_stubborn(&f);
    t.prefix(b"x");
    t.wait_text("Close stub?");
    t.send(b"y");
    assert!(
        crate::wait::eventually(Duration::from_secs(20), || !pids.iter().any(|&p| alive(p))),
        "closing the task left {:?} running",
        pids.iter().filter(|&&p| alive(p)).collect::<Vec<_>>()
    );
    assert!(t.exit_within(Duration::ZERO).is_none(), "termic still runs");
    assert!(t.quit());
}

/// Each fatal signal to the client: the terminal is restored, the exit
/// code is 128 + the signal, and the task keeps running in the server (a
/// closed terminal is a detach) until `termic server stop` ends its tree.
fn killed_by(signal: libc::c_int) {
    let f = Fixture::new();
    let (mut t, pids) = start_stubborn(&f);
    assert!(!t.terminal_is_cooked(), "the workspace runs in raw mode");
    let raw_before = t.raw().len();
    // SAFETY: a signal to the termic child this test started.
    assert_eq!(unsafe { libc::kill(t.pid() as i32, signal) }, 0);
    assert_eq!(t.wait_exit(), 128 + signal as u32, "exit code");
    assert!(
        t.terminal_is_cooked(),
        "signal {signal} left the terminal raw"
    );
    // The client exits right after restoring (it has no task to end), so
    // the test's reader may still be behind the exit: wait for the bytes.
    t.wait_raw(b"\x1b[?1049l");
    assert!(
        harness::contains(&t.raw()[raw_before..], b"\x1b[?1049l"),
        "signal {signal}: the alternate screen was left"
    );
    assert!(
        pids.iter().all(|&p| alive(p)),
        "signal {signal}: the task keeps running in the server"
    );
    let ls = f.cli(&f.work, &["ls"]);
    assert!(
        String::from_utf8_lossy(&ls.stdout).contains("stub"),
        "{ls:?}"
    );
    let stop = f.cli(&f.work, &["server", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    assert_gone(&pids, &format!("after signal {signal} and server stop"));
}

#[test]
fn kill_term_of_the_client_restores_the_terminal_and_detaches() {
    killed_by(libc::SIGTERM);
}

#[test]
fn kill_hup_of_the_client_restores_the_terminal_and_detaches() {
    killed_by(libc::SIGHUP);
}

#[test]
fn kill_int_of_the_client_restores_the_terminal_and_detaches() {
    killed_by(libc::SIGINT);
}

#[test]
fn kill_quit_of_the_client_restores_the_terminal_and_detaches() {
    killed_by(libc::SIGQUIT);
}

/// `termic demo` owns its tasks in its own process: a fatal signal puts
/// the terminal back, ends every task's tree, and `main` returns 128 + the
/// signal (no `process::exit` from the signal thread since 2026-12-06).
#[test]
fn kill_term_of_the_in_process_demo_restores_the_terminal_and_ends_its_tasks() {
    let f = Fixture::new();
    let mut t = Termic::start(&f, &["demo", "--speed", "4"]);
    t.wait_text("codex-demo");
    let own = t.pid() as i32;
    let tasks = children_of(own);
    assert!(!tasks.is_empty(), "the demo's tasks run");
    let raw_before = t.raw().len();
    // SAFETY: a signal to the termic child this test started.
    assert_eq!(unsafe { libc::kill(own, libc::SIGTERM) }, 0);
    assert_eq!(t.wait_exit(), 128 + libc::SIGTERM as u32, "exit code");
    assert!(t.terminal_is_cooked(), "SIGTERM left the terminal raw");
    t.wait_raw(b"\x1b[?1049l");
    assert!(
        harness::contains(&t.raw()[raw_before..], b"\x1b[?1049l"),
        "the alternate screen was left"
    );
    assert_gone(&tasks, "right after the demo exited");
}

/// The live processes whose parent is `pid`.
fn children_of(pid: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                stat.rfind(')')
                    .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
                    .and_then(|ppid| ppid.parse::<i32>().ok())
                    == Some(pid)
            })
        })
        .filter(|&p| alive(p))
        .collect()
}
