//! termic: the sequences vttest's menus 1, 2 and 8 need (issue 34), each
//! fed as bytes and checked by the cells and the cursor. xterm is the
//! reference; tmux agrees except where a test says so.

use alloc::string::String;

fn parser(rows: u16, cols: u16) -> crate::Parser {
    crate::Parser::new(
        core::num::NonZeroU16::new(rows).unwrap(),
        core::num::NonZeroU16::new(cols).unwrap(),
        0,
    )
}

fn row(p: &crate::Parser, row: u16) -> String {
    let (_, cols) = p.screen().size();
    p.screen().rows(0, cols.get()).nth(usize::from(row)).unwrap()
}

fn cursor(p: &crate::Parser) -> (u16, u16) {
    p.screen().cursor_position()
}

#[test]
fn decaln_fills_the_screen_with_e_homes_and_resets_the_margins() {
    let mut p = parser(4, 5);
    p.process(b"abc\x1b[31m\x1b[2;3r\x1b[3;4H\x1b#8");
    for r in 0..4 {
        assert_eq!(row(&p, r), "EEEEE", "row {r}");
        for c in 0..5 {
            let cell = p.screen().cell(r, c).unwrap();
            assert_eq!(cell.fgcolor(), crate::Color::Default);
        }
    }
    assert_eq!(cursor(&p), (0, 0));
    // the margins are the whole screen again: a line feed on the last row
    // scrolls it (with rows 2 to 3 as margins it would not, from outside)
    p.process(b"\x1b[0m\x1b[4;1H\nX");
    assert_eq!(row(&p, 3), "X");
    assert_eq!(row(&p, 2), "EEEEE");
    assert_eq!(cursor(&p), (3, 1));
}

#[test]
fn ind_and_nel_move_down_a_row_and_scroll_at_the_bottom_margin() {
    let mut p = parser(3, 5);
    // IND keeps the column, NEL goes to the first
    p.process(b"ab\x1bDc\x1bEd");
    assert_eq!(row(&p, 0), "ab");
    assert_eq!(row(&p, 1), "  c");
    assert_eq!(row(&p, 2), "d");
    // at the bottom margin both scroll
    p.process(b"\x1bDe\x1bEf");
    assert_eq!(row(&p, 0), "d");
    assert_eq!(row(&p, 1), " e");
    assert_eq!(row(&p, 2), "f");
    assert_eq!(cursor(&p), (2, 1));
}

#[test]
fn hts_and_tbc_set_and_clear_tab_stops() {
    let mut p = parser(3, 20);
    // the default stops: every 8 columns, the last column after them
    p.process(b"\tA\tB\tC");
    assert_eq!(row(&p, 0), "        A       B  C");
    // TBC 3 clears every stop, HTS sets one at the cursor
    p.process(b"\x1b[2;1H\x1b[3g\x1b[2;4H\x1bH\x1b[2;8H\x1bH\r\tA\tB\tC");
    assert_eq!(row(&p, 1), "   A   B           C");
    // TBC 0 (and no parameter) clears the stop at the cursor only
    p.process(b"\x1b[3;4H\x1b[g\r\tX\tY");
    assert_eq!(row(&p, 2), "       X           Y");
    // TBC 1 and 2 change nothing
    p.process(b"\x1b[3;8H\x1b[1g\x1b[2g\r\tZ");
    assert_eq!(row(&p, 2), "       Z           Y");
    assert_eq!(cursor(&p), (2, 8));
}

#[test]
fn cht_and_cbt_move_by_tab_stops() {
    let mut p = parser(2, 30);
    // CHT 2 from column 0: the stops at 8 and 16
    p.process(b"\x1b[2IA");
    assert_eq!(cursor(&p), (0, 17));
    // CBT 2 from 17: 16, then 8; CBT 2 from 9: 8, then 0 (no stop before)
    p.process(b"\x1b[2ZB\x1b[2ZC");
    assert_eq!(row(&p, 0), "C       B       A");
    assert_eq!(cursor(&p), (0, 1));
    // with the stop at 8 cleared, CBT from 9 goes to 0
    p.process(b"\x1b[1;9H\x1b[g\x1b[1;10H\x1b[ZD");
    assert_eq!(row(&p, 0), "D       B       A");
}

