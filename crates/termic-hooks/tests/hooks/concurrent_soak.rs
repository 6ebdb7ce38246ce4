//! Concurrent-writer soak: while install and remove loop on Claude's
//! settings.json, one writer bumps a counter by read, edit, temp, rename
//! (what an agent does to its own settings) and another bumps its counter
//! in place (truncate and write the same inode). The two writers take a
//! lock between themselves (termic does not know it), so any lost edit
//! is termic's. Checks: lost edits no more often than the one documented
//! window allows (below), never two termic entries for one event, the file
//! always valid JSON.
//!
//! Runs `TERMIC_SOAK_SECS` seconds (10 by default, in CI);
//! `bench/write-window.sh [SECS]` runs it longer, in release.

use crate::common;

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use termic_hooks::plan::AgentVersions;

use common::tree::HomeFixture;
use serde_json::Value;
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::InstallFacts;
use termic_hooks::target::InstallTarget;

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

#[derive(Clone, Copy)]
enum Writer {
    Rename,
    InPlace,
}

impl Writer {
    fn key(self) -> &'static str {
        match self {
            Writer::Rename => "renameCounter",
            Writer::InPlace => "inPlaceCounter",
        }
    }
}

struct Tally {
    edits: AtomicU64,
    lost: AtomicU64,
    invalid: AtomicU64,
    duplicates: AtomicU64,
}

/// How many times our Stop script appears in `text` (more than 1: a duplicate).
fn our_stop_entries(text: &str) -> usize {
    text.matches("termic-hooks/stop.sh").count()
}

fn writer(
    kind: Writer,
    path: std::path::PathBuf,
    lock: Arc<Mutex<()>>,
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
) -> u64 {
    let mut mine = 0u64;
    let tmp = path.with_file_name(".soak-writer.tmp");
    while !stop.load(Ordering::Relaxed) {
        {
            let _held = lock.lock().unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(mut v) = serde_json::from_str::<Value>(&text) else {
                tally.invalid.fetch_add(1, Ordering::Relaxed);
                eprintln!("invalid JSON seen by a writer:\n{text}");
                continue;
            };
            if our_stop_entries(&text) > 1 {
                tally.duplicates.fetch_add(1, Ordering::Relaxed);
            }
            let seen = v[kind.key()].as_u64().unwrap();
            if seen != mine {
                tally
                    .lost
                    .fetch_add(mine.saturating_sub(seen).max(1), Ordering::Relaxed);
            }
            mine = seen + 1;
            v[kind.key()] = Value::from(mine);
            let out = serde_json::to_vec_pretty(&v).unwrap();
            match kind {
                Writer::Rename => {
                    std::fs::write(&tmp, &out).unwrap();
                    std::fs::rename(&tmp, &path).unwrap();
                }
                Writer::InPlace => {
                    let mut f = std::fs::OpenOptions::new()
                        .write(true)
                        .truncate(true)
                        .open(&path)
                        .unwrap();
                    f.write_all(&out).unwrap();
                }
            }
            tally.edits.fetch_add(1, Ordering::Relaxed);
        }
        // The writer's pace, part of the load (not a wait).
        std::thread::sleep(Duration::from_micros(200));
    }
    mine
}

#[test]
fn concurrent_writers_lose_no_edit_against_install_and_remove_loops() {
    let secs: u64 = std::env::var("TERMIC_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let fx = HomeFixture::new();
    let path = fx.write(
        ".claude/settings.json",
        b"{\n  \"model\": \"opus\",\n  \"renameCounter\": 0,\n  \"inPlaceCounter\": 0\n}\n",
    );
    let t = InstallTarget::host(AgentSchema::CLAUDE, &fx.paths, &fx.no_guard()).unwrap();
    let lock = Arc::new(Mutex::new(()));
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally {
        edits: AtomicU64::new(0),
        lost: AtomicU64::new(0),
        invalid: AtomicU64::new(0),
        duplicates: AtomicU64::new(0),
    });
    let spawn = |kind| {
        let (p, l, s, t) = (path.clone(), lock.clone(), stop.clone(), tally.clone());
        std::thread::spawn(move || writer(kind, p, l, s, t))
    };
    let rename = spawn(Writer::Rename);
    let in_place = spawn(Writer::InPlace);
    let (mut cycles, mut refused, mut kept_changing) = (0u64, 0u64, 0u64);
    let mut count = |r: Result<termic_hooks::plan::InstallPlan, apply::ApplyError>| match r {
        Ok(_) => {}
        Err(apply::ApplyError::KeptChanging { .. }) => kept_changing += 1,
        Err(e) => {
            if refused == 0 {
                eprintln!("first refusal: {e}");
            }
            refused += 1
        }
    };
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        // A read of a file the in-place writer has just truncated is refused
        // (not JSON) or loses the race: both are counted, neither writes.
        count(apply::install(&t, &FACTS));
        count(apply::remove(&t));
        cycles += 1;
    }

    stop.store(true, Ordering::Relaxed);
    let rename_edits = rename.join().unwrap();
    let in_place_edits = in_place.join().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    eprintln!(
        "soak {secs} s: {cycles} install/remove cycles ({kept_changing} gave up: kept changing, \
         {refused} refused: read mid-write), {} edits \
         ({rename_edits} by rename, {in_place_edits} in place), {} lost, {} duplicate, {} invalid",
        tally.edits.load(Ordering::Relaxed),
        tally.lost.load(Ordering::Relaxed),
        tally.duplicates.load(Ordering::Relaxed),
        tally.invalid.load(Ordering::Relaxed),
    );
    assert_eq!(
        v["renameCounter"], rename_edits,
        "final file lost a rename edit"
    );
    assert_eq!(
        v["inPlaceCounter"], in_place_edits,
        "final file lost an in-place edit"
    );
    // One window is left (docs/decisions.md, "Race fix"): a writer that
    // reads our file in the microseconds between a swap and its undo, just
    // after another writer landed between the pre-check and the swap. Three
    // writers within microseconds: this soak, writing every 200 us, met it
    // once in 28,842 edits (CI, 2026-12-02) and not at all in other runs.
    // More often than once in 10,000 edits is a regression of the fix.
    let (lost, edits) = (
        tally.lost.load(Ordering::Relaxed),
        tally.edits.load(Ordering::Relaxed),
    );
    assert!(
        lost * 10_000 <= edits,
        "lost {lost} edits of {edits}: more than the documented window allows"
    );
    assert_eq!(
        tally.duplicates.load(Ordering::Relaxed),
        0,
        "duplicate entries"
    );
    assert_eq!(tally.invalid.load(Ordering::Relaxed), 0, "invalid JSON");
    assert!(
        cycles > 10 && rename_edits > 100 && in_place_edits > 100,
        "too little ran"
    );
    assert!(our_stop_entries(&text) <= 1);
}
