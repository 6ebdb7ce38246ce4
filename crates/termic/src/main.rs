//! The `termic` binary: a thin CLI over the `termic` library (see `lib.rs`).

use std::process::ExitCode;

use clap::Parser;
use termic::commands;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            termic::record_file::log_line(&format!("termic: {err:#}"));
            ExitCode::from(commands::EXIT_FAILURE)
        }
    }
}
