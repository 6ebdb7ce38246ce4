//! `termic-sim AGENT SCENARIO`: run one simulated agent (see the crate docs).
fn main() {
    eprintln!("termic-sim: not built yet");
    std::process::exit(2);
}
