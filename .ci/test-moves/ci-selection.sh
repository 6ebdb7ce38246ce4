#!/usr/bin/env bash
# For every `cargo test ... --test NAME ...` command in WORKTREE/.ci/run, lists
# the tests it selects ("#N command" header, then "crate binary test-name" lines),
# by running the same command with `--list` appended to the test binary's arguments.
set -euo pipefail
cd "$1"
# executable -> crate
cargo test --workspace --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"].split("/")[-1], m["manifest_path"].split("/")[-2])
' > /tmp/exe-crate.$$
n=0
grep -E '^\s*cargo test .*--test ' .ci/run | sed -E 's/^\s+//; s/\s*\|\| status=1\s*$//' | while read -r cmd; do
  n=$((n + 1))
  echo "#$n $cmd"
  eval "$cmd --list --format terse" 2>&1 | python3 -c '
import re, sys
crates = dict(l.split() for l in open(sys.argv[1]))
binary = crate = None
for line in sys.stdin:
    m = re.search(r"Running \S+ \((?:.*/)?([^/)]+)\)", line)
    if m:
        exe = m.group(1); binary = exe.rsplit("-", 1)[0]
        by_name = {c for e, c in crates.items() if e.rsplit("-", 1)[0] == binary}
        crate = crates.get(exe) or (by_name.pop() if len(by_name) == 1 else "?")
        continue
    if line.endswith(": test\n") and binary:
        print(crate, binary, line[:-len(": test\n")])
' /tmp/exe-crate.$$ | sort
done
rm -f /tmp/exe-crate.$$
