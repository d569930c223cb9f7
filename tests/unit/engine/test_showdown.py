"""Exact heads-up counts (the Blind's PAR sheet, UTH-8) against brute force and published
figures."""

from collections import Counter
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from poker_counts import combinations_array

from controller.engine.poker import Category, strength
from controller.engine.poker.census import census
from controller.engine.poker.showdown import (
    DEALS,
    PAIR_MIN,
    BoardClasses,
    board_class_of,
    board_classes,
    count_showdowns,
)


def brute_force(board, qualifier=PAIR_MIN):
    """Every player pair against every dealer pair of the other cards, plainly: a
    (7, categories) array of hands, win, tie, lose, and the same three against dealers below
    the qualifier."""
    rest = [c for c in range(52) if c not in board]
    pairs = list(combinations(rest, 2))
    s = np.array([strength([*board, *p]) for p in pairs])
    p = np.array(pairs)
    shares = (p[:, None, :, None] == p[None, :, None, :]).any(axis=(2, 3))
    dealer_ok = ~shares
    weak_dealer = dealer_ok & (s[None, :] < qualifier)
    win = (s[:, None] > s[None, :]) & dealer_ok
    tie = (s[:, None] == s[None, :]) & dealer_ok
    lose = (s[:, None] < s[None, :]) & dealer_ok
    per_hand = [
        np.ones(len(pairs), dtype=np.int64),
        win.sum(1),
        tie.sum(1),
        lose.sum(1),
        (win & weak_dealer).sum(1),
        (tie & weak_dealer).sum(1),
        (lose & weak_dealer).sum(1),
    ]
    category = s >> 20
    return np.array([[int(v[category == c].sum()) for c in range(10)] for v in per_hand])


def counted(board, qualifier=PAIR_MIN):
    ranks, live = board_class_of(board)
    one = BoardClasses(np.array([ranks]), np.array([live]), np.array([1]))
    r = count_showdowns(one, qualifier=qualifier)
    rows = (r.hands, r.win, r.tie, r.lose, r.win_unqualified, r.tie_unqualified, r.lose_unqualified)
    return np.array(rows)


EDGE_BOARDS = {
    "royal on board": [32 + 3, 36 + 3, 40 + 3, 44 + 3, 48 + 3],
    "quads on board": [48, 49, 50, 51, 0],
    "five to a flush, wheel": [48, 0, 4, 8, 12],
    "four to a flush": [0, 8, 16, 24, 33],
    "three to a flush, paired": [0, 1, 8, 16, 44],
    "rainbow two pair": [0, 1, 4, 5, 51],
    "full house on board": [0, 1, 2, 4, 5],
}


@pytest.mark.parametrize("board", EDGE_BOARDS.values(), ids=EDGE_BOARDS.keys())
def test_counts_match_brute_force_on_edge_boards(board):
    assert (counted(board) == brute_force(board)).all()


@settings(max_examples=25)
@given(
    st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True),
    st.sampled_from([PAIR_MIN, 0, 1 << 20 | 2 << 16, 3 << 20]),  # pair, none, 4s (CH-4), trips
)
def test_counts_match_brute_force(board, qualifier):
    assert (counted(board, qualifier) == brute_force(board, qualifier)).all()


def test_board_classes_cover_every_board_once():
    """Classify all C(52,5) boards directly and compare with the combinatorial weights."""
    boards = combinations_array(52, 5).astype(np.int64)
    ranks, suits = boards >> 2, boards & 3
    rank_code = (5**ranks).sum(axis=1)  # rank counts as a base-5 number
    # per suit: the rank mask of its cards (distinct ranks, so a sum is an or) and their count
    suit_masks = np.stack([np.where(suits == s, 1 << ranks, 0).sum(axis=1) for s in range(4)], 1)
    sizes = np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1)
    live_suit = sizes.argmax(axis=1)
    live = np.where(sizes.max(axis=1) >= 3, suit_masks[np.arange(len(boards)), live_suit], 0)
    direct = Counter(zip(rank_code.tolist(), live.tolist(), strict=True))

    classes = board_classes()
    code = (classes.rank_counts * 5 ** np.arange(13)).sum(axis=1)
    combinatorial = dict(
        zip(
            zip(code.tolist(), classes.live_mask.tolist(), strict=True),
            classes.weight.tolist(),
            strict=True,
        )
    )
    assert direct == combinatorial
    assert int(classes.weight.sum()) == comb(52, 5)


def test_workers_split_gives_the_same_counts():
    classes = board_classes()
    part = BoardClasses(
        *(a[::20] for a in (classes.rank_counts, classes.live_mask, classes.weight))
    )
    assert count_showdowns(part, workers=2) == count_showdowns(part, workers=1)


@pytest.fixture(scope="session")
def all_showdowns():
    from controller.engine.games.par_holdem import uth_showdowns

    return uth_showdowns()


@pytest.mark.slow
def test_every_deal_is_counted(all_showdowns):
    r = all_showdowns
    assert r.deals == DEALS == 2_598_960 * 1_081 * 990
    assert [h * 990 for h in r.hands] == [
        w + t + x for w, t, x in zip(r.win, r.tie, r.lose, strict=True)
    ]
    # player and dealer are dealt alike: every win of one is a loss of the other
    assert sum(r.win) == sum(r.lose)
    # each 7-card hand appears once per split into 2 hole + 5 community cards
    seven = census(7).categories
    assert list(r.hands) == [21 * seven[c] for c in Category]


@pytest.mark.slow
def test_player_wins_by_hand_match_wizard_of_odds(all_showdowns):
    # Wizard of Odds, "Florida Variant of Trips Bet" (Trips pays only when the player beats
    # the dealer): combinations of player wins by the player's hand, over 2,781,381,002,400
    # deals. https://wizardofodds.com/games/three-card-poker/side-bets/millionaire-maker/
    # florida-variant-trips-bet/
    win = all_showdowns.win
    assert win[Category.ROYAL_FLUSH] == 85_615_200
    assert win[Category.STRAIGHT_FLUSH] == 734_237_144
    assert win[Category.FOUR_OF_A_KIND] == 4_240_864_800
    assert win[Category.FULL_HOUSE] == 62_810_500_464
    assert win[Category.FLUSH] == 71_523_195_288
    assert str(win[Category.STRAIGHT]).startswith("103685076")  # the page cuts it there


@pytest.mark.slow
def test_unqualified_dealers(all_showdowns):
    r = all_showdowns
    unqualified = sum(r.win_unqualified) + sum(r.tie_unqualified) + sum(r.lose_unqualified)
    # the dealer's 7 cards are as random as the player's: the dealer is below a pair
    # (high card) in the same share of deals as the player
    assert unqualified == sum(r.hands[: Category.PAIR]) * 990
    # a player with a pair or better beats every unqualified dealer
    assert all(r.tie_unqualified[c] == r.lose_unqualified[c] == 0 for c in Category if c > 0)
