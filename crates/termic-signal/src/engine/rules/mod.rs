//! The rules, one file per group. Each file adds methods to `Engine`.
//!
//! - `turn`: the one place state changes (`go`), the done token, the
//!   false-done signature, turn start and end.
//! - `signals`: titles, notifications, activity and the other scanner signals.
//! - `hooks`: termic hook messages (wire format v1).
//! - `error`: the error state (an agent that gave up on an API error).
//! - `native`: OSC 7501 program status.
//! - `keys`: Enter, and Escape / Ctrl-C as interrupt evidence.
//! - `plain`: any command and an integrated shell (OSC 133), and the
//!   runtime profile switch for an agent started inside them.
//! - `screen_rules`: the profile's screen rules (needs you, hold a done back).
//! - `heuristics`: the timers (settle, fallbacks, ceilings, debounce, interrupt quiet).

mod error;
mod heuristics;
mod hooks;
mod keys;
mod native;
pub(in crate::engine) mod plain;
pub(in crate::engine) mod screen_rules;
mod signals;
mod turn;
