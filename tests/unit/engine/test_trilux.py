"""Trilux Bonus (TRX-1, TRX-2): classes, rounds with 4 and 6 decks, the exact PAR sheet."""

import dataclasses
from collections import Counter
from itertools import combinations
from math import comb

import pytest
from blackjack_support import outcome, play, seat, trilux_profile

from controller.engine.cards import parse_cards
from controller.engine.games import par_sheet
from controller.engine.games.blackjack.trilux import class_counts, trilux_lines
from controller.engine.paytable import Odds, PayTable
from controller.errors import ParError


@pytest.mark.parametrize(
    ("cards", "lines"),
    [
        ("As Ks Qs", ["suited-akq", "straight-flush", "straight", "flush"]),
        ("Qh Ah Kh", ["suited-akq", "straight-flush", "straight", "flush"]),
        ("Ah 2h 3h", ["straight-flush", "straight", "flush"]),
        ("7c 7d 7s", ["three-of-a-kind"]),
        ("7h 7h 7h", ["three-of-a-kind", "flush"]),
        ("Qc Kd Ah", ["straight"]),
        ("Ac 2d 3h", ["straight"]),
        ("2h 9h Kh", ["flush"]),
        ("Kc Ad 2h", []),  # no wrap-around
        ("7c 7d 9s", []),  # a pair pays nothing
        ("7h 7h 8h", ["flush"]),
    ],
)
def test_classes(cards, lines):
    assert trilux_lines(parse_cards(cards, unique=False)) == lines


# (seat cards + dealer's first card, the round's shoe, seat actions, line, paid on 100)
ROUNDS = [
    ("suited A-K-Q", "As Qs Ks 5c", None, "suited-akq", 100 + 10000),
    ("straight flush", "7h 9h 8h Tc", ["stand"], "straight-flush", 100 + 3500),
    ("three of a kind", "7c 7s 7d Tc", ["stand"], "three-of-a-kind", 100 + 3300),
    ("suited trips", "7h 7h 7h Tc", ["stand"], "three-of-a-kind", 100 + 3300),
    ("straight Q-K-A", "Qc Ah Kd 9c", ["stand"], "straight", 100 + 1000),
    ("straight A-2-3", "Ac 3h 2d Tc 5c", ["stand"], "straight", 100 + 1000),
    ("flush", "2h Kh 9h 8c", ["stand"], "flush", 100 + 500),
    ("K-A-2 loses", "Kc 2h Ad", None, None, 0),  # blackjack against a 2: no dealer card
    ("pair loses", "7c 9s 7d Tc", ["stand"], None, 0),
]


@pytest.mark.parametrize("decks", [4, 6])
@pytest.mark.parametrize(("name", "shoe", "actions", "line", "paid"), ROUNDS)
def test_trilux_rounds(decks, name, shoe, actions, line, paid):
    entry = seat(1, trilux=100, actions=None if actions is None else {"main": actions})
    result = play(shoe, entry, decks=decks)
    trilux = result["seats"][0]["wagers"]["trilux"]
    assert trilux.get("line") == line, name
    assert outcome(result, 1, "trilux") == ("win" if line else "lose", 100, paid, "TRX-2")
    cards = shoe.split()
    assert result["seats"][0]["trilux_cards"] == [cards[0], cards[2], cards[1]]


def test_trilux_winnings_use_the_rounding_rule():
    chips = trilux_profile(money={"chip_unit": 50})
    result = play("2h Kh 9h 8c", seat(1, trilux=150, actions={"main": ["stand"]}), profile=chips)
    assert outcome(result, 1, "trilux")[2] == 150 + 750  # 5:1 on 3 chips is 15 chips


# --- PAR sheet ----------------------------------------------------------------------------


def closed_forms(n):
    """Counts of the best class by hand-derived formulas (n decks)."""
    runs, suits = 12, 4  # A23 .. QKA; one suit
    sf_all = runs * suits * n**3
    return {
        "suited-akq": suits * n**3,
        "straight-flush": sf_all - suits * n**3,
        "three-of-a-kind": 13 * comb(4 * n, 3),
        "straight": runs * (4 * n) ** 3 - sf_all,
        "flush": suits * comb(13 * n, 3) - sf_all - 13 * suits * comb(n, 3),
    }


