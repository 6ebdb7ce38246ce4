//! Cost of each stage of the reader's pipeline on a file of output, run
//! alone and in one thread: the reply scanner, the vt100 screen model (with
//! and without scrollback), the signal engine, and the screen model and the
//! engine's signals from one parse (what the screen thread runs since
//! session 9). Prints MB/s per stage.
//!
//! usage: pipeline_cost FILE [ROUNDS=3] | pipeline_cost --hostile [ROUNDS=3]
//!
//! Stages run in turn, ROUNDS times, and each prints its median: "bare vte"
//! is the parser alone (no screen), "per-char" is vt100's own path of one
//! `print` per character (termic's ASCII fast path off), "ASCII runs" is
//! what termic runs. `PIPELINE_STAGE=TEXT` runs only the stages whose
//! name contains TEXT (to count instructions of one with callgrind).
//!
//! `--hostile`: the screen model (vt100 with termic's history) on each file
//! of the hostile-screen corpus (tests/hostile, 4 MiB each) against
//! ordinary text of the same size, rounds interleaved (`PIPELINE_STAGE`
//! picks files by name).

use std::num::NonZeroU16;
use std::time::Instant;

use termic_runtime::history::History;
use termic_runtime::replies::ReplyScanner;
use termic_signal::engine::{Engine, EngineConfig};
use termic_signal::scanner::SignalTap;

#[path = "../tests/hostile/mod.rs"]
mod hostile;

fn screen_model() -> vt100::Parser<History> {
    vt100::Parser::new_with_callbacks(
        NonZeroU16::new(45).unwrap(),
        NonZeroU16::new(160).unwrap(),
        0,
        History::new(10_000),
    )
}

fn hostile_costs(rounds: usize) {
    let size = 4 << 20;
    let secs = |bytes: &[u8]| {
        let mut p = screen_model();
        let t = Instant::now();
        for c in bytes.chunks(64 * 1024) {
            p.process(c);
        }
        t.elapsed().as_secs_f64()
    };
    let text = hostile::plain_text(size);
    // PIPELINE_STAGE=TEXT: only the files whose name contains TEXT.
    let only = std::env::var("PIPELINE_STAGE").unwrap_or_default();
    let corpus: Vec<_> = hostile::corpus(size)
        .into_iter()
        .filter(|h| h.name.contains(&only))
        .collect();
    // Rounds interleave text and every file, so each sees the same load;
    // each file's ratio is the median of its per-round ratios to that
    // round's text (a busy stretch of the machine slows both).
    let mut text_secs = Vec::new();
    let mut ratios = vec![Vec::new(); corpus.len()];
    let mut file_secs = vec![Vec::new(); corpus.len()];
    for _ in 0..rounds {
        let t = secs(&text);
        text_secs.push(t);
        for (i, h) in corpus.iter().enumerate() {
            let s = secs(&h.bytes);
            file_secs[i].push(s);
            ratios[i].push(s / t);
        }
    }
    println!(
        "{:<34} {:7.1} MB/s (median of {rounds})",
        "ordinary text",
        size as f64 / median(&mut text_secs) / 1e6
    );
    for ((h, s), r) in corpus.iter().zip(&mut file_secs).zip(&mut ratios) {
        println!(
            "{:<34} {:7.1} MB/s, {:.2}x the time of text (median of per-round ratios)",
            h.name,
            h.bytes.len() as f64 / median(s) / 1e6,
            median(r)
        );
    }
}

/// The median of `runs` (the upper one of an even count), sorting them.
fn median(runs: &mut [f64]) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

/// A vte performer that does nothing: the cost of parsing alone.
struct NoOp;
impl vte::Perform for NoOp {}

/// One stage: a name and a run over the chunks.
type Stage<'a> = (&'static str, Box<dyn Fn(&[&[u8]]) + 'a>);

