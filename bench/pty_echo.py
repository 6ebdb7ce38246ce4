#!/usr/bin/env python3
"""Keystroke echo through a PTY: time from writing one key to the first
output bytes that follow it (the echo or the redraw), p50/p99.
usage: pty_echo.py LABEL SAMPLES [--setup BYTES] [--until-key] -- COMMAND [ARGS...]
--setup BYTES: typed once after the start-up output settles (Python escapes,
  "\\x1d\\t" is the prefix then Tab), then the output settles again.
--until-key: time to the output that holds the typed key, not to any
  output (a workspace redraws other things too: an age label, a badge);
  the keys are letters no age label, badge or escape sequence's final
  byte holds."""
import fcntl, os, pty, select, struct, sys, termios, time

args = sys.argv[1:]
split = args.index("--")
opts, cmd = args[:split], args[split + 1 :]
label, samples = opts[0], int(opts[1])
setup = None
until_key = "--until-key" in opts
if "--setup" in opts:
    setup = opts[opts.index("--setup") + 1].encode().decode("unicode_escape").encode("latin-1")
keys = b"xzvkj" if until_key else b"abcdefghij"
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))

def drain(quiet):
    """Read until the PTY is quiet for `quiet` seconds."""
    while select.select([fd], [], [], quiet)[0]:
        try:
            os.read(fd, 65536)
        except OSError:
            return

def wait_for(key, t0, limit=2.0):
    """Seconds from t0 to output holding `key` (any output without
    --until-key); None past `limit`."""
    while True:
        left = limit - (time.monotonic() - t0)
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        try:
            got = os.read(fd, 65536)
        except OSError:
            return None
        if not until_key or key in got:
            return time.monotonic() - t0

drain(2.0)
if setup:
    os.write(fd, setup)
    drain(3.0)
times = []
for i in range(samples):
    key = keys[i % len(keys) : i % len(keys) + 1]
    os.write(fd, key)
    t0 = time.monotonic()
    took = wait_for(key, t0)
    if took is not None:
        times.append(took * 1000)
    drain(0.05)
os.kill(pid, 9)
times.sort()
if not times:
    sys.exit(f"{label}: no echo")
p = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"{label:36} echo p50 {p(0.5):6.2f} ms  p99 {p(0.99):6.2f} ms  ({len(times)}/{samples} echoed)")
