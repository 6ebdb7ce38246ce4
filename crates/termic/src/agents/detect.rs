//! "Detected" means the agent's program is on PATH. A pure function over a
//! PATH value and an injected executable check, so tests need no real PATH.

use std::ffi::OsStr;
use std::path::Path;

use super::AgentDef;
pub use termic_runtime::program::{find_on_path, is_executable_file};

/// Whether `agent` is detected (for a Docker agent: whether `docker` is).
pub fn is_detected(
    agent: &AgentDef,
    path_var: &OsStr,
    is_executable: impl Fn(&Path) -> bool,
) -> bool {
    find_on_path(agent.program(), path_var, is_executable).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{AgentDef, DockerOptions};
    use std::path::PathBuf;

    fn only(paths: &'static [&'static str]) -> impl Fn(&Path) -> bool {
        move |p: &Path| paths.iter().any(|x| Path::new(x) == p)
    }

    #[test]
    fn finds_the_first_match_in_path_order() {
        let path = OsStr::new("/a:/b:/c");
        let found = find_on_path("claude", path, only(&["/b/claude", "/c/claude"]));
        assert_eq!(found, Some(PathBuf::from("/b/claude")));
        assert_eq!(find_on_path("codex", path, only(&["/b/claude"])), None);
    }

    #[test]
    fn empty_path_entries_do_not_mean_the_current_directory() {
        let found = find_on_path("claude", OsStr::new(":/x"), only(&["claude"]));
        assert_eq!(found, None);
    }

    #[test]
    fn a_program_with_a_slash_is_checked_as_given() {
        let path = OsStr::new("/a");
        assert!(find_on_path("/opt/bin/claude", path, only(&["/opt/bin/claude"])).is_some());
        assert!(find_on_path("bin/claude", path, only(&["bin/claude"])).is_none());
    }

    #[test]
    fn docker_agents_are_detected_by_docker() {
        let mut agent = AgentDef::builtin("claude").unwrap();
        agent.docker = Some(DockerOptions {
            image: "img".into(),
            ..Default::default()
        });
        let path = OsStr::new("/usr/bin");
        assert!(!is_detected(&agent, path, only(&["/usr/bin/claude"])));
        assert!(is_detected(&agent, path, only(&["/usr/bin/docker"])));
    }

    #[test]
    fn real_check_wants_an_executable_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tool");
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        assert!(!is_executable_file(&file));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(is_executable_file(&file));
        assert!(!is_executable_file(dir.path()));
    }
}
