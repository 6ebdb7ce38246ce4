//! opencode's plugin directories: every `.js` / `.mjs` file in BOTH
//! `~/.config/opencode/plugin/` and `~/.config/opencode/plugins/` is loaded
//! (measured: a copy in each fires every event twice).

use std::path::{Path, PathBuf};

/// opencode's config dir: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn config_dir(home: &Path, xdg_config_home: Option<&Path>) -> PathBuf {
    match xdg_config_home {
        Some(x) if x.is_absolute() => x.join("opencode"),
        _ => home.join(".config/opencode"),
    }
}

/// Plugin files in load order: `plugin/` then `plugins/`, sorted by name.
pub fn plugin_files(config_dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in ["plugin", "plugins"] {
        let mut files: Vec<_> = std::fs::read_dir(config_dir.join(dir))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "js" || x == "mjs"))
            .collect();
        files.sort();
        all.extend(files);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directories_are_loaded() {
        let dir = tempfile::tempdir().unwrap();
        for p in [
            "plugin/a.js",
            "plugins/termic.js",
            "plugins/notes.txt",
            "plugins/b.mjs",
        ] {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let names: Vec<_> = plugin_files(dir.path())
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            vec!["plugin/a.js", "plugins/b.mjs", "plugins/termic.js"]
        );
    }

    #[test]
    fn xdg_config_home_wins() {
        let home = Path::new("/h");
        assert_eq!(config_dir(home, None), Path::new("/h/.config/opencode"));
        assert_eq!(
            config_dir(home, Some(Path::new("/x"))),
            Path::new("/x/opencode")
        );
        assert_eq!(
            config_dir(home, Some(Path::new("rel"))),
            Path::new("/h/.config/opencode")
        );
    }
}
