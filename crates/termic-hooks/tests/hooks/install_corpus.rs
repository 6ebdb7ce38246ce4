//! Every fixture config (and, when present, the shared corpus of real
//! users' files, read in place) through the whole stack: snapshot, plan,
//! apply, verified status, second install, removal.

use crate::common;

use std::path::{Path, PathBuf};
use termic_hooks::plan::AgentVersions;

use common::tree::HomeFixture;
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply::{self, read_snapshot};
use termic_hooks::plan::{self, InstallFacts, PlanError};
use termic_hooks::status::{target_status, State};
use termic_hooks::target::InstallTarget;

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// The shared corpus, read in place (never copied into the project):
/// TERMIC_CORPUS_DIR, else the nearest ancestor's `shared/corpus`.
fn shared_corpus() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("TERMIC_CORPUS_DIR") {
        return Some(PathBuf::from(d));
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/corpus"))
        .find(|d| d.is_dir())
}

enum Outcome {
    RoundTrip,
    Refused,
}

/// Installs `schema` over `original` at its config path, checks status and
/// idempotence, removes, and says whether the bytes came back or the
/// install was refused with nothing written.
fn run(schema: AgentSchema, original: &[u8], name: &str) -> Outcome {
    let fx = HomeFixture::new();
    let t = InstallTarget::host(schema, &fx.paths, &fx.no_guard()).unwrap();
    let rel = schema.adapter().config_entry().file().unwrap();
    let path = t.path(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, original).unwrap();
    let before = common::tree::tree(&fx.paths.home);
    match apply::install(&t, &FACTS) {
        Err(apply::ApplyError::Plan(PlanError::Config { .. } | PlanError::Refused { .. })) => {
            assert_eq!(
                common::tree::tree(&fx.paths.home),
                before,
                "{name}: wrote on refusal"
            );
            return Outcome::Refused;
        }
        Err(e) => panic!("{name}: {e}"),
        Ok(_) => {}
    }
    let st = target_status(&t, &read_snapshot(&t).unwrap(), &FACTS).state;
    assert_eq!(st, State::Wired, "{name}");
    let again = plan::plan_install(&t, &read_snapshot(&t).unwrap(), &FACTS).unwrap();
    assert!(
        again.is_empty(),
        "{name}: second install plans\n{}",
        again.describe()
    );
    let removed = apply::remove(&t).unwrap();
    assert!(
        removed.left_alone.is_empty(),
        "{name}: {:?}",
        removed.left_alone
    );
    let after = std::fs::read(&path).unwrap();
    let holds_old_termic = name.contains("older-termic");
    if holds_old_termic && schema == AgentSchema::AGY {
        // agy's entry is ours by name: the old one is replaced, then removed.
        let v: serde_json::Value = serde_json::from_slice(&after).unwrap();
        assert!(
            v.get("termic").is_none() && v.get("mine").is_some(),
            "{name}"
        );
    } else {
        assert_eq!(
            String::from_utf8_lossy(&after),
            String::from_utf8_lossy(original),
            "{name}"
        );
        assert_eq!(common::tree::tree(&fx.paths.home), before, "{name}");
    }
    Outcome::RoundTrip
}

#[test]
fn every_fixture_installs_wires_and_removes_back_to_its_bytes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut count = 0;
    // Gemini, Copilot and Qwen merge into a settings.json of the user's as
    // Claude does: every Claude fixture goes through them too (Copilot's
    // flat shape must leave the grouped entries it does not own alone).
    for (sub, schema) in [
        ("claude", AgentSchema::CLAUDE),
        ("agy", AgentSchema::AGY),
        ("claude", AgentSchema::GEMINI),
        ("claude", AgentSchema::COPILOT),
        ("claude", AgentSchema::QWEN),
    ] {
        for f in files_in(&dir.join(sub)) {
            let name = format!("{} ({})", f.display(), schema.id());
            let bytes = std::fs::read(&f).unwrap();
            let outcome = run(schema, &bytes, &name);
            // Only Claude Code has disableAllHooks.
            let expect_refused = schema == AgentSchema::CLAUDE
                && String::from_utf8_lossy(&bytes).contains("\"disableAllHooks\": true");
            assert_eq!(
                matches!(outcome, Outcome::Refused),
                expect_refused,
                "{name}"
            );
            count += 1;
        }
    }
    assert!(count >= 4 * 15, "only {count} fixtures");
}

#[test]
fn the_shared_corpus_round_trips_or_is_refused_with_nothing_written() {
    let Some(dir) = shared_corpus() else {
        eprintln!("NOTICE: no shared corpus found; set TERMIC_CORPUS_DIR to run this test");
        return;
    };
    let (mut ok, mut refused) = (0, 0);
    for f in files_in(&dir.join("claude")) {
        let bytes = std::fs::read(&f).unwrap();
        match run(AgentSchema::CLAUDE, &bytes, &f.display().to_string()) {
            Outcome::RoundTrip => ok += 1,
            Outcome::Refused => refused += 1,
        }
    }
    eprintln!("shared corpus: {ok} round-tripped, {refused} refused");
    assert!(ok >= 50, "{ok} round trips");
    // Real users' Gemini CLI settings.json files (and the odd agy or plugin
    // file saved under that name) through the Gemini CLI adapter, and the
    // Claude files through Qwen's (the same Claude-style shape).
    let (mut ok, mut refused) = (0, 0);
    for (sub, schema) in [
        ("gemini", AgentSchema::GEMINI),
        ("claude", AgentSchema::QWEN),
    ] {
        for f in files_in(&dir.join(sub)) {
            let bytes = std::fs::read(&f).unwrap();
            let name = format!("{} ({})", f.display(), schema.id());
            match run(schema, &bytes, &name) {
                Outcome::RoundTrip => ok += 1,
                Outcome::Refused => refused += 1,
            }
        }
    }
    eprintln!("shared corpus through gemini and qwen: {ok} round-tripped, {refused} refused");
    assert!(ok >= 55, "{ok} round trips");
}
