//! The `termic` binary: a thin CLI over the `termic` library (see `lib.rs`).

use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use termic::commands;
use termic::printed::write_stderr;

fn main() -> ExitCode {
    // `COMPLETE=bash termic ...`: the shell asks for candidates (or the
    // script that asks); answered and done before anything else runs.
    let cwd = std::env::current_dir().ok();
    match clap_complete::CompleteEnv::with_factory(commands::Cli::command)
        .var(commands::COMPLETE_VAR)
        .try_complete(std::env::args_os(), cwd.as_deref())
    {
        Ok(true) => return ExitCode::SUCCESS,
        Ok(false) => {}
        Err(e) => e.exit(),
    }
    let cli = match commands::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are termic's own text, printed as clap styles
        // them. A usage error repeats the arguments, which may hold a
        // directory's name: it is printed plain, through the cleaner.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            write_stderr(&e.to_string());
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            write_stderr(&format!("termic: {}\n", termic::printed::error_text(&err)));
            ExitCode::from(commands::EXIT_FAILURE)
        }
    }
}
