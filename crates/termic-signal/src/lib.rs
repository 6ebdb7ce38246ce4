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
//! - [`scanner`]: PTY bytes to [`signal::Signal`]s (a vte state machine).
//! - [`profile`]: per-agent detection data (title patterns, notify filters).
//! - [`engine`]: the state machine.
//! - [`stop`]: why an agent stopped on an error (rate limited, ...).
//! - [`limit`]: when a usage limit resets ("rate limited until 15:00").
//! - [`replay`]: asciicast v2 recordings in, transition timeline out.
//! - [`text`]: the one rule for showing text from outside termic.
//!
//! Data flows one way: bytes -> scanner -> signals -> engine -> transitions.

pub mod engine;
pub mod limit;
pub mod profile;
pub mod replay;
pub mod scanner;
pub mod signal;
pub mod stop;
pub mod text;
pub mod wire;
