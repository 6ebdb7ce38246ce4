//! Hostile output: whatever a program prints, termic's replies carry none of
//! it, the screen model holds, and the TUI stays up. The corpus is
//! tests/hostile/mod.rs. `cargo test -p termic --test hostile`.

#[path = "tui/harness.rs"]
mod harness;
#[path = "hostile/mod.rs"]
mod hostile;
mod reply_grammar;
mod runtime_support;
mod wait;

#[path = "hostile/replies.rs"]
mod replies;
#[path = "hostile/screen.rs"]
mod screen;
#[path = "hostile/tui.rs"]
mod tui;
