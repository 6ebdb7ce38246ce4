//! termic-push: compose and deliver termic's notifications to push
//! services. One job, and pure where it can be:
//!
//! - [`payload`]: what a notification says (pure).
//! - [`ece`]: RFC 8291 message encryption (aes128gcm), pure given its
//!   random inputs.
//! - [`vapid`]: RFC 8292 keys (`<state dir>/web/vapid.json`) and tokens.
//! - [`subscriptions`]: the browsers' subscriptions file, read and pruned.
//! - [`deliver`]: the HTTP requests (Web Push, ntfy, a webhook) and the
//!   sync client that sends them, every wait bounded.
//!
//! It decides nothing about when to notify: the server does (its push
//! dispatcher, crates/termic/src/server/push.rs).

pub mod deliver;
pub mod ece;
pub mod payload;
pub mod subscriptions;
pub mod vapid;

pub use vapid::vapid_keys;

/// base64url without padding, as Web Push writes keys; decoding also
/// takes padded input (some browsers' `toJSON` pad).
pub mod b64 {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;

    pub fn encode(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub fn decode(text: &str) -> Option<Vec<u8>> {
        URL_SAFE_NO_PAD
            .decode(text.trim().trim_end_matches('='))
            .ok()
    }
}
