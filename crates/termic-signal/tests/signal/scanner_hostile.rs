//! Hostile output (a `cat` of a crafted file, a runaway program) cannot grow
//! the scanner's memory or make it lose the signals that follow.

use termic_signal::scanner::{Scanner, MAX_OSC_BYTES};
use termic_signal::signal::{NotifySource, Signal};

fn feed_all(scanner: &mut Scanner, chunks: &[&[u8]]) -> Vec<Signal> {
    let mut out = Vec::new();
    for chunk in chunks {
        scanner.feed(chunk, &mut out);
    }
    out
}

/// Resident set size of this process, from /proc (Linux only).
fn rss_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn a_100_mb_unterminated_osc_keeps_memory_bounded() {
    let mut scanner = Scanner::new();
    let mut out = Vec::new();
    scanner.feed(b"\x1b]0;", &mut out);
    let chunk = vec![b'A'; 1 << 20];
    let before = rss_bytes();
    for _ in 0..100 {
        scanner.feed(&chunk, &mut out);
    }
    let after = rss_bytes();
    assert_eq!(out, [], "nothing is reported for an unterminated OSC");
    assert_eq!(scanner.retained_heap_bytes(), 0);
    if let (Some(before), Some(after)) = (before, after) {
        // Other tests in this binary run in parallel threads, so allow some
        // noise; unbounded buffering would add ~100 MB here.
        assert!(
            after.saturating_sub(before) < 24 << 20,
            "RSS grew from {before} to {after} bytes"
        );
    }
    scanner.feed(b"\x07\x1b]0;after the flood\x07", &mut out);
    assert_eq!(out, [Signal::Title("after the flood".into())]);
}

#[test]
fn ten_thousand_params_are_bounded_and_do_not_panic() {
    let many = ";x".repeat(10_000);
    let mut scanner = Scanner::new();
    for number in ["0", "2", "9", "777;notify", "777;termic;v1", "99", "7501"] {
        let bytes = format!("\x1b]{number}{many}\x07");
        let out = feed_all(&mut scanner, &[bytes.as_bytes()]);
        assert_eq!(out, [], "OSC {number} over the size limit is dropped");
    }
    // Under the size limit, vte keeps at most 16 params: the title is cut at
    // the 16th `;` (documented in docs/gotchas.md), never longer than sent.
    let semis = ";a".repeat(100);
    let bytes = format!("\x1b]0;t{semis}\x07");
    let out = feed_all(&mut scanner, &[bytes.as_bytes()]);
    let [Signal::Title(title)] = out.as_slice() else {
        panic!("expected one title, got {out:?}");
    };
    assert!(title.starts_with("t;a;a") && title.len() < bytes.len());
}

#[test]
fn nested_and_interrupted_escapes_recover() {
    let mut scanner = Scanner::new();
    let out = feed_all(
        &mut scanner,
        &[
            b"\x1b\x1b]\x1b]0;first\x07",
            b"\x1b[\x1b]0;second\x1b\\",
            b"\x1bP1$r\x1b]0;third\x07",
            b"\x1b]0;cut by CAN\x18\x1b]0;fourth\x07",
        ],
    );
    // vte 0.15 dispatches an OSC cut short by CAN (or SUB) as if it had
    // ended there; the scanner follows vte rather than second-guess it.
    let titles =
        ["first", "second", "third", "cut by CAN", "fourth"].map(|t| Signal::Title(t.into()));
    assert_eq!(out, titles);
}

#[test]
fn an_osc_99_chunk_flood_stays_bounded_and_later_notifications_work() {
    let mut scanner = Scanner::new();
    let mut out = Vec::new();
    // 100k distinct unfinished notifications.
    for i in 0..100_000 {
        let bytes = format!("\x1b]99;i={i}:d=0;title {i}\x07");
        scanner.feed(bytes.as_bytes(), &mut out);
        assert!(scanner.retained_heap_bytes() <= Scanner::MAX_RETAINED_HEAP_BYTES);
    }
    // One notification fed 50 MB of chunks.
    let chunk = format!("\x1b]99;i=big:d=0:p=body;{}\x07", "b".repeat(4000));
    for _ in 0..12_500 {
        scanner.feed(chunk.as_bytes(), &mut out);
    }
    assert!(scanner.retained_heap_bytes() <= Scanner::MAX_RETAINED_HEAP_BYTES);
    assert_eq!(out, [], "no chunk finished a notification");
    scanner.feed(b"\x1b]99;;done\x07", &mut out);
    scanner.feed(b"\x1b]99;i=big:p=body;\x07", &mut out);
    let [first, Signal::Notify { body, .. }] = out.as_slice() else {
        panic!("expected two notifications, got {} signals", out.len());
    };
    assert_eq!(
        *first,
        Signal::Notify {
            source: NotifySource::Osc99,
            body: "done".into()
        }
    );
    assert!(body.len() <= 4096 && body.bytes().all(|b| b == b'b'));
}

#[test]
fn a_terminated_osc_at_exactly_the_limit_is_kept() {
    let body = format!("0;{}", "t".repeat(MAX_OSC_BYTES - 2));
    let mut scanner = Scanner::new();
    let bytes = format!("\x1b]{body}\x1b\\");
    let out = feed_all(&mut scanner, &[bytes.as_bytes()]);
    assert_eq!(out.len(), 1);
}

#[test]
fn invalid_utf8_in_titles_is_replaced_however_it_is_split() {
    // \xff is never UTF-8; \xe2\x9c is a cut-off 3-byte character.
    let bytes = b"\x1b]0;a\xff\xe2\x9c\x1b\\\x1b]2;\xf0\x9f\x98\x80 ok\x07";
    let want = [
        Signal::Title("a\u{fffd}\u{fffd}".into()),
        Signal::Title("\u{1f600} ok".into()),
    ];
    for cut in 0..=bytes.len() {
        let out = feed_all(&mut Scanner::new(), &[&bytes[..cut], &bytes[cut..]]);
        assert_eq!(out, want, "cut at {cut}");
    }
}
