#!/usr/bin/env python3
"""Seeded generator of realistic terminal output for throughput benchmarks.

Writes MIB mebibytes (default 200) to stdout: coloured log lines, diff and
compiler lines, 256-colour and truecolour SGR runs, some non-ASCII text,
about 5% of lines longer than 160 columns, and an OSC 0 title every 400
lines. A 4 MiB block is generated once from a fixed seed and written
repeatedly, so the generator itself costs almost nothing.

usage: gen_output.py [MIB]
"""
import random
import sys

SEED = 7501
WORDS = ["fn", "let", "mut", "self", "match", "Some(x)", "return", "impl", "&str", "Vec<u8>", "=>", "{", "}", "::new()", "pub", "struct", "0x1b", "// note"]
BLOCK = 4 * 1024 * 1024

def line(rng, n):
    kind = rng.random()
    if kind < 0.30:
        lvl = rng.choice(["\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[31mERROR\x1b[0m", "\x1b[2mDEBUG\x1b[0m"])
        return f"2026-11-30T02:{n % 60:02d}:{(n * 7) % 60:02d}.{n % 1000:03d}Z {lvl} \x1b[36mworker-{n % 8}\x1b[0m request id={rng.getrandbits(48):012x} took {rng.randint(1, 900)}ms"
    if kind < 0.50:
        sign = rng.choice(["\x1b[32m+", "\x1b[31m-", " "])
        return f"{sign}    let value_{n % 97} = compute(&input[{rng.randint(0, 99)}..]); // résumé ✓\x1b[0m"
    if kind < 0.62:
        return (f"\x1b[1m\x1b[31merror[E0{rng.randint(100, 799)}]\x1b[0m\x1b[1m: mismatched types\x1b[0m\n"
                f"  \x1b[1m\x1b[34m-->\x1b[0m src/engine/rules/mod_{n % 31}.rs:{rng.randint(1, 999)}:{rng.randint(1, 80)}")
    if kind < 0.80:
        # syntax-highlighted code: a 256-colour SGR per token
        toks = [f"\x1b[38;5;{rng.randint(16, 231)}m{rng.choice(WORDS)}" for _ in range(rng.randint(6, 14))]
        return "    " + " ".join(toks) + "\x1b[0m"
    if kind < 0.95:
        # truecolour runs (a theme, a gradient bar) and non-ASCII text
        toks = [f"\x1b[38;2;{rng.randint(0,255)};{rng.randint(0,255)};{rng.randint(0,255)}m{'█' * rng.randint(2, 6)}" for _ in range(rng.randint(4, 10))]
        return "".join(toks) + "\x1b[0m 日本語テキスト ok"
    # ~5%: longer than the 160-column width, so it wraps.
    return "wrapped: " + " ".join(f"token{rng.randint(0, 9999)}" for _ in range(40))

def block():
    rng = random.Random(SEED)
    parts = []
    size = 0
    n = 0
    while size < BLOCK:
        if n % 400 == 0:
            s = f"\x1b]0;bench {n}\x07"
            parts.append(s)
            size += len(s.encode())
        s = line(rng, n) + "\r\n"
        parts.append(s)
        size += len(s.encode())
        n += 1
    return "".join(parts).encode()

def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    data = block()
    total = mib * 1024 * 1024
    out = sys.stdout.buffer
    written = 0
    while written < total:
        chunk = data[: total - written]
        out.write(chunk)
        written += len(chunk)
    out.write(b"\x1b[0m\r\nEND-OF-BENCH\r\n")
    out.flush()

if __name__ == "__main__":
    main()
