#!/bin/sh
# Throughput: MIB of realistic output through termic's runtime (headless:
# screen model, replies and signal engine see every byte, nothing drawn)
# versus a bare PTY pump (`script`), in the same run, rounds alternated.
#
# usage: bench/throughput.sh [MIB=200] [ROUNDS=3]
# needs: python3, script (util-linux); builds the headless example.
set -eu
MIB=${1:-200}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
TARGET=${CARGO_TARGET_DIR:-$HERE/../target}
cargo build --release -q -p termic --example headless
HEADLESS=$TARGET/release/examples/headless
GEN="python3 $HERE/gen_output.py $MIB"

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

: > /tmp/termic-bench-script.$$
: > /tmp/termic-bench-termic.$$
i=1
while [ "$i" -le "$ROUNDS" ]; do
    t0=$(now); script -qfc "$GEN" /dev/null > /dev/null; t1=$(now)
    echo "$t1 - $t0" | bc >> /tmp/termic-bench-script.$$
    t0=$(now); "$HEADLESS" --rows 45 --cols 160 -- $GEN > /tmp/termic-bench-out.$$; t1=$(now)
    echo "$t1 - $t0" | bc >> /tmp/termic-bench-termic.$$
    i=$((i + 1))
done
S=$(median < /tmp/termic-bench-script.$$)
T=$(median < /tmp/termic-bench-termic.$$)
echo "bare pump (script) rounds: $(tr '\n' ' ' < /tmp/termic-bench-script.$$)"
echo "termic headless rounds:    $(tr '\n' ' ' < /tmp/termic-bench-termic.$$)"
echo "termic last run: $(cat /tmp/termic-bench-out.$$)"
printf 'median: bare %.2fs, termic %.2fs, ratio %.2fx (%s MiB, %s rounds)\n' "$S" "$T" "$(echo "$T / $S" | bc -l)" "$MIB" "$ROUNDS"
rm -f /tmp/termic-bench-script.$$ /tmp/termic-bench-termic.$$ /tmp/termic-bench-out.$$
