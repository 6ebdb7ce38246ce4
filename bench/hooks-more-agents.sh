#!/bin/bash
# hooks-more-agents.sh [RUNS] : termic's installed hooks for Gemini CLI, Qwen Code and
# GitHub Copilot CLI, on the real binaries, offline (issue 15).
#
# For each agent and run: a scratch HOME with the recipe's settings (recorder hooks of the
# "user" on every event), `termic hooks install AGENT --yes` beside them, then
# `termic run AGENT --event-log` in tmux: a "hi" turn, then "please WRITEFILE now",
# approved 4 s after the permission prompt shows, then `termic hooks remove AGENT`.
# Prints per run: each hook -> badge latency (the user's recorder on the same event
# starting -> termic's event-log transition), whether needs you came with no done
# before it, how many dones followed the approval, and whether settings.json came back
# byte for byte. Needs: tmux, node, python3, the agents from .ci/real-agents-install
# (or $CACHE/bin/{gemini,qwen,copilot}), the recipe in $RECIPE, target/debug/termic.
# AGENTS="gemini qwen" picks agents.
set -u
RUNS=${1:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TERMIC=${TERMIC:-$ROOT/target/debug/termic}
RECIPE=${RECIPE:-/work/shared/real-agents/more-agents}
CACHE=${CACHE:-$HOME/.cache/termic/real-agents}
D=$(mktemp -d /tmp/termic-hooks-more.XXXXXX)
SOCK=termic-bench-$$
cp -r "$RECIPE"/fake_models.py "$RECIPE"/hookrec.sh "$RECIPE"/configs "$D"/ && chmod -R u+w "$D"
NODE=$(dirname "$(command -v node)")
declare -A PORT=([gemini]=18770 [qwen]=18771 [copilot]=18772)
PIDS=()
for a in gemini qwen copilot; do
  mkdir -p "$D/run-$a/proj" "$D/logs"
  (cd "$D" && FAKE_CWD=$D/run-$a/proj FAKE_DELAY=2 exec python3 fake_models.py ${PORT[$a]} logs/$a-http.jsonl) > "$D/logs/fake-$a.out" 2>&1 &
  PIDS+=($!)
done
trap 'kill ${PIDS[*]} 2>/dev/null; tmux -L $SOCK kill-server 2>/dev/null; [ -n "${KEEP:-}" ] && echo "kept $D" || rm -rf "$D"' EXIT
sleep 1
for a in gemini qwen copilot; do
  for _ in $(seq 1 50); do grep -q "fake models on" "$D/logs/fake-$a.out" && break; sleep 0.2; done
  grep -q "fake models on" "$D/logs/fake-$a.out" || { echo "fake server for $a did not start:"; tail -1 "$D/logs/fake-$a.out"; exit 1; }
done

waitfor() { for _ in $(seq 1 $(( $3 * 5 ))); do tmux -L $SOCK capture-pane -p -t "$1" | grep -qE "$2" && return 0; sleep 0.2; done; return 1; }

one_run() { # AGENT READY_RE PERM_RE
  local A=$1 READY=$2 PERM=$3 R=$D/run-$1 DIR ENVS P=${PORT[$1]}
  rm -rf "$R/home" "$R/config" "$R/data" "$R/logs" "$R/proj/out.txt"
  mkdir -p "$R/home" "$R/config" "$R/data" "$R/logs"
  case $A in
    gemini) DIR=.gemini; ENVS="GEMINI_API_KEY = \"dummy\", GOOGLE_GEMINI_BASE_URL = \"http://127.0.0.1:$P\"" ;;
    qwen) DIR=.qwen; ENVS="OPENAI_API_KEY = \"dummy\", OPENAI_BASE_URL = \"http://127.0.0.1:$P/v1\", OPENAI_MODEL = \"fake-model\", QWEN_USAGE_STATISTICS_ENABLED = \"false\"" ;;
    copilot) DIR=.copilot; ENVS="COPILOT_OFFLINE = \"true\", COPILOT_PROVIDER_BASE_URL = \"http://127.0.0.1:$P/v1\", COPILOT_PROVIDER_TYPE = \"openai\", COPILOT_PROVIDER_WIRE_API = \"completions\", COPILOT_PROVIDER_API_KEY = \"dummy\", COPILOT_MODEL = \"fake-model\", COPILOT_AUTO_UPDATE = \"false\"" ;;
  esac
  mkdir -p "$R/home/$DIR"
  sed "s#\${PROBE_DIR}#$D#g" "$D/configs/$A-settings.json" > "$R/home/$DIR/settings.json"
  [ "$A" = copilot ] && printf '{"trustedFolders": ["%s"]}\n' "$R/proj" > "$R/home/.copilot/config.json"
  printf '[ui]\nwizard_shown = true\n\n[agents.%s]\ncommand = ["%s"]\nenv = { %s, HOOKREC_LOG = "%s" }\n' \
    "$A" "$CACHE/bin/$A" "$ENVS" "$R/logs/hooks.log" > "$R/config/config.toml"
  cp "$R/home/$DIR/settings.json" "$R/settings.before"
  local E=(env -i HOME="$R/home" PATH="$CACHE/bin:$NODE:/usr/local/bin:/usr/bin:/bin" TERM=xterm-256color LANG=C.UTF-8
    XDG_CONFIG_HOME="$R/home/.config" XDG_DATA_HOME="$R/home/.local/share" XDG_CACHE_HOME="$R/home/.cache"
    TERMIC_CONFIG_DIR="$R/config" TERMIC_DATA_DIR="$R/data")
  (cd "$R/proj" && "${E[@]}" "$TERMIC" hooks install "$A" --yes) > "$R/logs/install.txt" 2>&1
  tmux -L $SOCK new-session -d -s "$A" -x 160 -y 45 "cd $R/proj && ${E[*]} $TERMIC run $A --event-log $R/logs/events.jsonl"
  waitfor "$A" "$READY" 90; sleep 2
  tmux -L $SOCK send-keys -t "$A" -l "hi"; sleep 0.3; tmux -L $SOCK send-keys -t "$A" Enter
  waitfor "$A" "Hello from the fake server" 40; sleep 4
  date +%s%3N > "$R/logs/turn2.ms"
  tmux -L $SOCK send-keys -t "$A" -l "please WRITEFILE now"; sleep 0.3; tmux -L $SOCK send-keys -t "$A" Enter
  waitfor "$A" "$PERM" 60; sleep 4
  date +%s%3N > "$R/logs/approve.ms"
  tmux -L $SOCK send-keys -t "$A" Enter
  waitfor "$A" "Done: wrote out.txt" 40; sleep 4
  tmux -L $SOCK kill-session -t "$A"
  # Closing the pane hangs termic up; it ends the task's process group (SIGKILL
  # after the grace). Anything still running with this HOME after 8 s is left behind.
  sleep 8
  grep -ls "HOME=$R/home" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 > "$R/logs/left.txt"
  (cd "$R/proj" && "${E[@]}" "$TERMIC" hooks remove "$A" --yes) > "$R/logs/remove.txt" 2>&1
  python3 - "$R" "$A" "$DIR" <<'PY'
