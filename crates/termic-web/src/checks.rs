//! Pure checks on a request's headers: Host (DNS rebinding), Origin, the
//! device cookie, the pairing rate limit. Values in, answers out; no I/O,
//! time given.

use std::collections::VecDeque;

/// The cookie that carries a device's credential.
pub const COOKIE: &str = "termic_device";

/// Whether the Host header names one of the addresses the server answers
/// as (compared without case; a missing Host is refused).
pub fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    match host {
        Some(h) => allowed.iter().any(|a| a.eq_ignore_ascii_case(h.trim())),
        None => false,
    }
}

/// Whether `origin` is the page's own origin: the scheme the browser used
/// and the Host that passed [`host_allowed`]. `https_too`: behind a proxy
/// that ends TLS, the browser's scheme is https though termic speaks http.
/// No Origin is refused (a browser always sends one on a WebSocket and a
/// POST).
pub fn origin_allowed(origin: Option<&str>, host: &str, tls: bool, https_too: bool) -> bool {
    let Some(origin) = origin else {
        return false;
    };
    let origin = origin.trim();
    let http = format!("http://{host}");
    let https = format!("https://{host}");
    if tls {
        origin.eq_ignore_ascii_case(&https)
    } else {
        origin.eq_ignore_ascii_case(&http) || (https_too && origin.eq_ignore_ascii_case(&https))
    }
}

/// The value of cookie `name` in a Cookie header.
pub fn cookie<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        (k.trim() == name).then(|| v.trim())
    })
}

/// Whether the Host header's host part is a loopback name (a browser
/// keeps a Secure cookie on http there: it is a secure context).
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((n, port)) if port.chars().all(|c| c.is_ascii_digit()) => n,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A device's name from its User-Agent: browser and system, plain words
/// (never the raw header: it is the client's text).
pub fn device_name(user_agent: &str) -> String {
    let ua = user_agent;
    let browser = if ua.contains("Firefox/") {
        "Firefox"
    } else if ua.contains("Edg/") {
        "Edge"
    } else if ua.contains("Chrome/") || ua.contains("Chromium/") {
        "Chrome"
    } else if ua.contains("Safari/") {
        "Safari"
    } else {
        "Browser"
    };
    let system = if ua.contains("Android") {
        "Android"
    } else if ua.contains("iPhone") {
        "iPhone"
    } else if ua.contains("iPad") {
        "iPad"
    } else if ua.contains("Mac OS") {
        "macOS"
    } else if ua.contains("Windows") {
        "Windows"
    } else if ua.contains("Linux") {
        "Linux"
    } else {
        "unknown system"
    };
    format!("{browser} on {system}")
}

/// At most `max` attempts in any `window_ms`, for the whole server (a
/// guesser on many addresses gets no more).
#[derive(Debug)]
pub struct RateLimit {
    max: usize,
    window_ms: u64,
    recent: VecDeque<u64>,
}

impl RateLimit {
    pub fn new(max: usize, window_ms: u64) -> Self {
        RateLimit {
            max,
            window_ms,
            recent: VecDeque::with_capacity(max),
        }
    }

    /// Counts an attempt at `now_ms`; false: over the limit (not counted).
    pub fn attempt(&mut self, now_ms: u64) -> bool {
        while self
            .recent
            .front()
            .is_some_and(|t| now_ms.saturating_sub(*t) >= self.window_ms)
        {
            self.recent.pop_front();
        }
        if self.recent.len() >= self.max {
            return false;
        }
        self.recent.push_back(now_ms);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_must_be_listed() {
        let allowed = vec!["127.0.0.1:7501".to_string(), "localhost:7501".to_string()];
        assert!(host_allowed(Some("127.0.0.1:7501"), &allowed));
        assert!(host_allowed(Some("LOCALHOST:7501"), &allowed));
        assert!(!host_allowed(Some("evil.example:7501"), &allowed));
        assert!(!host_allowed(Some("127.0.0.1:80"), &allowed));
        assert!(!host_allowed(None, &allowed));
    }

    #[test]
    fn origin_must_be_the_pages_own() {
        let h = "127.0.0.1:7501";
        assert!(origin_allowed(
            Some("http://127.0.0.1:7501"),
            h,
            false,
            false
        ));
        assert!(!origin_allowed(
            Some("https://127.0.0.1:7501"),
            h,
            false,
            false
        ));
        assert!(origin_allowed(
            Some("https://127.0.0.1:7501"),
            h,
            false,
            true
        ));
        assert!(!origin_allowed(
            Some("http://127.0.0.1:7501"),
            h,
            true,
            false
        ));
        assert!(!origin_allowed(Some("http://evil.example"), h, false, true));
        assert!(!origin_allowed(Some("null"), h, false, false));
        assert!(!origin_allowed(None, h, false, false));
    }

    #[test]
    fn cookie_found_by_exact_name() {
        let h = "a=1; termic_device_x=2; termic_device=abc ; z=3";
        assert_eq!(cookie(h, COOKIE), Some("abc"));
        assert_eq!(cookie("x=1", COOKIE), None);
    }

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback_host("localhost:7501"));
        assert!(is_loopback_host("127.0.0.1:7501"));
        assert!(is_loopback_host("[::1]:7501"));
        assert!(!is_loopback_host("192.168.1.2:7501"));
        assert!(!is_loopback_host("localhost.evil.example:7501"));
    }

    #[test]
    fn rate_limit_counts_a_sliding_window() {
        let mut r = RateLimit::new(5, 60_000);
        for i in 0..5 {
            assert!(r.attempt(i));
        }
        assert!(!r.attempt(10));
        assert!(!r.attempt(59_999));
        assert!(r.attempt(60_000));
    }

    #[test]
    fn device_names_are_plain() {
        let ua =
            "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36";
        assert_eq!(device_name(ua), "Chrome on Android");
        assert_eq!(device_name("<script>"), "Browser on unknown system");
    }
}
