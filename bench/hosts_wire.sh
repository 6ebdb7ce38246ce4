#!/bin/sh
# Wire cost of a remote task (issue 29 item 5), over a real sshd on
# 127.0.0.1 with a second local user as the remote account (root only, as
# the hosts:: tests; see /work/shared/testing-here.md).
# Measures, in one run: the bytes that cross ssh (rchar + wchar of every ssh
# process termic starts, read from /proc/PID/io through a TERMIC_SSH
# wrapper) while a remote task prints a flood and `termic attach HOST:TASK`
# shows it in a 120x40 PTY (script(1));
# the flood's own size as the baseline; and the local CPU ticks (utime +
# stime from /proc) of the local termic processes and the ssh processes.
# Then key echo (bench/pty_echo.py): ssh -tt host cat against termic attach,
# and against the workspace pane (`termic attach` of a local task, then the
# prefix and Tab to the remote `cat` task; each key timed to the redraw
# that holds it), the same keys and timing rule for ssh and the pane.
# usage: bench/hosts_wire.sh [MIB=200]   (TERMIC_BIN, TERMIC_OTHER_USER;
#   ECHO_ONLY=1 skips the flood)
set -eu
cd "$(dirname "$0")/.."
MIB=${1:-200}
BIN=${TERMIC_BIN:-$PWD/target/debug/termic}
USER2=${TERMIC_OTHER_USER:-termic-other}
[ -x "$BIN" ] || { echo "no termic binary at $BIN (cargo build -p termic)"; exit 1; }
T=$(mktemp -d /tmp/hosts-wire.XXXXXX); chmod 755 "$T"
FAR=$T/far NEAR=$T/near
mkdir -p "$FAR/data" "$FAR/config" "$NEAR/data" "$NEAR/config" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$NEAR/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$NEAR/key"
cp "$NEAR/key.pub" "$FAR/authorized_keys"
printf '#!/bin/sh\nTERMIC_DATA_DIR=%s/data TERMIC_CONFIG_DIR=%s/config exec %s "$@"\n' "$FAR" "$FAR" "$BIN" >"$FAR/termic"
chmod 755 "$FAR/termic"; chown -R "$USER2" "$FAR"
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
/usr/sbin/sshd -D -f /dev/null -p "$PORT" -h "$NEAR/hostkey" -E "$NEAR/sshd.log" \
  -o ListenAddress=127.0.0.1 -o PidFile=none -o PasswordAuthentication=no -o UsePAM=no \
  -o StrictModes=no -o "AuthorizedKeysFile=$FAR/authorized_keys" </dev/null &
SSHD=$!
cleanup() {
  TERMIC_DATA_DIR=$NEAR/data TERMIC_CONFIG_DIR=$NEAR/config "$BIN" server stop >/dev/null 2>&1 || true
  su -s /bin/sh "$USER2" -c "$FAR/termic server stop" >/dev/null 2>&1 || true
  kill "$SSHD" 2>/dev/null || true
  rm -rf "$T"
}
trap cleanup EXIT
while ! python3 -c "import socket;socket.create_connection(('127.0.0.1',$PORT))" 2>/dev/null; do sleep 0.05; done
printf '#!/bin/sh\necho $$ >>%s/sshpids\nexec ssh "$@"\n' "$NEAR" >"$NEAR/ssh"; chmod 755 "$NEAR/ssh"
cat >"$NEAR/config/config.toml" <<TOML
[hosts.far]
destination = "$USER2@127.0.0.1"
ssh_args = ["-p", "$PORT", "-i", "$NEAR/key", "-F", "/dev/null", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]
termic = "$FAR/termic"

[ui]
wizard_shown = true
TOML
export TERMIC_DATA_DIR=$NEAR/data TERMIC_CONFIG_DIR=$NEAR/config TERMIC_SSH=$NEAR/ssh
tm() { "$BIN" "$@"; }
io() { # total rchar+wchar of the ssh processes still alive
  t=0; for p in $(cat "$NEAR/sshpids" 2>/dev/null); do
    v=$(awk '/^(rchar|wchar)/{s+=$2} END{print s+0}' /proc/$p/io 2>/dev/null || echo 0); t=$((t+v)); done; echo $t; }
ticks() { # utime+stime of the local server and ssh processes
  t=0; for p in $(cat "$NEAR/sshpids" 2>/dev/null) $(pgrep -u root -f "$BIN (server|attach)" || true); do
    v=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null || echo 0); t=$((t+v)); done; echo $t; }
