"""Seconds for every profile's full exact PAR sheet, against a per-hand PyPI-evaluator baseline.

Ours: wall-clock time of ``croupier par --profile NAME --json`` in a fresh Python process per
profile (interpreter start, imports, evaluator tables, every bet of the profile, JSON output),
so no profile profits from another's caches. The sum is the "all hold'em profiles" figure
(target: under 30 s on the 2-core machine). The time of all profiles in one process (tables and
heads-up counts shared) is printed too.

Baseline: the same enumerations with eval7 (the fastest PyPI evaluator here) called once per
hand, counting only the evaluator calls (loops, bookkeeping and the showdown comparisons are
left out, so the baseline is a lower bound):

- UTH profiles: every (board, player hole pair) hand, C(52,5) x C(47,2) = 2,809,475,760 7-card
  evaluations; they cover Trips, the progressive and both sides of every heads-up showdown.
- Casino Hold'em: the C(52,5) 5-card hands (Bonus) and the C(52,7) 7-card hands (Jumbo 7).

Enumerating that many hands with eval7 would take hours, so eval7 is timed on a subset of
random hands (--sample, prepared as eval7.Card lists beforehand) and its rate extrapolated to
the full counts; the output says so.

    .venv/bin/pip install -e '.[bench]'; .venv/bin/python bench/par.py [--sample N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from math import comb

import eval7
import numpy as np

from controller.engine.cards import card_name
from controller.engine.games import PAR_SHEETS, par_sheet
from controller.engine.profiles import available_profiles, load_profile

HOLDEM = ("uth", "casino-holdem")
BASELINE_HANDS = {  # game -> {hand size: evaluations of the full enumeration}
    "uth": {7: comb(52, 5) * comb(47, 2)},
    "casino-holdem": {5: comb(52, 5), 7: comb(52, 7)},
}


def eval7_rate(size: int, sample: int, seed: int = 7) -> float:
    """eval7.evaluate calls per second on ``sample`` random hands of ``size`` cards."""
    rng = np.random.default_rng(seed)
    hands = np.argsort(rng.random((sample, 52)), axis=1)[:, :size]
    prepared = [[eval7.Card(card_name(int(c))) for c in row] for row in hands]
    evaluate = eval7.evaluate
    start = time.perf_counter()
    for hand in prepared:
        evaluate(hand)
    return sample / (time.perf_counter() - start)


def fresh_process_seconds(profile: str) -> float:
    command = [sys.executable, "-m", "controller.cli.main", "par", "--profile", profile, "--json"]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=300_000, help="hands timed per eval7 rate")
    args = parser.parse_args()
    profiles = [p for p in available_profiles() if load_profile(p).game in PAR_SHEETS]

    rates = {size: eval7_rate(size, args.sample) for size in (5, 7)}
    print(
        f"baseline: eval7.evaluate per hand, timed on {args.sample:,} random hands per size "
        f"({rates[7] / 1e6:.2f} M/s for 7 cards, {rates[5] / 1e6:.2f} M/s for 5) and "
        "extrapolated to the full enumeration (evaluator calls only: a lower bound)"
    )
    print(
        f"{'profile':10s} {'ours, fresh process':>20s} {'baseline (extrapolated)':>24s}  speed-up"
    )
    total_ours = total_base = 0.0
    for name in profiles:
        game = load_profile(name).game
        ours = fresh_process_seconds(name)
        counts = BASELINE_HANDS.get(game)
        if counts is None:
            print(f"{name:10s} {ours:19.1f}s {'(no baseline)':>24s}")
            continue
        base = sum(n / rates[size] for size, n in counts.items())
        if game in HOLDEM:
            total_ours += ours
            total_base += base
        print(f"{name:10s} {ours:19.1f}s {base:23,.0f}s  x{base / ours:,.0f}")
    print(
        f"{'hold em':10s} {total_ours:19.1f}s {total_base:23,.0f}s  x{total_base / total_ours:,.0f}"
        "   (target: ours under 30 s)"
    )

    start = time.perf_counter()
    for name in profiles:
        par_sheet(load_profile(name))
    elapsed = time.perf_counter() - start
    print(f"all profiles in one process (shared tables and showdown counts): {elapsed:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
