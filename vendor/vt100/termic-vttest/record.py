#!/usr/bin/env python3
"""Record vttest's screens as tmux draws them, for src/termic_vttest.rs.

Usage: record.py OUT_DIR PATH...

Each PATH is a dotted menu path to one vttest test (`1` runs all of menu
1 screen by screen; `11.5.4` opens menu 11, then 11.5, then runs test 4).
vttest 2.7 runs in a detached tmux at 83x24 (TERM=xterm, vttest told
24x80.132); every byte it writes goes to OUT_DIR/log (tmux pipe-pane).
For each screen of a test this waits until the output is still, saves
tmux's text and cursor as OUT_DIR/NAME.tmux (each row without trailing
blanks, ended by `|`, then `cursor=ROW,COL`) and the log's length at that
moment in OUT_DIR/index, then presses Enter, until vttest shows a menu
again. Needs tmux and vttest (Debian: apt install tmux vttest).

The recordings in this directory were made on 2026-12-06 with tmux 3.3a
and vttest 2.7 (20221229):
  record.py menus-1-2-8 1 2 8       (see README.md for the exact list)
"""
import os
import subprocess
import sys
import time

COLS, ROWS = 83, 24
SOCKET = "termic-vttest-record"


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True,
                          text=True, check=check).stdout


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    if not paths:
        sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "log")
    if os.path.exists(log):
        os.remove(log)
    index = []
    tmux("kill-server", check=False)
    tmux("-f", "/dev/null", "new-session", "-d", "-x", str(COLS), "-y", str(ROWS),
         "TERM=xterm vttest 24x80.132; sleep 1000")
    tmux("pipe-pane", "-o", "-t", "0", f"cat > {log}")

    def size():
        return os.path.getsize(log) if os.path.exists(log) else 0

    def settle():
        # still for 150 ms, or 9 s at most
        prev = -1
        for _ in range(60):
            time.sleep(0.15)
            now = size()
            if now == prev:
                return
            prev = now

    def snap(name):
        settle()
        rows = tmux("capture-pane", "-p", "-t", "0").split("\n")[:ROWS]
        text = "".join(r.rstrip(" ") + "|\n" for r in rows)
        text += tmux("display", "-p", "-t", "0", "cursor=#{cursor_y},#{cursor_x}").strip() + "\n"
        if "Enter choice number" in text and name != "menu":
            return False
        with open(os.path.join(out, name + ".tmux"), "w") as f:
            f.write(text)
        index.append(f"{name} {size()}")
        return True

    def press(keys):
        tmux("send-keys", "-t", "0", keys, "Enter")
        settle()

    snap("menu")
    for path in paths:
        steps = path.split(".")
        for step in steps:
            press(step)
        for n in range(1, 40):
            if not snap(f"{path}.{n}"):
                break
            press("")
        for _ in steps[:-1]:
            press("0")
    tmux("kill-server", check=False)
    with open(os.path.join(out, "index"), "w") as f:
        f.write("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
