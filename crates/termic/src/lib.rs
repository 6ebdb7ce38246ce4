//! The `termic` crate: the binary's modules as a library, so integration
//! tests under `tests/` can drive the task runtime and the TUI directly.
//! `termic-hooks` owns config installs, `termic-signal` owns the state
//! engine, `termic-runtime` the tasks (PTYs, screens, replies, event log,
//! recordings); this crate owns the CLI, the server, the TUI and the glue.

pub mod agents;
pub mod app;
pub mod commands;
pub mod config;
pub mod docker;
pub mod exit_signals;
pub mod input;
pub mod keymap;
pub mod notify;
pub mod outer;
pub mod paths;
pub mod printed;
pub mod project;
pub mod review;
pub mod server;
#[cfg(test)]
pub(crate) mod test_support;
pub mod ui;
pub mod workspace;
pub mod worktree;
