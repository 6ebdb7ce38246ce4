//! The `termic` binary: CLI, task runtime, TUI. The logic lives in
//! `termic-hooks` (config installs) and `termic-signal` (state engine).
fn main() {
    eprintln!("termic: not built yet");
    std::process::exit(2);
}
