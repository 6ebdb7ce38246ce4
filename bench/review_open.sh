#!/bin/sh
# What the diff view does before its first frame (issue 32), timed on a
# large repository: `termic diff TASK --json` (the server's base, then a
# snapshot of the tree and the diff from the base to it, parsed: the same
# `review::changes` the view runs, plus the JSON) against `git diff
# --stat` on the same repository, rounds alternated in the same run.
# The repository: FILES files (100 a folder, 20 lines each) committed, a
# plain-directory task started in it (its snapshot is the base), then
# CHANGED files edited (3 lines each) and 2 new untracked files.
# Runs in a throwaway TERMIC_DATA_DIR and HOME and stops the server after.
# usage: bench/review_open.sh [FILES=10000] [CHANGED=50] [ROUNDS=7]
#   (PROFILE=debug to skip the release build; TERMIC=BIN runs a given build;
#   BASE=BIN also times another build's `diff` in the same rounds, against
#   the same server and task: `termic diff` runs git in the client)
# Goal (issue 32): the view opens within 200 ms.
set -eu
FILES=${1:-10000}
CHANGED=${2:-50}
ROUNDS=${3:-7}
PROFILE=${PROFILE:-release}
cd "$(dirname "$0")/.."
if [ -n "${TERMIC:-}" ]; then
  BIN=$TERMIC
else
  if [ "$PROFILE" = release ]; then cargo build --release -q -p termic; else cargo build -q -p termic; fi
  BIN="$(pwd)/${CARGO_TARGET_DIR:-target}/$PROFILE/termic"
fi
TMP=$(mktemp -d)
export HOME="$TMP/home" TERMIC_DATA_DIR="$TMP/data" TERMIC_CONFIG_DIR="$TMP/config"
mkdir -p "$HOME" "$TERMIC_DATA_DIR" "$TERMIC_CONFIG_DIR"
trap '"$BIN" server stop > /dev/null 2>&1; rm -rf "$TMP"' EXIT
REPO="$TMP/repo"
mkdir -p "$REPO"
git -C "$REPO" init -q
git -C "$REPO" config user.email bench@example.com
git -C "$REPO" config user.name bench
python3 - "$REPO" "$FILES" <<'PY'
import os, sys
repo, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    d = os.path.join(repo, "src", f"d{i // 100:03}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i % 100:02}.rs"), "w") as f:
        f.write("".join(f"fn f{i}_{n}() -> u32 {{ {n} }}\n" for n in range(20)))
PY
git -C "$REPO" add -A
git -C "$REPO" commit -q -m files
(cd "$REPO" && "$BIN" run --detach --name review -- sleep 600 > /dev/null)
python3 - "$REPO" "$FILES" "$CHANGED" <<'PY'
import os, sys
repo, files, changed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
step = max(1, files // changed)
for k in range(changed):
    i = k * step
    p = os.path.join(repo, "src", f"d{i // 100:03}", f"f{i % 100:02}.rs")
    lines = open(p).read().splitlines(keepends=True)
    lines[3] = f"fn f{i}_3() -> u32 {{ 3 + {k} }}\n"
    lines[15:15] = ["// added by the agent\n", f"fn new_{i}() {{}}\n"]
    open(p, "w").writelines(lines)
for n in range(2):
    open(os.path.join(repo, f"new{n}.rs"), "w").write("fn main() {}\n")
PY
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# One of each first: page caches and git's index stat cache warm.
"$BIN" diff review --json > "$TMP/diff.json"
git -C "$REPO" diff --stat > /dev/null
FILES_SEEN=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["files"]))' "$TMP/diff.json")
: > "$TMP/termic.ms"
: > "$TMP/git.ms"
: > "$TMP/base.ms"
if [ -n "${BASE:-}" ]; then "$BASE" diff review --json > /dev/null; fi
i=0
while [ "$i" -lt "$ROUNDS" ]; do
  a=$(ms); "$BIN" diff review --json > /dev/null; b=$(ms)
  echo $((b - a)) >> "$TMP/termic.ms"
  a=$(ms); git -C "$REPO" diff --stat > /dev/null; b=$(ms)
  echo $((b - a)) >> "$TMP/git.ms"
  if [ -n "${BASE:-}" ]; then
    a=$(ms); "$BASE" diff review --json > /dev/null; b=$(ms)
    echo $((b - a)) >> "$TMP/base.ms"
  fi
  i=$((i + 1))
done
T=$(median < "$TMP/termic.ms")
G=$(median < "$TMP/git.ms")
RATIO=$(awk -v t="$T" -v g="$G" 'BEGIN { if (g > 0) printf "%.1f", t / g; else print "inf" }')
echo "review open ($PROFILE): $FILES files, $CHANGED changed + 2 new ($FILES_SEEN in the diff), $ROUNDS rounds"
echo "  termic diff --json: median ${T} ms ($(tr '\n' ' ' < "$TMP/termic.ms")ms)"
echo "  git diff --stat:    median ${G} ms ($(tr '\n' ' ' < "$TMP/git.ms")ms)"
if [ -n "${BASE:-}" ]; then
  B=$(median < "$TMP/base.ms")
  BR=$(awk -v t="$B" -v g="$G" 'BEGIN { if (g > 0) printf "%.1f", t / g; else print "inf" }')
  echo "  BASE diff --json:   median ${B} ms ($(tr '\n' ' ' < "$TMP/base.ms")ms), ratio ${BR}x"
fi
echo "  ratio ${RATIO}x; goal: under 200 ms; $(uptime | sed 's/.*load/load/')"
