//! VAPID (RFC 8292): the application server's P-256 key pair, kept in
//! `<state dir>/web/vapid.json`, and the ES256 JWT that goes with each
//! push request (`Authorization: vapid t=<jwt>, k=<public key>`).
//!
//! The file is shared with `termic web` (which gives the public key to the
//! browser when it subscribes): whoever needs it first creates it with
//! `O_EXCL`, mode 0600, so two processes never make two key pairs.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::SecretKey;
use serde::{Deserialize, Serialize};

use crate::b64;

/// The file's name inside `<state dir>/web/`.
pub const VAPID_FILE: &str = "vapid.json";

/// The longest a token may live: RFC 8292 says no more than 24 hours.
pub const MAX_LIFETIME_SECS: u64 = 24 * 3600;

/// How long the tokens we make live: 12 hours, so a push service's clock
/// ahead of ours still accepts them.
pub const LIFETIME_SECS: u64 = 12 * 3600;

/// The application server's key pair.
#[derive(Clone)]
pub struct VapidKeys {
    secret: SecretKey,
}

impl std::fmt::Debug for VapidKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private key.
        write!(f, "VapidKeys {{ public: {} }}", self.public_b64())
    }
}

/// `vapid.json` as written.
#[derive(Serialize, Deserialize)]
struct VapidFile {
    public: String,
    private: String,
}

/// Why the key file could not be loaded or created.
#[derive(Debug, thiserror::Error)]
pub enum VapidError {
    #[error("cannot read or create {path}: {source}", path = path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not termic's VAPID key file ({why}); move it away and termic makes a new one", path = path.display())]
    Invalid { path: PathBuf, why: String },
    #[error("{path} belongs to another user or is readable by others; it was not used", path = path.display())]
    Unsafe { path: PathBuf },
    #[error("the system's random source failed")]
    Random,
}

impl VapidKeys {
    /// A new key pair from the OS's random source.
    pub fn generate() -> Result<VapidKeys, VapidError> {
        let secret = crate::ece::random_secret().map_err(|_| VapidError::Random)?;
        Ok(VapidKeys { secret })
    }

    /// From a 32-byte private scalar.
    pub fn from_private(bytes: &[u8]) -> Option<VapidKeys> {
        SecretKey::from_slice(bytes)
            .ok()
            .map(|secret| VapidKeys { secret })
    }

    /// The public key, uncompressed (65 bytes).
    pub fn public_bytes(&self) -> Vec<u8> {
        self.secret
            .public_key()
            .to_encoded_point(false)
            .as_bytes()
            .to_vec()
    }

    /// The public key as the browser's `applicationServerKey` and the
    /// header's `k=` take it (base64url, no padding).
    pub fn public_b64(&self) -> String {
        b64::encode(&self.public_bytes())
    }

    /// The VAPID JWT for a push to `endpoint` (its origin is the
    /// audience), made at `now_secs` (Unix seconds), with contact `subject`
    /// (a `mailto:` or `https:` URL). Pure but for the signature, which is
    /// deterministic (RFC 6979).
    pub fn token(&self, endpoint: &str, subject: &str, now_secs: u64) -> Option<String> {
        let aud = origin(endpoint)?;
        let header = b64::encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": aud,
            "exp": now_secs + LIFETIME_SECS,
            "sub": subject,
        });
        let claims = b64::encode(claims.to_string().as_bytes());
        let signing_input = format!("{header}.{claims}");
        let signature: Signature = SigningKey::from(&self.secret).sign(signing_input.as_bytes());
        Some(format!(
            "{signing_input}.{}",
            b64::encode(&signature.to_bytes())
        ))
    }

    /// The `Authorization` header's value for a push to `endpoint`.
    pub fn authorization(&self, endpoint: &str, subject: &str, now_secs: u64) -> Option<String> {
        let token = self.token(endpoint, subject, now_secs)?;
        Some(format!("vapid t={token}, k={}", self.public_b64()))
    }
}

/// The claims of a VAPID token whose signature holds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Claims {
    pub aud: String,
    pub exp: u64,
    pub sub: String,
}

/// What a push service does with an `Authorization: vapid` header: the
/// token's ES256 signature checked with the `k=` key, and its claims.
/// Returns the claims and the key. For tests and any receiver.
pub fn verify_authorization(header: &str) -> Result<(Claims, Vec<u8>), String> {
    let rest = header.strip_prefix("vapid ").ok_or("not a vapid header")?;
    let mut token = None;
    let mut key = None;
    for part in rest.split(',') {
        let part = part.trim();
        if let Some(t) = part.strip_prefix("t=") {
            token = Some(t);
        } else if let Some(k) = part.strip_prefix("k=") {
            key = Some(k);
        }
    }
    let (token, key) = (token.ok_or("no t=")?, key.ok_or("no k=")?);
    let key = b64::decode(key).ok_or("k= is not base64url")?;
    let verifying = VerifyingKey::from_sec1_bytes(&key).map_err(|_| "k= is not a P-256 key")?;
    let (signing_input, signature) = token.rsplit_once('.').ok_or("no signature")?;
    let signature = b64::decode(signature).ok_or("the signature is not base64url")?;
    let signature = Signature::from_slice(&signature).map_err(|_| "not an ES256 signature")?;
    verifying
        .verify(signing_input.as_bytes(), &signature)
        .map_err(|_| "the signature does not verify")?;
    let (header, claims) = signing_input.split_once('.').ok_or("no claims")?;
    let header = b64::decode(header).ok_or("the header is not base64url")?;
    let header: serde_json::Value =
        serde_json::from_slice(&header).map_err(|_| "the header is not JSON")?;
    if header["alg"] != "ES256" {
        return Err("alg is not ES256".into());
    }
    let claims = b64::decode(claims).ok_or("the claims are not base64url")?;
    let claims: Claims = serde_json::from_slice(&claims).map_err(|e| e.to_string())?;
    Ok((claims, key))
}

