#!/usr/bin/env python3
"""Keystroke echo through a PTY: time from writing one key to the first
output bytes that follow it (the echo or the redraw), p50/p99.
usage: pty_echo.py LABEL SAMPLES -- COMMAND [ARGS...]"""
import fcntl, os, pty, select, struct, sys, termios, time

label, samples, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[4:]
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

drain(2.0)
times = []
for i in range(samples):
    os.write(fd, b"abcdefghij"[i % 10 : i % 10 + 1])
    t0 = time.monotonic()
    if select.select([fd], [], [], 2.0)[0]:
        os.read(fd, 65536)
        times.append((time.monotonic() - t0) * 1000)
    drain(0.05)
os.kill(pid, 9)
times.sort()
if not times:
    sys.exit(f"{label}: no echo")
p = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"{label:28} echo p50 {p(0.5):6.2f} ms  p99 {p(0.99):6.2f} ms  ({len(times)}/{samples} echoed)")
