//! Byte-exact uninstall: when the file is still exactly what termic last
//! wrote, nobody changed it since, so the pre-install bytes are the right
//! answer, whatever the structural removal would have produced.

use sha2::{Digest, Sha256};

use super::{Edit, EditError};

/// What the file held before termic's first install.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreInstall<'a> {
    /// These bytes (from the one-time backup).
    Bytes(&'a [u8]),
    /// No file: termic created it.
    Absent,
    /// Not known (no backup): only the structural removal is possible.
    Unknown,
}

/// Which way an uninstall went.
#[derive(Clone, Debug, PartialEq)]
pub enum Uninstall {
    /// The file was what termic last wrote: write these pre-install bytes.
    RestoreOriginal(Vec<u8>),
    /// The file was what termic last wrote and did not exist before: delete it.
    DeleteFile,
    /// The file changed since termic wrote it: the structural removal.
    /// (Its `delete_file` may also ask for a delete.)
    Edited(Edit),
}

/// Lower-case hex SHA-256, the form to keep in a manifest.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Restores `before` when `current` hashes to `last_written_sha256`,
/// otherwise runs `structural` on the current text.
pub fn uninstall(
    current: &[u8],
    last_written_sha256: &str,
    before: PreInstall<'_>,
    structural: impl FnOnce(&str) -> Result<Edit, EditError>,
) -> Result<Uninstall, EditError> {
    if sha256_hex(current).eq_ignore_ascii_case(last_written_sha256) {
        match before {
            PreInstall::Bytes(bytes) => return Ok(Uninstall::RestoreOriginal(bytes.to_vec())),
            PreInstall::Absent => return Ok(Uninstall::DeleteFile),
            PreInstall::Unknown => {}
        }
    }
    let text = std::str::from_utf8(current).map_err(|err| EditError::NotUtf8 {
        offset: err.valid_up_to(),
    })?;
    structural(text).map(Uninstall::Edited)
}
