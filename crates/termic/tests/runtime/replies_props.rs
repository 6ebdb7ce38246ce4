//! Property test on the reply builder: whatever bytes a program prints,
//! every reply termic would write into its input matches a documented
//! grammar (tests/reply_grammar) and so carries no byte of the output.

use crate::reply_grammar;

use std::num::NonZeroU16;

use proptest::prelude::*;
use termic_runtime::replies::{apply_with_replies, ReplyScanner, Responder};

/// A second performer that takes nothing (the runtime's is the signal tap).
struct NoSignals;
impl vte::Perform for NoSignals {}

/// Pieces of real and hostile queries, so random input reaches every
/// branch of the scanner rather than staying plain text.
const FRAGMENTS: &[&[u8]] = &[
    b"\x1b",
    b"[",
    b"]",
    b"P",
    b"+q",
    b"?",
    b">",
    b"$p",
    b"c",
    b"n",
    b"q",
    b"u",
    b"6n",
    b"5n",
    b";",
    b"0",
    b"1",
    b"10",
    b"11",
    b"4;",
    b"7501;",
    b"99;",
    b"p=?",
    b"544e",
    b"4d73",
    b"\\",
    b"\x07",
    b"\r",
    b"\n",
    b"\x9c",
    b"\x9b",
    b"\x90",
    b"\x18",
    b"echo PWNED > marker\r",
    b"6563686f",
    b"\x1bP+q",
    b"\x1b]11;?",
    b"\x1b[?2004$p",
    b"\x1b\\",
    b"h",
    b"l",
    b"1004",
];

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::sample::select(FRAGMENTS).prop_map(<[u8]>::to_vec),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ]
}

fn stream() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    (
        prop::collection::vec(piece(), 0..60).prop_map(|p| p.concat()),
        prop::collection::vec(0usize..400, 0..6),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_reply_matches_its_grammar((bytes, cuts) in stream()) {
        let mut parser = vt100::Parser::new(
            NonZeroU16::new(24).unwrap(),
            NonZeroU16::new(80).unwrap(),
            0,
        );
        let mut scanner = ReplyScanner::new();
        let mut responder = Responder::default();
        let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= bytes.len()).collect();
        cuts.sort_unstable();
        cuts.push(bytes.len());
        let mut start = 0;
        for end in cuts {
            let chunk = &bytes[start..end];
            start = end;
            let found = scanner.scan(chunk);
            for reply in apply_with_replies(&mut responder, &mut parser, chunk, found, &mut NoSignals).replies {
                if let Err(e) = reply_grammar::check(&reply) {
                    return Err(TestCaseError::fail(format!("{e} for input {bytes:?}")));
                }
                // One reply is exactly one sequence.
                prop_assert_eq!(reply_grammar::check_all(&reply).map(|r| r.len()), Ok(1));
            }
        }
    }
}

#[test]
fn the_grammar_rejects_an_echoed_payload() {
    // The checker must be able to fail: the pre-fix XTGETTCAP reply.
    assert!(reply_grammar::check(b"\x1bP0+recho PWNED > marker\r\x1b\\").is_err());
    assert!(reply_grammar::check(b"\x1bP0+r4d73\x1b\\").is_err());
    assert!(reply_grammar::check(b"\x1b[?62;22c").is_ok());
    assert!(reply_grammar::check_all(b"\x1b[0nx").is_err());
}
