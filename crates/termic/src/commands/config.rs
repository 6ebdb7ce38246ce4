//! `termic config path|check|reference`: where config.toml is, whether it
//! loads, and the reference of every key.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use crate::config::{reference, Config};
use crate::paths::TermicPaths;
use crate::printed::{errln, out, outln};

/// The file loads with no warning (or does not exist: the defaults).
const EXIT_OK: u8 = 0;
/// termic cannot use the file (a wrong type or value, unreadable, not a file).
const EXIT_INVALID: u8 = 1;
/// The file loads, but has keys termic does not know (ignored).
const EXIT_WARNINGS: u8 = 3;

#[derive(Debug, Subcommand)]
#[command(after_help = "\
The file is $TERMIC_CONFIG_DIR/config.toml when that is set, else
~/.config/termic/config.toml. Every key, its default and an example:
docs/config.md, or `termic config reference`.

Examples:
  termic config path
  termic config check
  TERMIC_CONFIG_DIR=/tmp/c termic config check

Exit codes: 0 done, 1 error (check: the file cannot be used), 2 usage,
3 check: the file loads but has unknown keys. See each command's --help.")]
pub enum ConfigCommand {
    /// Print the path of config.toml (it may not exist yet).
    ///
    /// Examples:
    ///   termic config path
    ///   $EDITOR "$(termic config path)"
    ///
    /// Exit codes: 0 path printed, 1 error (no HOME to find it from).
    #[command(verbatim_doc_comment)]
    Path,
    /// Check config.toml: errors and unknown keys, each with its line.
    ///
    /// An error (a wrong type or value, a file termic cannot read) stops
    /// the workspace from starting; an unknown key is only a warning and is
    /// ignored, with the closest valid key named. A missing file is fine:
    /// termic uses the defaults.
    ///
    /// Examples:
    ///   termic config check
    ///   termic config check && termic
    ///
    /// Exit codes: 0 the file is fine (or absent), 1 termic cannot use it
    /// (the error names the line and the fix), 3 it loads but has unknown
    /// keys (each is listed).
    #[command(verbatim_doc_comment)]
    Check,
    /// Print every key with its value, default and an example.
    ///
    /// The text is Markdown; docs/config.md holds the same text (a test
    /// keeps them equal).
    ///
    /// Examples:
    ///   termic config reference | less
    ///
    /// Exit codes: 0 printed, 1 error.
    #[command(verbatim_doc_comment)]
    Reference,
}

pub fn run(cmd: ConfigCommand) -> Result<ExitCode> {
    let code = match cmd {
        ConfigCommand::Path => {
            let p = TermicPaths::from_env()?;
            outln!("{}", Config::path_in(&p.config_dir).display())?;
            EXIT_OK
        }
        ConfigCommand::Check => check()?,
        ConfigCommand::Reference => {
            out!("{}", reference::reference())?;
            EXIT_OK
        }
    };
    Ok(ExitCode::from(code))
}

fn check() -> Result<u8> {
    let p = TermicPaths::from_env()?;
    let path = Config::path_in(&p.config_dir);
    let config = match Config::load(&p.config_dir) {
        Ok(c) => c,
        Err(e) => {
            errln!("termic: {e}");
            return Ok(EXIT_INVALID);
        }
    };
    if std::fs::symlink_metadata(&path).is_err() {
        outln!(
            "{} does not exist: termic uses the defaults.",
            path.display()
        )?;
        return Ok(EXIT_OK);
    }
    for w in &config.warnings {
        errln!("termic: warning: {w}");
    }
    if config.warnings.is_empty() {
        outln!("{}: fine.", path.display())?;
        Ok(EXIT_OK)
    } else {
        let n = config.warnings.len();
        outln!(
            "{}: loads, but {n} key{} will be ignored (listed above).",
            path.display(),
            if n == 1 { "" } else { "s" }
        )?;
        Ok(EXIT_WARNINGS)
    }
}
