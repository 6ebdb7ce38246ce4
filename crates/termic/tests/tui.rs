//! The TUI end to end: the real `termic` binary in a PTY, driven by keys and
//! judged by its screen (tests/tui/harness.rs); desktop notifications over a
//! private D-Bus. `cargo test -p termic --test tui`.

mod dbus;
mod git_support;
#[path = "tui/harness.rs"]
mod harness;
mod process_table;
mod requires;
mod wait;

#[path = "tui/e2e.rs"]
mod e2e;
#[path = "tui/failed_start.rs"]
mod failed_start;
#[path = "tui/input.rs"]
mod input;
#[path = "tui/notify_dbus.rs"]
mod notify_dbus;
#[path = "tui/outer.rs"]
mod outer;
#[path = "tui/process_hygiene.rs"]
mod process_hygiene;
#[path = "tui/project_paths.rs"]
mod project_paths;
#[path = "tui/review.rs"]
mod review;
#[path = "tui/screens.rs"]
mod screens;
#[path = "tui/workspace.rs"]
mod workspace;
#[path = "tui/worktree_force.rs"]
mod worktree_force;
