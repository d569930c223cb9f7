"""Poker hand categories (POK-3) and the strength value that orders hands (POK-5).

A strength is an int: ``category << 20`` followed by five 4-bit rank nibbles (rank 0 = deuce ..
12 = ace) in *play order*: the ranks that decide ties, most significant first. Examples:

- pair of kings with A, 9, 4: ``PAIR``, ranks ``K K A 9 4``;
- two pair: high pair, low pair, kicker;
- the wheel A-2-3-4-5 is stored as ``5 4 3 2 A`` so that it is the lowest straight (POK-4):
  its first nibble (the five) is below every other straight's top card.

Comparing two strengths as ints is exactly the POK-5 comparison; equal strengths are a push,
whatever the unused cards (POK-5). Suits never enter a strength (POK-1).
"""

from __future__ import annotations

from enum import IntEnum


class Category(IntEnum):
    """POK-3, low to high. The ``name`` spelled with dashes is the public spelling."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        """``royal-flush``, ``two-pair``...: the spelling used in JSON, profiles and CLI."""
        return self.name.lower().replace("_", "-")

    @classmethod
    def from_label(cls, label: str) -> Category:
        try:
            return cls[label.upper().replace("-", "_")]
        except KeyError:
            known = ", ".join(c.label for c in cls)
            raise ValueError(f"unknown hand category {label!r} (known: {known})") from None


CATEGORY_SHIFT = 20


def make_strength(category: int, ranks: tuple[int, ...] | list[int]) -> int:
    """Pack a category and up to five ranks (play order) into a strength."""
    value = int(category)
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def category_of(strength: int) -> Category:
    return Category(strength >> CATEGORY_SHIFT)


def ranks_of(strength: int) -> tuple[int, int, int, int, int]:
    """The five ranks in play order (wheel: 5 4 3 2 A)."""
    return (
        (strength >> 16) & 15,
        (strength >> 12) & 15,
        (strength >> 8) & 15,
        (strength >> 4) & 15,
        strength & 15,
    )
