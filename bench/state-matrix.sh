#!/bin/sh
# The state-truth matrix (issue 12 item 8): real agents as termic tasks by
# scenario (plain, permission, question, escape, tool calls, API error, and
# Claude's background, subagent, plan, questions, compaction (between turns
# and inside one), clear, resume,
# usage-limit) and channel (hooks, native, both, neither), then the simulated agy and grok
# 1.0.5 (termic-sim) by the same scenarios, all scored on termic's event log
# (crates/termic/tests/matrix_score). Writes the table to OUT (default
# target/state-matrix.md); docs/state-truth.md holds a run.
#
#   bench/state-matrix.sh                       # every cell (~45 minutes)
#   CELLS=claude:error:both,agy:plain:neither bench/state-matrix.sh   # a subset
#   SIM=0 bench/state-matrix.sh                 # the real agents only
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
run() {
  cargo test -p termic --test "$1" -- --ignored --nocapture --test-threads 1 "$2" >>"$log" 2>&1 || {
    tail -40 "$log" >&2
    exit 1
  }
}
run real_agents matrix::state_truth_matrix
if [ "${SIM:-1}" != 0 ]; then
  cargo build -q -p termic-sim
  run e2e_specs matrix::simulated_state_truth_matrix
fi
mkdir -p "$(dirname "$out")"
{
  echo "<!-- bench/state-matrix.sh, $(date -u +%Y-%m-%dT%H:%MZ), load: $(cut -d' ' -f1-3 /proc/loadavg) -->"
  echo "| agent | scenario | channel | transitions | false dones | missed needs-you | signal to badge (ms) |"
  echo "|---|---|---|---|---|---|---|"
  grep -E '^\| [a-z]' "$log" | grep -v '^| agent |'
  # What a cell found wrong beyond its counts (a state the agent did not
  # reach, a session id that did not follow `/clear`), under its row.
  if grep -q '^  wrong: ' "$log"; then
    echo
    echo "Found wrong:"
    grep -E '^\| [a-z]|^  wrong: ' "$log" | grep -v '^| agent |' |
      awk '/^\|/ { row = $0; next } { print "- " row; print "  " $0 }'
  fi
} >"$out"
echo "wrote $out" >&2