FLOOD="sleep 2; head -c $((MIB*1024*1024)) /dev/urandom | od -An -tx1 | head -c $((MIB*1024*1024)); echo FLOOD-END; sleep 600"
flood() { # $1: label, $2: attach or not
  tm run --detach --host far -- sh -c "$FLOOD" >/dev/null
  id=$(tm ls --json --host far | python3 -c 'import json,sys;d=json.load(sys.stdin);r=d if isinstance(d,list) else d.get("tasks",d);print(sorted(r,key=lambda t:str(t.get("id")))[-1]["id"])')
  sleep 1; b0=$(io); c0=$(ticks); s0=$(date +%s.%N)
  apid=
  if [ "$2" = attach ]; then timeout 600 script -qfc "stty cols 120 rows 40; exec $BIN attach far:$id" /dev/null >"$NEAR/attach.out" 2>&1 & apid=$!; fi
  # the flood is over when the remote's od process is gone
  n=0; until pgrep -u "$USER2" -x od >/dev/null || [ $n -gt 100 ]; do sleep 0.05; n=$((n+1)); done
  f0=$(date +%s.%N)
  while pgrep -u "$USER2" -x od >/dev/null; do sleep 0.2; done
  echo "  local terminal received $(wc -c <"$NEAR/attach.out" 2>/dev/null || echo 0) bytes from attach"
  f1=$(date +%s.%N); sleep 1; b1=$(io); c1=$(ticks); s1=$(date +%s.%N)
  [ -z "$apid" ] || kill "$apid" 2>/dev/null || true
  tm kill "far:$id" >/dev/null 2>&1 || true
  python3 - "$1" "$b0" "$b1" "$c0" "$c1" "$s0" "$s1" "$MIB" "$f0" "$f1" <<'PY'
import sys,os
l,b0,b1,c0,c1,s0,s1,mib,f0,f1=sys.argv[1:];b=int(b1)-int(b0);hz=os.sysconf('SC_CLK_TCK');secs=float(s1)-float(s0)
print(f"{l:28} ssh bytes {b/1048576:9.2f} MiB  ratio to flood {b/(int(mib)*1048576):.4f}  local cpu {(int(c1)-int(c0))/hz:6.2f} s over {secs:5.1f} s, flood ran {float(f1)-float(f0):5.1f} s")
PY
}
tm hosts ls >/dev/null 2>&1 || true
echo "flood $MIB MiB in a remote task, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "${ECHO_ONLY:-}" ] || flood "attached (termic attach)" attach
SSHARGS=$(python3 -c 'import re,sys;print(" ".join(re.findall(r'"'"'"([^"]*)"'"'"',open(sys.argv[1]).read().split("ssh_args =")[1].split("\n")[0])))' "$NEAR/config/config.toml")
tm run --detach --host far -- cat >/dev/null
id=$(tm ls --json --host far | python3 -c 'import json,sys;d=json.load(sys.stdin);r=d if isinstance(d,list) else d.get("tasks",d);print(sorted(r,key=lambda t:str(t.get("id")))[-1]["id"])')
# shellcheck disable=SC2086
python3 bench/pty_echo.py "plain ssh -tt host cat" 200 -- ssh -tt $SSHARGS "$USER2@127.0.0.1" cat
python3 bench/pty_echo.py "termic attach far:$id (cat)" 200 -- "$BIN" attach "far:$id"
# The workspace pane: a local task focused first, then prefix Tab walks to
# the remote tasks in number order, up to the cat.
# It echoes nothing: a key that reached it instead of the pane is no echo.
tm run --detach --name here -- sh -c "stty -echo; exec sleep 600" >/dev/null
tabs=$(tm ls --json --host far | python3 -c 'import json,sys;d=json.load(sys.stdin);r=d if isinstance(d,list) else d.get("tasks",d);ids=sorted(int(t["id"]) for t in r);print(ids.index('"$id"')+1)')
setup=$(python3 -c "print('\\x1d\\t' * $tabs)")
echo "load average before the echo runs: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2; do
# shellcheck disable=SC2086
python3 bench/pty_echo.py "plain ssh -tt host cat ($round)" 200 --until-key -- ssh -tt $SSHARGS "$USER2@127.0.0.1" cat
python3 bench/pty_echo.py "workspace pane far:$id ($round)" 200 --setup "$setup" --until-key -- "$BIN" attach here
done
tm kill here >/dev/null 2>&1 || true
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
