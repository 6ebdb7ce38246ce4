#!/bin/sh
# The client/server split side by side in one run (bench/split.py): builds
# BASE_REV (default e9f3ddb, the commit before the workspace became a
# client) into target/base and this tree, then measures key echo and idle
# cost of both.
# usage: bench/split.sh [KEYS=200] [SECS=30]   (PROFILE=release for release builds; SETTLE=70;
#   PHASES=echo,idle,throughput; MIB=200 ROUNDS=3 for the throughput part)
set -eu
cd "$(dirname "$0")/.."
BASE_REV=${BASE_REV:-e9f3ddb}
PROFILE=${PROFILE:-debug}
FLAG=""
[ "$PROFILE" = release ] && FLAG="--release"
SRC=$(mktemp -d)
trap 'rm -rf "$SRC"' EXIT
git archive "$BASE_REV" | tar -x -C "$SRC"
TARGET="$(pwd)/${CARGO_TARGET_DIR:-target}"
(cd "$SRC" && CARGO_TARGET_DIR="$TARGET/base" cargo build -q $FLAG -p termic --bin termic)
cargo build -q $FLAG -p termic --bin termic
python3 bench/split.py "$TARGET/base/$PROFILE/termic" "$TARGET/$PROFILE/termic" "${1:-200}" "${2:-30}"
