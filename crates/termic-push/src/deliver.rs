//! Delivery over HTTP(S): one POST per notification and target, with a
//! sync client (ureq 3, rustls with ring), 5 s to connect and 10 s in
//! all. What the answer means is decided here ([`Outcome::of_status`]);
//! what to do about it (remove a gone subscription, log a drop) is the
//! caller's. Nothing is retried: a push service that is down or says
//! "too many" loses that notification, not the next ones.

use std::time::Duration;

use crate::payload::Notification;
use crate::subscriptions::Subscription;
use crate::{b64, ece, vapid::VapidKeys};

/// Time to connect (DNS, TCP, TLS).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Time for the whole request, answer included.
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a push service keeps a "needs you" for an offline device (a
/// day: it still needs you), and a done or error (an hour: old news after).
pub const TTL_NEEDS_YOU_SECS: u64 = 24 * 3600;
pub const TTL_OTHER_SECS: u64 = 3600;

/// What came of one POST.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// 2xx.
    Delivered(u16),
    /// 404 or 410 from a push service: the subscription is gone.
    Gone(u16),
    /// Any other answer (429, 5xx, 4xx): this notification is dropped.
    Dropped(u16),
    /// No answer: the connection failed or timed out, or the message
    /// could not be made (a subscription's keys are not keys).
    Failed(String),
}

impl Outcome {
    /// What an HTTP status means for a push.
    pub fn of_status(status: u16) -> Outcome {
        match status {
            200..=299 => Outcome::Delivered(status),
            404 | 410 => Outcome::Gone(status),
            other => Outcome::Dropped(other),
        }
    }
}

/// Whether `url` may be posted to: `https://`, or `http://` when
/// `plain_http` allows it. Returns why not.
pub fn check_url(url: &str, plain_http: PlainHttp) -> Result<(), String> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if !lower.starts_with("https://") && !lower.starts_with("http://") {
        return Err("only http:// and https:// URLs are supported".into());
    }
    let host = crate::vapid::origin(url).ok_or("it is not a URL like https://host/path")?;
    if lower.starts_with("https://") {
        return Ok(());
    }
    let host = host.trim_start_matches("http://");
    let loopback =
        host.starts_with("127.") || host.starts_with("localhost") || host.starts_with("[::1]");
    match plain_http {
        PlainHttp::Allowed => Ok(()),
        PlainHttp::LoopbackOnly if loopback => Ok(()),
        PlainHttp::LoopbackOnly => {
            Err("a push endpoint must be https:// (http:// only on this machine)".into())
        }
    }
}

/// Where plain `http://` is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainHttp {
    /// A URL the user wrote in config.toml (a local ntfy, a LAN webhook).
    Allowed,
    /// A push endpoint a browser gave: push services are https; plain
    /// http only to this machine (a local relay, the tests).
    LoopbackOnly,
}

/// One request: method POST, headers, body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// The Web Push request for `note` to `sub` (RFC 8030 with RFC 8291's
/// encryption and RFC 8292's VAPID), at `now_secs` (Unix seconds).
pub fn web_push_request(
    note: &Notification,
    sub: &Subscription,
    keys: &VapidKeys,
    subject: &str,
    now_secs: u64,
) -> Result<Request, String> {
    check_url(&sub.endpoint, PlainHttp::LoopbackOnly)?;
    let ua_public = b64::decode(&sub.keys.p256dh).ok_or("p256dh is not base64url")?;
    let auth = b64::decode(&sub.keys.auth).ok_or("auth is not base64url")?;
    let body = ece::encrypt(&note.json(), &ua_public, &auth).map_err(|e| e.to_string())?;
    let authorization = keys
        .authorization(&sub.endpoint, subject, now_secs)
        .ok_or("the endpoint has no origin")?;
    let needs_you = note.why.needs_you();
    let ttl = if needs_you {
        TTL_NEEDS_YOU_SECS
    } else {
        TTL_OTHER_SECS
    };
    Ok(Request {
        url: sub.endpoint.clone(),
        headers: vec![
            ("Content-Encoding", "aes128gcm".into()),
            ("Content-Type", "application/octet-stream".into()),
            ("TTL", ttl.to_string()),
            ("Urgency", if needs_you { "high" } else { "normal" }.into()),
            // A newer notification about the same task replaces an
            // undelivered older one at the push service (RFC 8030 5.4).
            ("Topic", note.topic()),
            ("Authorization", authorization),
        ],
        body,
    })
}

/// The ntfy request: the body as the message, the title and priority as
/// headers (a non-ASCII title RFC 2047-encoded, as ntfy reads it).
pub fn ntfy_request(note: &Notification, url: &str, token: Option<&str>) -> Request {
    let payload = note.payload();
    let mut headers = vec![
        ("Title", header_text(&payload.title)),
        (
            "Priority",
            if note.why.needs_you() {
                "high"
            } else {
                "default"
            }
            .into(),
        ),
        ("Tags", format!("termic,{}", payload.reason)),
    ];
    if let Some(token) = token.filter(|t| !t.is_empty()) {
        headers.push(("Authorization", format!("Bearer {token}")));
    }
    Request {
        url: url.to_owned(),
        headers,
        body: payload.body.into_bytes(),
    }
}

