"""Exact counts of every 5-card and every 7-card hand by strength (POK-3..5), for PAR sheets.

:func:`census` counts all C(52,5) = 2,598,960 or C(52,7) = 133,784,560 hands by exact
combinatorics instead of evaluating them one by one (tests enumerate them exhaustively and
agree):

1. *Hands without a flush* depend only on their rank multiset. A multiset with counts ``n_r``
   (at most four of a rank; 49,205 of them for 7 cards) is dealt in ``prod C(4, n_r)`` ways,
   and its strength is one lookup in the evaluator's rank table.
2. *Hands with a flush* (five or more cards of one suit; at most one suit can have them) are
   listed directly: per suit, ``k`` suited ranks (a 13-bit mask, ``5 <= k <= size``) and the
   rank multiset of the ``size - k`` cards of the three other suits. Their strength is the
   better of the flush-table entry of the mask and the rank strength (a flush among seven cards
   leaves too few cards for quads or a full house, but the code takes the maximum rather than
   rely on it).
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

from controller.engine.cards import ACE
from controller.engine.poker.categories import CATEGORY_SHIFT, Category
from controller.engine.poker.evaluator import RANK_KEYS, _dense_rank_table, _tables
from controller.engine.poker.special import longest_straight_flush

_RANK_KEYS = np.asarray(RANK_KEYS, dtype=np.int64)
_MASKS = np.arange(1 << 13)
_MASK_BITS = (_MASKS[:, None] >> np.arange(13)) & 1  # (8192, 13)
_MASK_SIZES = _MASK_BITS.sum(axis=1)


@dataclass(frozen=True)
class Census:
    """Every hand of one size, counted by strength."""

    cards: int  # hand size
    by_strength: dict[int, int]  # strength (controller.engine.poker.categories) -> hands
    straight_flush_runs: dict[int, int]  # longest run of 5, 6 or 7 (CH-8) -> hands

    @property
    def hands(self) -> int:
        return sum(self.by_strength.values())

    @property
    def categories(self) -> dict[Category, int]:
        counts: Counter[Category] = Counter()
        for value, hands in self.by_strength.items():
            counts[Category(value >> CATEGORY_SHIFT)] += hands
        return {c: counts[c] for c in Category}

    def count(self, category: Category) -> int:
        return self.categories[category]

    def pairs_of(self, rank: int) -> int:
        """One-pair hands whose pair is of ``rank`` (0 = deuce .. 12 = ace)."""
        return sum(
            n
            for value, n in self.by_strength.items()
            if value >> CATEGORY_SHIFT == Category.PAIR and (value >> 16) & 15 == rank
        )


def _off_suit(cards: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank-key sums of the rank multisets of ``cards`` cards from the 39 cards of three
    suits, and how many ways each is dealt."""
    keys, ways = [], []
    for ranks in combinations_with_replacement(range(13), cards):
        keys.append(sum(RANK_KEYS[r] for r in ranks))
        ways.append(prod(comb(3, ranks.count(r)) for r in set(ranks)))
    return np.array(keys, dtype=np.int64), np.array(ways, dtype=np.int64)


@cache
def census(size: int) -> Census:
    """Every hand of ``size`` (5 to 7) cards, counted by exact combinatorics."""
    rank_table = _tables()[0][size]
    flush_table = np.asarray(_tables()[1], dtype=np.int64)
    dense = _dense_rank_table(size)
    deals: Counter[int] = Counter()  # rank-key sum -> deals without a flush
    for combo in combinations_with_replacement(range(13), size):
        counts = [combo.count(r) for r in set(combo)]
        if max(counts) <= 4:
            deals[sum(RANK_KEYS[r] for r in combo)] = prod(comb(4, n) for n in counts)

    by_strength: Counter[int] = Counter()
    runs: Counter[int] = Counter()
    for suited in range(5, size + 1):
        masks = _MASKS[suited == _MASK_SIZES]
        off_keys, off_ways = _off_suit(size - suited)
        keys = (_MASK_BITS[masks] @ _RANK_KEYS)[:, None] + off_keys[None, :]
        hands = np.broadcast_to(4 * off_ways, keys.shape)  # four suits
        best = np.maximum(flush_table[masks][:, None], dense[keys])
        for value, n in _sum_by(best, hands).items():
            by_strength[value] += n
        for key, n in _sum_by(keys, hands).items():
            deals[key] -= n
        per_mask = int(4 * off_ways.sum())
        for mask in masks.tolist():
            run = longest_straight_flush([r * 4 for r in range(13) if mask >> r & 1])
            if run:
                runs[run] += per_mask
    for key, n in deals.items():
        by_strength[rank_table[key]] += n
    return Census(size, dict(sorted(by_strength.items())), dict(sorted(runs.items())))


def _sum_by(labels: np.ndarray, weights: np.ndarray) -> dict[int, int]:
    """Total weight per distinct label, as Python ints."""
    unique, inverse = np.unique(labels.ravel(), return_inverse=True)
    totals = np.zeros(len(unique), dtype=np.int64)
    np.add.at(totals, inverse, weights.ravel())
    return dict(zip(unique.tolist(), totals.tolist(), strict=True))


def pair_of_aces(five: Census) -> int:
    """One-pair hands of aces (the lowest CH-7 Bonus line)."""
    return five.pairs_of(ACE)
