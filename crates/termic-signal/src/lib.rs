//! termic's state engine: it decides, per task, whether an agent is working,
//! needs you, or is done, and says why.
//!
//! The crate is pure and deterministic. It never reads a clock, a file or an
//! environment variable: the caller feeds it timestamped facts (PTY output
//! bytes, keystrokes, focus, whether that agent's hooks are wired) and it
//! returns state transitions, each with the rule that caused it, plus the next
//! time it wants to be woken.
//!
//! - [`wire`]: the hook-to-termic OSC 777 format (shared with `termic-hooks`).
//! - [`signal`]: what the scanner reports to the engine.
//!
//! Data flows one way: bytes -> scanner -> signals -> engine -> transitions.

pub mod signal;
pub mod wire;