import json, os, re, sys
R, A, DIR = sys.argv[1:]
ev = [json.loads(l) for l in open(f"{R}/logs/events.jsonl")]
hooks = []
for l in open(f"{R}/logs/hooks.log"):
    t, name = l.split()[:2]
    hooks.append((float(t) * 1000, name))
lat = []
for e in ev:
    if not e["rule"].startswith("hook_"):
        continue
    name = re.search(r"\((\w+)\)", e["reason"]).group(1)
    # the user's recorder on the same event, the latest start at or before the transition
    starts = [t for t, n in hooks if n == name and t <= e["ts"]]
    if starts:
        ms = e["ts"] - max(starts)
        if e["rule"] == "hook_attention":
            ms -= 1000  # the permission debounce (held 1s), not transport
        lat.append(f"{e['to']}<-{name} {ms:.0f}ms")
t2 = int(open(f"{R}/logs/turn2.ms").read()); ap = int(open(f"{R}/logs/approve.ms").read())
turn2 = [e for e in ev if e["ts"] >= t2]
first_need = next((i for i, e in enumerate(turn2) if e["to"] == "needs_you"), None)
done_before = first_need is not None and any(e["to"] == "done" for e in turn2[:first_need])
dones_after = sum(1 for e in ev if e["ts"] >= ap and e["to"] == "done")
same = open(f"{R}/settings.before", "rb").read() == open(f"{R}/home/{DIR}/settings.json", "rb").read()
behind = [p for p in open(f"{R}/logs/left.txt").read().split() if p]
left = os.path.exists(f"{R}/home/{DIR}/termic-hooks") or os.path.exists(f"{R}/home/{DIR}/termic-hooks-gemini")
print(f"{A}: needs_you={'yes' if first_need is not None else 'NO'} done_before_it={'YES' if done_before else 'no'} "
      f"dones_after_approve={dones_after} settings_restored={'yes' if same else 'NO'} termic_files_left={'YES' if left else 'no'} "
      f"processes_left_after_close={len(behind)}")
print("   " + ", ".join(lat))
PY
}

uptime
for run in $(seq 1 "$RUNS"); do
  for a in ${AGENTS:-gemini qwen copilot}; do
    case $a in
      gemini) one_run gemini "Type your message" "Allow once" ;;
      qwen) one_run qwen "Type your message" "[Aa]llow once" ;;
      copilot) one_run copilot "❯" "Do you want" ;;
    esac
  done
done
uptime