/// The webhook request: the payload as JSON.
pub fn webhook_request(note: &Notification, url: &str) -> Request {
    Request {
        url: url.to_owned(),
        headers: vec![("Content-Type", "application/json".into())],
        body: note.json(),
    }
}

/// Header-safe text: ASCII as is, else RFC 2047 base64 UTF-8.
fn header_text(text: &str) -> String {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        text.to_owned()
    } else {
        use base64::Engine;
        format!(
            "=?UTF-8?B?{}?=",
            base64::engine::general_purpose::STANDARD.encode(text)
        )
    }
}

/// The HTTP client: one per dispatcher, its connections reused.
pub struct Client {
    agent: ureq::Agent,
}

impl Default for Client {
    fn default() -> Self {
        Client::new(CONNECT_TIMEOUT, TOTAL_TIMEOUT)
    }
}

impl Client {
    pub fn new(connect: Duration, total: Duration) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(connect))
            .timeout_global(Some(total))
            .http_status_as_error(false)
            // A push service answers; it does not send us elsewhere.
            .max_redirects(0)
            .user_agent(concat!("termic/", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: config.into(),
        }
    }

    /// POSTs `request` and returns what the answer means.
    pub fn post(&self, request: &Request) -> Outcome {
        let mut builder = self.agent.post(&request.url);
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        match builder.send(&request.body[..]) {
            Ok(response) => Outcome::of_status(response.status().as_u16()),
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Why;
    use crate::subscriptions::Keys;
    use p256::elliptic_curve::sec1::ToEncodedPoint;

    fn note(why: Why) -> Notification {
        Notification {
            remote: None,
            task: 2,
            name: "login".into(),
            host: "devbox".into(),
            why,
            actions: Vec::new(),
        }
    }

    #[test]
    fn statuses_mean_delivered_gone_or_dropped() {
        assert_eq!(Outcome::of_status(201), Outcome::Delivered(201));
        assert_eq!(Outcome::of_status(410), Outcome::Gone(410));
        assert_eq!(Outcome::of_status(404), Outcome::Gone(404));
        assert_eq!(Outcome::of_status(429), Outcome::Dropped(429));
        assert_eq!(Outcome::of_status(503), Outcome::Dropped(503));
    }

    #[test]
    fn urls_are_http_or_https_and_push_endpoints_https_off_this_machine() {
        assert!(check_url("https://ntfy.sh/t", PlainHttp::Allowed).is_ok());
        assert!(check_url("http://10.0.0.2/hook", PlainHttp::Allowed).is_ok());
        assert!(check_url("ftp://x/y", PlainHttp::Allowed).is_err());
        assert!(check_url("javascript:alert(1)", PlainHttp::Allowed).is_err());
        assert!(check_url("http://push.example/x", PlainHttp::LoopbackOnly).is_err());
        assert!(check_url("http://127.0.0.1:9/x", PlainHttp::LoopbackOnly).is_ok());
        assert!(check_url("HTTPS://push.example/x", PlainHttp::LoopbackOnly).is_ok());
    }

    #[test]
    fn a_web_push_request_has_the_headers_and_decrypts() {
        let ua = ece::random_secret().unwrap();
        let auth = [9u8; 16];
        let sub = Subscription {
            device: "phone".into(),
            endpoint: "https://push.example/wpush/abc".into(),
            keys: Keys {
                p256dh: b64::encode(ua.public_key().to_encoded_point(false).as_bytes()),
                auth: b64::encode(&auth),
            },
            muted: Vec::new(),
            muted_remote: Vec::new(),
            needs_you_only: false,
        };
        let keys = VapidKeys::generate().unwrap();
        let why = Why::NeedsYou {
            kind: Some("permission".into()),
            detail: Some("Write src/login.rs".into()),
        };
        let req = web_push_request(&note(why), &sub, &keys, "mailto:a@b.c", 100).unwrap();
        let header = |n: &str| {
            req.headers
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(header("Urgency").as_deref(), Some("high"));
        assert_eq!(header("Content-Encoding").as_deref(), Some("aes128gcm"));
        assert_eq!(header("TTL").as_deref(), Some("86400"));
        let (claims, _) =
            crate::vapid::verify_authorization(&header("Authorization").unwrap()).unwrap();
        assert_eq!(claims.aud, "https://push.example");
        let plain = ece::decrypt(&req.body, &ua, &auth).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&plain).unwrap();
        assert_eq!(json["body"], "permission: Write src/login.rs");
        let done = web_push_request(&note(Why::Done), &sub, &keys, "mailto:a@b.c", 100).unwrap();
        assert!(done.headers.contains(&("Urgency", "normal".into())));
    }

    #[test]
    fn ntfy_gets_title_priority_and_token() {
        let mut n = note(Why::Done);
        n.name = "café".into();
        let req = ntfy_request(&n, "https://ntfy.sh/t", Some("tk"));
        assert_eq!(req.body, b"done");
        assert!(req.headers.contains(&("Authorization", "Bearer tk".into())));
        assert!(req.headers.contains(&("Priority", "default".into())));
        let title = &req.headers[0].1;
        assert!(title.starts_with("=?UTF-8?B?"), "{title}");
    }
}
