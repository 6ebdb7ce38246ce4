//! The integration scripts, written into termic's data dir before a shell
//! task starts: atomically (temp file, fsync, rename), and only when they
//! differ from what is there, so a running shell never reads half a file.
//! These are termic's own files; no user file is touched.

use std::path::Path;

use anyhow::{Context, Result};
use termic_hooks::fsio::{read_config, write_if_unchanged, WriteOptions};

/// Paths inside the integration dir (see `shell/mod.rs`).
pub const BASH_RC: &str = "bash/termic.bash";
pub const ZSH_DIR: &str = "zsh";
pub const FISH_DATA_DIR: &str = "fish";

/// Every file and its content.
const FILES: [(&str, &str); 3] = [
    (BASH_RC, include_str!("scripts/termic.bash")),
    ("zsh/.zshenv", include_str!("scripts/zshenv")),
    (
        "fish/fish/vendor_conf.d/termic.fish",
        include_str!("scripts/termic.fish"),
    ),
];

/// Writes every script that is missing or stale under `dir`.
pub fn install(dir: &Path) -> Result<()> {
    for (rel, content) in FILES {
        let path = dir.join(rel);
        let current = read_config(&path).with_context(|| {
            format!(
                "cannot read termic's shell integration file {}",
                path.display()
            )
        })?;
        if current.bytes.as_deref() == Some(content.as_bytes()) {
            continue;
        }
        write_if_unchanged(
            &path,
            current.bytes.as_deref(),
            content.as_bytes(),
            &WriteOptions::default(),
        )
        .with_context(|| {
            format!(
                "cannot write termic's shell integration file {} (check that termic's data dir is writable, or set [terminal] shell_integration = false)",
                path.display()
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_writes_every_script_and_repairs_a_stale_one() {
        let tmp = tempfile::tempdir().unwrap();
        install(tmp.path()).unwrap();
        for (rel, content) in FILES {
            assert_eq!(
                std::fs::read_to_string(tmp.path().join(rel)).unwrap(),
                content
            );
        }
        let rc = tmp.path().join(BASH_RC);
        std::fs::write(&rc, "stale").unwrap();
        install(tmp.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&rc).unwrap(), FILES[0].1);
    }

    #[test]
    fn a_fifo_where_a_script_goes_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let rc = tmp.path().join(BASH_RC);
        std::fs::create_dir_all(rc.parent().unwrap()).unwrap();
        let c = std::ffi::CString::new(rc.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = install(tmp.path()).unwrap_err();
        assert!(format!("{err:#}").contains("termic.bash"), "{err:#}");
    }
}
