"""``make demo``: the most useful thing the project already does, on its embedded defaults.

Today: deals Ultimate Texas Hold'em rounds (profile uth-gr) from a cryptographically shuffled
deck in shuffler order (UTH-11: community 5, then 2 per seat, then the dealer's 2), lets each
seat play a simple strategy, and settles every wager with the engine, progressive included.
It grows into the whole simulated table as the issues land.
"""

from __future__ import annotations

import secrets
import sys

from controller.cards import FULL_DECK, Card
from controller.cli.settle_cmd import print_human
from controller.games import settle
from controller.poker import Category, evaluate
from controller.profiles import load_profile

SEATS = 4
ANTE = 1000  # EUR 10.00


def simple_decision(hole: list[Card], community: list[Card]) -> list[str]:
    """Raise 4x with a pocket pair or an ace, 2x with a pair on the flop, else 1x with a pair
    at the river, else fold (UTH-4)."""
    if hole[0].rank == hole[1].rank or max(c.rank for c in hole) == 12:
        return ["4x"]
    if evaluate(hole + community[:3]).category >= Category.PAIR:
        return ["check", "2x"]
    if evaluate(hole + community).category >= Category.PAIR:
        return ["check", "check", "1x"]
    return ["check", "check", "fold"]


def deal_round(profile_name: str, pool: int) -> dict:
    deck = list(FULL_DECK)
    secrets.SystemRandom().shuffle(deck)
    community, rest = deck[:5], deck[5:]
    seats = []
    for n in range(1, SEATS + 1):
        hole, rest = rest[:2], rest[2:]
        seats.append(
            {
                "seat": n,
                "cards": [str(c) for c in hole],
                "stakes": {"ante": ANTE, "blind": ANTE, "trips": 500, "progressive": 100},
                "decision": simple_decision(hole, community),
            }
        )
    return {
        "profile": profile_name,
        "dealer": [str(c) for c in rest[:2]],
        "community": [str(c) for c in community],
        "pools": {"progressive": pool},
        "seats": seats,
    }


def main() -> int:
    profile = load_profile("uth-gr")
    pool = 2_500_000
    print("Croupier demo: Ultimate Texas Hold'em rounds, profile uth-gr, settled by the engine\n")
    for number in range(1, 4):
        data = deal_round(profile.name, pool)
        print(f"--- round {number}: board {' '.join(data['community'])}")
        result = settle(profile, data)
        print_human(result)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
