#!/bin/sh
# Config write: the commit span (temp file full -> write returned) on a
# small file and on 20 MB, then the concurrent-writer soak for SECS seconds
# (default 60): lost edits, duplicate entries, invalid JSON, cycles.
# Usage: bench/write-window.sh [SECS]
set -e
cd "$(dirname "$0")/.."
echo "load: $(cat /proc/loadavg)"
cargo test --release -p termic-hooks --test hooks -- --ignored --nocapture write_window:: 2>&1 | grep 'commit span'
TERMIC_SOAK_SECS="${1:-60}" cargo test --release -p termic-hooks --test hooks -- --nocapture concurrent_soak:: 2>&1 | grep -E '^soak|test result'
echo "load: $(cat /proc/loadavg)"
