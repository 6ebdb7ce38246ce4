#!/usr/bin/env python3
"""What the client/server split costs, side by side in one run.

usage: bench/split.py BASE_BIN NEW_BIN [KEYS=200] [SECS=30]
(bench/split.sh builds both: the commit before the split and this tree.)

1. Key echo: `termic run -- sh -c 'stty raw -echo; cat'` in a PTY for a bare
   PTY (no termic), BASE (the in-process workspace) and NEW (a client of the
   server); one key at a time to each in turn (interleaved, so all three see
   the same load), time from the write to the key's first byte back.
2. Idle: NEW with 10 `sleep 600` tasks (run --detach) and a client attached
   in a PTY, BASE with one `sleep 600` task in its workspace, NEW with one;
   after SETTLE seconds (env, default 70: past the first minute, when the
   sidebar's time labels go from every second to every minute), CPU ticks
   (utime + stime) over SECS of the server and the client (BASE: its one
   process), and their RSS.
3. Throughput: MIB (env, default 200) of bench/gen_output.py
   through a bare PTY, BASE and NEW, ROUNDS (env, default 3) rounds in
   rotated order, this script's PTY reader standing in for the outer
   terminal (it reads as fast as the bytes come). Time = start to the end
   marker showing in what the client (or bare PTY) wrote. For NEW, the CPU
   seconds of the server (PTY read, screen model, engine, rendering the
   changed cells) and of the client (socket to terminal) give each stage's
   MB/s; for BASE, its one process (or its server and client, for a BASE
   built after the split).
PHASES=throughput (say) runs only that part (default echo,idle,throughput).
Every termic runs in a throwaway HOME, config and data dir; servers are
stopped at the end.
"""

import fcntl
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

ROWS, COLS = 40, 140
# Which parts run (env PHASES, comma-separated; default all three).
PHASES = os.environ.get("PHASES", "echo,idle,throughput").split(",")


class Pty:
    """A command in its own PTY (session leader, controlling terminal)."""

    def __init__(self, argv, env, cwd):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))

        def child_setup():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
            preexec_fn=child_setup, close_fds=True)
        os.close(slave)
        self.master = master
        self.lock = threading.Lock()
        self.chunks = []  # (time, bytes)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.on_data(data)

    def on_data(self, data):
        now = time.perf_counter()
        with self.lock:
            self.chunks.append((now, data))

    def output(self):
        with self.lock:
            return b"".join(d for _, d in self.chunks)

    def wait_for(self, needle, timeout=30):
        end = time.time() + timeout
        while needle not in self.output():
            if time.time() > end:
                raise SystemExit(f"timed out waiting for {needle!r}")
            time.sleep(0.05)

    def echo_ms(self, key):
        """Writes one key; ms until it first comes back (None: 2 s passed)."""
        with self.lock:
            start_index = len(self.chunks)
        sent = time.perf_counter()
        os.write(self.master, key)
        end = sent + 2
        while time.perf_counter() < end:
            with self.lock:
                for at, data in self.chunks[start_index:]:
                    if key in data:
                        return (at - sent) * 1000
            time.sleep(0.0002)
        return None

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)


# The end marker: U+A66E never occurs in gen_output.py's text, so a renderer
# that skips unchanged cells can never skip one of the marker's cells and
# split it with a cursor move.
MARK = "\ua66e" * 8


class Stream(Pty):
    """A Pty whose output is only counted and scanned for MARK (200 MiB is
    too much to keep)."""

    def __init__(self, argv, env, cwd):
        self.seen = threading.Event()
        self.count = 0
        self.tail = b""
        super().__init__(argv, env, cwd)

    def on_data(self, data):
        needle = MARK.encode()
        self.count += len(data)
        window = self.tail + data
        if needle in window:
            self.seen.set()
        self.tail = window[-len(needle):]


def fixture(root, name):
    base = os.path.join(root, name)
    env = {
        "HOME": os.path.join(base, "home"),
        "TERMIC_DATA_DIR": os.path.join(base, "data"),
        "TERMIC_CONFIG_DIR": os.path.join(base, "config"),
        "PATH": os.environ["PATH"],
        "TERM": "xterm-256color",
    }
    for k in ("HOME", "TERMIC_DATA_DIR", "TERMIC_CONFIG_DIR"):
        os.makedirs(env[k])
    with open(os.path.join(env["TERMIC_CONFIG_DIR"], "config.toml"), "w") as f:
        f.write("[ui]\nwizard_shown = true\n[notifications]\nbell = false\n")
    return env


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


