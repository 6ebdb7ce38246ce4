#!/bin/sh
# Idle cost: N tasks running `sleep 600` through termic's runtime (headless:
# the same event loop as the UI, sleeping until the engines' next deadline),
# CPU time (utime+stime of termic's own process, not the children) over
# SECS seconds after a 10 s settle, and its RSS.
# usage: bench/idle.sh [TASKS=20] [SECS=30]
set -eu
TASKS=${1:-20}
SECS=${2:-30}
cd "$(dirname "$0")/.."
. bench/proc_idle.sh
cargo build --release -q -p termic --example headless
BIN="${CARGO_TARGET_DIR:-target}/release/examples/headless"
"$BIN" --tasks "$TASKS" --for $((SECS + 15)) -- sleep 600 > /dev/null &
PID=$!
idle_sample "$PID" "$SECS"
HZ=$(getconf CLK_TCK)
wait "$PID" || true
echo "idle: $TASKS tasks, ${SECS}s: $TICKS ticks of CPU ($(echo "scale=3; 100 * $TICKS / ($SECS * $HZ)" | bc)% of one core), RSS ${RSS} KiB, $THREADS threads"
