//! Scanner throughput against a bare vte parse of the same bytes, same run.
//!
//! The input is ~6 MiB of generated agent-like output (deterministic): SGR
//! runs in 256 colours and truecolor, cursor movement, erases, box drawing,
//! non-ASCII text, an OSC 0 title every frame (~2 KiB) and an occasional
//! OSC 777 / OSC 9 notification. Both sides are fed in 4 KiB chunks, as the
//! PTY reader delivers them. Goal: scanner within 1.25x of bare vte.
//!
//! `cargo bench -p termic-signal --bench scanner -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use termic_signal::scanner::Scanner;

const CHUNK: usize = 4096;
const TARGET_BYTES: usize = 6 << 20;

/// Small deterministic generator (no rand dependency in benches).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "fn",
    "let",
    "cargo",
    "build",
    "error[E0599]:",
    "warning:",
    "src/main.rs",
    "Reading",
    "file",
    "café",
    "naïve",
    "日本語",
    "résumé",
    "✓",
    "→",
    "Ωmega",
    "done",
    "the",
    "agent",
    "tool",
];

fn frame(rng: &mut Lcg, n: usize, out: &mut Vec<u8>) {
    let glyph = if n % 2 == 0 { "◐" } else { "◑" };
    out.extend_from_slice(format!("\x1b]0;{glyph} Claude Code\x07").as_bytes());
    out.extend_from_slice(b"\x1b[?2026h\x1b[H");
    // Box top.
    out.extend_from_slice("\x1b[38;5;244m╭".as_bytes());
    out.extend_from_slice("─".repeat(60).as_bytes());
    out.extend_from_slice("╮\x1b[0m\r\n".as_bytes());
    let start = out.len();
    while out.len() - start < 1800 {
        let row = rng.below(40) + 1;
        out.extend_from_slice(format!("\x1b[{row};1H\x1b[2K").as_bytes());
        out.extend_from_slice("\x1b[38;5;244m│\x1b[0m ".as_bytes());
        for _ in 0..rng.below(10) + 3 {
            match rng.below(4) {
                0 => out.extend_from_slice(format!("\x1b[38;5;{}m", rng.below(256)).as_bytes()),
                1 => out.extend_from_slice(
                    format!(
                        "\x1b[38;2;{};{};{}m",
                        rng.below(256),
                        rng.below(256),
                        rng.below(256)
                    )
                    .as_bytes(),
                ),
                2 => out.extend_from_slice(b"\x1b[1m"),
                _ => out.extend_from_slice(b"\x1b[0m"),
            }
            out.extend_from_slice(WORDS[rng.below(WORDS.len() as u32) as usize].as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(b"\x1b[0m\x1b[K\r\n");
    }
    if n % 40 == 7 {
        out.extend_from_slice(b"\x1b]777;notify;Claude Code;Claude needs your permission\x07");
    }
    if n % 40 == 27 {
        out.extend_from_slice(b"\x1b]9;Build finished\x07");
    }
    out.extend_from_slice(b"\x1b[J\x1b[?2026l");
}

fn agent_output() -> Vec<u8> {
    let mut rng = Lcg(0x007e_2a1c);
    let mut out = Vec::with_capacity(TARGET_BYTES + 4096);
    let mut n = 0;
    while out.len() < TARGET_BYTES {
        frame(&mut rng, n, &mut out);
        n += 1;
    }
    out
}

struct NoOp;
impl vte::Perform for NoOp {}

fn bare_vte(bytes: &[u8]) {
    let mut parser = vte::Parser::new();
    let mut performer = NoOp;
    for chunk in bytes.chunks(CHUNK) {
        parser.advance(&mut performer, black_box(chunk));
    }
}

fn scanner(bytes: &[u8]) -> usize {
    let mut scanner = Scanner::new();
    let mut out = Vec::new();
    let mut seen = 0;
    for chunk in bytes.chunks(CHUNK) {
        scanner.feed(black_box(chunk), &mut out);
        seen += out.len();
        out.clear();
    }
    seen
}

/// CPU time of this thread: unlike wall time, it does not count the time the
/// thread waited for a core, so the ratio holds on a loaded machine.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Time `f` by wall clock and by thread CPU time.
fn timed(f: impl FnOnce()) -> (Duration, Duration) {
    let (wall, cpu) = (Instant::now(), thread_cpu_time());
    f();
    (wall.elapsed(), thread_cpu_time() - cpu)
}

/// Interleaved rounds, median of each, printed as ratios.
fn print_ratio(bytes: &[u8]) {
    const ROUNDS: usize = 15;
    let (mut bare, mut ours) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        bare.push(timed(|| bare_vte(bytes)));
        ours.push(timed(|| {
            black_box(scanner(bytes));
        }));
    }
    let median = |v: &[(Duration, Duration)], pick: fn(&(Duration, Duration)) -> Duration| {
        let mut d: Vec<Duration> = v.iter().map(pick).collect();
        d.sort();
        d[d.len() / 2].as_secs_f64()
    };
    let mib = bytes.len() as f64 / (1 << 20) as f64;
    for (clock, pick) in [
        ("wall", (|t| t.0) as fn(&(Duration, Duration)) -> Duration),
        ("thread cpu", |t| t.1),
    ] {
        let (b, o) = (median(&bare, pick), median(&ours, pick));
        println!(
            "scanner/bare vte ratio ({clock}): {:.3} (bare vte {:.0} MiB/s, scanner {:.0} MiB/s; {mib:.1} MiB, median of {ROUNDS} interleaved rounds)",
            o / b,
            mib / b,
            mib / o,
        );
    }
}

fn main() {
    let bytes = agent_output();
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("scanner");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("bare_vte_4k_chunks", |b| b.iter(|| bare_vte(&bytes)));
    group.bench_function("scanner_4k_chunks", |b| b.iter(|| scanner(&bytes)));
    group.finish();
    criterion.final_summary();
    print_ratio(&bytes);
}
