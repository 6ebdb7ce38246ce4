use super::*;
use base64::Engine;

fn s(level: Level, count: usize, first: Option<&str>) -> Summary {
    Summary {
        level,
        count,
        first: first.map(str::to_owned),
    }
}

const NEEDS: Badge = Badge::NeedsYou { kind: None };

#[test]
fn the_most_urgent_state_wins_and_counts_its_tasks() {
    let perm = Badge::NeedsYou {
        kind: Some("permission".into()),
    };
    let tasks = [
        ("a", &Badge::Done),
        ("b", &Badge::Working),
        ("c", &perm),
        ("d", &Badge::Working),
        ("e", &NEEDS),
    ];
    assert_eq!(summarize(tasks), s(Level::NeedsYou, 2, Some("c")));
    let tasks = [
        ("a", &Badge::Done),
        ("b", &Badge::Working),
        ("d", &Badge::Working),
    ];
    assert_eq!(summarize(tasks), s(Level::Working, 2, Some("b")));
    let tasks = [("a", &Badge::Idle), ("b", &Badge::Done)];
    assert_eq!(summarize(tasks), s(Level::Done, 1, Some("b")));
}

#[test]
fn nothing_running_is_idle() {
    assert_eq!(summarize([]), Summary::IDLE);
    let tasks = [
        ("a", &Badge::Idle),
        ("b", &Badge::Interrupted),
        ("c", &Badge::Exited(Some(1))),
    ];
    assert_eq!(summarize(tasks), Summary::IDLE);
}

#[test]
fn an_error_counts_as_done() {
    let err = Badge::Error(Some(termic_signal::stop::StopReason::RateLimited));
    assert_eq!(level(&err), Level::Done);
    assert!(Level::NeedsYou > Level::Working);
    assert!(Level::Working > Level::Done);
    assert!(Level::Done > Level::Idle);
}

#[test]
fn messages_say_how_many_and_the_first() {
    assert_eq!(
        s(Level::NeedsYou, 1, Some("review")).message().as_deref(),
        Some("1 task needs you: review")
    );
    assert_eq!(
        s(Level::NeedsYou, 3, Some("review")).message().as_deref(),
        Some("3 tasks need you, first: review")
    );
    assert_eq!(
        s(Level::Working, 2, Some("x")).message().as_deref(),
        Some("2 tasks working")
    );
    assert_eq!(Summary::IDLE.message(), None);
}

#[test]
fn a_hostile_name_is_cleaned_and_the_message_is_base64() {
    let evil = "x\u{1b}]52;c;aGk=\u{7}\u{202e}y\ny";
    let bytes = osc_7501(&s(Level::NeedsYou, 1, Some(evil)));
    let text = String::from_utf8(bytes.clone()).unwrap();
    let body = text
        .strip_prefix("\x1b]7501;state=blocked:app=termic:msg=")
        .and_then(|b| b.strip_suffix("\x1b\\"))
        .unwrap_or_else(|| panic!("{text:?}"));
    assert!(body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)));
    let msg = base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap();
    assert_eq!(
        String::from_utf8(msg).unwrap(),
        "1 task needs you: x]52;c;aGk=y y"
    );
    // One ESC opens, one closes: nothing inside.
    assert_eq!(bytes.iter().filter(|&&b| b == 0x1b).count(), 2);
}

#[test]
fn the_7501_states() {
    assert_eq!(
        osc_7501(&Summary::IDLE),
        b"\x1b]7501;state=idle:app=termic\x1b\\"
    );
    let working = String::from_utf8(osc_7501(&s(Level::Working, 1, Some("t")))).unwrap();
    assert!(working.starts_with("\x1b]7501;state=working:app=termic:msg="));
    let done = String::from_utf8(osc_7501(&s(Level::Done, 1, Some("t")))).unwrap();
    assert!(done.starts_with("\x1b]7501;state=done:app=termic:msg="));
}

#[test]
fn termics_report_parses_as_a_program_status() {
    // The same grammar termic parses from agents.
    let bytes = osc_7501(&s(Level::NeedsYou, 2, Some("review")));
    let mut scanner = termic_signal::scanner::Scanner::default();
    let mut signals = Vec::new();
    scanner.feed(&bytes, &mut signals);
    let text = format!("{signals:?}");
    assert!(text.contains("Blocked"), "{text}");
    assert!(text.contains("2 tasks need you, first: review"), "{text}");
}

