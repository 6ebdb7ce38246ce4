//! Engine cost per typical 4 KiB output chunk.
//!
//! The chunk is a Claude Code style frame: a spinner title (the glyph flips
//! every 60th chunk, ~960 ms at 16 ms frames), 256-colour SGR runs, cursor
//! moves and erases, box drawing and text. Three measurements in one run:
//! `scanner_only` (the vte scan alone), `feed_output` (scan plus engine, what
//! the runtime calls), and `engine_only` (`on_signals` with the chunk's
//! signals pre-scanned). Goal: engine_only under 1 us per chunk.
//!
//! `cargo bench -p termic-signal --bench engine -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BatchSize, Criterion};
use termic_signal::engine::{Engine, EngineConfig, Key};
use termic_signal::scanner::Scanner;
use termic_signal::signal::Signal;

const CHUNK: usize = 4096;

fn chunk(glyph: &str) -> Vec<u8> {
    let mut out = format!("\x1b]0;{glyph} Claude Code\x07").into_bytes();
    let mut line = 0u32;
    while out.len() < CHUNK {
        let colour = 16 + line % 200;
        let row = 2 + line % 30;
        out.extend_from_slice(
            format!(
                "\x1b[{row};3H\x1b[2K\x1b[38;5;{colour}m│\x1b[0m \x1b[1m{line:>4}\x1b[22m \
                 \x1b[38;2;200;120;80mlet\x1b[39m value = compute(\"résumé\", {line}); \
                 \x1b[2m// agent output ✓\x1b[22m\r\n"
            )
            .as_bytes(),
        );
        line += 1;
    }
    out.truncate(CHUNK);
    out
}

/// An engine mid-turn (claude, no hooks), so every rule is live.
fn working_engine() -> Engine {
    let mut engine = Engine::new(EngineConfig::new("claude", "bench-task", false));
    engine.focus(0, true);
    engine.key(0, Key::Submit);
    engine.feed_output(10, &chunk("◐"));
    engine
}

fn bench(c: &mut Criterion) {
    let frames = [chunk("◐"), chunk("◑")];
    let frame_for = |i: u64| &frames[((i / 60) % 2) as usize];
    let mut group = c.benchmark_group("engine_4k_chunk");

    group.bench_function("scanner_only", |b| {
        let mut scanner = Scanner::new();
        let mut out = Vec::new();
        let mut i = 0u64;
        b.iter(|| {
            i += 1;
            out.clear();
            scanner.feed(black_box(frame_for(i)), &mut out);
            black_box(out.len())
        })
    });

    group.bench_function("feed_output", |b| {
        let mut engine = working_engine();
        let mut now = 10u64;
        b.iter(|| {
            now += 16;
            let i = now / 16;
            black_box(engine.feed_output(now, black_box(frame_for(i))))
        })
    });

    // Pre-scan both frames; every 60th chunk carries the changed title.
    let scanned: Vec<Vec<Signal>> = frames
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            Scanner::new().feed(f, &mut out);
            out
        })
        .collect();
    group.bench_function("engine_only", |b| {
        let mut engine = working_engine();
        let mut now = 10u64;
        b.iter_batched(
            || {
                now += 16;
                (now, scanned[((now / 16 / 60) % 2) as usize].clone())
            },
            |(at, signals)| black_box(engine.on_signals(at, signals)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
