#!/bin/sh
# Latency from a hook firing (the simulator's timestamp) to termic's state
# change, per transport (Claude's terminalSequence, $TERMIC_PTY for grok and
# agy), p50 and p99 over LATENCY_RUNS reports each (default 100).
# Release build; the simulators run as termic tasks in real PTYs.
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p termic-sim
LATENCY_RUNS="${LATENCY_RUNS:-100}" \
  cargo test --release -p termic --test e2e_specs latency -- --ignored --nocapture --test-threads 1