#[test]
fn progress_mapping() {
    assert_eq!(osc_progress(Level::NeedsYou), b"\x1b]9;4;4;100\x1b\\");
    assert_eq!(osc_progress(Level::Working), b"\x1b]9;4;3;0\x1b\\");
    assert_eq!(osc_progress(Level::Done), b"\x1b]9;4;0;0\x1b\\");
    assert_eq!(osc_progress(Level::Idle), b"\x1b]9;4;0;0\x1b\\");
}

#[test]
fn tmux_gets_passthrough() {
    let bytes = encode(Mode::Progress, &s(Level::Working, 1, None), None, true);
    assert_eq!(bytes, b"\x1bPtmux;\x1b\x1b]9;4;3;0\x1b\x1b\\\x1b\\");
}

#[test]
fn notify_speaks_only_when_needing_you_starts_or_moves() {
    let needs = s(Level::NeedsYou, 1, Some("a"));
    let first = encode(Mode::Notify, &needs, None, false);
    assert_eq!(first, b"\x1b]777;notify;termic;1 task needs you: a\x07");
    let more = s(Level::NeedsYou, 2, Some("a"));
    assert!(encode(Mode::Notify, &more, Some(&needs), false).is_empty());
    let other = s(Level::NeedsYou, 1, Some("b"));
    assert!(!encode(Mode::Notify, &other, Some(&needs), false).is_empty());
    assert!(encode(
        Mode::Notify,
        &s(Level::Working, 1, None),
        Some(&needs),
        false
    )
    .is_empty());
    assert!(encode(Mode::Off, &needs, None, false).is_empty());
}

#[test]
fn fallback_names_and_modes() {
    for f in Fallback::ALL {
        assert_eq!(Fallback::parse(f.name()), Some(f));
        assert_eq!(mode(f, true), Mode::Osc7501);
    }
    assert_eq!(Fallback::default(), Fallback::Progress);
    assert_eq!(mode(Fallback::Progress, false), Mode::Progress);
    assert_eq!(mode(Fallback::Notify, false), Mode::Notify);
    assert_eq!(mode(Fallback::None, false), Mode::Off);
    assert_eq!(Fallback::parse("loud"), None);
}

#[test]
fn the_reporter_sends_changes_only_and_at_most_four_a_second() {
    let mut r = Reporter::new(Mode::Progress, false);
    // A first idle says nothing, and nothing needs a reset.
    assert!(r.update(&Summary::IDLE, 0).is_empty());
    assert!(r.reset().is_empty());
    let working = s(Level::Working, 1, Some("a"));
    let needs = s(Level::NeedsYou, 1, Some("a"));
    assert_eq!(r.update(&working, 1_000), osc_progress(Level::Working));
    // Unchanged: nothing.
    assert!(r.update(&working, 1_100).is_empty());
    assert_eq!(r.next_at(&working, 1_100), None);
    // Changed within the gap: held, and the loop is told when.
    assert!(r.update(&needs, 1_100).is_empty());
    assert_eq!(r.next_at(&needs, 1_100), Some(1_250));
    assert_eq!(r.update(&needs, 1_250), osc_progress(Level::NeedsYou));
    // A burst that comes back to what was sent sends nothing.
    assert!(r.update(&working, 1_300).is_empty());
    assert!(r.update(&needs, 1_600).is_empty());
    assert_eq!(r.next_at(&needs, 1_600), None);
    assert_eq!(r.reset(), osc_progress(Level::Idle));
}

#[test]
fn the_reset_leaves_the_tab_clean_in_each_mode() {
    let needs = s(Level::NeedsYou, 1, Some("a"));
    let mut r = Reporter::new(Mode::Osc7501, false);
    r.update(&needs, 0);
    assert_eq!(r.reset(), b"\x1b]7501;state=idle:app=termic\x1b\\");
    let mut r = Reporter::new(Mode::Osc7501, true);
    r.update(&needs, 0);
    assert_eq!(
        r.reset(),
        b"\x1bPtmux;\x1b\x1b]7501;state=idle:app=termic\x1b\x1b\\\x1b\\"
    );
    let mut r = Reporter::new(Mode::Notify, false);
    assert!(!r.update(&needs, 0).is_empty());
    assert!(r.reset().is_empty());
}
