//! `termic-hooks/manifest.json`: what an install wrote, so a later removal
//! (by this or a future termic) is exact.
//!
//! It records the generated files with their hashes, the install time
//! (passed in, never read from a clock here), and for the shared config:
//! the handlers termic wrote, the containers it created, the hash of what
//! it last wrote and the file's text before termic first touched it, which
//! lets removal give back the user's bytes exactly when nothing else changed.

use serde::{Deserialize, Serialize};

use crate::edit::{EventHandler, InstallRecord};

/// Version of this file's layout. A manifest with a newer version is not
/// trusted for removal (termic falls back to recognising its entries by path).
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema_version: u32,
    /// The termic that wrote this.
    pub termic_version: String,
    pub agent_id: String,
    /// `host` or `docker:<agent_id>`.
    pub target: String,
    /// Seconds since the Unix epoch.
    pub installed_at_unix: u64,
    /// Generated files termic owns outright, relative to the agent's dir.
    pub files: Vec<OwnedFile>,
    /// termic's part of the agent's config file, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<ConfigRecord>,
    /// Directories the install created (absolute), removed again if empty.
    #[serde(default)]
    pub created_dirs: Vec<String>,
    /// The one-time copy of the original config, relative to the agent's dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedFile {
    pub path: String,
    pub sha256: String,
    pub mode: u32,
}

/// termic's footprint in one config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigRecord {
    /// Relative to the agent's dir, e.g. `settings.json`.
    pub file: String,
    /// Hash of the exact bytes termic last wrote (or is about to write:
    /// the manifest is written BEFORE the config, as a journal).
    pub last_written_sha256: String,
    /// Hashes of bytes termic wrote earlier in this install cycle, all
    /// meaning "nobody else touched the file since": a crash between the
    /// manifest and the config write leaves the previous one in place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_written_sha256: Vec<String>,
    /// The file before this install cycle first changed it.
    pub pre_install: PreInstallText,
    /// Handlers termic wrote (Claude-compatible shape), for removal and for
    /// telling a hand-edited entry from ours.
    #[serde(default)]
    pub written: Vec<EventHandler>,
    /// Containers termic's inserts created.
    #[serde(default)]
    pub record: InstallRecord,
}

/// The config file's state before termic changed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum PreInstallText {
    /// There was no file.
    Absent,
    /// These exact bytes (a config file is UTF-8 text, or termic refuses it).
    Text(String),
    /// Someone changed the file since termic wrote it: only a structural
    /// removal is safe.
    Unknown,
}

impl Manifest {
    /// Parses a manifest; `None` for anything unreadable or from a newer
    /// termic (removal then works from path prefixes alone).
    pub fn parse(bytes: &[u8]) -> Option<Manifest> {
        let m: Manifest = serde_json::from_slice(bytes).ok()?;
        (m.schema_version <= SCHEMA_VERSION).then_some(m)
    }

    /// Pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).expect("a manifest always serialises");
        out.push(b'\n');
        out
    }

    pub fn file(&self, rel: &str) -> Option<&OwnedFile> {
        self.files.iter().find(|f| f.path == rel)
    }
}

impl ConfigRecord {
    /// True when `bytes` are something termic wrote in this cycle (so the
    /// pre-install record still describes the user's original).
    pub fn wrote(&self, bytes: &[u8]) -> bool {
        let h = crate::edit::sha256_hex(bytes);
        h == self.last_written_sha256 || self.earlier_written_sha256.contains(&h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_a_newer_schema() {
        let m = Manifest {
            schema_version: SCHEMA_VERSION,
            termic_version: "0.1.0".into(),
            agent_id: "claude".into(),
            target: "host".into(),
            installed_at_unix: 1_790_000_000,
            files: vec![OwnedFile {
                path: "termic-hooks/stop.sh".into(),
                sha256: "ab".into(),
                mode: 0o755,
            }],
            config: Some(ConfigRecord {
                file: "settings.json".into(),
                last_written_sha256: "cd".into(),
                earlier_written_sha256: vec!["ef".into()],
                pre_install: PreInstallText::Text("{}\n".into()),
                written: vec![],
                record: InstallRecord::default(),
            }),
            created_dirs: vec!["/h/.claude/termic-hooks".into()],
            backup: Some("termic-hooks/backup/settings.json".into()),
        };
        assert_eq!(Manifest::parse(&m.to_bytes()), Some(m.clone()));
        let mut newer = m;
        newer.schema_version = SCHEMA_VERSION + 1;
        assert_eq!(Manifest::parse(&newer.to_bytes()), None);
        assert_eq!(Manifest::parse(b"{not json"), None);
    }
}
