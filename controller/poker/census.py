"""Exact counts of every 5-card and every 7-card hand by category (POK-3), for PAR sheets.

- :func:`five_card_census` enumerates all C(52,5) = 2,598,960 hands with the batch evaluator.
- :func:`seven_card_census` counts all C(52,7) = 133,784,560 hands by exact combinatorics
  instead of enumerating them (the exhaustive enumeration is a test, tests/unit/test_census.py):

  1. *Hands without a flush* depend only on their rank multiset. There are 49,205 multisets of
     7 ranks with at most four of a rank; a multiset with counts ``n_r`` is dealt in
     ``prod C(4, n_r)`` ways, and its strength is one lookup in the evaluator's rank table.
  2. *Hands with a flush* (five or more cards of one suit; at most one suit can) are listed
     directly: per suit, ``k`` = 5, 6 or 7 suited ranks (a 13-bit mask) and ``7 - k`` cards
     from the 39 of other suits. Their strength is the better of the flush-table entry of the
     mask and the rank-multiset strength (a flush among seven cards leaves too few cards for
     quads or a full house, but the code takes the maximum rather than rely on it).
  3. Each flush hand is also one of the ``prod C(4, n_r)`` deals of its rank multiset, so the
     flush hands are subtracted from their multisets before step 1 is summed.

  The longest straight-flush run (CH-8) of a flush hand is that of its suited mask: the other
  cards are off-suit and cannot extend it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import comb, prod

import numpy as np

from controller.cards import ACE
from controller.poker.categories import CATEGORY_SHIFT, Category
from controller.poker.evaluator import RANK_KEYS, _tables, strength_batch
from controller.poker.special import longest_straight_flush


@dataclass(frozen=True)
class Census:
    """Hands of one size counted by category; the details some pay tables need besides."""

    cards: int  # hand size
    hands: int  # how many hands in all: C(52, cards)
    categories: dict[Category, int]
    pairs_by_rank: tuple[int, ...] = ()  # 5 cards: one-pair hands by the rank of the pair
    straight_flush_runs: dict[int, int] | None = None  # 7 cards: run length -> hands (CH-8)

    def count(self, category: Category) -> int:
        return self.categories.get(category, 0)


def combinations_array(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) (n <= 127) in lexicographic order, one sorted row each, as a
    (C(n,k), k) int8 array. Built column by column: each row is extended by every larger card."""
    rows = np.arange(n - k + 1, dtype=np.int8)[:, None]
    for column in range(1, k):
        last = rows[:, -1].astype(np.int64)
        room = (n - k + column) - last  # choices for the next card that still leave room
        starts = np.repeat(np.cumsum(room) - room, room)
        following = np.repeat(last + 1, room) + (np.arange(int(room.sum())) - starts)
        rows = np.hstack([np.repeat(rows, room, axis=0), following[:, None].astype(np.int8)])
    return rows


@cache
def five_card_census() -> Census:
    """Every 5-card hand, enumerated and evaluated."""
    strengths = strength_batch(combinations_array(52, 5))
    categories = np.bincount(strengths >> CATEGORY_SHIFT, minlength=len(Category))
    pairs = strengths[strengths >> CATEGORY_SHIFT == Category.PAIR]
    pair_ranks = np.bincount((pairs >> 16) & 15, minlength=13)
    return Census(
        cards=5,
        hands=len(strengths),
        categories={Category(c): int(n) for c, n in enumerate(categories)},
        pairs_by_rank=tuple(int(n) for n in pair_ranks),
    )


def _suit_masks(bits: int) -> list[int]:
    return [m for m in range(1 << 13) if m.bit_count() == bits]


def _off_suit_ranks(cards: int) -> list[tuple[tuple[int, ...], int]]:
    """Rank multisets of ``cards`` cards from the 39 of the three other suits, with how many
    ways each is dealt."""
    result = []
    for ranks in combinations_with_replacement(range(13), cards):
        ways = prod(comb(3, ranks.count(r)) for r in set(ranks))
        result.append((ranks, ways))
    return result


@cache
def seven_card_census() -> Census:
    """Every 7-card hand, counted by exact combinatorics (see the module docstring)."""
    rank_tables, flush_table, _ = _tables()
    rank_table = rank_tables[7]
    ways_of_key: Counter[int] = Counter()  # rank-sum key -> deals without a flush
    for combo in combinations_with_replacement(range(13), 7):
        counts = [combo.count(r) for r in range(13)]
        if max(counts) <= 4:
            ways_of_key[sum(RANK_KEYS[r] for r in combo)] = prod(comb(4, n) for n in counts)

    categories: Counter[Category] = Counter()
    runs: Counter[int] = Counter()
    for suited in (5, 6, 7):
        others = _off_suit_ranks(7 - suited)
        for mask in _suit_masks(suited):
            mask_key = sum(RANK_KEYS[r] for r in range(13) if mask >> r & 1)
            run = longest_straight_flush([r * 4 for r in range(13) if mask >> r & 1])
            for ranks, ways in others:
                key = mask_key + sum(RANK_KEYS[r] for r in ranks)
                hands = 4 * ways  # four suits
                ways_of_key[key] -= hands
                best = max(flush_table[mask], rank_table[key])
                categories[Category(best >> CATEGORY_SHIFT)] += hands
                if run:
                    runs[run] += hands
    for key, ways in ways_of_key.items():
        categories[Category(rank_table[key] >> CATEGORY_SHIFT)] += ways
    return Census(
        cards=7,
        hands=comb(52, 7),
        categories={c: categories[c] for c in Category},
        straight_flush_runs=dict(sorted(runs.items())),
    )


def pair_of_aces(census: Census) -> int:
    """5-card hands that are exactly one pair, of aces (the lowest CH-7 Bonus line)."""
    return census.pairs_by_rank[ACE]
