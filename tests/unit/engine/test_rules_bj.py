"""Trilux blackjack against RULES.md (BJ-1..9, TRX-1..2) and seed 001, as an outside lab checks
it: round files (docs/blackjack-round.md: the cards in the order they left the shoe, stakes,
actions) through ``croupier settle --json``, every amount worked out by hand here (cents).

Shoe order for one seat: seat card, dealer up card, seat card, the seat's cards, the dealer's."""

from __future__ import annotations

from pathlib import Path

import pytest
from blackjack_support import HOUSE_VARIANT
from rules_settle_support import bj, outcome, profile_file, refused, seat_of, settled
from rules_settle_support import bj_seat as seat

# --- BJ-4, BJ-5 ------------------------------------------------------------------------------


def test_blackjack_pays_3_to_2_rounded_down_once():
    # As Kd against a 9c: no dealer card can change it (dealer_draws "when-needed")
    result = settled(bj("As 9c Kd", seat(1, 1005)))
    assert outcome(result, 1, "main") == ("win", 1005, 1005 + 1507, "BJ-5")  # 1,507.5 down


def test_blackjack_against_a_dealer_blackjack_is_a_stand_off():
    result = settled(bj("As Tc Kd Ah", seat(1, 1000)))
    assert outcome(result, 1, "main") == ("push", 1000, 1000, "BJ-5")


def test_blackjack_beats_a_three_card_21():
    # seat 1 As Kd, seat 2 Ts 7h stands on 17, so the dealer draws: Tc 5c 6d = 21 with three
    # cards. The blackjack still pays 3:2; seat 2's 17 loses
    shoe = "As Ts Tc Kd 7h 5c 6d"
    result = settled(bj(shoe, seat(1, 1000), seat(2, 1000, {"main": ["stand"]})))
    assert result["dealer"]["total"] == 21
    assert outcome(result, 1, "main") == ("win", 1000, 2500, "BJ-5")
    assert outcome(result, 2, "main") == ("lose", 1000, 0, "BJ-5")


def test_dealer_stands_on_soft_17_and_draws_on_16():
    result = settled(bj("Ts Ah 9d 6c", seat(1, 1000, {"main": ["stand"]})))  # soft 17
    assert result["dealer"]["total"] == 17 and len(result["dealer"]["cards"]) == 2
    assert outcome(result, 1, "main") == ("win", 1000, 2000, "BJ-5")  # 19 beats 17
    result = settled(bj("Ts 9h 9d 7c 5c", seat(1, 1000, {"main": ["stand"]})))  # 16 draws
    assert result["dealer"]["cards"] == ["9h", "7c", "5c"]
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")  # 19 against 21


# --- BJ-6 double, BJ-7 split ---------------------------------------------------------------


def test_double_on_a_total_of_2_to_11_counting_aces_as_1():
    # As 9d counts 10 with the ace as 1 (BJ-6 [interpretation]): doubling 2000 takes Ts
    # (A 9 T = 20); dealer 6c Tc 2c = 18: 4000 staked, 8000 paid
    result = settled(bj("As 6c 9d Ts Tc 2c", seat(1, 2000, {"main": ["double"]})))
    assert outcome(result, 1, "main") == ("win", 4000, 8000, "BJ-5")
    error = refused(bj("Ts 9c 2d", seat(1, 1000, {"main": ["double"]})))  # 12
    assert error["rule"] == "BJ-6" and "counts 12" in error["message"]


def test_split_aces_take_one_card_each_and_a_21_pays_even_money():
    # As Ad split: As + Kc = 21, Ad + Qd = 21, not blackjacks (BJ-7); dealer 9h Th = 19
    result = settled(bj("As 9h Ad Kc Qd Th", seat(1, 1000, {"main": ["split"]})))
    assert outcome(result, 1, "main") == ("win", 1000, 2000, "BJ-7")
    assert outcome(result, 1, "main.2") == ("win", 1000, 2000, "BJ-7")


def test_split_aces_cannot_be_split_again():
    error = refused(bj("As 9h Ad Ac Qd Th", seat(1, 1000, {"main": ["split", "split"]})))
    assert error["rule"] == "BJ-7" and "split ace takes one card" in error["message"]


def test_at_most_two_splits_three_hands():
    shoe = "8s 9h 8d 8c 8h 2c 3c"
    error = refused(bj(shoe, seat(1, 1000, {"main": ["split", "split", "split"]})))
    assert error["rule"] == "BJ-7" and "at most two splits" in error["message"]


