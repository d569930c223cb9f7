"""Shuffle test battery benchmark: false-alarm rates of fair shuffles, the power against bad
shuffles, and the time per battery.

1. False alarms: ``--runs`` batteries of ``--shuffles`` fair whole-deck shuffles (NumPy's
   PCG64 permutations, seeded) at 99% confidence; each test's alarm rate beside its nominal
   1% and the 99% binomial range of a correct 1% test over that many runs.
2. Power: the share of runs each bad shuffle fails (the emulator's single shelf pass, the
   Gilbert-Shannon-Reeds riffle with 1 to 7 passes, the cards collected as dealt).
3. Time per battery beside the baseline: the daemon's position audit (ShuffleStats, 9
   positions) fed the same sequences, in the same run.

    .venv/bin/python bench/battery.py [--runs 1000] [--shuffles 260]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

import numpy as np

from controller.books.audit.battery import ALPHA, MIN_SHUFFLES, TESTS, run_battery
from controller.books.audit.shuffle_audit import ShuffleStats
from firmware_bridge.emulator.machine import shelf_pass


def fair(rng: np.random.Generator, shuffles: int) -> np.ndarray:
    return rng.permuted(np.tile(np.arange(52), (shuffles, 1)), axis=1)


def collected(step, shuffles: int, rng: random.Random) -> list[list[int]]:
    deck, out = list(range(52)), []
    for _ in range(shuffles):
        deck = step(deck, rng)
        out.append(list(deck))
    return out


def riffle(passes: int):
    def step(deck: list[int], rng: random.Random) -> list[int]:
        for _ in range(passes):
            cut = sum(rng.random() < 0.5 for _ in range(52))
            left, right, mixed = deck[:cut], deck[cut:], []
            while left or right:
                take_left = rng.random() < len(left) / (len(left) + len(right))
                mixed.append(left.pop(0) if take_left else right.pop(0))
            deck = mixed
        return deck

    return step


def binomial_range(n: int, p: float, level: float = 0.99) -> tuple[int, int]:
    """The central ``level`` range of Binomial(n, p)."""
    low, high, total = None, None, 0.0
    for k in range(n + 1):
        total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if low is None and total > (1 - level) / 2:
            low = k
        if high is None and total >= 1 - (1 - level) / 2:
            high = k
            break
    return low or 0, high if high is not None else n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--shuffles", type=int, default=MIN_SHUFFLES)
    args = parser.parse_args()
    names = [t.__name__.removesuffix("_test").replace("_", "-") for t in TESTS]
    rng = np.random.default_rng(2026)
    alarms = dict.fromkeys(names, 0)
    any_alarm = 0
    battery_time = audit_time = 0.0
    for _ in range(args.runs):
        s = fair(rng, args.shuffles)
        started = time.perf_counter()
        report = run_battery(s)
        battery_time += time.perf_counter() - started
        started = time.perf_counter()
        stats = ShuffleStats(9)
        for row in s.tolist():
            stats.add_shuffle(row)
        stats.report()
        audit_time += time.perf_counter() - started
        for t, name in zip(report.tests, names, strict=True):
            alarms[name] += t.p_value < ALPHA
        any_alarm += not report.passed
    low, high = binomial_range(args.runs, ALPHA)
    print(
        f"false alarms, {args.runs} batteries of {args.shuffles} fair shuffles at "
        f"{1 - ALPHA:.0%} confidence"
    )
    print(
        f"(a correct test alarms {ALPHA:.0%} of runs: {low}..{high} of {args.runs} in 99% of "
        "such measurements)"
    )
    for name in names:
        print(f"  {alarms[name] / args.runs:7.2%}  {name}")
    print(
        f"  {any_alarm / args.runs:7.2%}  any of the {len(names)} tests (independent tests: "
        f"{1 - (1 - ALPHA) ** len(names):.2%})"
    )
    print(
        f"time per battery {battery_time / args.runs * 1000:.1f} ms; baseline position audit "
        f"on the same shuffles {audit_time / args.runs * 1000:.1f} ms"
    )
    print(f"power: share of {min(args.runs, 100)} runs of {args.shuffles} shuffles that fail")
    bad = [("shelf pass (emulator fault)", lambda d, r: shelf_pass(d, r))]
    bad += [(f"riffle x{k}", riffle(k)) for k in range(1, 8)]
    for label, step in bad:
        runs = min(args.runs, 100)
        failed = sum(
            not run_battery(collected(step, args.shuffles, random.Random(n))).passed
            for n in range(runs)
        )
        print(f"  {failed / runs:7.0%}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
