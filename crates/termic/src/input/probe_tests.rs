use super::*;

fn key(code: KeyCode, mods: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, mods))
}

fn ch(c: char) -> Event {
    let mods = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    key(KeyCode::Char(c), mods)
}

fn alt(c: char) -> Event {
    key(KeyCode::Char(c), KeyModifiers::ALT)
}

/// The events crossterm 0.29 makes of `bytes` read in one go.
fn crossterm_events(bytes: &[u8]) -> Vec<Event> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0x1b if i + 1 < bytes.len() => {
                out.push(alt(bytes[i + 1] as char));
                i += 2;
                continue;
            }
            0x1b => out.push(key(KeyCode::Esc, KeyModifiers::NONE)),
            0x07 => out.push(key(KeyCode::Char('g'), KeyModifiers::CONTROL)),
            b => out.push(ch(b as char)),
        }
        i += 1;
    }
    out
}

fn feed_all(w: &mut ProbeWatch, events: Vec<Event>, now: u64) -> Vec<Action> {
    events.into_iter().flat_map(|e| w.feed(e, now)).collect()
}

fn forwarded(actions: &[Action]) -> Vec<Event> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Forward(e) => Some(e.clone()),
            Action::Outer(_) => None,
        })
        .collect()
}

#[test]
fn the_answer_is_swallowed_and_reported() {
    for answer in [
        &b"\x1b]7501;?\x1b\\"[..],
        b"\x1b]7501;?\x07",
        b"\x1b]7501;?;v=1\x1b\\",
    ] {
        let mut w = ProbeWatch::probing();
        let actions = feed_all(&mut w, crossterm_events(answer), 20);
        assert_eq!(actions, vec![Action::Outer(true)], "{answer:?}");
        // Nothing more: no silent verdict later, nothing held.
        assert_eq!(w.tick(400), vec![]);
        assert_eq!(w.next_deadline(), None);
    }
}

#[test]
fn an_answer_split_before_its_last_esc_is_still_one() {
    // crossterm saw ESC at the end of a read: an Esc key, then `\`.
    let mut w = ProbeWatch::probing();
    let mut events = crossterm_events(b"\x1b]7501;?");
    events.push(key(KeyCode::Esc, KeyModifiers::NONE));
    events.push(ch('\\'));
    assert_eq!(feed_all(&mut w, events, 10), vec![Action::Outer(true)]);
}

#[test]
fn no_answer_is_silent_at_300_ms_and_keys_go_through() {
    let mut w = ProbeWatch::probing();
    assert_eq!(w.next_deadline(), Some(ANSWER_WITHIN_MS));
    assert_eq!(w.feed(ch('a'), 5), vec![Action::Forward(ch('a'))]);
    assert_eq!(w.tick(299), vec![]);
    assert_eq!(w.tick(300), vec![Action::Outer(false)]);
    assert_eq!(w.next_deadline(), Some(LISTEN_MS));
    // A late answer (a slow link) upgrades to OSC 7501.
    let late = feed_all(&mut w, crossterm_events(b"\x1b]7501;?\x1b\\"), 2_000);
    assert_eq!(late, vec![Action::Outer(true)]);
    // After that, Alt+] is a key like any other, at once.
    assert_eq!(w.feed(alt(']'), 2_100), vec![Action::Forward(alt(']'))]);
}

#[test]
fn a_user_typing_alt_bracket_gets_it_back_within_the_hold() {
    let mut w = ProbeWatch::probing();
    assert_eq!(w.feed(alt(']'), 10), vec![]);
    assert_eq!(w.next_deadline(), Some(10 + HOLD_MS));
    assert_eq!(w.tick(10 + HOLD_MS), vec![Action::Forward(alt(']'))]);
    // Or at once when the next key cannot continue an answer.
    assert_eq!(w.feed(alt(']'), 50), vec![]);
    assert_eq!(w.feed(ch('7'), 50), vec![]);
    assert_eq!(
        w.feed(ch('x'), 50),
        vec![
            Action::Forward(alt(']')),
            Action::Forward(ch('7')),
            Action::Forward(ch('x'))
        ]
    );
    // A plain Esc is held as a possible start, then let through.
    assert_eq!(w.feed(key(KeyCode::Esc, KeyModifiers::NONE), 60), vec![]);
    assert_eq!(
        w.feed(ch('j'), 61),
        vec![
            Action::Forward(key(KeyCode::Esc, KeyModifiers::NONE)),
            Action::Forward(ch('j'))
        ]
    );
}

#[test]
fn a_break_that_starts_a_new_answer_is_held() {
    let mut w = ProbeWatch::probing();
    let mut events = crossterm_events(b"\x1b]75");
    events.extend(crossterm_events(b"\x1b]7501;?\x1b\\"));
    let actions = feed_all(&mut w, events, 10);
    assert_eq!(
        forwarded(&actions),
        vec![alt(']'), ch('7'), ch('5')],
        "{actions:?}"
    );
    assert!(actions.contains(&Action::Outer(true)));
}

#[test]
fn something_else_is_never_swallowed() {
    for bytes in [
        &b"\x1b]7502;?\x1b\\"[..],
        b"\x1b]7501\x1b\\",
        b"\x1b]7501;\x01\x07",
    ] {
        let mut w = ProbeWatch::probing();
        let events = crossterm_events(bytes);
        let mut actions = feed_all(&mut w, events.clone(), 10);
        actions.extend(w.tick(10 + HOLD_MS));
        assert_eq!(forwarded(&actions), events, "{bytes:?}");
        assert!(!actions.contains(&Action::Outer(true)), "{bytes:?}");
    }
    // Too long to be an answer.
    let mut long = b"\x1b]7501;".to_vec();
    long.extend(std::iter::repeat_n(b'a', 100));
    long.extend(b"\x1b\\");
    let mut w = ProbeWatch::probing();
    let events = crossterm_events(&long);
    let mut actions = feed_all(&mut w, events.clone(), 10);
    actions.extend(w.tick(10 + HOLD_MS));
    assert_eq!(forwarded(&actions), events);
}

#[test]
fn off_forwards_everything_and_says_nothing() {
    let mut w = ProbeWatch::off();
    assert_eq!(w.next_deadline(), None);
    let events = crossterm_events(b"\x1b]7501;?\x1b\\");
    let actions = feed_all(&mut w, events.clone(), 0);
    assert_eq!(
        actions,
        events.into_iter().map(Action::Forward).collect::<Vec<_>>()
    );
}

#[test]
fn the_watch_ends_after_ten_seconds() {
    let mut w = ProbeWatch::probing();
    assert_eq!(w.tick(LISTEN_MS), vec![Action::Outer(false)]);
    assert_eq!(w.next_deadline(), None);
    assert_eq!(
        w.feed(alt(']'), LISTEN_MS + 1),
        vec![Action::Forward(alt(']'))]
    );
}
