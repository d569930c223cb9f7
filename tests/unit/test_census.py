"""Exact hand counts: the classic 5- and 7-card category counts, by exhaustive enumeration and
by the combinatorics the PAR sheets use."""

from itertools import combinations
from math import comb

import numpy as np
import pytest
from poker_counts import FIVE_CARD_COUNTS, SEVEN_CARD_COUNTS

from controller.poker import Category, strength_batch
from controller.poker.census import (
    combinations_array,
    five_card_census,
    pair_of_aces,
    seven_card_census,
)


def test_seven_card_counts_by_combinatorics():
    census = seven_card_census()
    assert census.categories == SEVEN_CARD_COUNTS
    assert sum(census.categories.values()) == census.hands == comb(52, 7)


def test_straight_flush_runs_of_seven_cards():
    # Worked out by hand (CH-8, ace high or low, no wrap-around):
    # 7-card runs: 8 positions (A-7 .. 8-A) x 4 suits = 32.
    # exactly 6: 9 positions (A-6 .. 9-A); the seventh card is any of the other 46 except the
    # one or two cards that would extend the run (1 for A-6 and 9-A, 2 for the 7 others):
    # per suit 9 * 46 - (1 + 7 * 2 + 1) = 398, x 4 = 1,592.
    # exactly 5 (royals included): all straight flushes and royals minus the longer runs.
    runs = seven_card_census().straight_flush_runs
    assert runs == {7: 32, 6: 1_592, 5: 4_324 + 37_260 - 32 - 1_592}


def test_five_card_counts_by_enumeration():
    census = five_card_census()
    assert census.categories == FIVE_CARD_COUNTS
    assert census.hands == comb(52, 5)
    # one pair of a given rank: C(4,2) suits x C(12,3) kicker ranks x 4^3 kicker suits
    assert pair_of_aces(census) == 6 * comb(12, 3) * 64 == 84_480
    assert sum(census.pairs_by_rank) == FIVE_CARD_COUNTS[Category.PAIR]


@pytest.mark.parametrize(("n", "k"), [(5, 5), (6, 1), (7, 3), (10, 4), (12, 7)])
def test_combinations_array_lists_every_subset_in_order(n, k):
    assert combinations_array(n, k).tolist() == [list(c) for c in combinations(range(n), k)]


@pytest.mark.slow
def test_seven_card_counts_by_exhaustive_enumeration():
    """Every one of the C(52,7) hands through the batch evaluator (about 10 s)."""
    # A hand is a pair a < b followed by 5 cards above b. Sorting the 5-subsets of range(50)
    # in colex order (by largest card first) makes the first C(n,5) rows exactly the 5-subsets
    # of range(n), so each prefix takes a slice of one table.
    subsets = combinations_array(50, 5)
    subsets = subsets[np.lexsort(subsets.T)]
    counts = np.zeros(len(Category), dtype=np.int64)
    hands_seen = 0
    for a in range(52):
        for b in range(a + 1, 47):
            above = subsets[: comb(51 - b, 5)].astype(np.int16) + (b + 1)
            hands = np.empty((len(above), 7), dtype=np.int16)
            hands[:, 0], hands[:, 1], hands[:, 2:] = a, b, above
            counts += np.bincount(strength_batch(hands) >> 20, minlength=len(Category))
            hands_seen += len(hands)
    assert hands_seen == comb(52, 7)
    assert {Category(c): int(n) for c, n in enumerate(counts)} == SEVEN_CARD_COUNTS
