"""Shuffle audit: chi-square p-values, a fair shuffle passes, a biased one raises the alarm."""

import math
import random

import pytest

from controller.books.audit.shuffle_audit import ShuffleStats, chi2_sf


@pytest.mark.parametrize(
    ("x", "df", "expected"),
    [
        (3.841458820694124, 1, 0.05),  # textbook critical values
        (6.634896601021214, 1, 0.01),
        (18.307038053275146, 10, 0.05),
        (0.0, 5, 1.0),
        (124.34211340400407, 100, 0.05),
    ],
)
def test_chi2_sf_matches_tables(x, df, expected):
    assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("x", [0.5, 2.0, 7.5, 30.0])
def test_chi2_sf_with_two_df_is_exp(x):
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)


def test_fair_shuffles_pass():
    rng = random.Random(7)
    stats = ShuffleStats(positions=13)
    for _ in range(400):
        deck = list(range(52))
        rng.shuffle(deck)
        assert stats.add_shuffle(deck)
    report = stats.report()
    assert report.ready and not report.alarm
    assert all(0 < t.p_value <= 1 for t in report.tests)


def single_pass_shelf_shuffle(rng, deck, shelves=8):
    """One pass: each card goes on top or bottom of a random shelf; shelves are stacked."""
    piles = [[] for _ in range(shelves)]
    for card in deck:
        pile = piles[rng.randrange(shelves)]
        if rng.random() < 0.5:
            pile.insert(0, card)
        else:
            pile.append(card)
    return [c for pile in piles for c in pile]


def test_biased_shuffle_raises_the_alarm():
    rng = random.Random(11)
    stats = ShuffleStats(positions=13)
    for _ in range(300):
        stats.add_shuffle(single_pass_shelf_shuffle(rng, list(range(52))))
    report = stats.report()
    assert report.alarm and report.worst_p < 1e-6


def test_unrecognised_or_short_shuffles_are_ignored():
    stats = ShuffleStats(positions=5)
    assert not stats.add_shuffle([1, 2, None, 4, 5])
    assert not stats.add_shuffle([1, 2, 3])
    assert stats.add_shuffle([1, 2, 3, 4, 5, 6])
    assert stats.shuffles == 1
    assert not stats.report().ready  # far too few shuffles for the approximation
    assert not stats.report().alarm


def play_rounds(shuffle, rounds, dealt=13, seed=5):
    """Cards are collected in the order they left the machine, then the rest of the stack,
    and shuffled again (the emulator's and a real table's card flow)."""
    rng = random.Random(seed)
    stats = ShuffleStats(positions=9)
    stack = list(range(52))
    for _ in range(rounds):
        stack = shuffle(rng, stack)
        stats.add_shuffle(stack[:dealt])
        stack = stack[:dealt] + stack[dealt:]  # delivered first, then what stayed inside
    return stats.report()


def fair(rng, cards):
    cards = list(cards)
    rng.shuffle(cards)
    return cards


def test_carry_over_passes_a_fair_shuffler():
    report = play_rounds(fair, 300)
    carry = next(t for t in report.tests if t.name == "carry-over")
    assert carry.ready and not report.alarm


def test_carry_over_catches_a_single_shelf_pass_with_collected_order():
    report = play_rounds(single_pass_shelf_shuffle, 300)
    by_name = {t.name: t for t in report.tests}
    assert report.alarm
    assert by_name["carry-over"].p_value < 1e-6