def pss_kib(pid):
    """Proportional set size: the binary's pages the server and the client
    share count half to each, so the sum is what the two cost together."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def server_pid(env):
    with open(os.path.join(env["TERMIC_DATA_DIR"], "server.log")) as f:
        text = f.read()
    return int(text.rsplit("(pid ", 1)[1].split(")", 1)[0])


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def cpu_s(pid):
    return ticks(pid) / os.sysconf("SC_CLK_TCK")


def throughput(base_bin, new_bin, root):
    mib = int(os.environ.get("MIB", "200"))
    rounds = int(os.environ.get("ROUNDS", "3"))
    gen = f"python3 {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gen_output.py')} {mib}"
    produce = f"{gen}; printf '\\n{MARK}\\n'"
    times = {"bare": [], "base": [], "new": []}
    stages = {"base process": [], "new server": [], "new client": [], "new bytes out": []}
    order = ["bare", "base", "new"]
    for r in range(rounds):
        for name in order[r % 3:] + order[:r % 3]:
            env = fixture(root, f"tp{r}{name}")
            if name == "bare":
                argv = ["sh", "-c", produce]
            else:
                binary = base_bin if name == "base" else new_bin
                argv = [binary, "run", "--", "sh", "-c", produce + "; sleep 600"]
            start = time.perf_counter()
            p = Stream(argv, env, root)
            if not p.seen.wait(timeout=900):
                raise SystemExit(f"throughput {name}: no end marker in 900 s")
            secs = time.perf_counter() - start
            times[name].append(secs)
            # A BASE built after the split has a server too: its CPU counts,
            # and it is stopped like NEW's (it would keep `sleep 600`).
            served = name != "bare" and os.path.exists(
                os.path.join(env["TERMIC_DATA_DIR"], "server.log"))
            if name == "base":
                stages["base process"].append(
                    cpu_s(p.proc.pid) + (cpu_s(server_pid(env)) if served else 0))
            if name == "new":
                stages["new server"].append(cpu_s(server_pid(env)))
                stages["new client"].append(cpu_s(p.proc.pid))
                stages["new bytes out"].append(p.count)
            p.close()
            if served:
                subprocess.run([binary, "server", "stop"], env=env, capture_output=True)
            print(f"throughput round {r + 1} {name:4}: {secs:.2f} s", flush=True)
    med = {k: pct(v, 50) for k, v in times.items()}
    mb = mib * 1.048576
    for k in order:
        print(f"throughput {k:4}: median {med[k]:.2f} s ({med[k] / med['bare']:.2f}x bare), "
              f"{mb / med[k]:.1f} MB/s")
    print(f"throughput new / base: {med['new'] / med['base']:.2f}x")
    for k in ("base process", "new server", "new client"):
        cpu = pct(stages[k], 50)
        print(f"stage {k:12}: {cpu:.2f} CPU-s, {mb / cpu if cpu else float('inf'):.1f} MB/s of input")
    out = pct(stages["new bytes out"], 50)
    print(f"stage new client: wrote {out / 1e6:.1f} MB to the terminal for {mb:.0f} MB of input "
          f"({out / (mb * 1e6) * 100:.1f}%)")
    print(f"load after throughput: {open('/proc/loadavg').read().strip()}")


def main():
    base_bin, new_bin = sys.argv[1], sys.argv[2]
    keys = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    secs = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    root = tempfile.mkdtemp(prefix="termic-split-")
    cat = ["sh", "-c", "stty raw -echo; echo READY; exec cat"]
    envs = {}
    ptys = {}
    try:
        print(f"load before: {open('/proc/loadavg').read().strip()}")
        if "echo" in PHASES:
            # 1. Echo.
            envs["bare"] = fixture(root, "bare")
            envs["base"] = fixture(root, "base")
            envs["new"] = fixture(root, "new")
            ptys["bare"] = Pty(cat, envs["bare"], root)
            ptys["base"] = Pty([base_bin, "run", "--"] + cat, envs["base"], root)
            ptys["new"] = Pty([new_bin, "run", "--"] + cat, envs["new"], root)
            for p in ptys.values():
                p.wait_for(b"READY")
            time.sleep(2)
            samples = {k: [] for k in ptys}
            lost = {k: 0 for k in ptys}
            letters = b"xzqvj"
            for i in range(keys):
                key = letters[i % len(letters):i % len(letters) + 1]
                for name, p in ptys.items():
                    ms = p.echo_ms(key)
                    if ms is None:
                        lost[name] += 1
                    else:
                        samples[name].append(ms)
                    time.sleep(0.01)
            for name in ptys:
                s = samples[name]
                print(f"echo {name:4}: {len(s)} keys, median {pct(s, 50):.2f} ms, "
                      f"p90 {pct(s, 90):.2f} ms, p99 {pct(s, 99):.2f} ms, max {max(s):.2f} ms, "
                      f"lost {lost[name]}")
            add50 = pct(samples["new"], 50) - pct(samples["base"], 50)
            add99 = pct(samples["new"], 99) - pct(samples["base"], 99)
            print(f"echo added by the split (new - base): median {add50:+.2f} ms, p99 {add99:+.2f} ms")
            print(f"load after echo: {open('/proc/loadavg').read().strip()}")
            for p in ptys.values():
                p.close()
            subprocess.run([new_bin, "server", "stop"], env=envs["new"], capture_output=True)
            ptys = {}

        if "idle" in PHASES:
            # 2. Idle.
            envs["new10"] = fixture(root, "new10")
            envs["new1"] = fixture(root, "new1")
            envs["base1"] = fixture(root, "base1")
            for i in range(10):
                subprocess.run([new_bin, "run", "--detach", "--name", f"idle{i}", "--", "sleep", "600"],
                               env=envs["new10"], cwd=root, check=True, capture_output=True)
            ptys["new10"] = Pty([new_bin, "attach"], envs["new10"], root)
            ptys["new1"] = Pty([new_bin, "run", "--", "sleep", "600"], envs["new1"], root)
            ptys["base1"] = Pty([base_bin, "run", "--", "sleep", "600"], envs["base1"], root)
            for name in ("new10", "new1", "base1"):
                ptys[name].wait_for(b"sleep" if name != "new10" else b"idle9")
            procs = {
                "new10 server": server_pid(envs["new10"]),
                "new10 client": ptys["new10"].proc.pid,
                "new1 server": server_pid(envs["new1"]),
                "new1 client": ptys["new1"].proc.pid,
                "base1 workspace": ptys["base1"].proc.pid,
            }
            time.sleep(int(os.environ.get("SETTLE", "70")))
            t0 = {k: ticks(p) for k, p in procs.items()}
            time.sleep(secs)
            hz = os.sysconf("SC_CLK_TCK")
            for k, p in procs.items():
                print(f"idle {k:16}: {ticks(p) - t0[k]} ticks over {secs} s (HZ {hz}), "
                      f"RSS {rss_kib(p)} KiB, PSS {pss_kib(p)} KiB")
            for cfg in ("new10", "new1"):
                pair = (procs[f"{cfg} server"], procs[f"{cfg} client"])
                rss = sum(rss_kib(p) for p in pair)
                pss = sum(pss_kib(p) for p in pair)
                print(f"idle {cfg}: server + client RSS {rss / 1024:.1f} MiB (counting shared "
                      f"binary pages twice), PSS {pss / 1024:.1f} MiB")
            print(f"load after idle: {open('/proc/loadavg').read().strip()}")
            for p in ptys.values():
                p.close()
            ptys = {}

        # 3. Throughput.
        if "throughput" in PHASES:
            throughput(base_bin, new_bin, root)
    finally:
        for p in ptys.values():
            p.close()
        for name, env in envs.items():
            binary = base_bin if name.startswith("base") else new_bin
            if name != "bare":
                subprocess.run([binary, "server", "stop"], env=env, capture_output=True)
        for name in os.listdir(root):
            if name.startswith("tp"):  # a throughput round cut short
                env = dict(envs.get("new", {}), TERMIC_DATA_DIR=os.path.join(root, name, "data"),
                           TERMIC_CONFIG_DIR=os.path.join(root, name, "config"),
                           HOME=os.path.join(root, name, "home"), PATH=os.environ["PATH"])
                subprocess.run([new_bin, "server", "stop"], env=env, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
