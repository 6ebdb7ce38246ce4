//! HTTPS for `termic web`: the user's certificate and key (PEM), or a
//! self-signed one termic makes once and keeps in `<state dir>/web/`
//! (`tls-cert.pem`, `tls-key.pem` 0600), so its fingerprint, which the
//! terminal prints for the user to compare, stays the same across starts.
//! rustls with the ring provider only.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};

/// A server configuration and the SHA-256 fingerprint of its certificate
/// (`AB:CD:...`, as browsers show it).
pub struct Tls {
    pub config: Arc<rustls::ServerConfig>,
    pub fingerprint: String,
}

/// The user's certificate chain and key, PEM files.
pub fn load(cert: &Path, key: &Path) -> Result<Tls> {
    let certs = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("cannot read the certificate {}", cert.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{} is not a PEM certificate", cert.display()))?;
    let key = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("{} is not a PEM private key", key.display()))?;
    build(certs, key)
}

/// The self-signed certificate of `dir` for `names` (DNS names or IP
/// addresses), made on first use.
pub fn self_signed(dir: &Path, names: &[String]) -> Result<Tls> {
    let cert_path = dir.join("tls-cert.pem");
    let key_path = dir.join("tls-key.pem");
    if !cert_path.exists() || !key_path.exists() {
        crate::store::Store::new(dir.to_path_buf()).prepare()?;
        let made = rcgen::generate_simple_self_signed(names.to_vec())
            .context("cannot make a self-signed certificate")?;
        write_new(&key_path, made.signing_key.serialize_pem().as_bytes())?;
        write_new(&cert_path, made.cert.pem().as_bytes())?;
    }
    load(&cert_path, &key_path)
}

// `ring::default_provider` is deprecated in rustls 0.23.48 for lacking
// post-quantum key exchange; ring is the one provider termic builds with
// (no aws-lc-rs), so it stays until rustls's ring provider gains it.
#[allow(deprecated)]
fn build(certs: Vec<CertificateDer<'static>>, key: PrivateKeyDer<'static>) -> Result<Tls> {
    let first = certs
        .first()
        .context("the certificate file holds no certificate")?;
    let fingerprint = fingerprint(first.as_ref());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .context("no TLS version")?
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .context("the certificate and the key do not go together")?;
    Ok(Tls {
        config: Arc::new(config),
        fingerprint,
    })
}

pub fn fingerprint(der: &[u8]) -> String {
    Sha256::digest(der)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Writes a new file 0600 through a temporary one (never over another).
fn write_new(path: &Path, body: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut f = OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    f.write_all(body)?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_signed_certificate_is_made_once_and_keeps_its_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
        let a = self_signed(dir.path(), &names).unwrap();
        let b = self_signed(dir.path(), &names).unwrap();
        assert_eq!(a.fingerprint, b.fingerprint);
        assert_eq!(a.fingerprint.len(), 32 * 3 - 1);
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(dir.path().join("tls-key.pem"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
