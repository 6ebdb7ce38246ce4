#!/usr/bin/env python3
"""Wait until TEXT shows on the screen of the only session of tmux server
SOCKET, forking nothing while it waits.

One tmux control-mode client asks for the pane's text every 20 ms. The
loop it replaces (`tmux capture-pane | grep; sleep 0.02`) forks three
processes 50 times a second, which took 8.5% of a 2-core machine's CPU
while the run it timed needed every core (bench/README.md, sixth pass).

It never hangs: a control client that ends or does not answer within a
second is replaced, and the whole wait gives up after TIMEOUT seconds
(exit 1, with the reason on stderr).

usage: poll_screen.py SOCKET TEXT [TIMEOUT=300]
"""
import os
import select
import subprocess
import sys
import time

POLL_EVERY = 0.02
ANSWER_WITHIN = 1.0


class Client:
    """A tmux control-mode client attached to the server's session."""

    def __init__(self, socket):
        self.proc = subprocess.Popen(
            ["tmux", "-L", socket, "-C", "attach"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.pending = b""

    def close(self):
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()

    def lines(self, deadline):
        """Lines as they come, until `deadline` (then None)."""
        fd = self.proc.stdout.fileno()
        while True:
            if b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                yield line
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                yield None
                return
            got = os.read(fd, 65536)
            if not got:
                yield None
                return
            self.pending += got

    def command(self, line):
        """The lines of the answer to one command, or None (no answer in
        time, an error, or the client ended)."""
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except OSError:
            return None
        answer = None
        for got in self.lines(time.monotonic() + ANSWER_WITHIN):
            if got is None:
                return None
            # flags 1: the answer to a command of this client (the
            # attach's own answer comes first, with flags 0).
            if got.startswith(b"%begin ") and got.split()[-1] == b"1":
                answer = []
            elif got.startswith(b"%end ") and answer is not None:
                return answer
            elif got.startswith(b"%error ") and answer is not None:
                return None
            elif got.startswith(b"%exit"):
                return None
            elif answer is not None:
                answer.append(got)
            # Anything else is a notification: skipped.
        return None


def main():
    socket, text = sys.argv[1], sys.argv[2].encode()
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 300.0
    give_up = time.monotonic() + timeout
    client = None
    while time.monotonic() < give_up:
        if client is None:
            client = Client(socket)
            # The pane's output is not wanted, only the answers. No answer:
            # no session yet (or the server is gone); try again.
            if client.command(b"refresh-client -f no-output") is None:
                client.close()
                client = None
                time.sleep(POLL_EVERY)
                continue
        screen = client.command(b"capture-pane -p")
        if screen is None:
            client.close()
            client = None
            continue
        if any(text in line for line in screen):
            client.close()
            return 0
        time.sleep(POLL_EVERY)
    if client is not None:
        client.close()
    print(f"poll_screen: {text.decode()} did not show within {timeout:.0f} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