fn main() {
    let arg = std::env::args()
        .nth(1)
        .expect("usage: pipeline_cost FILE [ROUNDS] | --hostile");
    let rounds: usize = std::env::args()
        .nth(2)
        .map_or(3, |r| r.parse().expect("ROUNDS is a number"));
    if arg == "--hostile" {
        return hostile_costs(rounds);
    }
    let data = std::fs::read(arg).expect("read");
    let chunks: Vec<&[u8]> = data.chunks(64 * 1024).collect();
    let n = data.len();
    let rows = NonZeroU16::new(45).unwrap();
    let cols = NonZeroU16::new(160).unwrap();
    let history = move |fast: bool| {
        move |chunks: &[&[u8]]| {
            let mut p = vt100::Parser::new_with_callbacks(rows, cols, 0, History::new(10_000));
            p.set_ascii_fast_path(fast);
            for c in chunks {
                p.process(c);
            }
        }
    };
    let stages: Vec<Stage> = vec![
        (
            "bare vte (no-op Perform)",
            Box::new(|chunks: &[&[u8]]| {
                let mut p = vte::Parser::new();
                for c in chunks {
                    p.advance(&mut NoOp, c);
                }
            }),
        ),
        (
            "reply scanner",
            Box::new(|chunks: &[&[u8]]| {
                let mut s = ReplyScanner::new();
                for c in chunks {
                    std::hint::black_box(s.scan(c));
                }
            }),
        ),
        (
            "vt100 sb=10000, per-char",
            Box::new(move |chunks: &[&[u8]]| {
                let mut p = vt100::Parser::new(rows, cols, 10_000);
                p.set_ascii_fast_path(false);
                for c in chunks {
                    p.process(c);
                }
            }),
        ),
        ("vt100 + History, per-char", Box::new(history(false))),
        ("vt100 + History, ASCII runs", Box::new(history(true))),
        (
            "screen + engine, one parse",
            Box::new(move |chunks: &[&[u8]]| {
                // What the screen thread runs: the screen model's parse teed
                // to the engine's tap, an 8 KiB slice at a time.
                let mut p = vt100::Parser::new_with_callbacks(rows, cols, 0, History::new(10_000));
                let mut tap = SignalTap::default();
                let mut e = Engine::new(EngineConfig::new("generic", "x", false));
                for (i, c) in chunks.iter().enumerate() {
                    for slice in c.chunks(termic_runtime::screen::SLICE) {
                        let mut signals = Vec::new();
                        let mut performer = tap.performer(&mut signals);
                        p.process_also(slice, &mut performer);
                        performer.finish();
                        std::hint::black_box(e.on_signals(i as u64, signals));
                    }
                    // the UI reads the screen every 1 MiB: more often
                    // than it does (a frame per 50 ms while output
                    // streams, megabytes apart in a flood)
                    if i % 16 == 15 {
                        p.settle();
                    }
                }
            }),
        ),
        (
            "engine feed_output",
            Box::new(|chunks: &[&[u8]]| {
                let mut e = Engine::new(EngineConfig::new("generic", "x", false));
                for (i, c) in chunks.iter().enumerate() {
                    std::hint::black_box(e.feed_output(i as u64, c));
                }
            }),
        ),
    ];
    // PIPELINE_STAGE=text runs only the stages whose name contains it
    // (for `valgrind --tool=callgrind`, one stage at a time).
    let only = std::env::var("PIPELINE_STAGE").unwrap_or_default();
    let stages: Vec<Stage> = stages
        .into_iter()
        .filter(|(name, _)| name.contains(&only))
        .collect();
    // Rounds interleave the stages, so each stage sees the same load; the
    // median of each is printed.
    let mut secs = vec![Vec::new(); stages.len()];
    for _ in 0..rounds {
        for (i, (_, run)) in stages.iter().enumerate() {
            let t = Instant::now();
            run(&chunks);
            secs[i].push(t.elapsed().as_secs_f64());
        }
    }
    for ((name, _), s) in stages.iter().zip(&mut secs) {
        let median = median(s);
        println!(
            "{name:<30} {:7.1} MB/s (median of {rounds}: {median:.3} s)",
            n as f64 / median / 1e6
        );
    }
}
