//! One test per engine rule, each a scripted timeline on a virtual clock
//! (format: tests/common/script.rs). One file per rule group.

#[path = "engine_rules/errors.rs"]
mod errors;
#[path = "engine_rules/heuristics.rs"]
mod heuristics;
#[path = "engine_rules/hooks.rs"]
mod hooks;
#[path = "engine_rules/interrupts.rs"]
mod interrupts;
#[path = "engine_rules/native.rs"]
mod native;
#[path = "engine_rules/plain.rs"]
mod plain;
#[path = "engine_rules/rate_limit.rs"]
mod rate_limit;
#[path = "engine_rules/screen_errors.rs"]
mod screen_errors;
#[path = "engine_rules/screen_rules.rs"]
mod screen_rules;
#[path = "engine_rules/turns.rs"]
mod turns;
