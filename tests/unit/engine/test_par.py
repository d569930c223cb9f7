"""PAR sheets (issue 2): the arithmetic of a sheet, each hold'em bet against figures worked out
by hand or published, and the ``croupier par`` command."""

import json
from fractions import Fraction
from math import comb

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from poker_counts import FIVE_CARD_COUNTS, SEVEN_CARD_COUNTS

from controller.cli.main import main
from controller.engine.cards import parse_cards
from controller.engine.games import par_sheet
from controller.engine.games.holdem import progressive_lines
from controller.engine.games.par import (
    LOSE,
    PUSH,
    WIN,
    BetSheet,
    PayLine,
    lines_satisfied,
    paying_lines,
)
from controller.engine.games.par_holdem import (
    blind_sheet,
    bonus_sheet,
    jumbo7_sheet,
    trips_sheet,
    uth_progressive_sheet,
)
from controller.engine.paytable import BET_LINES, Odds, PayTable
from controller.engine.poker import Category, evaluate, is_community_royal, longest_straight_flush
from controller.engine.profiles import load_profile
from controller.errors import ParError


def test_sheet_arithmetic_on_a_small_example():
    sheet = BetSheet(
        "demo",
        "Demo",
        "ten outcomes",
        (
            PayLine("jackpot", "100% of pool", 1, WIN, None),
            PayLine("big", "3:1", 2, WIN, Fraction(3)),  # progressive: stake not returned
            PayLine("tie", "push", 3, PUSH, Fraction(1)),
            PayLine("other", "lose", 4, LOSE, Fraction(0)),
        ),
    )
    assert sheet.combinations == 10
    assert sheet.return_ == Fraction(2, 10) * 3 + Fraction(3, 10)
    assert sheet.house_edge == 1 - Fraction(9, 10)
    assert sheet.hit_frequency == Fraction(3, 10)  # the jackpot is a hit, a push is not
    assert sheet.jackpot_probability == Fraction(1, 10)
    data = sheet.to_json()
    assert data["lines"][0]["contribution"] is None
    assert data["lines"][1]["contribution"] == pytest.approx(0.6)


def test_lines_satisfied():
    progressive = BET_LINES["progressive"]
    assert lines_satisfied(progressive, "royal-flush")[:2] == ["royal-flush", "straight-flush"]
    assert lines_satisfied(progressive, "community-royal")[:2] == [
        "community-royal",
        "straight-flush",
    ]
    assert lines_satisfied(BET_LINES["bonus"], "pair") == []  # only aces pay (CH-7)
    assert lines_satisfied(BET_LINES["bonus"], "two-pair") == ["two-pair", "pair-of-aces"]


def test_an_outcome_without_its_own_line_is_paid_by_the_next_line_below():
    # a table with no full-house line pays a full house as a flush ("at least" lines)
    table = PayTable("trips", {"flush": Odds(7, 1), "straight": Odds(4, 1)})
    outcomes = {"full-house": 10, "flush": 20, "straight": 30, "pair": 40}
    lines, unpaid = paying_lines(outcomes, table, BET_LINES["trips"], stake_returned=True)
    assert [(x.hand, x.combinations, x.returns) for x in lines] == [
        ("flush", 30, 8),
        ("straight", 30, 5),
    ]
    assert unpaid == 40


def _bet(profile, bet):
    """One bet's sheet as JSON, computing only that bet (the Blind alone needs showdowns)."""
    p = load_profile(profile)
    builders = {
        "trips": lambda: trips_sheet(p.paytables["trips"]),
        "progressive": lambda: uth_progressive_sheet(p.progressive),
        "bonus": lambda: bonus_sheet(p.paytables["bonus"]),
        "jumbo7": lambda: jumbo7_sheet(p.progressive),
        "blind": lambda: blind_sheet(p.paytables["blind"], p.options["dealer_not_qualified"]),
    }
    return builders[bet]().to_json()


def _exact_return(pays, counts, total, stake_returned=True):
    back = 1 if stake_returned else 0
    return sum(Fraction(counts[hand], total) * (odds + back) for hand, odds in pays.items())


def test_trips_matches_hand_arithmetic_and_wizard_of_odds():
    trips = _bet("uth-gr", "trips")
    pays = {  # UTH-9
        Category.ROYAL_FLUSH: 50,
        Category.STRAIGHT_FLUSH: 40,
        Category.FOUR_OF_A_KIND: 30,
        Category.FULL_HOUSE: 8,
        Category.FLUSH: 7,
        Category.STRAIGHT: 4,
        Category.THREE_OF_A_KIND: 3,
    }
    expected = _exact_return(pays, SEVEN_CARD_COUNTS, comb(52, 7))
    assert trips["return"] == pytest.approx(float(expected), abs=1e-15)
    # Wizard of Odds ("Florida Variant of Trips Bet" page): "the most common 50-40-30-8-7-4-3
    # Trips pay table under the conventional rules has a house edge of 3.50%".
    assert round(trips["house_edge"], 4) == 0.0350
    assert [x["combinations"] for x in trips["lines"][:-1]] == [SEVEN_CARD_COUNTS[c] for c in pays]
    hits = sum(SEVEN_CARD_COUNTS[c] for c in pays)
    assert trips["hit_frequency"] == pytest.approx(hits / comb(52, 7))


