"""Soak benchmark: rounds per second through the full daemon, beside the same rounds settled
by the game engine alone in-process (the ceiling), in the same run.

Full daemon: a real ``croupierd`` on ``config/sim.toml`` with the soak's speed levers (the
emulator on a pty, unpaced; 2 ms sensor and 1 ms button debounce), driven by the rig's robot
dealer: stakes on the sensors, LOCK and CONFIRM on the console pins, every packet dealt over
the shuffler protocol, verdict, settlement, one SQLite ``synchronous=FULL`` commit per money
event, the sign and lamps following. No faults, no kills; the books are reconciled at the
end as in the soak. Measured with one table (LOCK and CONFIRM on the console buttons, then
from the dealer's tablet, i.e. the control socket), then with ``--tables`` tables at once
(one daemon each).

Ceiling: the very rounds the daemon dealt (the cards the emulator delivered, the same
stakes), settled by ``controller.engine.games.settle`` in this process, warm, best of 3.

    .venv/bin/python bench/soak.py [--rounds N] [--tables K]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from controller.engine import games
from controller.engine.cards import card_name
from controller.engine.profiles import load_profile
from controller.rig.dealer import RoundSeen
from controller.rig.soak import SOAK_OVERRIDES, Soak, run_soak
from controller.rig.table import SimTable


class Recording(Soak):
    """A soak that also keeps every round it saw."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[RoundSeen] = []

    def book(self, seen: RoundSeen) -> None:
        super().book(seen)
        self.seen.append(seen)


def record(seen: RoundSeen, stake: int) -> dict[str, Any]:
    """The round as ``croupier settle`` reads it (docs/settle.md)."""
    hands = seen.hands
    assert hands is not None
    return {
        "profile": "uth-gr",
        "community": [card_name(c) for c in hands.community],
        "dealer": [card_name(c) for c in hands.dealer],
        "pools": {"progressive": {"amount": 500_000, "seed": 500_000}},
        "seats": [
            {"seat": s, "cards": [card_name(c) for c in hole], "stakes": {"progressive": stake}}
            for s, hole in hands.seats.items()
        ],
    }


def engine_rate(records: list[dict[str, Any]]) -> float:
    profile = load_profile("uth-gr")
    games.settle(profile, records[0])  # warm: the evaluator builds its tables once
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for data in records:
            games.settle(profile, data)
        best = min(best, time.perf_counter() - start)
    return len(records) / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--tables", type=int, default=3)
    args = parser.parse_args()

    with SimTable(overrides=SOAK_OVERRIDES) as table:
        table.wait_for_state("open", timeout=30)
        soak = Recording(table, faults=0.0, kill_rate=0.0, seed=1)
        one = soak.run(args.rounds)
    with SimTable(overrides=SOAK_OVERRIDES) as table:
        table.wait_for_state("open", timeout=30)
        tablet = Soak(table, faults=0.0, kill_rate=0.0, seed=1, tablet=True).run(args.rounds)
    if not (one.ok and tablet.ok):
        print(f"the books do not agree: {(one.problems + tablet.problems)[:5]}")
        return 1
    records = [record(s, soak.stake) for s in soak.seen if s.outcome == "settled"]
    many = run_soak(args.rounds, faults=0.0, kill_rate=0.0, seed=2, tables=args.tables)
    ceiling = engine_rate(records)

    print(f"bench/soak.py: {args.rounds} UTH rounds of 1-4 progressive seats, no faults")
    print(
        f"  full daemon, 1 table:           {one.rate:8.1f} rounds/s"
        f"  ({1000 / one.rate:6.1f} ms a round)"
    )
    print(
        f"  same, LOCK/CONFIRM from tablet: {tablet.rate:8.1f} rounds/s"
        f"  ({1000 / tablet.rate:6.1f} ms a round: no debounced button presses)"
    )
    print(
        f"  full daemon, {args.tables} tables at once:  {many.rate:8.1f} rounds/s"
        f"  ({'ok' if many.ok else 'BOOKS DISAGREE'})"
    )
    print(
        f"  engine alone, in-process:       {ceiling:8.1f} rounds/s"
        f"  ({1000 / ceiling:6.2f} ms a round, the same {len(records)} rounds)"
    )
    print(f"  one table runs at {100 * one.rate / ceiling:.1f}% of the engine's ceiling")
    return 0 if many.ok else 1


if __name__ == "__main__":
    sys.exit(main())
