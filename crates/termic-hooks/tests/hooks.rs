//! termic-hooks's integration tests in one binary: install and remove into
//! fixture HOMEs, the hook scripts in a real PTY, the status file, the config
//! writer's suite, crash points and the concurrent soak.
//! `cargo test -p termic-hooks --test hooks`.

mod common;

#[path = "hooks/concurrent_soak.rs"]
mod concurrent_soak;
#[path = "hooks/crash_points.rs"]
mod crash_points;
#[path = "hooks/install_corpus.rs"]
mod install_corpus;
#[path = "hooks/install_props.rs"]
mod install_props;
#[path = "hooks/install_roundtrip.rs"]
mod install_roundtrip;
#[path = "hooks/odd_files.rs"]
mod odd_files;
#[path = "hooks/opencode_plugin.rs"]
mod opencode_plugin;
#[path = "hooks/scripts.rs"]
mod scripts;
#[path = "hooks/status.rs"]
mod status;
#[path = "hooks/write_window.rs"]
mod write_window;
#[path = "hooks/writer_suite.rs"]
mod writer_suite;
