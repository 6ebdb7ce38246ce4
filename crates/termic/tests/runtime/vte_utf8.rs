//! The vendored vte decodes text as the standard library does: every valid
//! character printed (C0 and C1 controls executed), every invalid sequence
//! (as `str::from_utf8` delimits it) one U+FFFD, or, for a lone byte from
//! 0x80 to 0x9F, that C1 control executed; whatever the cuts between
//! `advance` calls. vte takes shortcuts (ASCII runs undecoded, bytes that
//! can never start a character skipped without a validation call), so this
//! compares it with a reference built on `Utf8Chunks` on random garbage.

use proptest::prelude::*;

#[derive(Debug, PartialEq)]
enum Action {
    Print(char),
    Execute(u8),
}

#[derive(Default)]
struct Recorder(Vec<Action>);

impl vte::Perform for Recorder {
    fn print(&mut self, c: char) {
        self.0.push(Action::Print(c));
    }

    fn execute(&mut self, byte: u8) {
        self.0.push(Action::Execute(byte));
    }
}

fn reference(bytes: &[u8]) -> Vec<Action> {
    let mut out = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            out.push(match c {
                '\x00'..='\x1f' | '\u{80}'..='\u{9f}' => Action::Execute(c as u8),
                _ => Action::Print(c),
            });
        }
        match chunk.invalid() {
            [] => {}
            [byte @ 0x80..=0x9f] => out.push(Action::Execute(*byte)),
            _ => out.push(Action::Print('\u{FFFD}')),
        }
    }
    out
}

/// Bytes of every class: ASCII text and controls, DEL, stray continuation
/// bytes (C1 range and above), never-valid bytes, lead bytes of every
/// length with and without their continuations, overlongs, surrogates and
/// code points past U+10FFFF. No ESC: text only.
fn garbage() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"a"[..],
        b"xyz ",
        b"\r\n",
        b"\x07",
        b"\x7f",
        b"\x80",
        b"\x85",
        b"\x9b",
        b"\xa0",
        b"\xbf",
        b"\xc0",
        b"\xc1",
        b"\xc2",
        b"\xc2\x85",
        b"\xc3\xa9",
        b"\xc3\x28",
        b"\xe2",
        b"\xe2\x82",
        b"\xe2\x82\xac",
        b"\xe0\x80\x80",
        b"\xed\xa0\x80",
        b"\xef\xbf\xbd",
        b"\xf0",
        b"\xf0\x90",
        b"\xf0\x90\x28",
        b"\xf0\x9f\x98\x80",
        b"\xf4\x90\x80\x80",
        b"\xf5",
        b"\xfe",
        b"\xff",
        "日本".as_bytes(),
    ]);
    proptest::collection::vec(piece, 0..60).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn vte_decodes_as_the_standard_library(
        bytes in garbage(),
        cuts in proptest::collection::vec(0usize..200, 0..6),
    ) {
        // A trailing ASCII byte ends any character left incomplete, which
        // vte would otherwise hold for the next call.
        let mut bytes = bytes;
        bytes.push(b'.');
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
        cuts.sort_unstable();
        let mut parser = vte::Parser::new();
        let mut got = Recorder::default();
        let mut start = 0;
        for end in cuts.into_iter().chain([bytes.len()]) {
            parser.advance(&mut got, &bytes[start..end]);
            start = end;
        }
        prop_assert_eq!(got.0, reference(&bytes));
    }
}
