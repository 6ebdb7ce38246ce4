//! `termic-sim AGENT SCENARIO`: run one simulated coding agent in this
//! terminal (see the crate docs and `--help`).

fn main() -> std::process::ExitCode {
    termic_sim::cli::run(std::env::args_os())
}
