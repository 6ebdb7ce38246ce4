#!/bin/sh
# Isolation: the echo of keys typed into one task while another task prints
# the hostile-screen corpus (tests/hostile/tui.rs through the real binary),
# with more keys than the test's 40 so the p99 means something, and the
# corpus printed often enough that the flood outlasts the typing.
#
# usage: bench/isolation.sh [ROUNDS=2] [KEYS=200] [FLOOD_ROUNDS=8]
# BEFORE=/path/to/an/older/termic runs it too, alternated with this tree's
# binary in the same run (same test binary, same load).
# Debug build (what the test harness runs); prints the load average.
set -eu
ROUNDS=${1:-2}
KEYS=${2:-200}
FLOOD=${3:-8}
HERE=$(cd "$(dirname "$0")" && pwd)
TARGET=${CARGO_TARGET_DIR:-$HERE/../target}
cargo build -q -p termic --bin termic
TEST=$(cargo test -p termic --test hostile --no-run 2>&1 | sed -n 's/.*(\(.*hostile-[0-9a-f]*\)).*/\1/p' | tail -1)
case "$TEST" in /*) ;; *) TEST=$HERE/../$TEST ;; esac
BIN=$TARGET/debug/termic
NOW=/tmp/termic-isolation-now.$$
cp "$BIN" "$NOW"
run() {
    # the test runs whatever sits at the binary's path (a rename: a
    # binary still running cannot be written over)
    cp "$2" "$BIN.isolation" && mv -f "$BIN.isolation" "$BIN"
    echo "== $1, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    ECHO_KEYS=$KEYS HOSTILE_ROUNDS=$FLOOD "$TEST" tui:: --nocapture 2>&1 |
        grep -E "^echo|^quit|^flood|test result|panicked" || true
}
i=1
while [ "$i" -le "$ROUNDS" ]; do
    if [ -n "${BEFORE:-}" ]; then run "before (round $i)" "$BEFORE"; fi
    run "this tree (round $i)" "$NOW"
    i=$((i + 1))
done
mv -f "$NOW" "$BIN"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
