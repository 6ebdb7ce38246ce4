//! Cost of each stage of the reader's pipeline on a file of output, run
//! alone and in one thread: the reply scanner, the vt100 screen model (with
//! and without scrollback), and the signal engine. Prints MB/s per stage.
//!
//! usage: pipeline_cost FILE | pipeline_cost --hostile
//!
//! `--hostile`: the screen model (vt100 with termic's history) on each file
//! of the hostile-screen corpus (tests/hostile, 4 MiB each) against
//! ordinary text of the same size.

use std::num::NonZeroU16;
use std::time::Instant;

use termic::replies::ReplyScanner;
use termic::runtime::history::History;
use termic_signal::engine::{Engine, EngineConfig};

fn rate(name: &str, bytes: usize, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    let s = t.elapsed().as_secs_f64();
    println!("{name:<28} {:7.1} MB/s ({s:.3} s)", bytes as f64 / s / 1e6);
}

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

fn hostile_costs() {
    let size = 4 << 20;
    let secs = |bytes: &[u8]| {
        let mut p = screen_model();
        let t = Instant::now();
        for c in bytes.chunks(64 * 1024) {
            p.process(c);
        }
        t.elapsed().as_secs_f64()
    };
    let text = secs(&hostile::plain_text(size));
    println!(
        "{:<34} {:7.1} MB/s",
        "ordinary text",
        size as f64 / text / 1e6
    );
    for h in hostile::corpus(size) {
        let s = secs(&h.bytes);
        println!(
            "{:<34} {:7.1} MB/s, {:.2}x the time of text",
            h.name,
            h.bytes.len() as f64 / s / 1e6,
            s / text
        );
    }
}

fn main() {
    let arg = std::env::args()
        .nth(1)
        .expect("usage: pipeline_cost FILE | --hostile");
    if arg == "--hostile" {
        return hostile_costs();
    }
    let path = arg;
    let data = std::fs::read(path).expect("read");
    let chunks: Vec<&[u8]> = data.chunks(64 * 1024).collect();
    let n = data.len();
    rate("reply scanner", n, || {
        let mut s = ReplyScanner::new();
        for c in &chunks {
            std::hint::black_box(s.scan(c));
        }
    });
    let rows = NonZeroU16::new(45).unwrap();
    let cols = NonZeroU16::new(160).unwrap();
    rate("vt100 160x45, vt100 sb=10000", n, || {
        let mut p = vt100::Parser::new(rows, cols, 10_000);
        for c in &chunks {
            p.process(c);
        }
    });
    rate("vt100 160x45 + History 10000", n, || {
        let mut p = vt100::Parser::new_with_callbacks(rows, cols, 0, History::new(10_000));
        for c in &chunks {
            p.process(c);
        }
    });
    rate("engine feed_output", n, || {
        let mut e = Engine::new(EngineConfig::new("generic", "x", false));
        for (i, c) in chunks.iter().enumerate() {
            std::hint::black_box(e.feed_output(i as u64, c));
        }
    });
}
