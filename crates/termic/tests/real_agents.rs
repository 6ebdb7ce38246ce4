//! Real agent CLIs (Claude Code, opencode, grok, Codex, Gemini CLI, Qwen Code,
//! Copilot CLI) as termic tasks against the fake model server. Every test is
//! `#[ignore]`d: set TERMIC_REAL_AGENTS to the cache `.ci/real-agents-install`
//! filled and pass `--ignored` (`.ci/run` runs them by module, one at a time).
//!
//! `tasks`: through the runtime `termic run` uses; `binary`: through the real
//! binary; `errors`, `error_screen`, `screen`, `more`: failing APIs, screen
//! rules, agents before their hooks; `latency`, `matrix`: measurements.

#[path = "matrix_score/mod.rs"]
mod matrix_score;
mod real_agents_support;
mod wait;

#[path = "real_agents/binary.rs"]
mod binary;
#[path = "real_agents/error_screen.rs"]
mod error_screen;
#[path = "real_agents/errors.rs"]
mod errors;
#[path = "real_agents/latency.rs"]
mod latency;
#[path = "real_agents/matrix.rs"]
mod matrix;
#[path = "real_agents/more.rs"]
mod more;
#[path = "real_agents/screen.rs"]
mod screen;
#[path = "real_agents/tasks.rs"]
mod tasks;
