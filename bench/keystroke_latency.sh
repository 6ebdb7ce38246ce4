#!/bin/sh
# Keystroke-to-echo latency added by termic's runtime over a bare PTY, in the
# same run (see crates/termic/examples/keystroke_latency.rs).
# usage: bench/keystroke_latency.sh [SAMPLES=300]
set -eu
cd "$(dirname "$0")/.."
cargo build --release -q -p termic --example keystroke_latency
"${CARGO_TARGET_DIR:-target}/release/examples/keystroke_latency" "${1:-300}"
