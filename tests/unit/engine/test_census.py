"""Exact hand counts: the classic 5- and 7-card category counts, by the combinatorics the PAR
sheets use and by exhaustive enumeration through the batch evaluator."""

from itertools import combinations
from math import comb

import numpy as np
import pytest
from poker_counts import FIVE_CARD_COUNTS, SEVEN_CARD_COUNTS, combinations_array

from controller.engine.cards import ACE
from controller.engine.poker import Category, strength_batch
from controller.engine.poker.census import census, pair_of_aces


def test_seven_card_counts_by_combinatorics():
    seven = census(7)
    assert seven.categories == SEVEN_CARD_COUNTS
    assert seven.hands == comb(52, 7)


def test_straight_flush_runs_of_seven_cards():
    # Worked out by hand (CH-8, ace high or low, no wrap-around):
    # 7-card runs: 8 positions (A-7 .. 8-A) x 4 suits = 32.
    # exactly 6: 9 positions (A-6 .. 9-A); the seventh card is any of the other 46 except the
    # one or two cards that would extend the run (1 for A-6 and 9-A, 2 for the 7 others):
    # per suit 9 * 46 - (1 + 7 * 2 + 1) = 398, x 4 = 1,592.
    # exactly 5 (royals included): all straight flushes and royals minus the longer runs.
    assert census(7).straight_flush_runs == {7: 32, 6: 1_592, 5: 4_324 + 37_260 - 32 - 1_592}


def test_five_card_counts_by_combinatorics():
    five = census(5)
    assert five.categories == FIVE_CARD_COUNTS
    assert five.straight_flush_runs == {5: 40}
    # one pair of a given rank: C(4,2) suits x C(12,3) kicker ranks x 4^3 kicker suits
    assert pair_of_aces(five) == 6 * comb(12, 3) * 64 == 84_480
    assert sum(five.pairs_of(r) for r in range(ACE + 1)) == FIVE_CARD_COUNTS[Category.PAIR]


def test_five_card_strengths_by_exhaustive_enumeration():
    strengths = strength_batch(combinations_array(52, 5))
    values, counts = np.unique(strengths, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == census(5).by_strength


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
