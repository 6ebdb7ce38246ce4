//! Codex: OSC 7501 always (no probe), Action Required held 1 s after the
//! last key, idle without done on Escape, clear at exit.

use crate::harness::{events, eventually, Home, Sim, SimOpts, SEC};

#[test]
fn native_status_through_a_permission_turn() {
    let home = Home::new();
    let sim = Sim::spawn("codex", "permission", &home, SimOpts::default());
    sim.wait_for("\x1b]7501;state=idle:app=codex\x07", 5 * SEC);
    sim.send(b"\r");
    sim.wait_for("state=blocked:app=codex:kind=permission:msg=", 5 * SEC);
    let trace = sim.trace();
    let enter = events(&trace, "key")[0]["ts"].as_f64().unwrap();
    let shown = sim.wait_trace(
        "action required",
        |v| {
            v["ev"] == "title"
                && v["title"]
                    .as_str()
                    .unwrap()
                    .starts_with("[ . ] Action Required | ")
        },
        3 * SEC,
    );
    let dt = shown["ts"].as_f64().unwrap() - enter;
    assert!(
        (950.0..1300.0).contains(&dt),
        "held until 1 s after the last key: {dt}"
    );
    sim.send(b"y");
    sim.wait_for("state=done:app=codex", 5 * SEC);
    let out = sim.output();
    assert!(out.find("state=working").unwrap() < out.find("state=blocked").unwrap());
    assert!(out.contains("\x1b]0;⠋ Create Out.txt Containing Hello | "));
}

#[test]
fn escape_reports_idle_without_done_and_exit_clears() {
    let home = Home::new();
    let mut sim = Sim::auto("codex", "interrupt", &home, &[]);
    sim.wait_for("state=working", 5 * SEC);
    sim.escape();
    sim.wait_for("Conversation interrupted", SEC);
    let out = sim.output();
    let after = &out[out.find("state=working").unwrap()..];
    assert!(after.contains("state=idle:app=codex"));
    assert!(!after.contains("state=done"));
    sim.send(b"\x04");
    assert!(sim.exited_within(3 * SEC));
    // The PTY reader may still be draining what it wrote before exiting.
    sim.wait_for("state=clear:app=codex", SEC);
}

#[test]
fn unfocused_codex_rings_a_bell_at_the_approval_and_the_turn_end() {
    let home = Home::new();
    let sim = Sim::spawn("codex", "permission", &home, SimOpts::default());
    sim.wait_for("state=idle:app=codex", 5 * SEC);
    sim.send(b"\x1b[O\r");
    sim.wait_for("state=blocked", 5 * SEC);
    // The status is BEL-terminated; a second, plain BEL follows it.
    let bels_after = |from: &str| {
        let out = sim.output();
        out.find(from)
            .map_or(0, |i| out[i..].matches('\x07').count())
    };
    eventually(5 * SEC, || bels_after("state=blocked") >= 2);
    let out = sim.output();
    let blocked = &out[out.find("state=blocked").unwrap()..];
    let status_end = blocked.find('\x07').unwrap();
    assert_eq!(&blocked[status_end..status_end + 2], "\x07\x07");
    sim.send(b"y");
    sim.wait_for("state=done:app=codex\x07", 5 * SEC);
    // At the turn end: the status, the idle title, then a plain BEL.
    eventually(5 * SEC, || bels_after("state=done:app=codex\x07") >= 3);
    let out = sim.output();
    let done = &out[out.find("state=done:app=codex\x07").unwrap()..];
    let title = done.find("\x1b]0;").unwrap();
    let title_end = title + done[title..].find('\x07').unwrap();
    assert_eq!(&done[title_end..title_end + 2], "\x07\x07", "{done:?}");
}