#[test]
fn tab_stops_are_kept_on_resize_and_new_columns_get_the_defaults() {
    let mut p = parser(2, 10);
    p.process(b"\x1b[3g\x1b[1;4H\x1bH");
    p.set_size(
        core::num::NonZeroU16::new(2).unwrap(),
        core::num::NonZeroU16::new(30).unwrap(),
    );
    // the stop at 3 is kept, 8 stays cleared, 16 and 24 are new defaults
    p.process(b"\r\tA\tB\tC\tD");
    assert_eq!(row(&p, 0), "   A            B       C    D");
}

#[test]
fn origin_mode_counts_cup_and_vpa_from_the_region_and_keeps_them_in_it() {
    let mut p = parser(10, 10);
    // DECSTBM homes to the first row without origin mode (xterm, tmux)
    p.process(b"\x1b[5;5H\x1b[3;5r");
    assert_eq!(cursor(&p), (0, 0));
    // DECOM set homes to the region's top
    p.process(b"\x1b[?6h");
    assert_eq!(cursor(&p), (2, 0));
    p.process(b"\x1b[2;3H");
    assert_eq!(cursor(&p), (3, 2));
    p.process(b"\x1b[9;1H");
    assert_eq!(cursor(&p), (4, 0));
    // VPA too (upstream set the row from the top of the screen)
    p.process(b"\x1b[1;5H\x1b[2d");
    assert_eq!(cursor(&p), (3, 4));
    p.process(b"\x1b[9d");
    assert_eq!(cursor(&p), (4, 4));
    // DECSTBM in origin mode homes to the new region's top (xterm; tmux
    // 3.3a homes to the first row)
    p.process(b"\x1b[6;8r");
    assert_eq!(cursor(&p), (5, 0));
    // DECOM reset homes to the first row, and CUP and VPA are absolute
    p.process(b"\x1b[?6l");
    assert_eq!(cursor(&p), (0, 0));
    p.process(b"\x1b[9;2H");
    assert_eq!(cursor(&p), (8, 1));
    p.process(b"\x1b[10d");
    assert_eq!(cursor(&p), (9, 1));
}

#[test]
fn insert_mode_pushes_the_row_right_and_loses_what_passes_the_edge() {
    let mut p = parser(2, 6);
    p.process(b"ABCDEF\r\x1b[4hXY");
    assert_eq!(row(&p, 0), "XYABCD");
    assert_eq!(cursor(&p), (0, 2));
    // vttest 8.3: inserting up to the right margin keeps the text pushed
    // there and writes the inserted character in the last column
    p.process(b"\x1b[1;5HQR");
    assert_eq!(row(&p, 0), "XYABQR");
    // the next one wraps (as without insert mode) and inserts there
    p.process(b"\x1b[4l\x1b[2;1HST\x1b[2;1H\x1b[4hU");
    assert_eq!(row(&p, 1), "UST");
    // off again: plain text overwrites
    p.process(b"\x1b[4lV");
    assert_eq!(row(&p, 1), "UVT");
    assert_eq!(cursor(&p), (1, 2));
}

// xterm wraps, then inserts (`dotext`, then `WriteText`'s `InsertChar`);
// tmux 3.3a overwrites the next row's first cell after the wrap
#[test]
fn insert_mode_at_the_pending_wrap_wraps_then_inserts() {
    let mut p = parser(2, 4);
    p.process(b"\x1b[2;1Hwxyz\x1b[1;1Habcd\x1b[4he");
    assert_eq!(row(&p, 0), "abcd");
    assert_eq!(row(&p, 1), "ewxy");
    assert_eq!(cursor(&p), (1, 1));
}

