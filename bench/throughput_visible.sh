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
# Also prints termic's memory once the output is in (the server's RSS and
# peak, the client's RSS; the largest over the rounds).
#
# usage: bench/throughput_visible.sh [MIB=200] [ROUNDS=3]
#   CPU_LIMIT=PCT runs every round (bare, tmux, termic alike) in a cgroup
#   allowed PCT% of one CPU in all (100 on this 2-core machine: each core
#   at half speed on average, throttled every 10 ms): a slow machine, where
#   every run is bound by CPU. The kernel's flush workers stay outside it.
#   Needs write access to the cgroup tree (root here).
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
if [ -n "${CPU_LIMIT:-}" ]; then
    # This shell and everything it starts from now on go into the cgroup.
    if [ -d /sys/fs/cgroup/cpu ]; then
        CG=/sys/fs/cgroup/cpu/termic-bench-$$
        mkdir "$CG"
        echo 10000 > "$CG/cpu.cfs_period_us"
        echo $((CPU_LIMIT * 100)) > "$CG/cpu.cfs_quota_us"
    else
        CG=/sys/fs/cgroup/termic-bench-$$
        mkdir "$CG"
        echo "$((CPU_LIMIT * 100)) 10000" > "$CG/cpu.max"
    fi
    echo $$ > "$CG/cgroup.procs"
    echo "CPU limit: $CPU_LIMIT% of one CPU in all ($CG)"
fi
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
cleanup() {
    for s in $SOCKETS; do
        tmux -L $s kill-server 2>/dev/null || true
        rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$s"
    done
    stop_server
    rm -rf "$WORK"
    if [ -n "${CG:-}" ]; then
        # Out of the cgroup (to its parent) so that it can be removed.
        echo $$ > "$(dirname "$CG")/cgroup.procs"
        rmdir "$CG" 2>/dev/null || true
    fi
}
trap cleanup EXIT
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
# CPU time the whole machine spent busy so far, in ticks (USER_HZ, 100 a
# second): user, nice, system, irq, softirq and steal from /proc/stat. The
# delta over a run counts every process and kernel thread the run wakes
# (the generator's writes, the kworkers' pushes, the reader, tmux), which a
# per-process count misses; keep the machine otherwise quiet.
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }
# The pid of this run's termic process whose command line ends with $1
# (its environment names this run's data dir; the server's path is the
# binary's canonical one).
ours() {
    for pid in $(pgrep -f -- "$1"); do
        if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "TERMIC_DATA_DIR=$WORK/data"; then
            echo "$pid"
            return
        fi
    done
}
# One field of /proc/PID/status, in kB (0 when the process is gone).
vm() {
    if [ -r "/proc/${2:-0}/status" ]; then
        awk -v f="$1:" '$1 == f {v = $2} END {print v + 0}' "/proc/$2/status"
    else
        echo 0
    fi
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# Run $1 in a fresh 160x45 tmux session; print seconds until END-OF-BENCH shows.
RUN=0
in_tmux() {
    RUN=$((RUN + 1))
    sock=termic-bench-$$-$RUN
    SOCKETS="$SOCKETS $sock"
    c0=$(busy)
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
    echo "($(busy) - $c0) / 100" | bc -l >> "$WORK/$2.cpu"
    # termic's memory once all 200 MiB are on its screen: the server's
    # RSS and peak (VmHWM), and the client's RSS, in kB.
    if [ -n "${3:-}" ]; then
        srv=$(ours "server run$")
        cli=$(ours " run bench$")
        echo "$(vm VmRSS "$srv") $(vm VmHWM "$srv") $(vm VmRSS "$cli")" >> "$WORK/$2.rss"
    fi
    tmux -L $sock kill-server 2>/dev/null || true
    echo "$t1 - $t0" | bc
}

: > "$WORK/bare"; : > "$WORK/tmux"; : > "$WORK/termic"; : > "$WORK/base"
: > "$WORK/bare.cpu"; : > "$WORK/tmux.cpu"; : > "$WORK/termic.cpu"; : > "$WORK/base.cpu"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); poller: $POLLER"
i=1
while [ "$i" -le "$ROUNDS" ]; do
    c0=$(busy); t0=$(now); script -qfc "$GEN" /dev/null > /dev/null; t1=$(now)
    echo "($(busy) - $c0) / 100" | bc -l >> "$WORK/bare.cpu"
    echo "$t1 - $t0" | bc >> "$WORK/bare"
    in_tmux "sh -c '$GEN; sleep 600'" tmux >> "$WORK/tmux"
    in_tmux "$TERMIC run bench" termic rss >> "$WORK/termic"
    stop_server
    if [ -n "$BASE" ]; then
        in_tmux "$BASE run bench" base rss >> "$WORK/base"
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
# less than the ratio of the medians. `paired BASELINE RUNS`.
paired() { paste -d' ' "$1" "$2" | awk '{print $2 / $1}' | median; }
printf 'median of per-round ratios: termic %.2fx' "$(paired "$WORK/bare" "$WORK/termic")"
if [ -n "$BASE" ]; then printf ', BASE %.2fx' "$(paired "$WORK/bare" "$WORK/base")"; fi
printf ', tmux %.2fx\n' "$(paired "$WORK/bare" "$WORK/tmux")"
# The machine's busy CPU over each run, and each round's over the same
# round's bare pump: on a machine whose cores are slow, or busy with other
# work, every run is bound by CPU and its time goes as its CPU, so this is
# the ratio the wall-time ratio tends to there. It is also far less noisy
# than wall time on a machine that is not.
cpus() { printf '%.2f ' $(cat "$1"); }
echo "busy CPU-s, bare:       $(cpus "$WORK/bare.cpu")"
echo "busy CPU-s, tmux:       $(cpus "$WORK/tmux.cpu")"
echo "busy CPU-s, termic:     $(cpus "$WORK/termic.cpu")"
if [ -n "$BASE" ]; then echo "busy CPU-s, BASE:       $(cpus "$WORK/base.cpu")"; fi
# Memory after the run (issue 14: <= 40 MB after 200 MiB), the largest
# over the rounds, in MiB.
rss() { awk '{if ($1 > r) r = $1; if ($2 > h) h = $2; if ($3 > c) c = $3} END {printf "server RSS %.1f MiB (peak %.1f), client %.1f MiB, together %.1f MiB", r/1024, h/1024, c/1024, (r+c)/1024}' "$1"; }
echo "termic after the run, largest of the rounds: $(rss "$WORK/termic.rss")"
if [ -n "$BASE" ]; then echo "BASE after the run, largest of the rounds:   $(rss "$WORK/base.rss")"; fi
printf 'median of per-round CPU ratios: termic %.2fx' "$(paired "$WORK/bare.cpu" "$WORK/termic.cpu")"
if [ -n "$BASE" ]; then printf ', BASE %.2fx' "$(paired "$WORK/bare.cpu" "$WORK/base.cpu")"; fi
printf ', tmux %.2fx\n' "$(paired "$WORK/bare.cpu" "$WORK/tmux.cpu")"
