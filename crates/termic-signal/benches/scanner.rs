//! Scanner throughput against a bare vte parse of the same bytes (filled in with the scanner).
fn main() {}
