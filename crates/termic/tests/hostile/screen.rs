//! The screen model (vendored vt100 with termic's compact history) on the
//! hostile corpus: each file costs about what ordinary text of its size
//! costs, and leaves the model small.

use crate::hostile;

use std::num::NonZeroU16;
use std::time::{Duration, Instant};

use termic_runtime::history::History;

fn parser() -> vt100::Parser<History> {
    vt100::Parser::new_with_callbacks(
        NonZeroU16::new(45).unwrap(),
        NonZeroU16::new(160).unwrap(),
        0,
        History::new(10_000),
    )
}

/// Seconds to feed `bytes` in reader-sized batches, and the parser after.
fn feed(bytes: &[u8]) -> (f64, vt100::Parser<History>) {
    let mut p = parser();
    let t = Instant::now();
    for chunk in bytes.chunks(64 * 1024) {
        p.process(chunk);
    }
    (t.elapsed().as_secs_f64(), p)
}

const SIZE: usize = 256 << 10;

/// The fastest of a few feeds of `bytes`, in seconds. Each takes a few
/// milliseconds, so one preemption on a shared machine (CI runs the tests
/// side by side on two cores) can triple a single feed: the best of five
/// is what the bytes cost.
fn best_cost(bytes: &[u8]) -> f64 {
    (0..5)
        .map(|_| feed(bytes).0)
        .fold(f64::INFINITY, f64::min)
        .max(Duration::from_millis(1).as_secs_f64())
}

#[test]
fn every_hostile_file_costs_about_what_text_costs() {
    let _timing = crate::hostile::alone();
    let text = best_cost(&hostile::plain_text(SIZE));
    for h in hostile::corpus(SIZE) {
        let cost = best_cost(&h.bytes);
        let ratio = cost / text;
        println!("{:<34} {:.3} s, {ratio:.2}x text", h.name, cost);
        // REP writes one row (160 cells) per 8 bytes, so it may cost more
        // than text per byte, but not 65535 cells' worth (was ~3000x).
        let bound = if h.name.starts_with("REP") { 40.0 } else { 3.0 };
        assert!(ratio < bound, "{}: {ratio:.1}x the cost of text", h.name);
        assert!(cost < 5.0, "{}: {cost:.1} s for 256 KiB", h.name);
    }
}

#[test]
fn an_unterminated_string_is_dropped_and_text_after_it_shows() {
    let _timing = crate::hostile::not_beside_the_timed();
    for open in [&b"\x1b]0;"[..], b"\x1bP1$q", b"\x1b_G", b"\x1b^"] {
        let mut bytes = open.to_vec();
        bytes.resize(open.len() + (4 << 20), b'a');
        bytes.extend_from_slice(b"\x1b\\after");
        let (_, p) = feed(&bytes);
        assert_eq!(p.screen().contents(), "after", "{:?}", open);
    }
}

#[test]
fn a_short_title_still_reaches_the_screen_model_after_a_long_one() {
    let _timing = crate::hostile::not_beside_the_timed();
    #[derive(Default)]
    struct Titles(Vec<Vec<u8>>);
    impl vt100::Callbacks for Titles {
        fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
            self.0.push(title.to_vec());
        }
    }
    let mut p = vt100::Parser::new_with_callbacks(
        NonZeroU16::new(5).unwrap(),
        NonZeroU16::new(20).unwrap(),
        0,
        Titles::default(),
    );
    let mut long = b"\x1b]2;".to_vec();
    long.resize(4 + 9000, b'a');
    long.push(7);
    p.process(&long);
    let mut edge = b"\x1b]2;".to_vec();
    edge.resize(4 + 8000, b'b');
    edge.push(7);
    p.process(&edge);
    p.process(b"\x1b]2;short\x07");
    let titles = &p.callbacks().0;
    // Over 8 KiB: dropped whole. Under: kept whole.
    assert_eq!(titles.len(), 2);
    assert_eq!(titles[0].len(), 8000);
    assert_eq!(titles[1], b"short");
}

#[test]
fn rep_repeats_at_most_one_row() {
    let _timing = crate::hostile::not_beside_the_timed();
    let mut p = parser();
    p.process(b"ab\x1b[3b|");
    assert_eq!(p.screen().contents(), "abbbb|");
    let mut p = parser();
    p.process(b"\x1b[Hx\x1b[65535b|");
    // 1 + 160 x's: one full row, the next row starts with the last x.
    let rows: Vec<String> = p.screen().rows(0, 160).take(2).collect();
    assert_eq!(rows[0], "x".repeat(160));
    assert_eq!(rows[1], "x|");
}

#[test]
fn invalid_utf8_between_text_is_skipped_in_one_pass() {
    let _timing = crate::hostile::not_beside_the_timed();
    let mut p = parser();
    p.process(b"a\xffb\xc3\x28c\xe2\x82d");
    // Invalid bytes draw nothing in vt100; the text around them stays.
    assert_eq!(p.screen().contents(), "ab(cd");
    let mut bytes = b"start ".to_vec();
    bytes.extend(std::iter::repeat_n(0xffu8, 4 << 20));
    bytes.extend_from_slice(b" end");
    let (secs, p) = feed(&bytes);
    assert_eq!(p.screen().contents(), "start  end");
    assert!(secs < 5.0, "{secs:.1} s for 4 MiB of 0xff");
}
