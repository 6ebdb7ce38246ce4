//! termic-signal's integration tests in one binary: the engine's rules (one
//! scripted timeline each) and properties, the scanner on hostile, split and
//! per-agent input, and the recorded traces of real agents (tests/traces).
//! `cargo test -p termic-signal --test signal`.

mod common;

#[path = "signal/engine_props.rs"]
mod engine_props;
#[path = "signal/engine_rules.rs"]
mod engine_rules;
#[path = "signal/scanner_hostile.rs"]
mod scanner_hostile;
#[path = "signal/scanner_profiles.rs"]
mod scanner_profiles;
#[path = "signal/scanner_split.rs"]
mod scanner_split;
#[path = "signal/traces.rs"]
mod traces;
