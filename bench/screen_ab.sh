#!/usr/bin/env bash
# The screen model stage of two builds of examples/pipeline_cost, side by
# side in one run: instruction counts (callgrind, 4 MiB, independent of the
# load) and wall MB/s (rounds alternated, the load average printed per
# round).
#
# usage: bench/screen_ab.sh BASE_BIN NEW_BIN [MIB=16] [ROUNDS=3]
#   BASE_BIN, NEW_BIN: release builds of
#   `cargo build --release --example pipeline_cost -p termic` (copy the
#   baseline's binary aside before building the change).
#   STAGE=TEXT picks the stage (default: the screen model, "ASCII runs");
#   CALLGRIND=0 skips the instruction counts.
set -euo pipefail

base=${1:?usage: screen_ab.sh BASE_BIN NEW_BIN [MIB] [ROUNDS]}
new=${2:?usage: screen_ab.sh BASE_BIN NEW_BIN [MIB] [ROUNDS]}
mib=${3:-16}
rounds=${4:-3}
stage=${STAGE:-ASCII runs}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(cd "$(dirname "$0")" && pwd)

python3 "$here/gen_output.py" 4 >"$dir/payload4"
python3 "$here/gen_output.py" "$mib" >"$dir/payload"

if [ "${CALLGRIND:-1}" != 0 ]; then
    for which in base new; do
        bin=${!which}
        PIPELINE_STAGE=$stage valgrind --tool=callgrind \
            --callgrind-out-file="$dir/cg.$which" "$bin" "$dir/payload4" 1 \
            >/dev/null 2>"$dir/cg.$which.log"
        total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/cg.$which.log")
        echo "instructions, $which ($stage, 4 MiB): $total"
    done
fi

mbs() {
    PIPELINE_STAGE=$stage "$1" "$dir/payload" 1 | sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p'
}
for r in $(seq "$rounds"); do
    b=$(mbs "$base")
    n=$(mbs "$new")
    echo "round $r: base $b MB/s, new $n MB/s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
