//! The real `termic` binary against a fixture root holding `home/`, `bin/`
//! (fake agents first on PATH), `data/` and `config/`; nothing of the
//! caller's environment leaks in. Shared by the `termic hooks` CLI tests.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fixture root in a temporary dir: `home/`, and in `bin/` a `claude`
/// that says it is 2.1.332.
pub struct Root {
    tmp: tempfile::TempDir,
}

impl Root {
    pub fn new() -> Root {
        let root = Root {
            tmp: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        fake_claude(&root.path(), "2.1.332 (Claude Code)");
        root
    }

    pub fn path(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }
}

/// `termic` run in `cwd` with the fixture's PATH, HOME, data and config dirs.
pub fn termic_command(root: &Path, cwd: &Path) -> Command {
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        root.join("bin").display()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_termic"));
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", root.join("home"))
        .env("TERMIC_DATA_DIR", root.join("data"))
        .env("TERMIC_CONFIG_DIR", root.join("config"));
    cmd
}

/// A `claude` in the fixture's `bin` that prints `version`.
pub fn fake_claude(root: &Path, version: &str) {
    let p = root.join("bin/claude");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
