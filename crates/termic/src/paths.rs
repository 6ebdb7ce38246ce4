//! Where termic reads and writes, resolved once at the edge from the
//! environment and passed down as values (nothing below reads env vars).
//!
//! - `home`: `$HOME`. Agent configs live under it.
//! - `data_dir`: `$TERMIC_DATA_DIR`, else the platform data dir (XDG on Linux
//!   and macOS: `~/.local/share/termic`). Docker agent dirs, worktrees, recordings.
//! - `config_dir`: `$TERMIC_CONFIG_DIR`, else `~/.config/termic`. `config.toml`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use etcetera::BaseStrategy;

#[derive(Debug, Clone)]
pub struct TermicPaths {
    pub home: PathBuf,
    pub data_dir: PathBuf,
    pub config_dir: PathBuf,
}

impl TermicPaths {
    pub fn from_env() -> Result<Self> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .context(
                "HOME is not set: termic needs it to find agent configs (set HOME and retry)",
            )?;
        let strategy = etcetera::choose_base_strategy().ok();
        let data_dir = match std::env::var_os("TERMIC_DATA_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => strategy
                .as_ref()
                .map(|s| s.data_dir().join("termic"))
                .unwrap_or_else(|| home.join(".local/share/termic")),
        };
        let config_dir = match std::env::var_os("TERMIC_CONFIG_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => strategy
                .as_ref()
                .map(|s| s.config_dir().join("termic"))
                .unwrap_or_else(|| home.join(".config/termic")),
        };
        Ok(TermicPaths {
            home,
            data_dir,
            config_dir,
        })
    }
}
