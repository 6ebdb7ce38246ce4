use std::num::NonZeroU16;

use super::*;

fn parser() -> vt100::Parser {
    vt100::Parser::new(
        NonZeroU16::new(24).unwrap(),
        NonZeroU16::new(80).unwrap(),
        0,
    )
}

/// A terminal's reply side: the scanner and the responder, in one thread.
#[derive(Default)]
struct Replier {
    scanner: ReplyScanner,
    responder: Responder,
}

/// A second performer that takes nothing (the runtime's is the signal tap).
struct NoSignals;
impl vte::Perform for NoSignals {}

impl Replier {
    fn new(config: ReplyConfig) -> Self {
        Replier {
            scanner: ReplyScanner::new(),
            responder: Responder::new(config),
        }
    }

    fn apply(&mut self, p: &mut vt100::Parser, chunk: &[u8]) -> Applied {
        let found = self.scanner.scan(chunk);
        apply_with_replies(&mut self.responder, p, chunk, found, &mut NoSignals)
    }
}

/// Feed `chunks` in order; return all replies as one string.
fn run_with(replier: &mut Replier, chunks: &[&[u8]]) -> String {
    let mut p = parser();
    let mut out = Vec::new();
    for chunk in chunks {
        for reply in replier.apply(&mut p, chunk).replies {
            out.extend(reply);
        }
    }
    String::from_utf8(out).unwrap()
}

fn run(chunks: &[&[u8]]) -> String {
    run_with(&mut Replier::default(), chunks)
}

#[test]
fn primary_and_secondary_device_attributes() {
    assert_eq!(run(&[b"\x1b[c"]), "\x1b[?62;22c");
    assert_eq!(run(&[b"\x1b[0c"]), "\x1b[?62;22c");
    assert_eq!(run(&[b"\x1b[>c"]), "\x1b[>0;100;0c");
    assert_eq!(run(&[b"\x1b[>0c"]), "\x1b[>0;100;0c");
    // `CSI = c` (tertiary DA) and `CSI 1 c` are not asked by any agent: no reply.
    assert_eq!(run(&[b"\x1b[=c\x1b[1c"]), "");
}

#[test]
fn status_and_cursor_position_reports() {
    assert_eq!(run(&[b"\x1b[5n"]), "\x1b[0n");
    assert_eq!(run(&[b"\x1b[6n"]), "\x1b[1;1R");
    assert_eq!(run(&[b"\x1b[3;7H\x1b[?6n"]), "\x1b[?3;7R");
}

#[test]
fn cursor_report_sees_bytes_before_the_query_and_none_after() {
    // Text after the query in the SAME chunk must not move the reported cursor.
    assert_eq!(run(&[b"ab\x1b[6ncdef"]), "\x1b[1;3R");
    // Two queries in one chunk each see their own prefix.
    assert_eq!(run(&[b"ab\x1b[6n\r\nxyz\x1b[6n"]), "\x1b[1;3R\x1b[2;4R");
    // opencode's OSC 66 width probe: termic ignores OSC 66, so the cursor
    // does not move and the program learns the feature is missing.
    assert_eq!(run(&[b"\x1b[H\x1b]66;w=1; \x1b\\\x1b[6n"]), "\x1b[1;1R");
}

#[test]
fn sequences_split_across_reads_are_answered_once() {
    assert_eq!(run(&[b"\x1b", b"[", b"6", b"n"]), "\x1b[1;1R");
    assert_eq!(
        run(&[b"\x1b]11", b";?\x1b", b"\\"]),
        "\x1b]11;rgb:0000/0000/0000\x1b\\"
    );
    assert_eq!(run(&[b"xx\x1b]7501;", b"?\x07"]), "\x1b]7501;?\x1b\\");
    // Split DA1 after a cursor move: the reply still sees the move.
    assert_eq!(run(&[b"\x1b[2;2H\x1b[", b"6n"]), "\x1b[2;2R");
}