/// `scheme://host[:port]` of a URL: the audience of a VAPID token.
pub fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    // No user info in an origin (and none in a push endpoint).
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    Some(format!(
        "{}://{}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase()
    ))
}

/// Loads `<web dir>/vapid.json`, or creates it (`O_EXCL`, mode 0600, the
/// directory 0700) when it does not exist. A file another process is
/// creating at the same moment is read once it is whole. A file that is
/// not ours (another owner, readable by others) or not a key pair is an
/// error, never overwritten.
pub fn vapid_keys(web_dir: &Path) -> Result<VapidKeys, VapidError> {
    let path = web_dir.join(VAPID_FILE);
    let io = |source| VapidError::Io {
        path: path.clone(),
        source,
    };
    crate::subscriptions::private_dir(web_dir).map_err(io)?;
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path);
    match created {
        Ok(mut file) => {
            let keys = VapidKeys::generate()?;
            let text = serde_json::to_string(&VapidFile {
                public: keys.public_b64(),
                private: b64::encode(&keys.secret.to_bytes()),
            })
            .expect("two strings serialize");
            file.write_all(text.as_bytes()).map_err(io)?;
            file.sync_all().map_err(io)?;
            Ok(keys)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // Its creator may be between open and write: a few tries
            // (half a second) before a file that is not a key pair is
            // called one.
            let mut last = None;
            for _ in 0..50 {
                match read_keys(&path) {
                    Ok(keys) => return Ok(keys),
                    Err(invalid @ VapidError::Invalid { .. }) => {
                        last = Some(invalid);
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    Err(other) => return Err(other),
                }
            }
            Err(last.expect("the loop ran"))
        }
        Err(e) => Err(io(e)),
    }
}

fn read_keys(path: &Path) -> Result<VapidKeys, VapidError> {
    let io = |source| VapidError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.file_type().is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        return Err(VapidError::Unsafe {
            path: path.to_path_buf(),
        });
    }
    let invalid = |why: &str| VapidError::Invalid {
        path: path.to_path_buf(),
        why: why.to_owned(),
    };
    let text = std::fs::read(path).map_err(io)?;
    if text.is_empty() {
        return Err(invalid("empty"));
    }
    let file: VapidFile = serde_json::from_slice(&text).map_err(|_| invalid("not JSON"))?;
    let private = b64::decode(&file.private).ok_or_else(|| invalid("private is not base64url"))?;
    let keys = VapidKeys::from_private(&private)
        .ok_or_else(|| invalid("private is not a P-256 scalar"))?;
    if b64::decode(&file.public).as_deref() != Some(keys.public_bytes().as_slice()) {
        return Err(invalid("public does not match private"));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_token_verifies_and_names_the_endpoints_origin() {
        let keys = VapidKeys::generate().unwrap();
        let endpoint = "https://Push.Example.net:8443/wpush/v2/abc?x=1";
        let header = keys
            .authorization(endpoint, "mailto:me@example.com", 1_000_000)
            .unwrap();
        let (claims, key) = verify_authorization(&header).unwrap();
        assert_eq!(claims.aud, "https://push.example.net:8443");
        assert_eq!(claims.sub, "mailto:me@example.com");
        assert_eq!(claims.exp, 1_000_000 + LIFETIME_SECS);
        assert!(claims.exp - 1_000_000 <= MAX_LIFETIME_SECS);
        assert_eq!(key, keys.public_bytes());
        assert_eq!(key.len(), 65);
        // Another key's signature does not verify.
        let other = VapidKeys::generate().unwrap();
        let forged = header.replace(&keys.public_b64(), &other.public_b64());
        assert!(verify_authorization(&forged).is_err());
    }

    #[test]
    fn an_origin_is_scheme_host_and_port() {
        assert_eq!(origin("https://a.b/c").as_deref(), Some("https://a.b"));
        assert_eq!(
            origin("http://127.0.0.1:9/x").as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(origin("https://u@a.b/c"), None);
        assert_eq!(origin("nope"), None);
    }

    #[test]
    fn the_key_file_is_created_once_0600_and_loaded_after() {
        let dir = tempfile::tempdir().unwrap();
        let web = dir.path().join("web");
        let first = vapid_keys(&web).unwrap();
        let path = web.join(VAPID_FILE);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(&web).unwrap().permissions().mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        let again = vapid_keys(&web).unwrap();
        assert_eq!(first.public_bytes(), again.public_bytes());
        let text: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(text["public"], first.public_b64());
        assert_eq!(
            b64::decode(text["private"].as_str().unwrap())
                .unwrap()
                .len(),
            32
        );
    }

    #[test]
    fn a_key_file_others_can_read_or_that_is_garbage_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let web = dir.path().join("web");
        vapid_keys(&web).unwrap();
        let path = web.join(VAPID_FILE);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(vapid_keys(&web), Err(VapidError::Unsafe { .. })));
        std::fs::write(&path, "{not json").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(matches!(vapid_keys(&web), Err(VapidError::Invalid { .. })));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"{not json",
            "never overwritten"
        );
    }

    #[test]
    fn processes_racing_to_create_it_get_one_key_pair() {
        let dir = tempfile::tempdir().unwrap();
        let web = dir.path().join("web");
        let keys: Vec<Vec<u8>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| vapid_keys(&web).unwrap().public_bytes()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(keys.windows(2).all(|w| w[0] == w[1]));
    }
}
