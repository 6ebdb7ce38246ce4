//! Real agent CLIs (Claude Code, opencode, grok, Codex, Gemini CLI, Qwen Code,
//! Copilot CLI) as termic tasks against the fake model server. Every test is
//! `#[ignore]`d: set TERMIC_REAL_AGENTS to the cache `.ci/real-agents-install`
//! filled and pass `--ignored` (`.ci/run` runs them by module, one at a time).
//!
//! `tasks`: through the runtime `termic run` uses; `binary`: through the real
//! binary; `errors`, `error_screen`, `screen`, `more`: failing APIs, screen
//! rules, agents before their hooks; `latency`, `matrix`: measurements.
//!
//! The one binary whose root is `tests/AREA/main.rs` rather than
//! `tests/AREA.rs`: `tests/real_agents.rs` was the file `tasks.rs` is now,
//! and a new file at that path would hide the move from git's rename
//! detection (2026-12-06).

#[path = "../matrix_score/mod.rs"]
mod matrix_score;
#[path = "../real_agents_support/mod.rs"]
mod real_agents_support;
#[path = "../wait/mod.rs"]
mod wait;

mod binary;
mod dialogs;
mod error_screen;
mod errors;
mod latency;
mod matrix;
mod more;
mod screen;
mod tasks;
