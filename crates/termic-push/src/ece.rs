//! Message encryption for Web Push (RFC 8291): the `aes128gcm` content
//! coding of RFC 8188 with a key from ECDH on P-256 and the subscription's
//! auth secret. Composed from RustCrypto's `p256`, `hkdf` (SHA-256) and
//! `aes-gcm`, step by step as the RFC writes it; no primitive of our own.
//!
//! [`encrypt_with`] is pure (the ephemeral key and the salt come in), so
//! the RFC's example is a unit test; [`encrypt`] draws them from the OS.
//! [`decrypt`] is the user agent's side, for tests and any receiver.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes128Gcm, Nonce};
use hkdf::Hkdf;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use sha2::Sha256;

/// The record size written in the header: one record holds a whole push
/// message (push services take at most 4096 bytes of body).
pub const RECORD_SIZE: u32 = 4096;

/// The most plaintext one message carries: a record of [`RECORD_SIZE`]
/// less the header (86 bytes), the tag (16) and the delimiter (1).
pub const MAX_PLAINTEXT: usize = RECORD_SIZE as usize - 86 - 16 - 1;

/// Why a message could not be encrypted or decrypted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EceError {
    #[error("the subscription's p256dh key is not a P-256 point")]
    BadPublicKey,
    #[error("the subscription's auth secret is not 16 bytes")]
    BadAuth,
    #[error("the message is {0} bytes, more than one push record holds")]
    TooLong(usize),
    #[error("the system's random source failed")]
    Random,
    #[error("the message is not a valid aes128gcm body")]
    Malformed,
    #[error("the message does not decrypt with these keys")]
    Decrypt,
}

/// The content encryption key and nonce for one message (RFC 8291
/// section 3.4 then RFC 8188 section 2.2).
fn key_and_nonce(
    ecdh_secret: &[u8],
    auth: &[u8],
    ua_public: &[u8],
    as_public: &[u8],
    salt: &[u8],
) -> ([u8; 16], [u8; 12]) {
    // PRK_key = HKDF-Extract(salt=auth_secret, IKM=ecdh_secret)
    // IKM = HKDF-Expand(PRK_key, "WebPush: info" || 0x00 || ua_public || as_public, 32)
    let mut key_info = Vec::with_capacity(14 + 65 + 65);
    key_info.extend_from_slice(b"WebPush: info\0");
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(as_public);
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), ecdh_secret)
        .expand(&key_info, &mut ikm)
        .expect("32 bytes is a valid HKDF-SHA256 length");
    // PRK = HKDF-Extract(salt, IKM); CEK and NONCE from it.
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    let mut nonce = [0u8; 12];
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .expect("16 bytes is a valid HKDF-SHA256 length");
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .expect("12 bytes is a valid HKDF-SHA256 length");
    (cek, nonce)
}

/// Encrypts `plaintext` for the user agent whose key is `ua_public`
/// (65-byte uncompressed point) and auth secret `auth` (16 bytes), with
/// the application server's ephemeral key `as_private` and `salt`. The
/// result is the whole request body: header (salt, record size, key id =
/// the ephemeral public key) and one record. Pure.
pub fn encrypt_with(
    plaintext: &[u8],
    ua_public: &[u8],
    auth: &[u8],
    as_private: &SecretKey,
    salt: &[u8; 16],
) -> Result<Vec<u8>, EceError> {
    if plaintext.len() > MAX_PLAINTEXT {
        return Err(EceError::TooLong(plaintext.len()));
    }
    if auth.len() != 16 {
        return Err(EceError::BadAuth);
    }
    let ua = PublicKey::from_sec1_bytes(ua_public).map_err(|_| EceError::BadPublicKey)?;
    let ua_bytes = ua.to_encoded_point(false);
    let as_bytes = as_private.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(as_private.to_nonzero_scalar(), ua.as_affine());
    let (cek, nonce) = key_and_nonce(
        shared.raw_secret_bytes(),
        auth,
        ua_bytes.as_bytes(),
        as_bytes.as_bytes(),
        salt,
    );
    // One record, the last: the plaintext then the 0x02 delimiter, no
    // padding (RFC 8188 section 2).
    let mut record = Vec::with_capacity(plaintext.len() + 1);
    record.extend_from_slice(plaintext);
    record.push(2);
    let sealed = Aes128Gcm::new(&cek.into())
        .encrypt(Nonce::from_slice(&nonce), record.as_slice())
        .map_err(|_| EceError::Malformed)?;
    let key_id = as_bytes.as_bytes();
    let mut body = Vec::with_capacity(16 + 4 + 1 + key_id.len() + sealed.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(key_id.len() as u8);
    body.extend_from_slice(key_id);
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// [`encrypt_with`] with a fresh ephemeral key and salt from the OS.
pub fn encrypt(plaintext: &[u8], ua_public: &[u8], auth: &[u8]) -> Result<Vec<u8>, EceError> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|_| EceError::Random)?;
    encrypt_with(plaintext, ua_public, auth, &random_secret()?, &salt)
}

