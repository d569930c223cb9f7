"""The evaluator against a plain brute-force oracle (POK-1..5)."""

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.cards import parse_cards
from controller.engine.poker import (
    Category,
    evaluate,
    is_community_royal,
    is_pair_of_aces_or_better,
    longest_straight_flush,
    strength,
    strength_batch,
)
from controller.errors import CardError

# --- the oracle: a five-card evaluator written plainly, independent of the tables ----------


def oracle_five(cards):
    """(category, tie-break ranks) of exactly five cards; ranks 0..12, ace 12."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    suits = {c & 3 for c in cards}
    counts = Counter(ranks)
    # groups sorted by (count, rank) descending: the tie-break order of POK-5
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    ordered = [r for r, n in groups for _ in range(n)]
    flush = len(suits) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:
            straight_top = 3  # the wheel: five high (POK-4)
    shape = sorted(counts.values(), reverse=True)
    if straight_top is not None and flush:
        cat = "royal-flush" if straight_top == 12 else "straight-flush"
        return cat, (straight_top,)
    if shape == [4, 1]:
        return "four-of-a-kind", tuple(ordered)
    if shape == [3, 2]:
        return "full-house", tuple(ordered)
    if flush:
        return "flush", tuple(ranks)
    if straight_top is not None:
        return "straight", (straight_top,)
    if shape == [3, 1, 1]:
        return "three-of-a-kind", tuple(ordered)
    if shape == [2, 2, 1]:
        return "two-pair", tuple(ordered)
    if shape == [2, 1, 1, 1]:
        return "pair", tuple(ordered)
    return "high-card", tuple(ranks)


ORDER = [
    "high-card",
    "pair",
    "two-pair",
    "three-of-a-kind",
    "straight",
    "flush",
    "full-house",
    "four-of-a-kind",
    "straight-flush",
    "royal-flush",
]


def oracle_key(cards):
    cat, ranks = oracle_five(cards)
    return (ORDER.index(cat), ranks)


def oracle_best(cards):
    """Best of all five-card subsets (POK-2)."""
    return max(oracle_key(five) for five in combinations(cards, 5))


hands = st.integers(min_value=5, max_value=7).flatmap(
    lambda n: st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)
)


@given(hands)
def test_category_and_cards_that_play_match_the_oracle(cards):
    result = evaluate(cards)
    best = oracle_best(cards)
    assert ORDER[best[0]] == result.category.label
    assert len(result.cards) == 5 and set(result.cards) <= set(cards)
    # the five reported cards are themselves a hand of that exact value
    assert oracle_key(result.cards) == best


@given(hands, hands)
def test_strength_orders_hands_exactly_as_the_oracle(a, b):
    assert (strength(a) > strength(b)) == (oracle_best(a) > oracle_best(b))
    assert (strength(a) == strength(b)) == (oracle_best(a) == oracle_best(b))


@given(
    st.lists(
        st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True), min_size=1, max_size=50
    )
)
def test_batch_agrees_with_single_calls(rows):
    assert strength_batch(np.array(rows)).tolist() == [strength(r) for r in rows]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("As Ks Qs Js Ts 2c 3d", "royal-flush"),
        ("Ah 2h 3h 4h 5h Kd Kc", "straight-flush"),
        ("Ah 2d 3c 4s 5h 9c Kd", "straight"),
        ("Qh Kd As 2c 3d 8s 9s", "high-card"),  # no wrap-around Q-K-A-2-3 (POK-4)
        ("9c 9d 9h 9s 2c", "four-of-a-kind"),
        ("Ah Ad Ac Kd Kc Ks 2h", "full-house"),
    ],
)
def test_named_hands(text, label):
    assert evaluate(parse_cards(text)).category.label == label


def test_wheel_is_the_lowest_straight():
    wheel = strength(parse_cards("Ah 2d 3c 4s 5h"))
    six_high = strength(parse_cards("2d 3c 4s 5h 6h"))
    assert wheel < six_high


def test_unused_cards_do_not_break_ties():
    # POK-5: equal best five is a tie even if the other cards differ
    board = "As Ks Qd Jd 9c"
    assert strength(parse_cards(board + " 2c 3h")) == strength(parse_cards(board + " 4c 5h"))


def test_evaluate_rejects_bad_counts_and_duplicates():
    with pytest.raises(CardError, match="5 to 7"):
        evaluate(parse_cards("As Ks Qs Js"))
    with pytest.raises(CardError, match="As appears twice"):
        evaluate([51, 51, 1, 2, 3])


def test_community_royal():
    assert is_community_royal(parse_cards("Th Jh Qh Kh Ah"))
    assert not is_community_royal(parse_cards("Th Jh Qh Kh 9h"))


@pytest.mark.parametrize(
    ("text", "run"),
    [
        ("Ac 2c 3c 4c 5c 6c 7c", 7),
        ("8d 9d Td Jd Qd Kd Ad", 7),
        ("9d Td Jd Qd Kd Ad 2h", 6),
        ("As Ks Qs Js Ts 2c 3d", 5),
        ("Ac 2c 3c 4c 5c Kd Kh", 5),
        ("Qc Kc Ac 2c 3c 9d 9h", 0),  # no wrap-around
        ("2c 3c 4c 5c 7c 8h 9h", 0),
    ],
)
def test_longest_straight_flush_run(text, run):
    assert longest_straight_flush(parse_cards(text)) == run


@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_straight_flush_run_agrees_with_category(cards):
    run = longest_straight_flush(cards)
    cat = evaluate(cards).category
    assert (run >= 5) == (cat >= Category.STRAIGHT_FLUSH)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ah Ad 7c 5s 2d", True),
        ("Kh Kd 7c 5s 2d", False),
        ("2h 2d 2c 5s 9d", True),
        ("Ah Kd 7c 5s 2d", False),
        ("5h 5d 7c 7s 2d", True),
    ],
)
def test_pair_of_aces_or_better(text, expected):
    assert is_pair_of_aces_or_better(strength(parse_cards(text))) is expected


# --- before the tables: a hand worked out directly ----------------------------------------

HANDS = st.integers(5, 7).flatmap(
    lambda n: st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)
)


@given(HANDS)
def test_a_hand_worked_out_directly_is_what_the_tables_say(cards):
    from controller.engine.poker import evaluator

    evaluator.warm_up()
    assert evaluator._direct_strength(cards) == strength(cards)


def test_a_one_off_does_not_build_the_tables_and_a_long_run_does(monkeypatch):
    from controller.engine.poker import evaluator

    monkeypatch.setattr(evaluator, "_built", [])  # as in a fresh process
    monkeypatch.setattr(evaluator, "_direct_hands", [0])
    monkeypatch.setattr(evaluator, "DIRECT_LIMIT", 3)
    royal = parse_cards("As Ks Qs Js 10s 2c 3d")
    first = [evaluate(royal).category for _ in range(3)]
    assert evaluator._built == []  # `croupier eval`: no ~0.7 s build for one hand
    assert evaluate(royal).category == Category.ROYAL_FLUSH  # the fourth: the tables
    assert len(evaluator._built) == 1 and first == [Category.ROYAL_FLUSH] * 3
