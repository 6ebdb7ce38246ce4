//! Desktop notifications for real: notify-rust in the termic binary talks
//! to a private `dbus-daemon --session` and a small
//! org.freedesktop.Notifications server (tests/dbus/notify_server.py,
//! Python standard library only) that records what it receives and clicks
//! when told. Needs `dbus-daemon` and `python3` (.ci/run installs dbus;
//! elsewhere a missing dbus-daemon is reported and the test checks nothing).

use crate::dbus;
use crate::harness;

use std::path::{Path, PathBuf};

use dbus::{NotifyServer, SessionBus};
use harness::{badge_line, hook, Fixture, Termic};

/// Agent `fake`: prints BG-PANE, then needs you once `go1` exists, then
/// is done once `go2` exists.
fn gated_agent(f: &Fixture) -> (PathBuf, PathBuf) {
    let (go1, go2) = (f.work.join("go1"), f.work.join("go2"));
    let wait = |p: &Path| format!("while [ ! -e '{}' ]; do sleep 0.05; done", p.display());
    let script = [
        "echo BG-PANE".to_string(),
        wait(&go1),
        hook("working", ""),
        hook("attention", ";kind=permission"),
        wait(&go2),
        hook("working", ""),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    f.fake_sh_agent(&script);
    (go1, go2)
}

/// Opens a second task (a command) so `bg` is in the background.
fn open_other_task(t: &mut Termic) {
    t.prefix(b"n");
    t.wait_text("New task");
    t.send(b"\x1b[D");
    t.wait_text("Command  (type a command");
    t.send(b"\t");
    t.send(b"sh -c 'echo OTHER-PANE; sleep 600'");
    t.send(b"\t");
    t.send(b"other");
    t.send(b"\r");
    t.wait_for("the other task is focused", |s| {
        badge_line(s, "other").is_some() && s.contains("OTHER-PANE")
    });
}

/// termic running `bg` (the gated agent) in the background of `other`,
/// with `bus` as its session bus (`None`: no bus at all). Returns the gates.
fn bg_in_the_background(f: &Fixture, bus: Option<&SessionBus>) -> (Termic, PathBuf, PathBuf) {
    let (go1, go2) = gated_agent(f);
    let env: Vec<(&str, &str)> = bus
        .map(|b| ("DBUS_SESSION_BUS_ADDRESS", b.address.as_str()))
        .into_iter()
        .collect();
    let mut t = Termic::start_with_env(f, &["run", "fake", "--name", "bg"], &env);
    t.wait_text("BG-PANE");
    open_other_task(&mut t);
    (t, go1, go2)
}

#[test]
fn needs_you_and_done_reach_a_real_notification_server_and_a_click_focuses_the_task() {
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let mut server = NotifyServer::start(&bus);
    let f = Fixture::new();
    let (mut t, go1, go2) = bg_in_the_background(&f, Some(&bus));

    std::fs::write(&go1, "").unwrap();
    let needs = server.next_with("needs you");
    assert_eq!(needs["summary"], "termic");
    assert_eq!(needs["body"], "bg (fake) needs you: permission");
    assert_eq!(
        needs["actions"],
        serde_json::json!(["default", "Show the task"])
    );

    std::fs::write(&go2, "").unwrap();
    let done = server.next_with("is done");
    assert_eq!(done["summary"], "termic");
    assert_eq!(done["body"], "bg (fake) is done");
    // The desktop took them: no OSC 777 fallback on the outer terminal.
    assert!(
        !harness::contains(&t.raw(), b"]777;notify"),
        "fallback used"
    );

    // Clicking the notification brings its task to the front: one click.
    assert!(!t.screen().contains("BG-PANE"), "bg is not focused yet");
    server.click(done["id"].as_u64().unwrap(), "default");
    t.wait_for("a click focuses bg", focused);
    assert!(t.quit(), "termic did not quit");
}

/// bg's pane is in front and the other task's is not.
fn focused(s: &str) -> bool {
    s.contains("BG-PANE") && !s.contains("OTHER-PANE")
}

#[test]
fn a_click_the_instant_the_notification_shows_still_focuses_the_task() {
    // The server clicks as it answers the Notify call, before termic's
    // call has returned. termic listens before it shows, so the click is
    // not lost (notify-rust's own wait, which subscribes after the show,
    // lost such clicks, and CI once lost every click of a run).
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let server = NotifyServer::start_clicking(&bus, Some("default"));
    let f = Fixture::new();
    let (mut t, go1, _) = bg_in_the_background(&f, Some(&bus));
    std::fs::write(&go1, "").unwrap();
    server.next_with("needs you");
    t.wait_for("the instant click focuses bg", focused);
    assert!(t.quit(), "termic did not quit");
}

#[test]
fn a_bus_without_a_notification_server_falls_back_to_osc_777() {
    // A session bus is there, nobody owns org.freedesktop.Notifications:
    // notify-rust fails and the text goes to the outer terminal.
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let f = Fixture::new();
    let (mut t, go1, _) = bg_in_the_background(&f, Some(&bus));
    std::fs::write(&go1, "").unwrap();
    t.wait_raw(b"\x1b]777;notify;termic;bg (fake) needs you: permission\x07");
    assert!(t.quit(), "termic did not quit");
}

#[test]
fn no_bus_at_all_goes_straight_to_osc_777() {
    // No DBUS_SESSION_BUS_ADDRESS (the SSH case): the server, running on
    // its own bus, must receive nothing.
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let server = NotifyServer::start(&bus);
    let f = Fixture::new();
    let (mut t, go1, _) = bg_in_the_background(&f, None);
    std::fs::write(&go1, "").unwrap();
    t.wait_raw(b"\x1b]777;notify;termic;bg (fake) needs you: permission\x07");
    assert!(server.received.try_recv().is_err(), "the bus was used");
    assert!(t.quit(), "termic did not quit");
}
