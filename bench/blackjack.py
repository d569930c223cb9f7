"""Blackjack engine throughput: rounds per second played and settled (BJ-1..9, TRX-1..2).

Seven seats, each with a table-minimum bet and a Trilux bet, follow basic strategy
(controller/engine/games/blackjack/strategy.py) through rounds dealt from shuffled 6-deck shoes
(reshuffled when fewer than 80 cards remain; seeded, so both runs see the same cards). Each
round goes from the first card to ``round_result`` (every wager paid).

Measured twice in the same run, on the same rounds:

- engine: the product's hands, which keep a running hard total and ace count;
- baseline: the same engine with a naive hand that recomputes its total from the card list
  every time it is read (what a straightforward implementation does).

The two are run alternately ``--repeat`` times and the best time of each is kept (the machine is
shared). Both must pay exactly the same; the figures are printed, never asserted.

    .venv/bin/python bench/blackjack.py [--rounds N] [--repeat R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from controller.engine.games.blackjack import (
    BlackjackRound,
    BlackjackRules,
    Hand,
    Phase,
    SeatBet,
    round_result,
)
from controller.engine.games.blackjack.hand import RANK_VALUES
from controller.engine.games.blackjack.strategy import choose
from controller.engine.profiles import load_profile

SEATS = 7
DECKS = 6
RESHUFFLE_BELOW = 80  # cards left in the shoe


def _ignore(hand: Hand, value: int) -> None:
    """The running totals Hand.add/remove_second maintain are dropped in the baseline."""


class NaiveHand(Hand):
    """Baseline: the hard total and the ace count are recomputed from the cards on every read."""

    __slots__ = ()

    hard = property(lambda self: sum(RANK_VALUES[c >> 2] for c in self.cards), _ignore)
    aces = property(lambda self: sum(1 for c in self.cards if c >> 2 == 12), _ignore)


class NaiveRound(BlackjackRound):
    hand_class = NaiveHand


def shuffled_shoes(count: int, seed: int) -> list[list[int]]:
    """Shuffled outside the timed runs, and the same for both."""
    rng = random.Random(seed)
    shoes = []
    for _ in range(count):
        shoe = [code for code in range(52) for _ in range(DECKS)]
        rng.shuffle(shoe)
        shoes.append(shoe)
    return shoes


def play(
    round_class: type[BlackjackRound], rules: BlackjackRules, shoes: list[list[int]], rounds: int
):
    """Play ``rounds`` rounds; returns (seconds, hands played, total staked, total paid)."""
    bets = [SeatBet(s, rules.bet_min, rules.trilux_min) for s in range(1, SEATS + 1)]
    source = iter(shoes)
    shoe, position = next(source), 0
    hands = staked = paid = 0
    start = time.perf_counter()
    for _ in range(rounds):
        if len(shoe) - position < RESHUFFLE_BELOW:
            shoe, position = next(source), 0
        game = round_class(rules, bets)
        while game.phase is not Phase.SETTLED:
            due = game.expected_cards()
            if due:
                if position + due > len(shoe):
                    raise RuntimeError("a round ran past the cut card: raise RESHUFFLE_BELOW")
                for card in shoe[position : position + due]:
                    game.deal(card)
                position += due
                continue
            turn = game.turn()
            if turn is not None and turn.kind == "insurance":
                game.insure(0)
            else:
                legal = game.legal_actions()
                game.act(choose(game.current_hand(), game.dealer.cards[0], legal))
        result = round_result(game, "trilux-gr")
        for seat in result.seats:
            hands += len(seat.extra["hands"])
            staked += seat.staked
            paid += seat.paid
    return time.perf_counter() - start, hands, staked, paid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rules = BlackjackRules.from_profile(load_profile("trilux-gr"), DECKS)
    # a round of 7 seats takes well under 77 cards, so a shoe lasts 3 rounds at least
    shoes = shuffled_shoes(args.rounds // 3 + 2, args.seed)
    runs: dict[type[BlackjackRound], list[tuple[float, int, int, int]]] = {
        BlackjackRound: [],
        NaiveRound: [],
    }
    for _ in range(args.repeat):
        for round_class, results in runs.items():
            results.append(play(round_class, rules, shoes, args.rounds))
    outcomes = {run[1:] for results in runs.values() for run in results}
    if len(outcomes) != 1:
        print(f"MISMATCH between runs: {sorted(outcomes)}")
        return 1
    engine, baseline = (min(results) for results in runs.values())
    seconds, hands, staked, paid = engine
    print(
        f"{args.rounds} rounds, {SEATS} seats, basic strategy, {DECKS} decks: "
        f"{hands} hands, staked {staked}, paid {paid} (identical in every run); "
        f"best of {args.repeat}"
    )
    for name, run in (("engine (running totals)", engine), ("baseline (recomputed)", baseline)):
        print(f"  {name:<26} {args.rounds / run[0]:>9,.0f} rounds/s  {run[0]:.2f} s")
    print(f"  speed-up {baseline[0] / seconds:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
