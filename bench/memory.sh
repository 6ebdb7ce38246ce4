#!/bin/sh
# Memory per task with a full scrollback: N tasks each print enough 160-column
# output to fill 10,000 lines of scrollback (bench/gen_output.py, 3 MiB), then
# idle; termic's RSS is read once all output is in, and compared with the
# same N tasks that printed nothing.
# usage: bench/memory.sh [TASKS=10]
#   HEADLESS=PATH measures that build of examples/headless instead of this tree's.
set -eu
TASKS=${1:-10}
cd "$(dirname "$0")/.."
HERE=$(pwd)
if [ -n "${HEADLESS:-}" ]; then
    BIN=$HEADLESS
else
    cargo build --release -q -p termic --example headless
    BIN="${CARGO_TARGET_DIR:-target}/release/examples/headless"
fi
rss_after() {
    "$BIN" --tasks "$TASKS" --rows 45 --cols 160 --for 40 -- sh -c "$1" > /dev/null &
    PID=$!
    sleep "$2"
    awk '/VmRSS/ {print $2}' "/proc/$PID/status"
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
}
QUIET=$(rss_after "sleep 600" 5)
FULL=$(rss_after "python3 $HERE/bench/gen_output.py 3; sleep 600" 25)
echo "memory: $TASKS tasks: RSS ${QUIET} KiB idle, ${FULL} KiB with full scrollback;" \
     "per task $(( FULL / TASKS )) KiB total, $(( (FULL - QUIET) / TASKS )) KiB for its scrollback and screen"
