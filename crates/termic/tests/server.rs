//! The per-user server through the real binary: attach and detach, the CLI
//! verbs against a running server, the wire protocol's properties.
//! `cargo test -p termic --test server`.

mod dbus;
mod git_support;
#[path = "tui/harness.rs"]
mod harness;
#[path = "hostile/mod.rs"]
mod hostile_corpus;
mod process_table;
#[path = "requires/mod.rs"]
mod requires;
mod served;
mod wait;

#[path = "server/answer.rs"]
mod answer;
#[path = "server/attach.rs"]
mod attach;
#[path = "server/cli.rs"]
mod cli;
#[path = "server/hosts.rs"]
mod hosts;
#[path = "server/protocol_props.rs"]
mod protocol_props;
#[path = "server/push.rs"]
mod push;
#[path = "server/review.rs"]
mod review;
#[path = "server/vttest.rs"]
mod vttest;
#[path = "server/web.rs"]
mod web;
