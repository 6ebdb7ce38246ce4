//! A sequence split across `feed` calls at any byte gives the signals one call
//! gives, and no input makes the scanner panic.
//!
//! Activity is per call by design (at most one per `feed`), so comparisons
//! drop it from the signal list and check it separately: some Activity
//! appears if and only if the unsplit feed reported one.

use proptest::prelude::*;
use termic_signal::scanner::Scanner;
use termic_signal::signal::Signal;
use termic_signal::wire::{HookEvent, HookMessage};

fn feed_in_pieces(bytes: &[u8], cuts: &[usize]) -> Vec<Signal> {
    let mut scanner = Scanner::new();
    let mut out = Vec::new();
    let mut start = 0;
    for &cut in cuts {
        let cut = cut.clamp(start, bytes.len());
        scanner.feed(&bytes[start..cut], &mut out);
        start = cut;
    }
    scanner.feed(&bytes[start..], &mut out);
    out
}

/// (signals without Activity, whether any Activity was seen)
fn split_activity(signals: Vec<Signal>) -> (Vec<Signal>, bool) {
    let active = signals.contains(&Signal::Activity);
    let rest = signals
        .into_iter()
        .filter(|s| *s != Signal::Activity)
        .collect();
    (rest, active)
}

/// Output touching every path of the scanner, as agents write it.
fn every_kind_of_sequence() -> Vec<u8> {
    let hook = HookMessage::new(HookEvent::Attention, "3f9c0a1e-77b2")
        .with("hook", "PermissionRequest")
        .with("kind", "permission");
    let mut bytes = Vec::new();
    bytes.extend_from_slice("\x1b]0;◐ Claude Code\x07".as_bytes());
    bytes.extend_from_slice("\x1b[38;2;255;100;0mé█ working…\x1b[0m\r\n".as_bytes());
    bytes.extend_from_slice(b"\x1b]2;a;b;c\x1b\\");
    bytes.extend_from_slice(b"\x1b]9;Claude needs your permission\x07\x1b]9;4;1;50\x07");
    bytes.extend_from_slice(b"\x1b]777;notify;Claude Code;body; with semicolon\x07");
    bytes.extend_from_slice(hook.to_sequence().as_bytes());
    bytes.extend_from_slice(b"\x1b]777;termic;v1;nope;x\x07");
    bytes.extend_from_slice(b"\x1b]99;i=opentui-notifications:p=?;\x1b\\");
    bytes.extend_from_slice(b"\x1b]99;i=a:d=0:e=1;VGl0bGU=\x07\x1b]99;i=a:p=body;Body\x07");
    bytes.extend_from_slice(b"\x1b]7501;?\x1b\\\x07");
    bytes.extend_from_slice(b"\x1b]7501;state=blocked:app=codex:kind=permission:msg=aGk=\x07");
    bytes.extend_from_slice("\x1b]0;⠋ - Waiting for response… - grok\x1b\\".as_bytes());
    bytes.extend_from_slice(b"\x1b[?1049h\x1bP+q544e\x1b\\plain\n");
    bytes
}

#[test]
fn every_single_cut_point_gives_the_unsplit_signals() {
    let bytes = every_kind_of_sequence();
    let whole = split_activity(feed_in_pieces(&bytes, &[]));
    assert_eq!(
        whole.0.len(),
        12,
        "fixture covers 12 signals: {:?}",
        whole.0
    );
    for cut in 0..=bytes.len() {
        assert_eq!(
            split_activity(feed_in_pieces(&bytes, &[cut])),
            whole,
            "cut at byte {cut}"
        );
    }
}

#[test]
fn byte_at_a_time_gives_the_unsplit_signals() {
    let bytes = every_kind_of_sequence();
    let cuts: Vec<usize> = (1..bytes.len()).collect();
    assert_eq!(
        split_activity(feed_in_pieces(&bytes, &cuts)),
        split_activity(feed_in_pieces(&bytes, &[]))
    );
}

/// Bytes biased towards escape-sequence structure, so random inputs reach the
/// OSC paths rather than being mostly plain text.
fn terminal_soup() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"\x1b]".to_vec()),
        Just(b"\x1b\\".to_vec()),
        Just(b"\x07".to_vec()),
        Just(b"\x1b[".to_vec()),
        Just(b"\x1bP".to_vec()),
        Just(b";".to_vec()),
        Just(b":".to_vec()),
        Just(b"0;".to_vec()),
        Just(b"9;4;".to_vec()),
        Just(b"777;notify;".to_vec()),
        Just(b"777;termic;v1;done;abc".to_vec()),
        Just(b"99;i=1:d=0;".to_vec()),
        Just(b"99;i=1:e=1:p=body;".to_vec()),
        Just(b"7501;state=working:app=x:msg=aGk".to_vec()),
        Just(b"7501;?".to_vec()),
        Just("◐✳⠋…".as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..8),
    ];
    proptest::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let mut out = Vec::new();
        Scanner::new().feed(&bytes, &mut out);
        prop_assert!(out.iter().filter(|s| **s == Signal::Activity).count() <= 1);
    }

    #[test]
    fn any_split_gives_the_unsplit_signals(
        bytes in terminal_soup(),
        cuts in proptest::collection::vec(0usize..2048, 0..12),
    ) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        prop_assert_eq!(
            split_activity(feed_in_pieces(&bytes, &cuts)),
            split_activity(feed_in_pieces(&bytes, &[]))
        );
    }
}
