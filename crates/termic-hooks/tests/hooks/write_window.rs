//! Measures (not a pass/fail test: `--ignored`, run by
//! `bench/write-window.sh`) how long a config write's commit takes, from
//! the moment the temp file is full (the `before_commit` seam) to the
//! write returning, on a small file and on 20 MB.
//!
//! With re-read then rename (before) that whole span is the window in
//! which another writer's edit is lost. With the exchange (after) an edit
//! landing anywhere in it is caught by the comparison of the replaced
//! inode after the swap; it is what a commit costs.

use std::cell::Cell;
use std::time::Instant;

use termic_hooks::fsio::{read_config, write_atomic, WriteOptions};

fn median_us(path: &std::path::Path, size: usize, rounds: usize) -> f64 {
    let mut body = String::from("{\n  \"pad\": \"");
    body.push_str(&"x".repeat(size));
    body.push_str("\"\n}\n");
    std::fs::write(path, &body).unwrap();
    let mut times = Vec::new();
    for i in 0..rounds {
        let snap = read_config(path).unwrap();
        let mut next = snap.bytes.clone().unwrap();
        next[3] = b'a' + (i % 20) as u8;
        let start = Cell::new(None);
        let hook = |_: &std::path::Path| start.set(Some(Instant::now()));
        let options = WriteOptions {
            before_commit: Some(&hook),
            ..WriteOptions::default()
        };
        write_atomic(&snap, &next, &options).unwrap();
        times.push(start.get().unwrap().elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

#[test]
#[ignore = "a measurement: bench/write-window.sh"]
fn commit_span_small_and_20_mb() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let small = median_us(&path, 200, 200);
    let big = median_us(&path, 20 << 20, 9);
    eprintln!("commit span (median): small file {small:.0} us, 20 MB {big:.0} us");
}
