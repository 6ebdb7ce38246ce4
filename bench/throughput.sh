#!/bin/sh
# Throughput: MIB of realistic output through termic's runtime (headless:
# screen model, replies and signal engine see every byte, nothing drawn)
# versus a bare PTY pump (`script`), in the same run, rounds alternated.
#
# usage: bench/throughput.sh [MIB=200] [ROUNDS=3]
#   HEADLESS=PATH runs that build of examples/headless instead of this
#   tree's; BASE=PATH also runs a baseline build in the same rounds.
# needs: python3, script (util-linux); builds the headless example.
set -eu
MIB=${1:-200}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
TARGET=${CARGO_TARGET_DIR:-$HERE/../target}
if [ -z "${HEADLESS:-}" ]; then
    cargo build --release -q -p termic --example headless
    HEADLESS=$TARGET/release/examples/headless
fi
BASE=${BASE:-}
GEN="python3 $HERE/gen_output.py $MIB"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

: > /tmp/termic-bench-script.$$
: > /tmp/termic-bench-termic.$$
: > /tmp/termic-bench-base.$$
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
# /usr/bin/time reports wall and CPU (user+sys, children included: both
# sides include the same generator, so the CPU difference is termic's own).
i=1
while [ "$i" -le "$ROUNDS" ]; do
    /usr/bin/time -f "%e %U %S" -a -o /tmp/termic-bench-script.$$ script -qfc "$GEN" /dev/null > /dev/null
    /usr/bin/time -f "%e %U %S" -a -o /tmp/termic-bench-termic.$$ "$HEADLESS" --rows 45 --cols 160 -- $GEN > /tmp/termic-bench-out.$$
    if [ -n "$BASE" ]; then
        /usr/bin/time -f "%e %U %S" -a -o /tmp/termic-bench-base.$$ "$BASE" --rows 45 --cols 160 -- $GEN > /dev/null
    fi
    i=$((i + 1))
done
wall() { awk '{print $1}' "$1" | median; }
cpu() { awk '{print $2 + $3}' "$1" | median; }
SW=$(wall /tmp/termic-bench-script.$$); SC=$(cpu /tmp/termic-bench-script.$$)
TW=$(wall /tmp/termic-bench-termic.$$); TC=$(cpu /tmp/termic-bench-termic.$$)
echo "bare pump (script) rounds, wall user sys: $(tr '\n' ';' < /tmp/termic-bench-script.$$)"
echo "termic headless rounds, wall user sys:    $(tr '\n' ';' < /tmp/termic-bench-termic.$$)"
echo "termic last run: $(cat /tmp/termic-bench-out.$$)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
printf 'median wall: bare %.2fs, termic %.2fs, ratio %.2fx\n' "$SW" "$TW" "$(echo "$TW / $SW" | bc -l)"
printf 'median CPU:  bare %.2fs, termic %.2fs (termic own: %.2fs) (%s MiB, %s rounds)\n' "$SC" "$TC" "$(echo "$TC - $SC" | bc -l)" "$MIB" "$ROUNDS"
if [ -n "$BASE" ]; then
    BW=$(wall /tmp/termic-bench-base.$$); BC=$(cpu /tmp/termic-bench-base.$$)
    echo "BASE headless rounds, wall user sys:      $(tr '\n' ';' < /tmp/termic-bench-base.$$)"
    printf 'BASE median: wall %.2fs (%.2fx bare), CPU %.2fs (own: %.2fs)\n' "$BW" "$(echo "$BW / $SW" | bc -l)" "$BC" "$(echo "$BC - $SC" | bc -l)"
fi
rm -f /tmp/termic-bench-script.$$ /tmp/termic-bench-termic.$$ /tmp/termic-bench-base.$$ /tmp/termic-bench-out.$$
