//! The runtime without a UI: tasks in real PTYs, the engine wiring, the event
//! log, recording, the screen model and its fast paths, the vendored vte, the
//! reply builder, the signal tap, worktrees. `cargo test -p termic --test runtime`.

mod git_support;
mod reply_grammar;
mod runtime_support;
mod wait;

#[path = "runtime/engine.rs"]
mod engine;
#[path = "runtime/env.rs"]
mod env;
#[path = "runtime/eventlog_flood.rs"]
mod eventlog_flood;
#[path = "runtime/record.rs"]
mod record;
#[path = "runtime/replies_props.rs"]
mod replies_props;
#[path = "runtime/screen_fast_path.rs"]
mod screen_fast_path;
#[path = "runtime/screen_rules.rs"]
mod screen_rules;
#[path = "runtime/signal_tap.rs"]
mod signal_tap;
#[path = "runtime/spawn.rs"]
mod spawn;
#[path = "runtime/vte_utf8.rs"]
mod vte_utf8;
#[path = "runtime/worktree.rs"]
mod worktree;
