//! The screen model's fast paths for printable runs (vendor/vt100,
//! `WrappedScreen::text_ascii` and `text_non_ascii`) against vt100's own
//! per-character path, on
//! random output: every cell (text, attributes, wide and continuation
//! flags), the cursor, the row wrap flags, the scrollback termic keeps
//! (`History`) and the modes must be the same.

use std::num::NonZeroU16;

use proptest::prelude::*;
use termic_runtime::history::History;

/// Pieces of output a program prints; small screens make wraps, scrolls and
/// the last column common.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // printable ASCII runs, long enough to cross a row
        4 => proptest::collection::vec(0x20u8..0x7f, 1..40),
        // wide, combining, emoji presentation, zero-width, other non-ASCII
        2 => prop::sample::select(vec![
            "日", "本", "語", "\u{301}", "e\u{301}", "\u{FE0F}", "\u{2764}\u{FE0F}",
            "😀", "\u{200B}", "é", "█", "\u{17D8}", "\u{1F1FA}\u{1F1F8}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        // runs of non-ASCII text in one read (the non-ASCII run path):
        // narrow, wide (at the wrap edge on these small screens), combining,
        // zero-width, emoji presentation, U+FFFD itself, no-break space,
        // soft hyphen, U+17D8 (width 3), a C1 control, ASCII, invalid and
        // cut-off UTF-8
        3 => proptest::collection::vec(
            prop::sample::select(vec![
                "█".as_bytes(), "é".as_bytes(), "✓".as_bytes(), "日".as_bytes(),
                "テ".as_bytes(), "😀".as_bytes(), "\u{301}".as_bytes(),
                "\u{FE0F}".as_bytes(), "\u{200B}".as_bytes(), "\u{FFFD}".as_bytes(),
                "\u{A0}".as_bytes(), "\u{AD}".as_bytes(), "\u{17D8}".as_bytes(),
                "\u{85}".as_bytes(), &b"a"[..], &b"\xff"[..], &b"\xe6\x97"[..],
            ]),
            1..30,
        )
        .prop_map(|v| v.concat()),
        // C0 controls the screen acts on, and DEL
        2 => prop::sample::select(vec![
            "\r", "\n", "\r\n", "\x08", "\t", "\x0b", "\x0c", "\x7f", "\x07", "\x00",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        // SGR: reset, modes, 16/256/true colour
        2 => (0u16..110, 0u8..=255, 0u8..=255).prop_map(|(a, b, c)| match a % 5 {
            0 => b"\x1b[m".to_vec(),
            1 => format!("\x1b[{a}m").into_bytes(),
            2 => format!("\x1b[38;5;{b}m").into_bytes(),
            3 => format!("\x1b[48;2;{b};{c};{a}m").into_bytes(),
            _ => format!("\x1b[1;4;7;{}m", 30 + a % 8).into_bytes(),
        }),
        // cursor moves, erases, inserts, deletes, REP, scroll regions,
        // save/restore, origin mode, reverse index, autowrap off and on,
        // insert mode, DECALN, tab stops, IND, NEL, VPA, DECCOLM (issue 34)
        2 => (0u8..34, 0u16..12, 0u16..12).prop_map(|(k, n, m)| {
            let s = match k {
                0 => format!("\x1b[{n};{m}H"),
                1 => format!("\x1b[{n}C"),
                2 => format!("\x1b[{n}D"),
                3 => format!("\x1b[{}K", n % 3),
                4 => format!("\x1b[{}J", n % 3),
                5 => format!("\x1b[{n}@"),
                6 => format!("\x1b[{n}P"),
                7 => format!("\x1b[{n}b"),
                8 => format!("\x1b[{n};{m}r"),
                9 => "\x1b7".into(),
                10 => "\x1b8".into(),
                11 => "\x1bM".into(),
                12 => format!("\x1b[{n}X"),
                13 => format!("\x1b[{n}L"),
                14 => format!("\x1b[{n}M"),
                15 => format!("\x1b[{n}G"),
                16 => format!("\x1b[{n}S"),
                17 => "\x1b[?1049h".into(),
                18 => "\x1b[?1049l".into(),
                19 => "\x1b[?6h".into(),
                20 => "\x1b[?6l".into(),
                21 => "\x1b[?7l".into(),
                22 => "\x1b[?7h".into(),
                23 => "\x1b[4h".into(),
                24 => "\x1b[4l".into(),
                25 => "\x1b#8".into(),
                26 => "\x1bH".into(),
                27 => format!("\x1b[{}g", n % 4),
                28 => "\x1bD".into(),
                29 => "\x1bE".into(),
                30 => format!("\x1b[{n}d"),
                31 => format!("\x1b[?3{}", if n % 2 == 0 { 'h' } else { 'l' }),
                32 => format!("\x1b[{n}I\x1b[{m}Z"),
                _ => format!("\x1b[{n}A"),
            };
            s.into_bytes()
        }),
        // invalid UTF-8, C1 bytes, a cut-off sequence
        1 => prop::sample::select(vec![
            &b"\xff"[..], b"\xc3", b"\xe6\x97", b"\x9b", b"\x85", b"\x1b", b"\x1b[",
        ])
        .prop_map(|s| s.to_vec()),
    ]
}

/// A second reader of the parse that takes nothing: `process_also` with it
/// is `process` without the settle at the end, as termic's screen thread
/// runs it, so rows only appended to stay deferred across reads.
struct Nobody;
impl vte::Perform for Nobody {}

/// The fast side's read: unsettled, settled only when `settle` says (as
/// the UI reads the screen now and then during a flood).
fn feed_fast(fast: &mut vt100::Parser<History>, chunk: &[u8], settle: bool) {
    fast.process_also(chunk, &mut Nobody);
    if settle {
        fast.settle();
    }
}

fn parser(rows: u16, cols: u16, fast: bool) -> vt100::Parser<History> {
    let mut p = vt100::Parser::new_with_callbacks(
        NonZeroU16::new(rows).unwrap(),
        NonZeroU16::new(cols).unwrap(),
        0,
        History::new(1000),
    );
    p.set_ascii_fast_path(fast);
    p
}

/// Everything a reader of the screen can see, cell by cell.
fn assert_same(fast: &vt100::Parser<History>, slow: &vt100::Parser<History>) {
    let (f, s) = (fast.screen(), slow.screen());
    let (rows, cols) = s.size();
    for row in 0..rows.get() {
        for col in 0..cols.get() {
            let (fc, sc) = (f.cell(row, col).unwrap(), s.cell(row, col).unwrap());
            // Cell's PartialEq covers the text, attributes and both wide flags.
            assert_eq!(fc, sc, "cell {row},{col}");
            assert_eq!(fc.is_wide(), sc.is_wide(), "wide {row},{col}");
            assert_eq!(
                fc.is_wide_continuation(),
                sc.is_wide_continuation(),
                "continuation {row},{col}"
            );
        }
        assert_eq!(
            f.row_wrapped(row),
            s.row_wrapped(row),
            "row {row} wrap flag"
        );
    }
    assert_eq!(f.cursor_position(), s.cursor_position(), "cursor");
    assert_eq!(
        f.contents_formatted(),
        s.contents_formatted(),
        "formatted screen"
    );
    assert_eq!(
        f.attributes_formatted(),
        s.attributes_formatted(),
        "current SGR"
    );
    assert_eq!(f.alternate_screen(), s.alternate_screen());
    let (fh, sh) = (fast.callbacks(), slow.callbacks());
    assert_eq!(fh.pushed(), sh.pushed(), "rows scrolled off");
    assert_eq!(fh.len(), sh.len(), "scrollback length");
    for i in 0..sh.len() {
        assert_eq!(fh.line(i), sh.line(i), "scrollback line {i}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn ascii_fast_path_matches_the_per_character_path(
        rows in 1u16..6,
        // from 1: a pane can be one column wide (an emoji widened by
        // U+FE0F twice there sent vt100's cursor past the row, and the
        // next combining character panicked)
        cols in 1u16..14,
        pieces in proptest::collection::vec(piece(), 1..80),
        // where the output is cut into reads (also mid-sequence, mid-char)
        cut in 1usize..23,
        // how many reads go by before the screen is read (settled)
        settle_every in 1usize..40,
    ) {
        let bytes: Vec<u8> = pieces.concat();
        let mut fast = parser(rows, cols, true);
        let mut slow = parser(rows, cols, false);
        for (i, chunk) in bytes.chunks(cut).enumerate() {
            feed_fast(&mut fast, chunk, i % settle_every == 0);
            slow.process(chunk);
        }
        fast.settle();
        assert_same(&fast, &slow);
        // REP after the run repeats the same last character on both.
        fast.process(b"\x1b[3b");
        slow.process(b"\x1b[3b");
        assert_same(&fast, &slow);
    }
}

/// One step of a session: output, a resize (the pane dragged, the
/// terminal shrunk to one column), or a read of the screen.
#[derive(Debug, Clone)]
enum Step {
    Output(Vec<u8>),
    Resize(u16, u16),
    Read,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => piece().prop_map(Step::Output),
        1 => (1u16..6, 1u16..14).prop_map(|(r, c)| Step::Resize(r, c)),
        1 => Just(Step::Read),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Resizes between reads (rows deferred by the fast side are cut,
    /// grown, or pushed into history) give both paths the same screen.
    #[test]
    fn resizes_keep_the_fast_path_equal(steps in proptest::collection::vec(step(), 1..80)) {
        let mut fast = parser(3, 8, true);
        let mut slow = parser(3, 8, false);
        for s in &steps {
            match s {
                Step::Output(bytes) => {
                    feed_fast(&mut fast, bytes, false);
                    slow.process(bytes);
                }
                Step::Resize(rows, cols) => {
                    let (r, c) = (NonZeroU16::new(*rows).unwrap(), NonZeroU16::new(*cols).unwrap());
                    fast.set_size(r, c);
                    slow.set_size(r, c);
                }
                Step::Read => fast.settle(),
            }
        }
        fast.settle();
        assert_same(&fast, &slow);
    }
}

/// The bench payload's kind of output at termic's default size: long
/// coloured runs, wide text, wrapped lines and scrolling into history.
#[test]
fn fast_path_matches_on_realistic_output() {
    let mut out = Vec::new();
    for n in 0..3000u32 {
        out.extend_from_slice(
            format!(
                "\x1b[3{}mline {n}\x1b[0m résumé 日本語 {}\x1b[38;5;{}m{}\r\n",
                n % 8,
                "x".repeat((n as usize * 7) % 200),
                n % 256,
                "█".repeat(n as usize % 5)
            )
            .as_bytes(),
        );
    }
    let mut fast = parser(45, 160, true);
    let mut slow = parser(45, 160, false);
    for (i, chunk) in out.chunks(4096).enumerate() {
        feed_fast(&mut fast, chunk, i % 7 == 0);
        slow.process(chunk);
    }
    fast.settle();
    assert!(
        slow.callbacks().pushed() > 1000,
        "the output scrolled into history"
    );
    assert_same(&fast, &slow);
}

/// Found by the property test: vt100 panicked (both paths) writing over an
/// emoji that U+FE0F widened in the last column, once the cursor went back
/// to that row. It must not: any program can print this.
#[test]
fn a_widened_emoji_in_the_last_column_can_be_overwritten() {
    for cols in [1u16, 5, 160] {
        // the emoji in the last column (it moves to the next row when
        // widened), then home (DECSTBM) and write over both rows
        let before = " ".repeat(usize::from(cols) - 1);
        let over = " ".repeat(2 * usize::from(cols));
        let bytes = format!("{before}\u{2764}\u{FE0F}\x1b[0;0r{over}");
        let mut fast = parser(2, cols, true);
        let mut slow = parser(2, cols, false);
        for chunk in bytes.as_bytes().chunks(1) {
            fast.process(chunk);
            slow.process(chunk);
        }
        assert_same(&fast, &slow);
    }
}

/// On a screen one column wide (a pane can be that narrow), an emoji that
/// U+FE0F widens moves to the next row and fills it; a second U+FE0F then
/// panicked vt100 (both paths), since the cursor had gone past the row.
/// Any program can print this.
#[test]
fn an_emoji_widened_twice_on_a_one_column_screen_keeps_the_cursor_on_the_row() {
    for rows in [1u16, 3] {
        let mut fast = parser(rows, 1, true);
        let mut slow = parser(rows, 1, false);
        for _ in 0..3 {
            let bytes = "\u{2764}\u{FE0F}\u{FE0F}x\u{2764}\u{FE0F}\u{FE0F}".as_bytes();
            fast.process(bytes);
            slow.process(bytes);
        }
        assert_same(&fast, &slow);
        assert!(
            fast.screen().cursor_position().1 <= 1,
            "the cursor left the row"
        );
        // the task's screen still takes output after it
        fast.process(b"\r\nok");
        assert!(fast.screen().contents().ends_with('k'));
    }
}

/// A screen nothing was written to, or only resized, reads as it is: its
/// rows are blank, not waiting for text (the e2e harness reads a fresh
/// parser's screen before any output; debug builds assert a read screen
/// is settled).
#[test]
fn a_fresh_or_resized_screen_reads_without_a_settle() {
    let mut p = vt100::Parser::new(NonZeroU16::new(3).unwrap(), NonZeroU16::new(10).unwrap(), 0);
    assert_eq!(p.screen().contents(), "");
    p.set_size(NonZeroU16::new(5).unwrap(), NonZeroU16::new(12).unwrap());
    assert_eq!(p.screen().contents(), "");
    let mut fast = parser(3, 10, true);
    feed_fast(&mut fast, b"abc\r\n", false);
    fast.set_size(NonZeroU16::new(6).unwrap(), NonZeroU16::new(10).unwrap());
    fast.settle();
    assert_eq!(fast.screen().contents(), "abc");
}