def test_double_after_split_and_split_hands_named_when_made():
    # 8h 8d split (2000 each); main 8h + 3s = 11 doubles on Td (21); main.2 8d + 2c = 10,
    # hits 9s (19) and stands; dealer 6c 7d = 13 draws Kc: 23, bust
    shoe = "8h 6c 8d 3s Td 2c 9s 7d Kc"
    actions = {"main": ["split", "double"], "main.2": ["hit", "stand"]}
    result = settled(bj(shoe, seat(1, 2000, actions)))
    assert outcome(result, 1, "main") == ("win", 4000, 8000, "BJ-5")
    assert outcome(result, 1, "main.2") == ("win", 2000, 4000, "BJ-5")


def test_ten_and_jack_split_as_same_value_unless_split_same_rank_only(tmp_path: Path):
    # Ts Jd split: Ts + 5c = 15, Jd + 6d = 16, both stand; dealer 9h Th = 19
    shoe = "Ts 9h Jd 5c 6d Th"
    actions = {"main": ["split", "stand"], "main.2": ["stand"]}
    result = settled(bj(shoe, seat(1, 1000, actions)))
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")
    assert outcome(result, 1, "main.2") == ("lose", 1000, 0, "BJ-5")
    rank_only = profile_file(tmp_path, "trilux-gr", rules={"split_same_rank_only": True})
    error = refused(bj(shoe, seat(1, 1000, actions)), "--profile", rank_only)
    assert error["rule"] == "BJ-7" and "same rank" in error["message"]


# --- BJ-8 insurance, BJ-9 dealer blackjack after doubles and splits ---------------------------


def test_insurance_pays_2_to_1_on_a_dealer_blackjack_and_is_capped_at_half_the_bet():
    # main 2000: insurance from 500 (half the 1000 minimum) to 1000 (half the bet);
    # 1500 put down plays 1000 and 500 is returned (BJ-1); dealer Ah Kc: blackjack
    result = settled(bj("Th Ah 9d Kc", seat(1, 2000, {"main": ["stand"]}, insurance=1500)))
    insurance = seat_of(result, 1)["wagers"]["insurance"]
    assert (insurance["stake"], insurance["paid"], insurance["returned"]) == (1000, 3000, 500)
    assert outcome(result, 1, "main") == ("lose", 2000, 0, "BJ-5")


def test_insurance_is_lost_without_a_dealer_blackjack():
    # dealer Ah 7c = soft 18; seat 1 Th 9d = 19 wins 1:1, insurance 1000 lost
    result = settled(bj("Th Ah 9d 7c", seat(1, 2000, {"main": ["stand"]}, insurance=1000)))
    assert outcome(result, 1, "insurance") == ("lose", 1000, 0, "BJ-8")
    assert outcome(result, 1, "main") == ("win", 2000, 4000, "BJ-5")


@pytest.mark.parametrize(
    ("shoe", "insurance", "words"),
    [
        ("Th Ah 9d Kc", 400, "below the minimum 500"),  # under half the table minimum
        ("Th 9c 9d 8c", 500, "offered only against an ace"),
    ],
)
def test_insurance_refusals_name_bj8(shoe, insurance, words):
    error = refused(bj(shoe, seat(1, 2000, {"main": ["stand"]}, insurance=insurance)))
    assert error["rule"] == "BJ-8" and words in error["message"]


@pytest.mark.parametrize("insurance", [500, 501])
def test_an_insurance_capped_below_its_minimum_is_refused_like_one_put_down_below_it(insurance):
    # BJ-8: "stake from half the table minimum up to half the original bet". Table minimum
    # 10.01 and a bet of 10.01: both bounds are 5.005, no whole cent fits. 5.00 put down is
    # refused (under the minimum, rounded up to 5.01); 5.01 capped at half the bet (5.00) is
    # the same 5.00 under the same minimum and was settled (paid 15.00 on a dealer blackjack)
    data = bj(
        "Th Ah Td Kc",
        seat(1, 1001, {"main": ["stand"]}, insurance=insurance),
        limits={"main": {"min": 1001, "max": 100_000}},
    )
    error = refused(data)
    assert error["rule"] == "BJ-8" and "below the minimum 501" in error["message"], error


SPLIT_DOUBLE_DEALER_BJ = "8h Ah 8d 3s Td 2c Kc"  # 8-8 split; main 11 doubles to 21; dealer A K


def test_dealer_blackjack_after_split_and_double_takes_every_stake_by_default():
    # enhc_loses = "all": main (2000 + 2000 doubled) and main.2 (2000) are all lost
    actions = {"main": ["split", "double"], "main.2": ["stand"]}
    result = settled(bj(SPLIT_DOUBLE_DEALER_BJ, seat(1, 2000, actions)))
    assert outcome(result, 1, "main") == ("lose", 4000, 0, "BJ-9")
    assert outcome(result, 1, "main.2") == ("lose", 2000, 0, "BJ-9")


