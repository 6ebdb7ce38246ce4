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
//! - `heuristics`: the timers (settle, fallbacks, ceilings, debounce, interrupt quiet).

mod error;
mod heuristics;
mod hooks;
mod keys;
mod native;
pub(in crate::engine) mod plain;
mod signals;
mod turn;
