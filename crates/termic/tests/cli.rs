//! The `termic` command line through the real binary: help and completions,
//! `termic config`, `termic hooks` (install, remove, status, odd files).
//! One module per former test file; `cargo test -p termic --test cli`.

mod cli_fixture;
mod git_support;
#[path = "tui/harness.rs"]
mod harness;
mod wait;

#[path = "cli/config.rs"]
mod config;
#[path = "cli/help.rs"]
mod help;
#[path = "cli/hooks.rs"]
mod hooks;
#[path = "cli/hooks_odd_files.rs"]
mod hooks_odd_files;
#[path = "cli/replay.rs"]
mod replay;