def test_dealer_blackjack_original_only_returns_the_doubled_and_split_stakes(tmp_path: Path):
    # enhc_loses = "original-only": only the original 2000 is lost; main pays back its
    # 2000 doubling, main.2's 2000 split bet pushes
    original = profile_file(tmp_path, "trilux-gr", rules={"enhc_loses": "original-only"})
    actions = {"main": ["split", "double"], "main.2": ["stand"]}
    result = settled(bj(SPLIT_DOUBLE_DEALER_BJ, seat(1, 2000, actions)), "--profile", original)
    assert outcome(result, 1, "main") == ("lose", 4000, 2000, "BJ-9")
    assert outcome(result, 1, "main.2") == ("push", 2000, 2000, "BJ-9")


# --- BJ-1 limits and the over-maximum cap ------------------------------------------------------


def test_over_the_maximum_is_capped_and_a_double_matches_the_accepted_bet():
    # limits main 10..1,000, Trilux 1..50 (euros); seat puts down 1,500 and 60
    # 6h 5d = 11 doubles on Ts: 21; dealer 9c 8s = 17. Main: 100,000 + 100,000 doubled
    # = 200,000 staked, 1:1 -> 400,000; 50,000 returned. Trilux 6h 5d 9c: nothing
    data = bj(
        "6h 9c 5d Ts 8s",
        seat(1, 150_000, {"main": ["double"]}, trilux=6000),
        limits={"main": {"min": 1000, "max": 100_000}, "trilux": {"min": 100, "max": 5000}},
    )
    result = settled(data)
    main = seat_of(result, 1)["wagers"]["main"]
    assert (main["stake"], main["paid"], main["returned"]) == (200_000, 400_000, 50_000)
    trilux = seat_of(result, 1)["wagers"]["trilux"]
    assert (trilux["stake"], trilux["paid"], trilux["returned"]) == (5000, 0, 1000)


def test_a_split_matches_the_accepted_bet_not_the_amount_put_down():
    # 150,000 on a 100,000 maximum (the profile's limits): both hands play 100,000
    # main 8h + 3s = 11 stands, main.2 8d + 5d = 13 stands; dealer 6c Ts 9c = 25
    actions = {"main": ["split", "stand"], "main.2": ["stand"]}
    result = settled(bj("8h 6c 8d 3s 5d Ts 9c", seat(1, 150_000, actions)))
    main, split = (seat_of(result, 1)["wagers"][n] for n in ("main", "main.2"))
    assert (main["stake"], main["paid"], main["returned"]) == (100_000, 200_000, 50_000)
    assert (split["stake"], split["paid"], split.get("returned", 0)) == (100_000, 200_000, 0)


def test_over_maximum_refuse_refuses_the_round_file_in_one_line(tmp_path: Path):
    # [rules] over_maximum = "refuse" (BJ-1 [interpretation]): the 150,000 put down on a
    # 100,000 maximum is refused whole, as a stake under the minimum is; at 100,000 it plays
    refuse = profile_file(  # a house variant: seed 001 caps (BJ-1)
        tmp_path, "trilux-gr", rules={"over_maximum": "refuse"}, profile=HOUSE_VARIANT
    )
    error = refused(
        bj("6h 9c 5d Ts 8s", seat(1, 150_000, {"main": ["double"]})), "--profile", refuse
    )
    assert error["rule"] == "BJ-1"
    assert error["message"].startswith("seat 1: main 150000 is above the table maximum 100000")
    result = settled(
        bj("6h 9c 5d Ts 8s", seat(1, 100_000, {"main": ["double"]})), "--profile", refuse
    )
    main = seat_of(result, 1)["wagers"]["main"]
    assert (main["stake"], main["paid"], main.get("returned", 0)) == (200_000, 400_000, 0)


def test_limits_come_from_the_round_file():
    # the round's limits (main 5..20 euros) replace the profile's 10..1,000
    limits = {"main": {"min": 500, "max": 2000}}
    result = settled(bj("As 9c Kd", seat(1, 3000), limits=limits))
    main = seat_of(result, 1)["wagers"]["main"]
    assert (main["stake"], main["paid"], main["returned"]) == (2000, 2000 + 3000, 1000)
    assert settled(bj("As 9c Kd", seat(1, 500), limits=limits))  # under the profile's 1000
    error = refused(bj("As 9c Kd", seat(1, 400), limits=limits))
    assert error["rule"] == "BJ-1" and "below the table minimum 500" in error["message"]