#[test]
fn autowrap_off_overwrites_the_last_column_and_keeps_the_cursor_there() {
    let mut p = parser(3, 5);
    p.process(b"\x1b[?7labcdefgh");
    assert_eq!(row(&p, 0), "abcdh");
    assert_eq!(row(&p, 1), "");
    assert_eq!(cursor(&p), (0, 4));
    // no wrap is pending: a backspace goes to the column before the last
    p.process(b"\x08Z");
    assert_eq!(row(&p, 0), "abcZh");
    // on again: the next character past the last column wraps
    p.process(b"\x1b[?7hij");
    assert_eq!(row(&p, 0), "abcZi");
    assert_eq!(row(&p, 1), "j");
    // a wide character that does not fit takes the last two columns
    p.process(b"\x1b[?7l\x1b[3;1Hxyz\xe4\xb8\xad\xe4\xb8\xad");
    assert_eq!(row(&p, 2), "xyz\u{4e2d}");
    assert_eq!(cursor(&p), (2, 4));
}

#[test]
fn deccolm_clears_the_screen_resets_the_margins_and_homes() {
    for seq in [&b"\x1b[?3l"[..], &b"\x1b[?3h"[..]] {
        let mut p = parser(4, 5);
        p.process(b"abc\r\ndef\x1b[2;3r\x1b[3;3H");
        p.process(seq);
        for r in 0..4 {
            assert_eq!(row(&p, r), "", "row {r}");
        }
        assert_eq!(cursor(&p), (0, 0));
        // the size is the pane's: unchanged
        assert_eq!(p.screen().size().1.get(), 5);
        // margins reset: a line feed on the last row scrolls the screen
        p.process(b"X\x1b[4;1H\nY");
        assert_eq!(row(&p, 0), "");
        assert_eq!(row(&p, 3), "Y");
    }
}

#[test]
fn rep_repeats_only_the_graphic_character_right_before_it() {
    // vttest 11.7.2: a second REP, or any control in between, repeats
    // nothing
    let mut p = parser(3, 20);
    p.process(b"+\x1b[0b\x1b[10b\r\n \x1b[1b+\x1b[b\x1b[10b\r\na\x1b[mb\x1b[2b");
    assert_eq!(row(&p, 0), "++");
    assert_eq!(row(&p, 1), "  ++");
    assert_eq!(row(&p, 2), "abbb");
    // a C0 control in between: nothing to repeat
    let mut p = parser(1, 20);
    p.process(b"x\x08\x1b[3b");
    assert_eq!(row(&p, 0), "x");
}

#[test]
fn a_tab_keeps_a_pending_wrap_so_the_next_character_wraps() {
    // vttest 11.5.4 "they wrap once": a star printed in the last column,
    // then a tab: the next star goes to the next row's first column
    let mut p = parser(3, 10);
    p.process(b"\t*\t*\t*");
    assert_eq!(row(&p, 0), "        **");
    assert_eq!(row(&p, 1), "*");
    // CHT too
    let mut p = parser(3, 10);
    p.process(b"\x1b[1I*\x1b[1I*\x1b[1I*");
    assert_eq!(row(&p, 0), "        **");
    assert_eq!(row(&p, 1), "*");
    // from before the last column a tab still stops in the last one
    let mut p = parser(2, 10);
    p.process(b"\x1b[1;9H\tX");
    assert_eq!(row(&p, 0), "         X");
    assert_eq!(cursor(&p), (0, 10));
}

#[test]
fn mode_1047_leaves_a_cleared_alternate_screen_and_1048_saves_the_cursor() {
    let mut p = parser(3, 10);
    p.process(b"main\x1b[2;3H\x1b[?1048h\x1b[?1047h\x1b#8");
    assert_eq!(row(&p, 0), "EEEEEEEEEE");
    p.process(b"\x1b[?1047l\x1b[?1048l");
    assert_eq!(row(&p, 0), "main");
    assert_eq!(cursor(&p), (1, 2));
    // the alternate screen was cleared on the way out
    p.process(b"\x1b[?47h");
    assert_eq!(row(&p, 0), "");
}

