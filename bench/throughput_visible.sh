#!/bin/sh
# Throughput on the visible path: the full termic TUI (`termic run`: a client
# attached to the termic server, which owns the task) inside
# an outer tmux session of 160x45, versus the bare PTY pump (`script`) and
# versus the same generator straight in a tmux pane, in one run, rounds
# alternated. Time = start to END-OF-BENCH showing on the outer screen
# (tmux capture-pane, asked every 20 ms by one control-mode client,
# bench/poll_screen.py, so the wait forks nothing; POLLER=fork uses the
# loop of `tmux capture-pane | grep; sleep 0.02` the figures before
# session 10 were taken with). Each run gets its own tmux server, so a
# server still shutting down is never the next run's.
#
# usage: bench/throughput_visible.sh [MIB=200] [ROUNDS=3]
#   BASE=PATH also runs a baseline termic binary (a release build copied
#   aside) in the same rounds, for a before/after in one run;
#   TERMIC=PATH runs that binary instead of building this tree's.
# needs: tmux, python3, script; builds termic (release).
set -eu
MIB=${1:-200}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
if [ -z "${TERMIC:-}" ]; then
    cargo build --release -q -p termic
    TERMIC="${CARGO_TARGET_DIR:-$HERE/../target}/release/termic"
fi
BASE=${BASE:-}
POLLER=${POLLER:-control}
# The interpreter itself, not a version manager's shim (pyenv's costs
# 0.3 s of CPU at every start, in every run alike).
PY=$(python3 -c 'import sys; print(sys.executable)')
GEN="$PY $HERE/gen_output.py $MIB"
WORK=$(mktemp -d)
mkdir -p "$WORK/home" "$WORK/config" "$WORK/data"
# The task lives in the termic server, which outlives the client tmux kills.
stop_server() {
    for bin in "$TERMIC" $BASE; do
        env HOME="$WORK/home" TERMIC_CONFIG_DIR="$WORK/config" TERMIC_DATA_DIR="$WORK/data" \
            "$bin" server stop >/dev/null 2>&1 || true
    done
}
SOCKETS=""
trap 'for s in $SOCKETS; do tmux -L $s kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$s"; done; stop_server; rm -rf "$WORK"' EXIT
cat > "$WORK/config/config.toml" <<TOML
[ui]
wizard_shown = true

[notifications]
bell = false
desktop = false
osc_fallback = false

[agents.bench]
base = "claude"
command = ["sh", "-c", "$GEN; sleep 600"]
TOML

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# Run $1 in a fresh 160x45 tmux session; print seconds until END-OF-BENCH shows.
RUN=0
in_tmux() {
    RUN=$((RUN + 1))
    sock=termic-bench-$$-$RUN
    SOCKETS="$SOCKETS $sock"
    t0=$(now)
    tmux -L $sock new-session -d -x 160 -y 45 \
        "env HOME=$WORK/home TERMIC_CONFIG_DIR=$WORK/config TERMIC_DATA_DIR=$WORK/data $1"
    if [ "$POLLER" = fork ]; then
        until tmux -L $sock capture-pane -p 2>/dev/null | grep -q END-OF-BENCH; do
            sleep 0.02
        done
    else
        "$PY" "$HERE/poll_screen.py" $sock END-OF-BENCH 300 >&2
    fi
    t1=$(now)
    tmux -L $sock kill-server 2>/dev/null || true
    echo "$t1 - $t0" | bc
}

: > "$WORK/bare"; : > "$WORK/tmux"; : > "$WORK/termic"; : > "$WORK/base"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); poller: $POLLER"
i=1
while [ "$i" -le "$ROUNDS" ]; do
    t0=$(now); script -qfc "$GEN" /dev/null > /dev/null; t1=$(now)
    echo "$t1 - $t0" | bc >> "$WORK/bare"
    in_tmux "sh -c '$GEN; sleep 600'" >> "$WORK/tmux"
    in_tmux "$TERMIC run bench" >> "$WORK/termic"
    stop_server
    if [ -n "$BASE" ]; then
        in_tmux "$BASE run bench" >> "$WORK/base"
        stop_server
    fi
    echo "round $i done, load average $(cut -d' ' -f1 /proc/loadavg)"
    i=$((i + 1))
done
B=$(median < "$WORK/bare"); X=$(median < "$WORK/tmux"); T=$(median < "$WORK/termic")
echo "bare pump rounds:       $(tr '\n' ' ' < "$WORK/bare")"
echo "tmux pane rounds:       $(tr '\n' ' ' < "$WORK/tmux")"
echo "termic in tmux rounds:  $(tr '\n' ' ' < "$WORK/termic")"
if [ -n "$BASE" ]; then
    Z=$(median < "$WORK/base")
    echo "BASE in tmux rounds:    $(tr '\n' ' ' < "$WORK/base")"
    printf 'median: BASE termic TUI in tmux %.2fs (%.2fx bare)\n' "$Z" "$(echo "$Z / $B" | bc -l)"
fi
printf 'median: bare %.2fs, tmux alone %.2fs (%.2fx), termic TUI in tmux %.2fs (%.2fx) (%s MiB, %s rounds)\n' \
    "$B" "$X" "$(echo "$X / $B" | bc -l)" "$T" "$(echo "$T / $B" | bc -l)" "$MIB" "$ROUNDS"
# Each round's termic time over the same round's bare time: a machine that
# slows down for a while slows both, so the median of these ratios moves
# less than the ratio of the medians.
paired() { paste -d' ' "$WORK/bare" "$1" | awk '{print $2 / $1}' | median; }
printf 'median of per-round ratios: termic %.2fx' "$(paired "$WORK/termic")"
if [ -n "$BASE" ]; then printf ', BASE %.2fx' "$(paired "$WORK/base")"; fi
printf ', tmux %.2fx\n' "$(paired "$WORK/tmux")"
