//! GitHub Copilot CLI: termic has no hook adapter for it yet (none is written
//! from vendor docs); status lists it as not supported.

use super::status_only::StatusOnly;

pub static COPILOT: StatusOnly = StatusOnly::not_supported("copilot");