#[test]
fn xtversion_names_termic_and_its_version() {
    let reply = run(&[b"\x1b[>0q"]);
    assert_eq!(
        reply,
        format!("\x1bP>|termic({})\x1b\\", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(run(&[b"\x1b[>q"]), reply);
    // DECSCUSR (`CSI 2 SP q`) is not a query.
    assert_eq!(run(&[b"\x1b[2 q"]), "");
}

#[test]
fn colour_queries_match_the_query_terminator() {
    let mut r = Replier::new(ReplyConfig {
        foreground: Rgb(0xff, 0x80, 0x01),
        background: Rgb(0x10, 0x20, 0x30),
        ..ReplyConfig::default()
    });
    assert_eq!(
        run_with(&mut r, &[b"\x1b]10;?\x07"]),
        "\x1b]10;rgb:ffff/8080/0101\x07"
    );
    assert_eq!(
        run_with(&mut r, &[b"\x1b]11;?\x1b\\"]),
        "\x1b]11;rgb:1010/2020/3030\x1b\\"
    );
    // Chained form: OSC 10 ; ? ; ? asks fg then bg.
    assert_eq!(
        run_with(&mut r, &[b"\x1b]10;?;?\x07"]),
        "\x1b]10;rgb:ffff/8080/0101\x07\x1b]11;rgb:1010/2020/3030\x07"
    );
    // Setting a colour is not a query.
    assert_eq!(run_with(&mut r, &[b"\x1b]11;#000000\x07"]), "");
}

#[test]
fn palette_queries_answer_each_index_asked() {
    assert_eq!(run(&[b"\x1b]4;1;?\x07"]), "\x1b]4;1;rgb:cdcd/0000/0000\x07");
    assert_eq!(
        run(&[b"\x1b]4;16;?;255;?\x1b\\"]),
        "\x1b]4;16;rgb:0000/0000/0000\x1b\\\x1b]4;255;rgb:eeee/eeee/eeee\x1b\\"
    );
    assert_eq!(palette(196), Rgb(255, 0, 0));
    assert_eq!(palette(232), Rgb(8, 8, 8));
    assert_eq!(run(&[b"\x1b]4;300;?\x07"]), "");
}

#[test]
fn mode_reports_reflect_the_screen_model() {
    assert_eq!(run(&[b"\x1b[?2004$p"]), "\x1b[?2004;2$y");
    assert_eq!(run(&[b"\x1b[?2004h\x1b[?2004$p"]), "\x1b[?2004;1$y");
    assert_eq!(run(&[b"\x1b[?1049h\x1b[?1049$p"]), "\x1b[?1049;1$y");
    assert_eq!(
        run(&[b"\x1b[?1000h\x1b[?1006h\x1b[?1006$p"]),
        "\x1b[?1006;1$y"
    );
    // Codex's 1007 and opentui's 2026: not implemented, reported as unknown.
    assert_eq!(run(&[b"\x1b[?1007$p"]), "\x1b[?1007;0$y");
    assert_eq!(run(&[b"\x1b[?2026$p"]), "\x1b[?2026;0$y");
    // ANSI form.
    assert_eq!(run(&[b"\x1b[4$p"]), "\x1b[4;0$y");
}

#[test]
fn focus_reporting_is_tracked_and_reported() {
    let mut r = Replier::default();
    assert_eq!(run_with(&mut r, &[b"\x1b[?1004$p"]), "\x1b[?1004;2$y");
    assert!(!r.responder.focus_reporting());
    assert_eq!(
        run_with(&mut r, &[b"\x1b[?2004;1004h\x1b[?1004$p"]),
        "\x1b[?1004;1$y"
    );
    assert!(r.responder.focus_reporting());
    run_with(&mut r, &[b"\x1b[?1004l"]);
    assert!(!r.responder.focus_reporting());
}

#[test]
fn kitty_queries_get_silence_so_the_following_da1_answers() {
    // Codex: CSI ? u then DA1. opentui: OSC 99 p=? then (later) DA1.
    assert_eq!(run(&[b"\x1b[?u\x1b[c"]), "\x1b[?62;22c");
    assert_eq!(
        run(&[b"\x1b]99;i=opentui-notifications:p=?;\x1b\\\x1b]1337;Capabilities\x1b\\\x1b[c"]),
        "\x1b[?62;22c"
    );
    // A kitty keyboard PUSH (Claude's `CSI > 5 u`) is not a query.
    assert_eq!(run(&[b"\x1b[>5u"]), "");
}

#[test]
fn native_probe_is_answered_unless_turned_off() {
    assert_eq!(run(&[b"\x1b]7501;?\x07"]), "\x1b]7501;?\x1b\\");
    assert_eq!(run(&[b"\x1b]7501;?\x1b\\"]), "\x1b]7501;?\x1b\\");
    // A status report is not a probe.
    assert_eq!(run(&[b"\x1b]7501;state=idle:app=claude-code\x07"]), "");
    let mut off = Replier::new(ReplyConfig {
        native_probe: false,
        ..ReplyConfig::default()
    });
    assert_eq!(run_with(&mut off, &[b"\x1b]7501;?\x07"]), "");
}

#[test]
fn termcap_query_gets_the_not_valid_reply_without_the_names() {
    assert_eq!(run(&[b"\x1bP+q4d73\x1b\\"]), "\x1bP0+r\x1b\\");
    assert_eq!(run(&[b"\x1bP+q544E;436f;524742\x1b\\"]), "\x1bP0+r\x1b\\");
}

#[test]
fn a_printed_termcap_query_types_nothing_into_the_task() {
    // The issue 10 reproduction: the payload came back, Enter included.
    for hostile in [
        &b"\x1bP+qecho PWNED > marker\r\x1b\\"[..],
        b"\x1bP+q544e\recho PWNED\n\x1b\\",
        b"\x1bP+q544e\x07\x1b\\",
        b"\x1bP+q544e\x9c\x1b\\",
        // Hex of `echo PWNED > marker\r`: decodes to a space and a CR.
        b"\x1bP+q6563686f2050574e4544203e206d61726b65720d\x1b\\",
        b"\x1bP+q\x1b\\",
        b"\x1bP+q;\x1b\\",
        b"\x1bP+q544\x1b\\",
        b"\x1bP+q54zz\x1b\\",
    ] {
        assert_eq!(run(&[hostile]), "", "{hostile:?}");
    }
    // Too many names, too long a name: no reply either.
    let many = format!("\x1bP+q{}544e\x1b\\", "544e;".repeat(16));
    assert_eq!(run(&[many.as_bytes()]), "");
    let long = format!("\x1bP+q{}\x1b\\", "41".repeat(33));
    assert_eq!(run(&[long.as_bytes()]), "");
    // An ESC inside the payload ends the DCS (the rest is printed text).
    assert_eq!(run(&[b"\x1bP+q544e\x1b[31mecho hi\r\x1b\\"]), "");
}

#[test]
fn xtversion_carries_only_version_characters() {
    let mut r = Replier::new(ReplyConfig {
        version: "1.2.3\r\x1b\\echo x\n".to_owned(),
        ..ReplyConfig::default()
    });
    assert_eq!(
        run_with(&mut r, &[b"\x1b[>q"]),
        "\x1bP>|termic(1.2.3echox)\x1b\\"
    );
}

#[test]
fn queries_inside_strings_and_oversized_strings_are_ignored() {
    // A CSI 6n inside an OSC title is text of the title, not a query.
    assert_eq!(run(&[b"\x1b]0;x\x1b[6n"]), "\x1b[1;1R");
    // ...but an ESC does end the OSC (as vte does), so the CSI above counts.
    let long = format!("\x1b]11;{}?\x07", "x".repeat(1000));
    assert_eq!(run(&[long.as_bytes()]), "");
    // APC (kitty graphics query) is skipped whole.
    assert_eq!(run(&[b"\x1b_Gi=31337,a=q;AAAA\x1b\\\x1b[5n"]), "\x1b[0n");
}

#[test]
fn real_startup_bursts_get_every_expected_reply() {
    // Codex 0.171.0, as measured (README of real-agents).
    let codex = b"\x1b[?2004h\x1b[>4;0m\x1b[>7u\x1b[?1004h\x1b[?u\x1b[?1007$p\x1b[c\x1b[6n\x1b]10;?\x1b\\\x1b]11;?\x1b\\";
    assert_eq!(
        run(&[codex]),
        "\x1b[?1007;0$y\x1b[?62;22c\x1b[1;1R\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\\x1b]11;rgb:0000/0000/0000\x1b\\"
    );
    // Claude Code 2.1.332 start-up: the probe and XTVERSION.
    let claude = b"\x1b]7501;?\x07\x1b[>0q\x1b[>5u\x1b[?2004h\x1b[?2031h\x1b[?1004h\x1b[?1049h";
    assert_eq!(
        run(&[claude]),
        format!(
            "\x1b]7501;?\x1b\\\x1bP>|termic({})\x1b\\",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn rgb_parses_config_hex() {
    assert_eq!(Rgb::parse_hex("#1e2F30"), Some(Rgb(0x1e, 0x2f, 0x30)));
    assert_eq!(Rgb::parse_hex("1e2f30"), None);
    assert_eq!(Rgb::parse_hex("#1e2f3"), None);
    assert_eq!(Rgb::parse_hex("#gg0000"), None);
}

#[test]
fn query_only_chunks_are_recognised() {
    let mut r = Replier::default();
    let mut p = parser();
    // Claude Code's cursor check, alone in a read.
    assert!(r.apply(&mut p, b"\x1b[?6n").only_queries);
    assert!(r.apply(&mut p, b"\x1b[c\x1b]11;?\x07").only_queries);
    // Text or a non-query sequence in the chunk: the screen may have changed.
    assert!(!r.apply(&mut p, b"x\x1b[?6n").only_queries);
    assert!(!r.apply(&mut p, b"\x1b[?6n\x1b[2J").only_queries);
    assert!(!r.apply(&mut p, b"\x1b[31m").only_queries);
    // A query split across reads: the second part alone is still only a query.
    assert!(!r.apply(&mut p, b"\x1b[?6").only_queries);
    assert!(r.apply(&mut p, b"n").only_queries);
}

mod scan_runs {
    use proptest::prelude::*;

    use super::super::scan::ReplyScanner;

    /// Pieces that make up queries, their look-alikes and what interrupts
    /// them, so random output reaches every state of the scanner.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(b"\x1b[".to_vec()),
            Just(b"\x1b]".to_vec()),
            Just(b"\x1bP+q".to_vec()),
            Just(b"\x1b_".to_vec()),
            Just(b"\x1b\\".to_vec()),
            Just(b"\x1b".to_vec()),
            Just(b"\x07".to_vec()),
            Just(b"\x18".to_vec()),
            Just(b"6n".to_vec()),
            Just(b"?6n".to_vec()),
            Just(b">0c".to_vec()),
            Just(b"c".to_vec()),
            Just(b"?1004h".to_vec()),
            Just(b"?1004;".to_vec()),
            Just(b"h".to_vec()),
            (1usize..40).prop_map(|n| b"1;".repeat(n)),
            (1usize..40).prop_map(|n| b"2".repeat(n)),
            Just(b"?2026$p".to_vec()),
            Just(b"11;?".to_vec()),
            Just(b"4;1;?".to_vec()),
            Just(b"7501;?".to_vec()),
            Just(b"544e".to_vec()),
            Just(b"38;5;208m".to_vec()),
            Just(b"1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20".to_vec()),
            prop::collection::vec(any::<u8>(), 0..12),
            "[ -~]{0,20}".prop_map(String::into_bytes),
        ]
    }

    /// Around the CSI bound (32 bytes), cut at every byte: a query whose
    /// parameters passed the bound is dropped, by both paths alike.
    #[test]
    fn runs_keep_the_csi_bound() {
        for extra in 20..40 {
            let seq = [b"\x1b[?1004;".as_slice(), &b"1".repeat(extra), b"h"].concat();
            for cut in 0..=seq.len() {
                let mut fast = ReplyScanner::new();
                let mut slow = ReplyScanner::new();
                for chunk in [&seq[..cut], &seq[cut..]] {
                    assert_eq!(fast.scan(chunk), slow.scan_bytewise(chunk), "{extra} {cut}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The runs `scan` takes at once find the same queries, at the
        /// same offsets, as feeding every byte through the state machine,
        /// with the output cut into reads anywhere.
        #[test]
        fn runs_find_what_the_state_machine_finds(
            pieces in prop::collection::vec(piece(), 0..40),
            cuts in prop::collection::vec(0usize..200, 0..6),
        ) {
            let bytes: Vec<u8> = pieces.concat();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.push(0);
            cuts.push(bytes.len());
            cuts.sort_unstable();
            let mut fast = ReplyScanner::new();
            let mut slow = ReplyScanner::new();
            for pair in cuts.windows(2) {
                let chunk = &bytes[pair[0]..pair[1]];
                prop_assert_eq!(fast.scan(chunk), slow.scan_bytewise(chunk));
            }
        }
    }
}