@pytest.mark.parametrize("decks", [4, 5, 6])
def test_par_sheet_matches_closed_forms(decks):
    sheet = par_sheet(trilux_profile(), decks=decks)
    assert sheet["profile"] == "trilux-gr" and sheet["decks"] == decks
    bet = sheet["bets"]["trilux"]
    lines = {line["hand"]: line for line in bet["lines"]}
    total = comb(52 * decks, 3)
    expected = closed_forms(decks)
    for hand, count in expected.items():
        assert lines[hand]["combinations"] == count
        assert lines[hand]["probability"] == pytest.approx(count / total)
    assert sum(line["combinations"] for line in bet["lines"]) == total
    odds = {"suited-akq": 100, "straight-flush": 35, "three-of-a-kind": 33, "straight": 10,
            "flush": 5}  # fmt: skip
    rtp = sum(expected[h] * (odds[h] + 1) for h in odds) / total
    assert bet["return"] == pytest.approx(rtp)
    assert bet["house_edge"] == pytest.approx(1 - rtp)
    assert bet["hit_frequency"] == pytest.approx(sum(expected.values()) / total)


def test_multiset_weighting_equals_brute_force_over_physical_cards():
    decks = 2  # C(104, 3) = 182,104 subsets: small enough to walk one by one
    shoe = [code for code in range(52) for _ in range(decks)]
    brute = Counter(tuple(trilux_lines(cards)) for cards in combinations(shoe, 3))
    assert class_counts(decks) == dict(brute)


def test_par_sheet_defaults_to_the_profile_decks_and_checks_options():
    assert par_sheet(trilux_profile())["decks"] == 6
    with pytest.raises(ParError, match="BJ-1"):
        par_sheet(trilux_profile(), decks=8)
    with pytest.raises(ParError, match="only decks"):
        par_sheet(trilux_profile(), decks=4, hands=7)
    assert par_sheet(trilux_profile(), decks=4, hands=None)["decks"] == 4


def test_a_class_the_table_does_not_price_is_paid_by_the_next_it_satisfies():
    # the engine's lookup, on a table RULES.md would refuse (TRX-2): built past the loader
    pays = {"straight-flush": Odds(35, 1), "three-of-a-kind": Odds(33, 1), "flush": Odds(5, 1)}
    base = trilux_profile()
    tables = {**base.paytables, "trilux": PayTable("trilux", pays)}
    profile = dataclasses.replace(base, paytables=tables)  # no suited A-K-Q, no straight line
    sheet = par_sheet(profile, decks=6)["bets"]["trilux"]
    lines = {line["hand"]: line["combinations"] for line in sheet["lines"]}
    expected = closed_forms(6)
    assert lines["straight-flush"] == expected["straight-flush"] + expected["suited-akq"]
    assert "straight" not in lines  # straights now lose
    assert sum(lines.values()) == comb(312, 3)
    assert lines["other"] == comb(312, 3) - sum(
        expected[h] for h in ("suited-akq", "straight-flush", "three-of-a-kind", "flush")
    )


def test_par_sheet_has_the_shape_of_the_holdem_sheets():
    bet = par_sheet(trilux_profile(), decks=6)["bets"]["trilux"]
    assert set(bet) == {
        "title",
        "return",
        "house_edge",
        "hit_frequency",
        "combinations",
        "space",
        "notes",
        "lines",
    }
    assert bet["combinations"] == comb(312, 3) and "C(312,3) = 5,013,320" in bet["space"]
    for line in bet["lines"]:
        assert set(line) == {
            "hand",
            "pays",
            "result",
            "combinations",
            "probability",
            "contribution",
        }
    assert [line["result"] for line in bet["lines"]] == ["win"] * 5 + ["lose"]
    assert bet["lines"][-1]["pays"] == "lose"
