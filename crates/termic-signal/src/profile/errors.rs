//! How an agent words an API error it gave up on, per profile: text rules
//! that name the reason (rate limited, overloaded, ...) from the message
//! the agent itself reports (Claude's native `state=error` `msg=`).

use super::AgentProfile;
use crate::stop::StopReason;

/// A message containing `contains` means `reason`. Evaluated in order,
/// first match wins; no match is a plain "API error".
#[derive(Debug)]
pub struct ErrorText {
    /// Stable id shown in the Inspector, `<agent>.<name>`.
    pub id: &'static str,
    pub contains: &'static str,
    pub reason: StopReason,
    /// What was measured, on which version.
    pub why: &'static str,
}

impl AgentProfile {
    /// The error a native `blocked` of this `kind` really is, if any.
    pub fn blocked_kind_error(&self, kind: Option<&str>) -> Option<StopReason> {
        let kind = kind?;
        self.error_kinds
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, reason)| *reason)
    }

    /// The reason an error message names, and the rule that said so.
    pub fn classify_error(&self, message: &str) -> (StopReason, Option<&'static str>) {
        self.error_text
            .iter()
            .find(|rule| message.contains(rule.contains))
            .map_or((StopReason::ApiError, None), |rule| {
                (rule.reason, Some(rule.id))
            })
    }
}
