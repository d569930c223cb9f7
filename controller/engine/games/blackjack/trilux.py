"""The Trilux Bonus (TRX-1, TRX-2): three-card classes from a multi-deck shoe and the exact PAR
sheet.

The three cards are the player's first two and the dealer's first card. Classes, best first:
suited A-K-Q, straight flush (three consecutive ranks, one suit), three of a kind, straight,
flush. The ace is high (Q-K-A) or low (A-2-3), never both (K-A-2 is nothing). With several decks
the same card can appear twice, so suited trips exist (7h 7h 7h): they are three of a kind and a
flush at once and are paid as the better one (TRX-2), which is the order of
``BET_LINES["trilux"]``.

The PAR sheet is exact: every 3-card subset of the physical cards of an N-deck shoe is counted
once (C(52N, 3) subsets), by walking the multisets of card codes and weighting each by the
number of ways to pick its copies from N decks. No sampling.
"""

from __future__ import annotations

from math import comb
from typing import Any

from controller.engine.cards import ACE, DECK_SIZE, KING, QUEEN
from controller.engine.games.blackjack.rules import BlackjackRules
from controller.engine.games.par import (
    LOSE,
    WIN,
    BetSheet,
    PayLine,
    Progress,
    describe_pay,
    line_return,
    other_line,
    sheets_json,
)
from controller.engine.paytable import BET_LINES, Odds, PayTable
from controller.engine.profiles import DECKS, Profile
from controller.errors import ParError

LINES = BET_LINES["trilux"]
_AKQ = frozenset((ACE, KING, QUEEN))
_A23 = frozenset((ACE, 0, 1))


def trilux_lines(cards: tuple[int, int, int] | list[int]) -> list[str]:
    """The TRX-2 classes three cards satisfy, best first (empty: the bet loses)."""
    a, b, c = cards
    ra, rb, rc = a >> 2, b >> 2, c >> 2
    flush = (a & 3) == (b & 3) == (c & 3)
    if ra == rb == rc:
        return ["three-of-a-kind", "flush"] if flush else ["three-of-a-kind"]
    ranks = {ra, rb, rc}
    straight = len(ranks) == 3 and (max(ranks) - min(ranks) == 2 or ranks == _A23)
    if straight and flush:
        return (
            ["suited-akq", "straight-flush", "straight", "flush"]
            if ranks == _AKQ
            else ["straight-flush", "straight", "flush"]
        )
    if straight:
        return ["straight"]
    return ["flush"] if flush else []


def trilux_pay(table: PayTable, cards: tuple[int, int, int] | list[int]) -> tuple[str, Odds] | None:
    """The line and odds three cards win on ``table``, or None when the bet loses (TRX-2)."""
    found = table.lookup(trilux_lines(cards))
    if found is None:
        return None
    line, pay = found
    assert isinstance(pay, Odds)  # the profile loader admits odds only on table wagers
    return line, pay


def class_counts(decks: int) -> dict[tuple[str, ...], int]:
    """Number of 3-card subsets of an N-deck shoe by the classes they satisfy (``()``: none).

    The counts add up to C(52 * decks, 3). Each multiset of card codes {a <= b <= c} stands for
    ``prod C(decks, k)`` physical subsets, k being how often each code occurs in it.
    """
    counts: dict[tuple[str, ...], int] = {}
    singles, pairs, triples = decks, comb(decks, 2), comb(decks, 3)
    for a in range(DECK_SIZE):
        for b in range(a, DECK_SIZE):
            for c in range(b, DECK_SIZE):
                if a == b == c:
                    ways = triples
                elif a == b or b == c:
                    ways = pairs * singles
                else:
                    ways = singles * singles * singles
                if ways:
                    key = tuple(trilux_lines((a, b, c)))
                    counts[key] = counts.get(key, 0) + ways
    return counts


def trilux_sheet(table: PayTable, decks: int) -> BetSheet:
    """The Trilux PAR sheet for an N-deck shoe (docs/par.md definitions: a winning line
    returns ``1 + A/B`` per unit staked, the stake coming back). A hand in several classes
    counts once, in the line it is paid by; ``other`` holds the losing subsets."""
    total = comb(DECK_SIZE * decks, 3)
    paid: dict[str, int] = dict.fromkeys(table.pays, 0)
    losing = 0
    for satisfied, ways in class_counts(decks).items():
        found = table.lookup(satisfied)
        if found is None:
            losing += ways
        else:
            paid[found[0]] += ways
    lines = [
        PayLine(line, describe_pay(pay), paid[line], WIN, line_return(pay, stake_returned=True))
        for line, pay in table.lines()
    ]
    space = (
        f"the player's first two cards and the dealer's first card from a {decks}-deck shoe: "
        f"C({DECK_SIZE * decks},3) = {total:,} subsets"
    )
    notes = (
        "the three cards come from a full shoe; cards dealt to other seats are not removed",
        "suited trips (possible with several decks) are paid as three of a kind (TRX-2)",
        "A is high (Q-K-A) or low (A-2-3); K-A-2 is not a straight",
    )
    return BetSheet(
        "trilux", "Trilux Bonus (TRX-2)", space, (*lines, other_line("other", losing, LOSE)), notes
    )


def par_sheet(
    profile: Profile,
    decks: int | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> dict[str, Any]:
    """``croupier par`` for a blackjack profile: the Trilux sheet for a shoe of ``decks``
    (the profile's own deck count by default; 4 to 6, BJ-1). One short computation: its
    ``progress(done, total)`` is called once, when done."""
    unknown = sorted(k for k, v in options.items() if v is not None)
    if unknown:
        raise ParError(f"{unknown[0]} is not an option of the blackjack PAR sheet (only decks)")
    if decks is not None and not DECKS[0] <= decks <= DECKS[1]:
        raise ParError(f"profile {profile.name}: a shoe has 4 to 6 decks (BJ-1), not {decks}")
    rules = BlackjackRules.from_profile(profile, decks)
    document = sheets_json(profile.name, [trilux_sheet(rules.trilux, rules.decks)])
    document["decks"] = rules.decks
    if progress is not None:
        progress(1, 1)
    return document
