"""7-card evaluations per second: ours (single call and batch) against eval7, phevaluator, treys.

Every evaluator gets the same seeded random 7-card hands in the same run, each in its own
native input form prepared before timing (our int codes / an (N, 7) array; eval7.Card lists;
phevaluator int ids, which use our ``rank * 4 + suit`` numbering; treys int cards). The figure
is the best of a few repeats, since other processes share the CPU. Before timing, the script
checks that all evaluators order the hands the same way.

Targets (issue 2): our single call faster than treys; our batch path faster than eval7 called
per hand.

    .venv/bin/pip install -e '.[bench]'; .venv/bin/python bench/evaluator.py [--hands N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import eval7
import numpy as np
import treys
from phevaluator.evaluator import evaluate_7cards

from controller.engine.cards import card_name
from controller.engine.poker import strength, strength_batch

REPEATS = 3


def random_hands(count: int, seed: int = 2026) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :7].astype(np.int64)


def best_rate(run: Callable[[], object], count: int) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return count / best


def evaluators(hands: np.ndarray) -> dict[str, Callable[[], list[int] | np.ndarray]]:
    """Each evaluator over all hands, inputs prepared; returns values where higher = better."""
    ours = [tuple(int(c) for c in row) for row in hands]
    names = [[card_name(c) for c in row] for row in ours]
    e7 = [[eval7.Card(n) for n in row] for row in names]
    tr = [[treys.Card.new(n) for n in row] for row in names]
    treys_eval = treys.Evaluator()
    return {
        "croupier strength() per call": lambda: [strength(h) for h in ours],
        "croupier strength_batch()": lambda: strength_batch(hands),
        "eval7.evaluate() per call": lambda: [eval7.evaluate(h) for h in e7],
        "phevaluator evaluate_7cards() per call": lambda: [-evaluate_7cards(*h) for h in ours],
        "treys Evaluator.evaluate() per call": lambda: [
            -treys_eval.evaluate(h[:2], h[2:]) for h in tr
        ],
    }


def check_same_order(results: dict[str, list[int] | np.ndarray]) -> None:
    """Every evaluator must order consecutive hands (better, equal, worse) the same way."""
    signs = {name: np.sign(np.diff(np.asarray(v, dtype=np.int64))) for name, v in results.items()}
    reference = signs.pop("croupier strength() per call")
    for name, s in signs.items():
        if not np.array_equal(s, reference):
            raise SystemExit(f"{name} orders hands differently from ours: benchmark invalid")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200_000)
    args = parser.parse_args()
    hands = random_hands(args.hands)
    runs = evaluators(hands)
    check_same_order({name: run() for name, run in runs.items()})  # also warms every table
    rates = {name: best_rate(run, len(hands)) for name, run in runs.items()}

    print(f"7-card evaluations per second, {len(hands):,} random hands, best of {REPEATS}")
    for name, rate in rates.items():
        print(f"  {name:42s} {rate / 1e6:8.2f} M/s")
    single = rates["croupier strength() per call"]
    batch = rates["croupier strength_batch()"]
    treys_rate = rates["treys Evaluator.evaluate() per call"]
    eval7_rate = rates["eval7.evaluate() per call"]
    print(f"target 1: our single call vs treys     x{single / treys_rate:.1f} (needs > 1)")
    print(f"target 2: our batch vs eval7 per call  x{batch / eval7_rate:.1f} (needs > 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
