#!/bin/sh
# The state-truth matrix (issue 12 item 8): real agents as termic tasks by
# scenario (plain, permission, escape, API error) and channel (hooks, native,
# both, neither), scored on termic's event log. Writes the table to OUT
# (default target/state-matrix.md); docs/state-truth.md holds a run.
#
#   bench/state-matrix.sh                       # every cell (~20 minutes)
#   CELLS=claude:error:both,grok:error:hooks bench/state-matrix.sh   # a subset
#
# Needs the real agents: TERMIC_REAL_AGENTS (default
# ~/.cache/termic/real-agents, filled by .ci/real-agents-install).
set -eu
cd "$(dirname "$0")/.."
out="${OUT:-target/state-matrix.md}"
export TERMIC_REAL_AGENTS="${TERMIC_REAL_AGENTS:-$HOME/.cache/termic/real-agents}"
[ -d "$TERMIC_REAL_AGENTS/bin" ] || {
  echo "no real agents in $TERMIC_REAL_AGENTS: run .ci/real-agents-install $TERMIC_REAL_AGENTS" >&2
  exit 1
}
if [ -n "${CELLS:-}" ]; then export TERMIC_MATRIX_CELLS="$CELLS"; fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "load before: $(uptime)" >&2
cargo test -p termic --test real_agents_matrix -- --ignored --nocapture --test-threads 1 >"$log" 2>&1 || {
  tail -40 "$log" >&2
  exit 1
}
mkdir -p "$(dirname "$out")"
{
  echo "<!-- bench/state-matrix.sh, $(date -u +%Y-%m-%dT%H:%MZ), load: $(cut -d' ' -f1-3 /proc/loadavg) -->"
  grep '^|' "$log"
} >"$out"
echo "wrote $out" >&2