def test_casino_holdem_bonus_matches_hand_arithmetic():
    bonus = _bet("ch-bg", "bonus")
    counts = dict(FIVE_CARD_COUNTS)
    counts["aces"] = 84_480  # one pair of aces, see test_census
    pays = {  # CH-7
        Category.ROYAL_FLUSH: 100,
        Category.STRAIGHT_FLUSH: 50,
        Category.FOUR_OF_A_KIND: 40,
        Category.FULL_HOUSE: 30,
        Category.FLUSH: 20,
        Category.STRAIGHT: 7,
        Category.THREE_OF_A_KIND: 7,
        Category.TWO_PAIR: 7,
        "aces": 7,
    }
    expected = _exact_return(pays, counts, comb(52, 5))
    assert bonus["return"] == pytest.approx(float(expected), abs=1e-15)
    # the 100-50-40-30-20-7-7-7-7 AA Bonus is usually quoted at a 6.26% house edge
    assert round(bonus["house_edge"], 4) == 0.0626
    assert bonus["lines"][-2]["hand"] == "pair-of-aces"
    assert bonus["lines"][-2]["combinations"] == 84_480


def test_uth_progressive_community_royal_and_jackpot():
    prog = _bet("uth-gr", "progressive")
    deals = comb(52, 2) * comb(50, 5)  # hole cards, then the five community cards
    lines = {x["hand"]: x for x in prog["lines"]}
    # community royal: the board is one of the 4 royals, any 2 of the other 47 cards as hole
    # cards; every other split of a 7-card royal hand uses a hole card (21 splits per hand)
    assert lines["community-royal"]["combinations"] == 4 * comb(47, 2) == 4_324
    assert lines["royal-flush"]["combinations"] == 21 * 4_324 - 4_324
    assert prog["jackpot_probability"] == pytest.approx(86_480 / deals)
    assert lines["royal-flush"]["contribution"] is None
    pays = {
        Category.STRAIGHT_FLUSH: 300,
        Category.FOUR_OF_A_KIND: 100,
        Category.FULL_HOUSE: 10,
    }  # PRG-3; the stake is never returned (PRG-2)
    split_counts = {c: 21 * n for c, n in SEVEN_CARD_COUNTS.items()}
    expected = _exact_return(pays, split_counts, deals, stake_returned=False)
    expected += Fraction(4_324, deals) * 1000
    assert prog["return"] == pytest.approx(float(expected), abs=1e-15)


def test_jumbo7_fixed_amounts_per_unit_stake():
    jumbo = _bet("ch-bg", "jumbo7")
    lines = {x["hand"]: x for x in jumbo["lines"]}
    assert lines["seven-card-straight-flush"]["contribution"] is None
    assert jumbo["jackpot_probability"] == pytest.approx(32 / comb(52, 7))
    assert lines["six-card-straight-flush"]["pays"] == "5000 per unit"
    per_unit = {  # CH-8, per unit stake; stake never returned
        "six-card-straight-flush": (1_592, 5000),
        "five-card-straight-flush": (4_324 + 37_260 - 32 - 1_592, 250),
        "four-of-a-kind": (224_848, 50),
        "full-house": (3_473_184, 5),
        "flush": (4_047_644, 4),
        "straight": (6_180_020, 2),
    }
    expected = sum(Fraction(n, comb(52, 7)) * amount for n, amount in per_unit.values())
    assert jumbo["return"] == pytest.approx(float(expected), abs=1e-15)
    assert {h: lines[h]["combinations"] for h in per_unit} == {
        h: n for h, (n, _) in per_unit.items()
    }


