//! The `termic` binary: a thin CLI over the libraries. `termic-hooks` owns
//! config installs, `termic-signal` owns the state engine; this crate owns
//! the task runtime (PTYs), the TUI and the glue.

mod agents;
mod app;
mod commands;
mod notify;
mod paths;
mod runtime;
mod ui;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("termic: {err:#}");
            ExitCode::from(commands::EXIT_FAILURE)
        }
    }
}
