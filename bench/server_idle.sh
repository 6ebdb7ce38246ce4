#!/bin/sh
# Idle cost of the termic server: TASKS detached `sleep 600` tasks
# (`termic run --detach`), no client connected, CPU ticks (utime+stime of
# the server process, not its children) over SECS after a 10 s settle, and
# its RSS. Runs in a throwaway TERMIC_DATA_DIR and stops the server after.
# usage: bench/server_idle.sh [TASKS=10] [SECS=30]   (PROFILE=debug to skip the release build)
set -eu
TASKS=${1:-10}
SECS=${2:-30}
PROFILE=${PROFILE:-release}
cd "$(dirname "$0")/.."
. bench/proc_idle.sh
if [ "$PROFILE" = release ]; then cargo build --release -q -p termic; else cargo build -q -p termic; fi
BIN="$(pwd)/${CARGO_TARGET_DIR:-target}/$PROFILE/termic"
TMP=$(mktemp -d)
export HOME="$TMP/home" TERMIC_DATA_DIR="$TMP/data" TERMIC_CONFIG_DIR="$TMP/config"
mkdir -p "$HOME" "$TERMIC_DATA_DIR" "$TERMIC_CONFIG_DIR"
trap '"$BIN" server stop > /dev/null; rm -rf "$TMP"' EXIT
i=0
while [ "$i" -lt "$TASKS" ]; do
  "$BIN" run --detach --name "idle$i" -- sleep 600 > /dev/null
  i=$((i + 1))
done
PID=$(pgrep -f "$BIN server run" | head -1)
idle_sample "$PID" "$SECS"
echo "server idle ($PROFILE): $TASKS tasks, ${SECS}s: $TICKS ticks of CPU, RSS ${RSS} KiB, $THREADS threads; $(uptime)"