@pytest.mark.slow
def test_blind_sheets_follow_the_dealer_rule():
    greek, italian = _bet("uth-gr", "blind"), _bet("uth-it", "blind")
    for blind in (greek, italian):
        assert sum(x["combinations"] for x in blind["lines"]) == 2_781_381_002_400
        assert sum(x["probability"] for x in blind["lines"]) == pytest.approx(1)
        returned = sum(x["contribution"] for x in blind["lines"])
        assert blind["return"] == pytest.approx(returned)
    # Wizard of Odds (see test_showdown): the player beats the dealer with a royal in
    # 85,615,200 deals; the Greek Blind pays all of them 500:1
    assert greek["lines"][0]["combinations"] == 85_615_200
    assert greek["lines"][0]["contribution"] == pytest.approx(85_615_200 / 2_781_381_002_400 * 501)
    # Italian UTH-7: an unqualified dealer pushes the Blind, so fewer wins and fewer losses
    hands = [x["hand"] for x in italian["lines"]]
    assert "dealer-not-qualified" in hands and "dealer-not-qualified" not in (
        x["hand"] for x in greek["lines"]
    )
    assert italian["lines"][0]["combinations"] < greek["lines"][0]["combinations"]
    assert italian["lines"][-1]["combinations"] < greek["lines"][-1]["combinations"]


def test_holdem_takes_no_deck_count():
    profile = load_profile("ch-bg")
    with pytest.raises(ParError, match="one 52-card deck"):
        par_sheet(profile, decks=6)
    assert par_sheet(profile, decks=1)["profile"] == "ch-bg"


def test_cli_json_shape(capsys):
    assert main(["par", "--profile", "ch-bg", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["profile"] == "ch-bg" and set(data["bets"]) == {"bonus", "jumbo7"}
    for bet in data["bets"].values():
        assert {"return", "house_edge", "hit_frequency", "lines"} <= set(bet)
        for line in bet["lines"]:
            assert {"hand", "pays", "combinations", "probability", "contribution"} <= set(line)
            assert isinstance(line["combinations"], int)
    assert "jackpot_probability" in data["bets"]["jumbo7"]


def test_cli_human_table(capsys):
    assert main(["par", "--profile", "ch-bg"]) == 0
    out = capsys.readouterr().out
    assert "Bonus (CH-7)" in out and "Jumbo 7 (CH-8)" in out
    assert "pair-of-aces" in out and "house edge 6.2583%" in out
    assert "jackpot probability" in out


def test_cli_errors_are_one_line(capsys):
    assert main(["par", "--profile", "ch-bg", "--decks", "6"]) == 2
    assert main(["par", "--profile", "no-such-profile"]) == 2  # a usage error
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("croupier par: ") for line in err)


@pytest.mark.slow
def test_cli_uth_sheet_lists_every_bet_and_states_the_assumption(capsys):
    assert main(["par", "--profile", "uth-gr"]) == 0
    out = capsys.readouterr().out
    for title in ("Trips (UTH-9)", "Blind pay distribution (UTH-8)", "Ultimate Progressive"):
        assert title in out
    assert "plays every hand to showdown" in out
    assert "community-royal" in out and "1000:1" in out


def _outcome(game, hole, community):
    """The exclusive PAR outcome of a seat's seven cards, as the sheets classify hands."""
    cards = [*hole, *community]
    category = evaluate(cards).category
    if game == "uth" and category == Category.ROYAL_FLUSH:
        return "community-royal" if is_community_royal(community) else "royal-flush"
    run = longest_straight_flush(cards)
    if game == "casino-holdem" and run:
        return {7: "seven", 6: "six", 5: "five"}[run] + "-card-straight-flush"
    return category.label


@settings(max_examples=300)
@given(
    st.sampled_from(["uth", "casino-holdem"]),
    st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True),
)
@example("casino-holdem", [48, 0, 4, 8, 12, 16, 20])  # A-7 of clubs: 7-card run
@example("casino-holdem", [1, 5, 9, 13, 17, 21, 2])  # 2-7 of diamonds: 6-card run
@example("casino-holdem", [51, 47, 43, 39, 35, 0, 1])  # royal: 5-card run
@example("uth", [51, 47, 43, 39, 35, 0, 1])  # royal using both hole cards
def test_sheets_group_hands_as_settlement_pays_them(game, cards):
    # the PAR sheet pays an outcome for lines_satisfied(); settlement pays a real seat for
    # progressive_lines(): both must name the same lines
    hole, community = tuple(cards[:2]), tuple(cards[2:])
    bet = {"uth": "progressive", "casino-holdem": "jumbo7"}[game]
    hand = evaluate(cards)
    expected = progressive_lines(game, hole, community, hand)
    assert lines_satisfied(BET_LINES[bet], _outcome(game, hole, community)) == expected


def test_community_royal_outcome_matches_settlement():
    community = tuple(parse_cards("Ts Js Qs Ks As"))
    hole = tuple(parse_cards("2c 3d"))
    assert _outcome("uth", hole, community) == "community-royal"
    hand = evaluate([*hole, *community])
    assert lines_satisfied(BET_LINES["progressive"], "community-royal") == progressive_lines(
        "uth", hole, community, hand
    )