/// A fresh P-256 private key from the OS's random source.
pub fn random_secret() -> Result<SecretKey, EceError> {
    // A 32-byte string is a valid scalar unless it is 0 or >= n (odds
    // about 2^-32): draw again then.
    for _ in 0..8 {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|_| EceError::Random)?;
        if let Ok(key) = SecretKey::from_slice(&bytes) {
            return Ok(key);
        }
    }
    Err(EceError::Random)
}

/// The user agent's side: decrypts a body made by [`encrypt_with`] (one
/// record) with the subscription's private key and auth secret.
pub fn decrypt(body: &[u8], ua_private: &SecretKey, auth: &[u8]) -> Result<Vec<u8>, EceError> {
    let (salt, rest) = body.split_at_checked(16).ok_or(EceError::Malformed)?;
    let (_rs, rest) = rest.split_at_checked(4).ok_or(EceError::Malformed)?;
    let (&id_len, rest) = rest.split_first().ok_or(EceError::Malformed)?;
    let (key_id, sealed) = rest
        .split_at_checked(usize::from(id_len))
        .ok_or(EceError::Malformed)?;
    let as_public = PublicKey::from_sec1_bytes(key_id).map_err(|_| EceError::Malformed)?;
    let ua_public = ua_private.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(ua_private.to_nonzero_scalar(), as_public.as_affine());
    let (cek, nonce) = key_and_nonce(
        shared.raw_secret_bytes(),
        auth,
        ua_public.as_bytes(),
        key_id,
        salt,
    );
    let mut record = Aes128Gcm::new(&cek.into())
        .decrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: sealed,
                aad: b"",
            },
        )
        .map_err(|_| EceError::Decrypt)?;
    // Strip the padding, then the last-record delimiter.
    while record.last() == Some(&0) {
        record.pop();
    }
    if record.pop() != Some(2) {
        return Err(EceError::Malformed);
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::b64;

    /// RFC 8291 section 5 (and its Appendix A intermediate values).
    const PLAINTEXT: &[u8] = b"When I grow up, I want to be a watermelon";
    const UA_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgD\
                        ll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2\
                        Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    fn key(text: &str) -> SecretKey {
        SecretKey::from_slice(&b64::decode(text).unwrap()).unwrap()
    }

    #[test]
    fn the_rfc_8291_example_encrypts_to_the_exact_body() {
        let salt: [u8; 16] = b64::decode(SALT).unwrap().try_into().unwrap();
        let body = encrypt_with(
            PLAINTEXT,
            &b64::decode(UA_PUBLIC).unwrap(),
            &b64::decode(AUTH).unwrap(),
            &key(AS_PRIVATE),
            &salt,
        )
        .unwrap();
        assert_eq!(b64::encode(&body), BODY);
    }

    #[test]
    fn the_rfc_8291_example_decrypts_with_the_user_agents_keys() {
        let body = b64::decode(BODY).unwrap();
        let auth = b64::decode(AUTH).unwrap();
        assert_eq!(decrypt(&body, &key(UA_PRIVATE), &auth).unwrap(), PLAINTEXT);
        // Another auth secret, or a flipped byte: refused, not garbage.
        assert_eq!(
            decrypt(&body, &key(UA_PRIVATE), &[0; 16]),
            Err(EceError::Decrypt)
        );
        let mut bent = body.clone();
        *bent.last_mut().unwrap() ^= 1;
        assert_eq!(
            decrypt(&bent, &key(UA_PRIVATE), &auth),
            Err(EceError::Decrypt)
        );
        assert_eq!(
            decrypt(&body[..10], &key(UA_PRIVATE), &auth),
            Err(EceError::Malformed)
        );
    }

    #[test]
    fn fresh_keys_round_trip_and_differ_each_time() {
        let ua = random_secret().unwrap();
        let ua_public = ua.public_key().to_encoded_point(false);
        let auth = [7u8; 16];
        let one = encrypt(b"hello", ua_public.as_bytes(), &auth).unwrap();
        let two = encrypt(b"hello", ua_public.as_bytes(), &auth).unwrap();
        assert_ne!(one, two, "a fresh salt and key per message");
        assert_eq!(decrypt(&one, &ua, &auth).unwrap(), b"hello");
        assert_eq!(decrypt(&two, &ua, &auth).unwrap(), b"hello");
    }

    #[test]
    fn bad_keys_and_long_messages_are_refused() {
        let ua = random_secret().unwrap();
        let ua_public = ua.public_key().to_encoded_point(false);
        assert_eq!(
            encrypt(b"x", &[4; 65], &[0; 16]),
            Err(EceError::BadPublicKey)
        );
        assert_eq!(
            encrypt(b"x", ua_public.as_bytes(), &[0; 15]),
            Err(EceError::BadAuth)
        );
        let long = vec![b'a'; MAX_PLAINTEXT + 1];
        assert_eq!(
            encrypt(&long, ua_public.as_bytes(), &[0; 16]),
            Err(EceError::TooLong(MAX_PLAINTEXT + 1))
        );
        // The longest allowed fits one 4096-byte record exactly.
        let longest = vec![b'a'; MAX_PLAINTEXT];
        let body = encrypt(&longest, ua_public.as_bytes(), &[0; 16]).unwrap();
        assert_eq!(body.len(), RECORD_SIZE as usize);
    }
}
