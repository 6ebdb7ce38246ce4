//! Why an agent stopped on an error instead of finishing its turn: the
//! reason the badge, the Inspector, the event log and the notification
//! name ("stopped: rate limited"). One token per reason on the wire, so a
//! hook script or plugin maps its agent's own words onto these.

use std::fmt;

/// The error that ended an agent's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// HTTP 429 or the provider's rate-limit error.
    RateLimited,
    /// Anthropic's 529 `overloaded_error` (or another provider's overload).
    Overloaded,
    /// HTTP 5xx or the provider's internal error.
    ServerError,
    /// HTTP 401/403: a missing, wrong or expired key or login.
    AuthFailed,
    /// Any other API error the agent reported (billing, a bad request, a
    /// model that does not exist).
    ApiError,
}

impl StopReason {
    pub const ALL: [StopReason; 5] = [
        StopReason::RateLimited,
        StopReason::Overloaded,
        StopReason::ServerError,
        StopReason::AuthFailed,
        StopReason::ApiError,
    ];

    /// The token on the wire (`reason=rate_limited`).
    pub fn as_wire(self) -> &'static str {
        match self {
            StopReason::RateLimited => "rate_limited",
            StopReason::Overloaded => "overloaded",
            StopReason::ServerError => "server_error",
            StopReason::AuthFailed => "auth_failed",
            StopReason::ApiError => "api_error",
        }
    }

    /// A wire token back to the reason. Anything unknown is `None` (the
    /// engine then says "API error": an error it cannot name is still an
    /// error, never a done).
    pub fn from_wire(token: &str) -> Option<StopReason> {
        StopReason::ALL.into_iter().find(|r| r.as_wire() == token)
    }

    /// What a user reads after "stopped: ".
    pub fn label(self) -> &'static str {
        match self {
            StopReason::RateLimited => "rate limited",
            StopReason::Overloaded => "overloaded",
            StopReason::ServerError => "server error",
            StopReason::AuthFailed => "auth failed",
            StopReason::ApiError => "API error",
        }
    }

    /// The reason an HTTP status means, for agents that only show a status.
    pub fn from_http_status(status: u16) -> StopReason {
        match status {
            429 => StopReason::RateLimited,
            529 => StopReason::Overloaded,
            401 | 403 => StopReason::AuthFailed,
            500..=599 => StopReason::ServerError,
            _ => StopReason::ApiError,
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_tokens_round_trip_and_unknown_is_none() {
        for r in StopReason::ALL {
            assert_eq!(StopReason::from_wire(r.as_wire()), Some(r));
            assert!(r
                .as_wire()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_'));
        }
        assert_eq!(StopReason::from_wire("rate limited"), None);
        assert_eq!(StopReason::from_wire(""), None);
    }

    #[test]
    fn http_statuses_map_to_the_reasons_a_user_knows() {
        let cases = [
            (429, StopReason::RateLimited),
            (529, StopReason::Overloaded),
            (500, StopReason::ServerError),
            (503, StopReason::ServerError),
            (401, StopReason::AuthFailed),
            (403, StopReason::AuthFailed),
            (400, StopReason::ApiError),
        ];
        for (status, reason) in cases {
            assert_eq!(StopReason::from_http_status(status), reason, "{status}");
        }
    }

    #[test]
    fn labels_are_plain_copy() {
        for r in StopReason::ALL {
            let label = r.label();
            assert!(
                !label.contains('\u{2014}') && !label.contains('_'),
                "{label}"
            );
        }
    }
}