@pytest.mark.parametrize(
    ("change", "rule", "words"),
    [
        ({"seats": [seat(1, 999)]}, "BJ-1", "below the table minimum 1000"),
        ({"seats": [seat(1, 1000, trilux=50)]}, "TRX-1", "below the table minimum 100"),
        ({"seats": [seat(8, 1000)]}, "BJ-1", "not a seat"),
        ({"seats": [seat(1, 1000, progressive=100)]}, "BJ-1", "unknown wager"),
        ({"decks": 3}, "BJ-1", "4 to 6 decks"),
        ({"limits": {"trilux": {"min": 100, "max": 6000}}}, "TRX-1", "at most 50x"),
        ({"shoe": "As 9c Kd 2c"}, "MD-S1", "left in the shoe"),
        ({"shoe": "As 9c"}, "MD-S1", "ends after 2 cards"),
    ],
)
def test_refusals_name_their_rule(change, rule, words):
    data = bj("As 9c Kd", seat(1, 1000))
    data.update(change)
    error = refused(data)
    assert error["rule"] == rule and words in error["message"], error


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seats": True}, "seats: expected a list"),  # was an internal error (TypeError)
        ({"seats": 1.5}, "seats: expected a list"),
        ({"shoe": 5}, "shoe"),
        ({"seats": [{"seat": 1, "stakes": {"main": "ten"}}]}, "seats[0].stakes.main"),
        ({"seats": ["x"]}, "seats[0]"),
        (
            {"seats": [{"seat": 1, "stakes": {"main": 1000}, "actions": {"main": [1]}}]},
            "seats[0].actions.main",
        ),
    ],
)
def test_a_malformed_round_file_is_one_line_naming_the_field(change, field):
    data = bj("As 9c Kd", seat(1, 1000))
    data.update(change)
    error = refused(data)
    assert field in error["message"], error


def test_a_card_dealt_more_often_than_the_shoe_holds_is_refused():
    error = refused(bj("As 9c As As As As As As", seat(1, 1000, {"main": ["hit"] * 6}), decks=4))
    assert error["rule"] == "BJ-1" and "4 decks" in error["message"]


# --- TRX-2 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shoe", "line", "paid"),
    [  # Trilux 100 on the seat's first two cards and the dealer's first card
        ("Kh Ah Qh 9s", "suited-akq", 100 + 10_000),  # 100:1
        ("9h 8h Th 9s", "straight-flush", 100 + 3500),  # 8-9-T suited 35:1
        ("7h 7c 7s Ks", "three-of-a-kind", 100 + 3300),  # 33:1
        ("7h 7h 7h Ks", "three-of-a-kind", 100 + 3300),  # suited trips: paid as trips
        ("Ah 3c 2d 9s 5c", "straight", 100 + 1000),  # A-2-3, 10:1
        ("Qh Ac Kd 9s", "straight", 100 + 1000),  # Q-K-A
        ("2h 9h 7h 8s", "flush", 100 + 500),  # 5:1
        ("Kh Ac 2d 9s", None, 0),  # K-A-2 is not a straight
        ("7h 9c 7d 8s", None, 0),  # a pair is nothing
    ],
)
def test_trilux_pay_table(shoe, line, paid):
    result = settled(bj(shoe, seat(1, 1000, {"main": ["stand"]}, trilux=100)))
    wager = seat_of(result, 1)["wagers"]["trilux"]
    assert (wager["paid"], wager.get("line"), wager["rule"]) == (paid, line, "TRX-2")


@pytest.mark.parametrize(
    ("rules", "key", "rule"),
    [
        ({"decks": 8}, "rules.decks", "BJ-1"),
        ({"seats": 8}, "rules.seats", "BJ-1"),
        ({"trilux_max": 6000}, "rules.trilux_max", "TRX-1"),
        ({"enhc_loses": "none"}, "rules.enhc_loses", "BJ-9"),
        ({"over_maximum": "return"}, "rules.over_maximum", "BJ-1"),
        ({"burns": 1}, "rules.burns", "BJ-2"),
    ],
)
def test_profile_keys_outside_the_rule_book_are_refused_naming_the_rule(
    tmp_path: Path, rules, key, rule
):
    bad = profile_file(tmp_path, "trilux-gr", rules=rules)
    error = refused(bj("As 9c Kd", seat(1, 1000)), "--profile", bad)
    problems = {p["key"]: p["rule"] for p in error["problems"]}
    assert problems.get(key) == rule, error["problems"]


@pytest.mark.parametrize(
    ("table", "line", "rule"),
    [
        ("main", "blackjack", "BJ-5"),
        ("insurance", "dealer-blackjack", "BJ-8"),
        ("trilux", "flush", "TRX-2"),
    ],
)
def test_pay_tables_must_pay_what_the_rule_book_pays(tmp_path: Path, table, line, rule):
    bad = profile_file(tmp_path, "trilux-gr", **{f"paytables.{table}": {line: "6:5"}})
    error = refused(bj("As 9c Kd", seat(1, 1000)), "--profile", bad)
    problems = {p["key"]: p["rule"] for p in error["problems"]}
    assert problems == {f"paytables.{table}.{line}": rule}
