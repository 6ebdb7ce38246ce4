//! Any command as a task (`termic run -- CMD`, the dialog's "command"
//! choice): its own argv in a PTY with the generic command profile, or, for
//! a bare bash, zsh or fish with integration on, the shell profile and the
//! integrated launch (`shell/`).

use std::ffi::OsString;
use std::path::Path;

use super::launch::LaunchRequest;
use termic_runtime::shell;
use termic_runtime::TaskSpec;

/// termic-signal profile ids for a command and an integrated shell.
pub const COMMAND_PROFILE: &str = "command";
pub const SHELL_PROFILE: &str = "shell";

/// The label a command task is listed and logged under: its program's file
/// name (`bash`, `make`).
pub fn command_label(argv: &[String]) -> String {
    argv.first()
        .and_then(|p| Path::new(p).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "command".to_owned())
}

/// The spec for running `argv`. `integration`: the shell integration dir
/// when integration is on (its files already written).
pub fn command_spec(
    argv: &[String],
    req: &LaunchRequest<'_>,
    integration: Option<&Path>,
    parent_env: impl Fn(&str) -> Option<OsString>,
) -> TaskSpec {
    let planned = integration.and_then(|dir| shell::plan(argv, dir, parent_env));
    let (argv, env, profile) = match planned {
        Some(launch) => (launch.argv, launch.env, SHELL_PROFILE),
        None => (argv.to_vec(), Vec::new(), COMMAND_PROFILE),
    };
    TaskSpec {
        name: req.name.to_owned(),
        agent: command_label(&argv),
        argv: argv.into_iter().map(Into::into).collect(),
        cwd: req.cwd.clone(),
        env,
        profile: profile.to_owned(),
        size: req.size,
        container: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use termic_runtime::TermSize;

    fn req() -> LaunchRequest<'static> {
        LaunchRequest {
            name: "t",
            cwd: PathBuf::from("/w"),
            size: TermSize { rows: 24, cols: 80 },
            data_dir: Path::new("/d"),
            extra_args: &[],
        }
    }

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_command_runs_as_given_with_the_command_profile() {
        let spec = command_spec(
            &argv(&["sh", "-c", "echo hi"]),
            &req(),
            Some(Path::new("/i")),
            |_| None,
        );
        assert_eq!(spec.argv, ["sh", "-c", "echo hi"].map(OsString::from));
        assert_eq!(spec.profile, "command");
        assert_eq!(spec.agent, "sh");
    }

    #[test]
    fn a_bare_shell_is_integrated_unless_integration_is_off() {
        let on = command_spec(&argv(&["/bin/bash"]), &req(), Some(Path::new("/i")), |_| {
            None
        });
        assert_eq!(on.profile, "shell");
        assert_eq!(on.agent, "bash");
        assert_eq!(on.argv.len(), 3);
        let off = command_spec(&argv(&["/bin/bash"]), &req(), None, |_| None);
        assert_eq!(off.profile, "command");
        assert_eq!(off.argv, ["/bin/bash"].map(OsString::from));
    }
}
