#!/bin/bash
# Where a flood's time goes, per thread: CPU time and time spent runnable but
# waiting for a core (run-queue wait), from /proc/<pid>/task/*/schedstat,
# for MIB of the throughput payload through termic's runtime (headless).
# The thread whose CPU plus wait is close to the wall time is the one that
# sets the pace.
#
# usage: bench/threads.sh [MIB=200]
# needs: python3, Linux with schedstat; builds the headless example.
set -eu
MIB=${1:-200}
HERE=$(cd "$(dirname "$0")" && pwd)
TARGET=${CARGO_TARGET_DIR:-$HERE/../target}
# HEADLESS=PATH runs that build of examples/headless instead of this tree's.
if [ -z "${HEADLESS:-}" ]; then
    cargo build --release -q -p termic --example headless
    HEADLESS=$TARGET/release/examples/headless
fi
t0=$(date +%s.%N)
"$HEADLESS" --rows 45 --cols 160 -- python3 "$HERE/gen_output.py" "$MIB" > /dev/null &
PID=$!
SAMPLES=$(mktemp)
trap 'rm -f "$SAMPLES"' EXIT
# Sample until the process is gone; each thread's last sample is its total
# (the reader ends before the screen thread, so keep every thread's last).
while kill -0 "$PID" 2>/dev/null; do
    for t in /proc/"$PID"/task/*; do
        echo "${t##*/} $(cat "$t"/comm 2>/dev/null) $(cat "$t"/schedstat 2>/dev/null)"
    done >> "$SAMPLES" 2>/dev/null || true
    sleep 0.05
done
t1=$(date +%s.%N)
printf 'wall %.2fs for %s MiB (load average %s)\n' "$(echo "$t1 - $t0" | bc)" "$MIB" "$(cut -d' ' -f1 /proc/loadavg)"
awk 'NF == 5 { name[$1] = $2; cpu[$1] = $3; wait[$1] = $4 }
     END { for (t in name) printf "%-18s cpu %5.2fs  waiting for a core %5.2fs\n", name[t], cpu[t] / 1e9, wait[t] / 1e9 }' "$SAMPLES" | sort
