//! The workspace application: state, the event loop and the glue between
//! the outer terminal, the task runtime, the signal engine and the screens.
//!
//! - [`keys`]: what a key means (agent bytes or a prefix command). Pure.
//! - [`tasks`]: the task list, badges, focus and Inspector timelines. Pure.
//! - [`terminal`]: the outer terminal's modes, restored on every exit.

pub mod keys;
pub mod tasks;
pub mod terminal;