/// termic's reflow (issue 28): the normal screen's rows, rewrapped to a
/// narrower width and written back, read as vt100 would have wrapped the
/// same text, wide characters and colours included, with the cursor on
/// the cell it was on.
#[test]
fn normal_rows_rewrapped_and_set_back_read_as_the_same_text() {
    let mut p = parser(4, 10);
    p.process("ab\x1b[31mcdefghi\u{4e2d}\x1b[m\r\nxy".as_bytes());
    let normal = p.screen().normal_rows_compact();
    assert_eq!(normal.cursor, (2, 2));
    assert!(normal.rows[0].wrapped, "a wide character past 9 cells wrapped");
    let mut rows = alloc::vec::Vec::new();
    let mut rewrap = crate::reflow::Rewrap::new(4);
    let mut cursor = None;
    for (i, row) in normal.rows.iter().take(3).enumerate() {
        let mut emit = |bytes: &[u8], wrapped: bool| {
            rows.push(crate::reflow::CompactRow {
                bytes: bytes.to_vec(),
                wrapped,
            });
        };
        if i == 2 {
            rewrap.mark(rewrap.fed() + 2);
        }
        rewrap.feed(&row.bytes, &mut emit);
        if !row.wrapped {
            let start = rows.len() - rewrap.rows_emitted();
            let mut emit = |bytes: &[u8], wrapped: bool| {
                rows.push(crate::reflow::CompactRow {
                    bytes: bytes.to_vec(),
                    wrapped,
                });
            };
            if let Some((r, c)) = rewrap.end_line(&mut emit) {
                cursor = Some(((start + r) as u16, c));
            }
        }
    }
    let nz = |n| core::num::NonZeroU16::new(n).unwrap();
    let cursor = cursor.unwrap();
    p.screen_mut()
        .set_size_reflowed(nz(6), nz(4), &rows, cursor, (0, 0));
    // the same text through vt100's own wrap at 4 columns
    let mut want = parser(6, 4);
    want.process("ab\x1b[31mcdefghi\u{4e2d}\x1b[m\r\nxy".as_bytes());
    for r in 0..6 {
        assert_eq!(row(&p, r), row(&want, r), "row {r}");
        assert_eq!(p.screen().row_wrapped(r), want.screen().row_wrapped(r), "row {r}");
        for c in 0..4 {
            let (a, b) = (p.screen().cell(r, c).unwrap(), want.screen().cell(r, c).unwrap());
            assert_eq!((a.fgcolor(), a.is_wide()), (b.fgcolor(), b.is_wide()), "{r},{c}");
        }
    }
    assert_eq!(cursor, (3, 2));
    assert_eq!(p.screen().cursor_position(), want.screen().cursor_position());
}

/// Found by termic's view property test (2026-12-06): a diff whose last
/// write fills a row's last column of a row that wrapped before.
#[test]
fn a_diff_over_a_wrapped_row_ending_at_the_last_column_shows_the_same_screen() {
    let a: &[u8] = &[
        27, 91, 54, 59, 54, 72, 48, 97, 65, 32, 97, 48, 48, 32, 97, 65, 32, 32, 48, 32, 97, 48, 97,
        32, 48, 65, 32, 97, 65, 65, 97, 97, 27, 91, 55, 109, 13, 10, 13, 10, 48, 32, 65, 65, 65,
        65, 97, 97, 32, 48, 65, 65, 65, 65, 65, 32, 65, 32, 65, 97, 32, 65, 32, 48, 32, 65, 65, 32,
        32, 48, 58, 65,
    ];
    let b: &[u8] = &[
        27, 91, 57, 59, 50, 54, 72, 32, 65, 48, 32, 97, 32, 65, 32, 48, 48, 65, 65, 97, 65, 65, 48,
        48, 65, 32, 32, 32, 32, 32, 48, 32, 32, 32, 48, 32, 32, 32, 97, 97, 65, 65, 58,
    ];
    let mut server = parser(10, 30);
    server.process(a);
    let before = server.screen().clone();
    let repaint = before.contents_formatted();
    server.process(b);
    let diff = server.screen().contents_diff(&before);
    let mut client = parser(10, 30);
    client.process(repaint.as_bytes());
    assert_eq!(client.screen().contents_formatted(), before.contents_formatted());
    client.process(diff.as_bytes());
    assert_eq!(
        client.screen().contents_formatted(),
        server.screen().contents_formatted(),
        "diff {:?}",
        diff
    );
}
