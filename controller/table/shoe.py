"""The cut card of a blackjack shoe (pure).

A shoe in SHOE mode deals from one shuffle until it is shuffled again; nothing puts the cards
of a finished round back. So the table keeps count: every ``SHUFFLE`` in SHOE mode (at
identify, at the cut card) says how many cards the shoe holds, every card the shoe reports
leaves it, and once a round ends with the shoe dealt past its *penetration* (the share of
its cards dealt before the cut card, ``[shuffler] shoe_penetration``, 75% by default), the
table closes (the ``shoe`` condition) and asks the shoe to be shuffled again before the next
round. A card drawn when none is due (MD-S1) and the cards of a voided round count too: they
left the shoe.

The cut leaves the shoe at least a quarter of its cards at 75% (78 of six decks, 52 of four)
for the round that starts just before it: far more than a round of seven seats takes. Should
a shoe still run dry in a round, the card due does not come and the round is void (MD-S2,
``packet_timeout``); it is shuffled after that round like any other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ShoeCount:
    """The cards left in the shoe since its last shuffle (None: not shuffled yet)."""

    penetration: int  # percent of the shoe dealt before the cut card
    left: int | None = None
    size: int = 0  # the cards the last shuffle put in it

    def shuffled(self, cards: int) -> None:
        self.left = self.size = cards

    def dealt(self, cards: int) -> None:
        if self.left is not None:
            self.left = max(0, self.left - cards)

    @property
    def cut(self) -> int:
        """Cards left at the cut card."""
        return self.size * (100 - self.penetration) // 100

    def past_cut(self) -> bool:
        return self.left is not None and self.left <= self.cut

    def describe(self) -> str:
        return f"the cut card came ({self.left} of {self.size} cards left): shuffling the shoe"

    def to_json(self) -> dict[str, int] | None:
        if self.left is None:
            return None
        return {"left": self.left, "size": self.size, "cut": self.cut}
