//! The outer terminal hears the workspace's state (issue 30, item 4): the
//! PTY the real `termic` runs in plays the outer terminal, answers (or
//! not) termic's `OSC 7501 ; ?` probe, and reads what termic reports.

use base64::Engine;

use crate::harness;

use harness::{fake_agent_config, hook, turn_script, wait_badge, Fixture, Termic};

const PROBE: &[u8] = b"\x1b]7501;?\x1b\\";

fn osc_7501(state: &str, msg: &str) -> Vec<u8> {
    let msg = base64::engine::general_purpose::STANDARD.encode(msg);
    format!("\x1b]7501;state={state}:app=termic:msg={msg}\x1b\\").into_bytes()
}

/// Where `needle` first is in the raw output.
fn at(t: &Termic, needle: &[u8]) -> Option<usize> {
    t.raw().windows(needle.len()).position(|w| w == needle)
}

#[test]
fn an_outer_terminal_that_answers_hears_osc_7501_needs_you_then_done() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    // The probe, then the answer as Ghostty or cmux would give it.
    t.wait_raw(PROBE);
    t.send(PROBE);
    t.wait_raw(&osc_7501("working", "1 task working: t1"));
    wait_badge(&t, "t1", "needs you [permission]");
    t.wait_raw(&osc_7501("blocked", "1 task needs you: t1"));
    t.send(b"yes\r");
    let screen = wait_badge(&t, "t1", "done");
    t.wait_raw(&osc_7501("done", "1 task done: t1"));
    // The answer was not typed into the task: it read only what was typed.
    let got: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("got:"))
        .map(str::trim_end)
        .collect();
    assert!(
        got.iter().any(|l| l.ends_with("got:yes")) && !screen.contains("7501"),
        "the task read something else:\n{screen}"
    );
    // And no fallback for a terminal that speaks OSC 7501.
    assert!(!harness::contains(&t.raw(), b"\x1b]9;4;"));
    // Detaching leaves the tab clean.
    let done = at(&t, &osc_7501("done", "1 task done: t1")).unwrap();
    t.prefix(b"d");
    assert_eq!(t.wait_exit(), 0);
    let idle = at(&t, b"\x1b]7501;state=idle:app=termic\x1b\\");
    assert!(
        idle.is_some_and(|i| i > done),
        "no state=idle after the last report"
    );
}

#[test]
fn a_silent_outer_terminal_gets_osc_9_4_progress_by_default() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    t.wait_raw(PROBE);
    // No answer: after 300 ms the fallback, needs you as paused at 100.
    wait_badge(&t, "t1", "needs you [permission]");
    t.wait_raw(b"\x1b]9;4;4;100\x1b\\");
    t.send(b"yes\r");
    wait_badge(&t, "t1", "done");
    t.wait_raw(b"\x1b]9;4;0;0\x1b\\");
    assert!(!harness::contains(&t.raw(), b"\x1b]7501;state"));
    assert!(t.quit());
}

#[test]
fn a_silent_outer_terminal_gets_a_notification_when_configured() {
    let f = Fixture::new();
    f.config(&format!(
        "{}\n[notifications]\nouter_fallback = \"notify\"\n",
        fake_agent_config(&turn_script())
    ));
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    t.wait_raw(PROBE);
    wait_badge(&t, "t1", "needs you [permission]");
    t.wait_raw(b"\x1b]777;notify;termic;1 task needs you: t1\x07");
    let raw = t.raw();
    assert!(!harness::contains(&raw, b"\x1b]9;4;"));
    assert!(!harness::contains(&raw, b"\x1b]7501;state"));
    assert!(t.quit());
}

#[test]
fn a_task_cannot_forge_the_outer_report() {
    let f = Fixture::new();
    let forged = "printf '\\033]7501;state=blocked:app=termic:msg=Zm9yZ2Vk\\033\\\\\\033]9;4;4;100\\007forged-printed\\n'";
    let script = [
        forged.to_string(),
        "sleep 1".into(),
        hook("working", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    t.wait_raw(PROBE);
    t.send(PROBE);
    t.wait_text("forged-printed");
    // The real report comes after what the task printed.
    t.wait_raw(&osc_7501("working", "1 task working: t1"));
    let raw = t.raw();
    assert!(
        !harness::contains(&raw, b"state=blocked") && !harness::contains(&raw, b"Zm9yZ2Vk"),
        "the task's OSC 7501 reached the outer terminal"
    );
    assert!(!harness::contains(&raw, b"\x1b]9;4;"));
    // The report and the frame with the badge are written apart: wait.
    wait_badge(&t, "t1", "working");
    assert!(t.quit());
}

#[test]
fn a_server_that_stops_leaves_the_tab_clean() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    t.wait_raw(PROBE);
    t.send(PROBE);
    wait_badge(&t, "t1", "needs you [permission]");
    let blocked = osc_7501("blocked", "1 task needs you: t1");
    t.wait_raw(&blocked);
    let stop = f.cli(&f.work, &["server", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    assert_eq!(t.wait_exit(), 0);
    let reported = at(&t, &blocked).unwrap();
    let idle = at(&t, b"\x1b]7501;state=idle:app=termic\x1b\\");
    assert!(
        idle.is_some_and(|i| i > reported),
        "no state=idle after the server stopped"
    );
}

#[test]
fn the_linux_console_gets_neither_probe_nor_report() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let mut t = Termic::start_with_env(&f, &["run", "fake", "--name", "t1"], &[("TERM", "linux")]);
    wait_badge(&t, "t1", "needs you [permission]");
    t.send(b"yes\r");
    wait_badge(&t, "t1", "done");
    // Needs you was shown a turn ago: its report would be here by now.
    let raw = t.raw();
    assert!(
        !harness::contains(&raw, b"7501"),
        "the console would print it"
    );
    assert!(!harness::contains(&raw, b"\x1b]9;4;"));
    assert!(t.quit());
}

#[test]
fn inside_tmux_there_is_no_probe_and_the_fallback_goes_through_passthrough() {
    let f = Fixture::new();
    f.fake_sh_agent(&turn_script());
    let mut t = Termic::start_with_env(
        &f,
        &["run", "fake", "--name", "t1"],
        &[("TMUX", "/tmp/tmux-1000/default,1,0")],
    );
    wait_badge(&t, "t1", "needs you [permission]");
    t.wait_raw(b"\x1bPtmux;\x1b\x1b]9;4;4;100\x1b\x1b\\\x1b\\");
    assert!(!harness::contains(&t.raw(), PROBE), "tmux would not answer");
    assert!(t.quit());
}
