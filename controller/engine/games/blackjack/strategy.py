"""Basic strategy for simulated players (bench/blackjack.py, the rig's soak players).

The usual chart for a multi-deck shoe, dealer standing on soft 17, double after split, no
surrender and no hole card (so 11 and a pair of 8s do not fight a ten or an ace, and split aces
do not fight an ace). Insurance is never taken. The chart names the wish; :func:`choose` falls
back to a legal action when the wish is not allowed (a double on three cards, a third split).

Columns are the dealer's up card 2, 3, 4, 5, 6, 7, 8, 9, ten, ace. Letters: ``H`` hit, ``S``
stand, ``D`` double else hit, ``d`` double else stand, ``P`` split.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.engine.games.blackjack.engine import DOUBLE, HIT, SPLIT, STAND
from controller.engine.games.blackjack.hand import RANK_VALUES, Hand

_HARD = {
    8: "HHHHHHHHHH",
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDHH",
    12: "HHSSSHHHHH",
    13: "SSSSSHHHHH",
    14: "SSSSSHHHHH",
    15: "SSSSSHHHHH",
    16: "SSSSSHHHHH",
}
_SOFT = {
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SddddSSHHH",
}
_PAIRS = {  # by the value of one card of the pair; a missing value plays as its total
    1: "PPPPPPPPPH",
    2: "PPPPPPHHHH",
    3: "PPPPPPHHHH",
    4: "HHHPPHHHHH",
    6: "PPPPPHHHHH",
    7: "PPPPPPHHHH",
    8: "PPPPPPPPHH",
    9: "PPPPPSPPSS",
}
_ACTION = {"H": HIT, "S": STAND, "P": SPLIT}


def column(up_card: int) -> int:
    """Chart column of the dealer's up card: 2..10 -> 0..8, ace -> 9."""
    value = RANK_VALUES[up_card >> 2]
    return 9 if value == 1 else value - 2


def wish(hand: Hand, up_card: int, *, pairs: bool = True) -> str:
    """The chart letter for ``hand`` against the dealer's up card (``pairs=False``: as if
    the pair could not be split)."""
    col = column(up_card)
    cards = hand.cards
    if pairs and len(cards) == 2 and RANK_VALUES[cards[0] >> 2] == RANK_VALUES[cards[1] >> 2]:
        row = _PAIRS.get(RANK_VALUES[cards[0] >> 2])
        if row is not None:
            return row[col]
    total = hand.total
    if hand.is_soft:
        return _SOFT[total][col] if total in _SOFT else ("S" if total >= 19 else "H")
    if total >= 17:
        return "S"
    return _HARD[total][col] if total in _HARD else "H"


def choose(hand: Hand, up_card: int, legal: Sequence[str]) -> str:
    """A legal action for ``hand`` following the chart."""
    letter = wish(hand, up_card)
    if letter == "P" and SPLIT not in legal:  # BJ-7: a third split is refused
        letter = wish(hand, up_card, pairs=False)
    if letter in "Dd":
        if DOUBLE in legal:
            return DOUBLE
        return HIT if letter == "D" else STAND
    return _ACTION[letter]
