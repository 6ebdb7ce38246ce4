//! The `termic` crate: the binary's modules as a library, so integration
//! tests under `tests/` can drive the task runtime and the TUI directly.
//! `termic-hooks` owns config installs, `termic-signal` owns the state
//! engine; this crate owns the task runtime (PTYs), the TUI and the glue.

pub mod agents;
pub mod app;
pub mod clock;
pub mod commands;
pub mod config;
pub mod docker;
pub mod eventlog;
pub mod exit_signals;
pub mod input;
pub mod keymap;
pub mod notify;
pub mod paths;
pub mod printed;
pub mod project;
pub mod record;
pub mod record_file;
pub mod replies;
pub mod runtime;
pub mod server;
pub mod shell;
pub mod ui;
pub mod worktree;
