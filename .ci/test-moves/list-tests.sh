#!/usr/bin/env bash
# Lists every integration test of the workspace: "crate binary test-name ignored|run".
# Usage: list-tests.sh WORKTREE > out.txt   (builds with --no-run first)
set -euo pipefail
cd "$1"
cargo test --workspace --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"): continue
    t = m["target"]
    if t["kind"] != ["test"]: continue
    pkg = m["manifest_path"].split("/")[-2]
    print(pkg, t["name"], m["executable"])
' | sort -u | while read -r pkg bin exe; do
  "$exe" --list --format terse 2>/dev/null | sed -n 's/: test$//p' | sort > /tmp/all.$$
  "$exe" --list --ignored --format terse 2>/dev/null | sed -n 's/: test$//p' | sort > /tmp/ign.$$
  comm -23 /tmp/all.$$ /tmp/ign.$$ | sed "s|^|$pkg $bin |; s|\$| run|"
  sed "s|^|$pkg $bin |; s|\$| ignored|" /tmp/ign.$$
done
rm -f /tmp/all.$$ /tmp/ign.$$
