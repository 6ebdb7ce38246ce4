//! Shell integration for command tasks, the way kitty, WezTerm, Ghostty and
//! VS Code do it: a shell started as a task gets OSC 133 prompt and command
//! marks through its environment and termic-owned files only. The user's rc
//! files are never written, and still load (each script sources them first).
//!
//! - bash: `bash --rcfile <dir>/bash/termic.bash`; that file sources `~/.bashrc`.
//! - zsh: `ZDOTDIR=<dir>/zsh`, whose `.zshenv` puts the user's `ZDOTDIR`
//!   back (from `TERMIC_ZDOTDIR`) and sources their `.zshenv`; zsh then reads
//!   their `.zprofile`, `.zshrc` and `.zlogin` itself.
//! - fish: `<dir>/fish` first in `XDG_DATA_DIRS`, holding
//!   `fish/vendor_conf.d/termic.fish`, which restores `XDG_DATA_DIRS`.
//!
//! Only a bare interactive shell is integrated (`bash`, `zsh -l`, `fish -i`):
//! anything with a script or `-c` is a command like any other.
//! [`plan`] is pure; [`files`] writes the scripts into termic's data dir.

pub mod files;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A shell termic knows how to integrate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    /// The shell a program name is, by its file name (`/bin/bash`, `zsh`).
    pub fn from_program(program: &str) -> Option<Shell> {
        match Path::new(program).file_name()?.to_str()? {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }

    /// Flags that keep the shell a plain interactive one (bash's `--rcfile`
    /// is ignored by a login bash, so bash takes `-i` only).
    fn interactive_flags(self) -> &'static [&'static str] {
        match self {
            Shell::Bash => &["-i"],
            Shell::Zsh | Shell::Fish => &["-i", "-l", "--login"],
        }
    }
}

/// The integration files' directory inside termic's data dir.
pub fn integration_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("shell-integration")
}

/// How to start an integrated shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLaunch {
    pub shell: Shell,
    pub argv: Vec<String>,
    /// Set on top of the task's environment.
    pub env: Vec<(OsString, OsString)>,
}

/// The integrated launch of `argv`, or `None` when it is not a bare
/// interactive bash, zsh or fish. `parent_env` reads the variables the
/// shell's own startup must get back (`ZDOTDIR`, `XDG_DATA_DIRS`).
pub fn plan(
    argv: &[String],
    dir: &Path,
    parent_env: impl Fn(&str) -> Option<OsString>,
) -> Option<ShellLaunch> {
    let (program, args) = argv.split_first()?;
    let shell = Shell::from_program(program)?;
    if !args
        .iter()
        .all(|a| shell.interactive_flags().contains(&a.as_str()))
    {
        return None;
    }
    let mut argv = argv.to_vec();
    let mut env = Vec::new();
    match shell {
        Shell::Bash => {
            let rc = dir.join(files::BASH_RC);
            argv.splice(1..1, ["--rcfile".to_owned(), rc.display().to_string()]);
        }
        Shell::Zsh => {
            if let Some(user) = parent_env("ZDOTDIR") {
                env.push(("TERMIC_ZDOTDIR".into(), user));
            }
            env.push(("ZDOTDIR".into(), dir.join(files::ZSH_DIR).into()));
        }
        Shell::Fish => {
            let ours = dir.join(files::FISH_DATA_DIR).into_os_string();
            // fish's own default when the variable is unset.
            let rest = match parent_env("XDG_DATA_DIRS").filter(|v| !v.is_empty()) {
                Some(user) => {
                    env.push(("TERMIC_XDG_DATA_DIRS".into(), user.clone()));
                    user
                }
                None => "/usr/local/share:/usr/share".into(),
            };
            let mut joined = ours;
            joined.push(":");
            joined.push(rest);
            env.push(("XDG_DATA_DIRS".into(), joined));
        }
    }
    Some(ShellLaunch { shell, argv, env })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn bash_gets_termics_rcfile_and_nothing_else() {
        let l = plan(&args(&["/bin/bash"]), Path::new("/d"), |_| None).unwrap();
        assert_eq!(l.shell, Shell::Bash);
        assert_eq!(l.argv, ["/bin/bash", "--rcfile", "/d/bash/termic.bash"]);
        assert!(l.env.is_empty());
        let l = plan(&args(&["bash", "-i"]), Path::new("/d"), |_| None).unwrap();
        assert_eq!(l.argv, ["bash", "--rcfile", "/d/bash/termic.bash", "-i"]);
    }

    #[test]
    fn a_script_or_a_login_bash_is_a_plain_command() {
        for a in [
            &["bash", "-c", "echo"][..],
            &["bash", "x.sh"],
            &["bash", "-l"],
            &["zsh", "-c", "true"],
            &["fish", "script.fish"],
            &["sh"],
            &["bashful"],
        ] {
            assert_eq!(plan(&args(a), Path::new("/d"), |_| None), None, "{a:?}");
        }
    }

    #[test]
    fn zsh_keeps_the_users_zdotdir_to_put_back() {
        let l = plan(&args(&["zsh", "-l"]), Path::new("/d"), |k| {
            (k == "ZDOTDIR").then(|| "/home/u/.zsh".into())
        })
        .unwrap();
        assert_eq!(l.argv, ["zsh", "-l"]);
        assert_eq!(
            l.env,
            [
                ("TERMIC_ZDOTDIR".into(), "/home/u/.zsh".into()),
                ("ZDOTDIR".into(), "/d/zsh".into()),
            ]
        );
        let l = plan(&args(&["zsh"]), Path::new("/d"), |_| None).unwrap();
        assert_eq!(l.env, [("ZDOTDIR".into(), "/d/zsh".into())]);
    }

    #[test]
    fn fish_puts_termics_dir_first_in_xdg_data_dirs() {
        let l = plan(&args(&["fish"]), Path::new("/d"), |_| None).unwrap();
        assert_eq!(
            l.env,
            [(
                "XDG_DATA_DIRS".into(),
                "/d/fish:/usr/local/share:/usr/share".into()
            )]
        );
        let l = plan(&args(&["fish"]), Path::new("/d"), |k| {
            (k == "XDG_DATA_DIRS").then(|| "/opt/share".into())
        })
        .unwrap();
        assert_eq!(
            l.env,
            [
                ("TERMIC_XDG_DATA_DIRS".into(), "/opt/share".into()),
                ("XDG_DATA_DIRS".into(), "/d/fish:/opt/share".into()),
            ]
        );
    }
}
