//! A fixture HOME and data dir, and a byte-for-byte picture of a directory
//! tree (files with their bytes and mode, links with their target, dirs).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use termic_hooks::target::{ForbiddenRoots, Paths};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir(u32),
    File(Vec<u8>, u32),
    Link(PathBuf),
}

/// Every entry under `root`, keyed by its path relative to `root`.
pub fn tree(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd {
        let p = e.unwrap().path();
        let rel = p.strip_prefix(root).unwrap().to_path_buf();
        let m = std::fs::symlink_metadata(&p).unwrap();
        let mode = m.permissions().mode() & 0o7777;
        if m.file_type().is_symlink() {
            out.insert(rel, Entry::Link(std::fs::read_link(&p).unwrap()));
        } else if m.is_dir() {
            out.insert(rel, Entry::Dir(mode));
            walk(root, &p, out);
        } else {
            out.insert(rel, Entry::File(std::fs::read(&p).unwrap(), mode));
        }
    }
}

pub struct HomeFixture {
    pub tmp: tempfile::TempDir,
    pub paths: Paths,
}

impl HomeFixture {
    pub fn new() -> HomeFixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let paths = Paths {
            home: root.join("home"),
            data_dir: root.join("data"),
        };
        std::fs::create_dir_all(&paths.home).unwrap();
        HomeFixture { tmp, paths }
    }

    pub fn root(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.paths.home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.paths.home.join(rel)).unwrap()
    }

    pub fn no_guard(&self) -> ForbiddenRoots {
        ForbiddenRoots::default()
    }
}
