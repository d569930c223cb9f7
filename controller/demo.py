"""``make demo``: the most useful thing the project already does, on its embedded defaults.

Today: deals a few random hold'em hands from a cryptographically shuffled deck and shows what
the evaluator makes of them. It grows into the whole simulated table as the issues land.
"""

from __future__ import annotations

import secrets
import sys

from controller.cards import FULL_DECK, format_cards
from controller.poker import evaluate, longest_straight_flush


def main() -> int:
    rng = secrets.SystemRandom()
    print("Croupier demo: random hold'em deals, best five of seven (POK-2)\n")
    for _ in range(5):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        community, hole = deck[:5], deck[5:7]
        result = evaluate(hole + community)
        run = longest_straight_flush(hole + community)
        extra = f"  [{run}-card straight flush]" if run else ""
        print(f"board {format_cards(community)}  hole {format_cards(hole)}  ->  {result}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
