//! Install, remove and verify termic's lifecycle hooks in each agent's own
//! global config, without ever losing a byte of the user's settings.
//!
//! Plan, then apply: an install or removal first becomes an `InstallPlan`
//! (the exact files and bytes to write), which the caller shows the user,
//! then applies atomically. Nothing here reads `$HOME` or a global: every
//! entry point takes a `Paths` value, so tests run against a fixture HOME.

pub mod agents;
pub mod apply;
pub mod diff;
pub mod edit;
pub mod fsio;
pub mod manifest;
pub mod plan;
pub mod status;
pub mod target;
