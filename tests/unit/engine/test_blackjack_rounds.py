"""Hand-worked blackjack rounds through ``controller.engine.games.settle``, one or more per rule ID.

Each shoe is written in the order the cards leave it: first cards left to right, the dealer's
card, second cards (BJ-2); then the cards each hand draws in play order; then the dealer's.
Amounts are cents; the table bet is 1000 unless said otherwise.
"""

import json
from pathlib import Path

import pytest
from blackjack_support import outcome, play, seat, trilux_profile, wager

from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.errors import RoundError

# --- BJ-5 blackjack -----------------------------------------------------------------------


def test_blackjack_against_dealer_blackjack_is_a_stand_off():
    # seat 1 As Kd; dealer Ah (insurance offered, declined) then Qc: blackjack
    result = play("As Ah Kd Qc", seat(1))
    assert outcome(result, 1, "main") == ("push", 1000, 1000, "BJ-5")
    assert result["dealer"]["hand"] == "blackjack"


def test_blackjack_beats_a_three_card_21_and_pays_3_to_2():
    # seat 1 As Kd (blackjack); seat 2 Th 8c stands; dealer 7c 4h Ts = 21 in three cards
    result = play("As Th 7c Kd 8c 4h Ts", seat(1), seat(2, actions={"main": ["stand"]}))
    assert result["dealer"]["cards"] == ["7c", "4h", "Ts"]
    assert outcome(result, 1, "main") == ("win", 1000, 2500, "BJ-5")
    assert wager(result, 1, "main")["line"] == "blackjack"
    assert outcome(result, 2, "main") == ("lose", 1000, 0, "BJ-5")


def test_blackjack_3_to_2_on_an_odd_stake_rounds_once_by_the_profile_rule():
    shoe = "As 7c Kd"  # blackjack against a 7: the dealer draws nothing (BJ-4)
    assert outcome(play(shoe, seat(1, 1005)), 1, "main")[2] == 1005 + 1507  # down
    nearest = trilux_profile(money={"rounding": "nearest"})
    assert outcome(play(shoe, seat(1, 1005), profile=nearest), 1, "main")[2] == 1005 + 1508
    chips = trilux_profile(money={"chip_unit": 100})  # 3:2 on 11 chips is 16.5 chips
    assert outcome(play(shoe, seat(1, 1100), profile=chips), 1, "main")[2] == 1100 + 1600


def test_split_21_is_not_a_blackjack_and_loses_to_a_dealer_blackjack():
    # seat 1 Kh Kd split: main Kh As (21), main.2 Kd 9c stands; dealer Ac ... Qs blackjack
    shoe = "Kh Ac Kd As 9c Qs"
    result = play(shoe, seat(1, actions={"main": ["split"], "main.2": ["stand"]}))
    assert result["seats"][0]["hands"][0]["hand"] == "soft 21"
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")
    assert outcome(result, 1, "main.2") == ("lose", 1000, 0, "BJ-9")


# --- BJ-7 splits ----------------------------------------------------------------------------


def test_split_aces_receive_one_card_each_and_21_pays_even_money():
    # seat 1 Ah Ad split; main gets Ks (21), main.2 gets 5d (soft 16); dealer 9c Tc = 19
    result = play("Ah 9c Ad Ks 5d Tc", seat(1, actions={"main": ["split"]}))
    hands = result["seats"][0]["hands"]
    assert [h["cards"] for h in hands] == [["Ah", "Ks"], ["Ad", "5d"]]
    assert outcome(result, 1, "main") == ("win", 1000, 2000, "BJ-7")
    assert wager(result, 1, "main")["line"] == "win"
    assert outcome(result, 1, "main.2") == ("lose", 1000, 0, "BJ-5")


def test_split_aces_take_no_further_action():
    shoe = "Ah 9c Ad Ks 5d Tc"
    with pytest.raises(RoundError, match="split ace takes one card") as info:
        play(shoe, seat(1, actions={"main": ["split"], "main.2": ["hit"]}))
    assert info.value.rule == "BJ-7"


def test_aces_split_once_even_when_an_ace_comes_back():
    # main gets Ac: A-A again, but split aces stand on their one card
    with pytest.raises(RoundError, match="left over") as info:
        play("Ah 9c Ad Ac 5d Tc", seat(1, actions={"main": ["split", "split"]}))
    assert info.value.rule == "BJ-7"


def test_a_third_split_is_refused():
    # 8h 8d split, main gets 8s: split again (three hands); main gets 8c: a third split refused
    shoe = "8h 6c 8d 8s 8c"
    with pytest.raises(RoundError, match=r"at most two splits \(3 hands\)") as info:
        play(shoe, seat(1, actions={"main": ["split", "split", "split"]}))
    assert info.value.rule == "BJ-7"


def test_two_splits_play_three_hands_in_order():
    # main [8h 8d] splits: main.2 = [8d]; main [8h 8s] splits again: main.3 = [8s], played
    # right after main; main [8h 8c] stands, main.3 [8s 3d] doubles with Kd, main.2 [8d 9s]
    # stands; dealer 6c Tc 9h busts. A hand keeps the name it got when it was made (BJ-7).
    shoe = "8h 6c 8d 8s 8c 3d Kd 9s Tc 9h"
    actions = {"main": ["split", "split", "stand"], "main.3": ["double"], "main.2": ["stand"]}
    result = play(shoe, seat(1, actions=actions))
    hands = result["seats"][0]["hands"]
    assert [h["wager"] for h in hands] == ["main", "main.3", "main.2"]  # play order
    assert [h["cards"] for h in hands] == [["8h", "8c"], ["8s", "3d", "Kd"], ["8d", "9s"]]
    assert outcome(result, 1, "main") == ("win", 1000, 2000, "BJ-5")
    assert outcome(result, 1, "main.3") == ("win", 2000, 4000, "BJ-5")
    assert outcome(result, 1, "main.2") == ("win", 1000, 2000, "BJ-5")
    assert result["dealer"]["hand"] == "bust 25"


def test_ten_and_jack_split_unless_same_rank_only():
    shoe = "Th 6c Jd 9s 8s Tc 9h"
    actions = {"main": ["split", "stand"], "main.2": ["stand"]}
    result = play(shoe, seat(1, actions=actions))
    assert [h["cards"] for h in result["seats"][0]["hands"]] == [["Th", "9s"], ["Jd", "8s"]]
    strict = trilux_profile(split_same_rank_only=True)
    with pytest.raises(RoundError, match="same rank") as info:
        play(shoe, seat(1, actions=actions), profile=strict)
    assert info.value.rule == "BJ-7"


def test_split_needs_two_cards_of_the_same_value():
    with pytest.raises(RoundError, match="same value") as info:
        play("Th 6c 9d", seat(1, actions={"main": ["split"]}))
    assert info.value.rule == "BJ-7"


# --- BJ-6 doubles ---------------------------------------------------------------------------


def test_double_after_split():
    # 8h 8d split vs 6c; main 8h 3c = 11 doubles (Kd: 21), main.2 8d 2s = 10 doubles (9h: 19)
    shoe = "8h 6c 8d 3c Kd 2s 9h Tc 9s"
    actions = {"main": ["split", "double"], "main.2": ["double"]}
    result = play(shoe, seat(1, actions=actions))
    assert outcome(result, 1, "main") == ("win", 2000, 4000, "BJ-5")
    assert outcome(result, 1, "main.2") == ("win", 2000, 4000, "BJ-5")
    assert [h["doubled"] for h in result["seats"][0]["hands"]] == [True, True]


def test_double_refused_on_12():
    with pytest.raises(RoundError, match="counts 12") as info:
        play("7h 6c 5d 9s", seat(1, actions={"main": ["double"]}))
    assert info.value.rule == "BJ-6"


def test_double_on_any_two_cards_with_the_option():
    # 7h 5d = 12 doubles against 6c and draws 9s (21); the dealer 6c Tc 6h busts
    shoe = "7h 6c 5d 9s Tc 6h"
    result = play(
        shoe,
        seat(1, actions={"main": ["double"]}),
        profile=trilux_profile(double_on="any", house=True),
    )
    assert outcome(result, 1, "main") == ("win", 2000, 4000, "BJ-5")


def test_double_counts_aces_as_one():
    # A-9 counts 10 with the ace as 1: a double is allowed (BJ-6 [interpretation]); it draws
    # 2s (hard 12) and wins when the dealer 6c Tc 6h busts
    result = play("Ah 6c 9d 2s Tc 6h", seat(1, actions={"main": ["double"]}))
    assert result["seats"][0]["hands"][0]["hand"] == "12"
    assert outcome(result, 1, "main") == ("win", 2000, 4000, "BJ-5")
    narrow = trilux_profile(double_on="9-10", house=True)
    with pytest.raises(RoundError, match="counts 11"):
        play("5h 6c 6d 2s Tc 5h", seat(1, actions={"main": ["double"]}), profile=narrow)


def test_a_doubled_hand_takes_one_card_only():
    with pytest.raises(RoundError, match="double takes one card") as info:
        play("5h 6c 6d 2s Tc 5h", seat(1, actions={"main": ["double", "hit"]}))
    assert info.value.rule == "BJ-6"


# --- BJ-8 insurance -------------------------------------------------------------------------


def test_insurance_won_when_the_dealer_makes_blackjack():
    result = play("Th Ac 7d Ks", seat(1, actions={"main": ["stand"]}, insurance=500))
    assert outcome(result, 1, "insurance") == ("win", 500, 1500, "BJ-8")
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")


def test_insurance_lost_when_the_dealer_does_not():
    result = play("Th Ac 9d 9s", seat(1, actions={"main": ["stand"]}, insurance=500))
    assert outcome(result, 1, "insurance") == ("lose", 500, 0, "BJ-8")
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")  # 19 against soft 20


@pytest.mark.parametrize(
    ("shoe", "insurance", "message"),
    [
        ("Th 9c 7d Ks", 500, "offered only against an ace"),
        ("Th Ac 7d Ks", 499, "below the minimum 500"),  # less than half the table minimum
    ],
)
def test_insurance_limits(shoe, insurance, message):
    with pytest.raises(RoundError, match=message) as info:
        play(shoe, seat(1, actions={"main": ["stand"]}, insurance=insurance))
    assert info.value.rule == "BJ-8"


# --- BJ-4 dealer ----------------------------------------------------------------------------


def test_dealer_stands_on_soft_17():
    result = play("Th 6h 7c Ac", seat(1, actions={"main": ["stand"]}))
    assert result["dealer"] == {"cards": ["6h", "Ac"], "hand": "soft 17", "total": 17}
    assert outcome(result, 1, "main") == ("push", 1000, 1000, "BJ-5")
    with pytest.raises(RoundError, match=r"dealer stands on soft 17 \(BJ-4\)") as info:
        play("Th 6h 7c Ac 2d", seat(1, actions={"main": ["stand"]}))
    assert info.value.rule == "MD-S1"


def test_dealer_draws_on_16_and_soft_16():
    result = play("Th 6h 7c Ts Ad", seat(1, actions={"main": ["stand"]}))
    assert result["dealer"]["cards"] == ["6h", "Ts", "Ad"] and result["dealer"]["total"] == 17
    result = play("Th 5h 7c Ac 2d", seat(1, actions={"main": ["stand"]}))
    assert result["dealer"]["hand"] == "soft 18"  # soft 16 drew a 2: 5 A 2


def test_dealer_does_not_draw_when_every_hand_is_bust_unless_always():
    shoe = "Th 6h 7c Ks"  # seat busts with Ks; nothing left to decide
    result = play(shoe, seat(1, actions={"main": ["hit"]}))
    assert result["dealer"]["cards"] == ["6h"]
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-3")
    always = trilux_profile(dealer_draws="always")
    result = play(shoe + " Td 2c", seat(1, actions={"main": ["hit"]}), profile=always)
    assert result["dealer"]["cards"] == ["6h", "Td", "2c"]


# --- BJ-9 no hole card ----------------------------------------------------------------------


def test_dealer_blackjack_takes_doubled_stakes():
    # 5h 6d = 11 doubles against Ts, draws 9c (20); the dealer's second card As: blackjack
    shoe = "5h Ts 6d 9c As"
    result = play(shoe, seat(1, actions={"main": ["double"]}))
    assert outcome(result, 1, "main") == ("lose", 2000, 0, "BJ-9")
    original = trilux_profile(enhc_loses="original-only")
    result = play(shoe, seat(1, actions={"main": ["double"]}), profile=original)
    assert outcome(result, 1, "main") == ("lose", 2000, 1000, "BJ-9")


def test_dealer_blackjack_takes_split_stakes_or_only_the_original():
    shoe = "8h Ac 8d 9s Tc Ks"  # split 8s against an ace: 17 and 18, then dealer blackjack
    actions = {"main": ["split", "stand"], "main.2": ["stand"]}
    result = play(shoe, seat(1, actions=actions))
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")
    assert outcome(result, 1, "main.2") == ("lose", 1000, 0, "BJ-9")
    original = trilux_profile(enhc_loses="original-only")
    result = play(shoe, seat(1, actions=actions), profile=original)
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-5")
    assert outcome(result, 1, "main.2") == ("push", 1000, 1000, "BJ-9")


# --- BJ-1, BJ-2, BJ-3 -----------------------------------------------------------------------


def test_bust_loses_whatever_the_dealer_does():
    # Kh 6s hits Qd: bust; seat 2 stands on 20; dealer busts too
    shoe = "Kh Th 6c 6s Jd Qd Tc 9h"
    result = play(shoe, seat(1, actions={"main": ["hit"]}), seat(2, actions={"main": ["stand"]}))
    assert outcome(result, 1, "main") == ("lose", 1000, 0, "BJ-3")
    assert outcome(result, 2, "main") == ("win", 1000, 2000, "BJ-5")
    assert result["seats"][0]["hand"] == "bust 26"


def test_deal_order_is_seats_dealer_seats_whatever_the_listing_order():
    result = play(
        "2c 3c 4c 5c 6c 7c 8c Tc 2d",
        seat(3, actions={"main": ["stand"]}),
        seat(1, actions={"main": ["stand"]}),
        seat(2, actions={"main": ["stand"]}),
    )
    assert [s["seat"] for s in result["seats"]] == [1, 2, 3]
    assert [s["cards"] for s in result["seats"]] == [["2c", "6c"], ["3c", "7c"], ["4c", "8c"]]


@pytest.mark.parametrize(
    ("entry", "message", "rule"),
    [
        (seat(8), "not a seat of this table", "BJ-1"),
        (seat(1, 999), "^seat 1: main 999 is below the table minimum 1000 [(]BJ-1[)]$", "BJ-1"),
        (seat(1, trilux=99), "trilux 99 is below the table minimum 100", "TRX-1"),
    ],
)
def test_bets_outside_the_limits_are_refused(entry, message, rule):
    with pytest.raises(RoundError, match=message) as info:
        play("Th 6h 7c Ac", entry)
    assert info.value.rule == rule


def test_a_card_more_often_than_the_shoe_holds_it():
    shoe = "As As As As As Kd Kd"  # four aces of spades fit in 4 decks, a fifth does not
    with pytest.raises(RoundError, match="As dealt 5 times, but the shoe has 4 decks") as info:
        play(shoe, seat(1), seat(2), seat(3), decks=4)
    assert info.value.rule == "BJ-1"


def test_deck_count_of_the_round_is_checked():
    with pytest.raises(RoundError, match="4 to 6 decks"):
        play("Th 6h 7c Ac", seat(1), decks=8)


# --- the record must account for everything ---------------------------------------------------


@pytest.mark.parametrize(
    ("shoe", "actions", "message", "rule"),
    [
        ("Th 6h", {"main": ["stand"]}, "the shoe list ends after 2 cards", "MD-S1"),
        ("Th 6h 7c", {}, r"seat 1 main \(17\) must act \(hit, stand\)", "BJ-3"),
        ("Th 6h 7c Ac", {"main": ["stand", "hit"]}, "'hit' refused: the hand ended", "BJ-3"),
        ("Th 6h 7c Ac", {"main": ["stand"], "main.2": ["hit"]}, "hands are main", "BJ-7"),
        ("Th 6h 7c Ac", {"main": ["surrender"]}, "unknown action 'surrender'", "BJ-3"),
    ],
)
def test_the_record_must_match_the_round(shoe, actions, message, rule):
    with pytest.raises(RoundError, match=message) as info:
        play(shoe, seat(1, actions=actions))
    assert info.value.rule == rule


def test_shape_problems_are_listed_together():
    data = {"shoe": "Th 6h 7c Zz", "seats": [{"seat": 0, "stakes": {"main": "ten"}, "x": 1}]}
    with pytest.raises(RoundError) as info:
        settle(trilux_profile(), data)
    message = str(info.value)
    assert "shoe: " in message
    assert "seats[0].seat: must be a positive" in message
    assert "seats[0].stakes.main: expected a whole number" in message
    assert "seats[0].x: unknown key" in message


def test_the_documented_example_round():
    path = Path(__file__).parents[3] / "examples" / "trilux-gr-split.json"
    data = json.loads(path.read_text())
    result = settle(load_profile(data["profile"]), data).to_json()
    assert outcome(result, 1, "main") == ("win", 4000, 8000, "BJ-5")  # split, then doubled
    assert outcome(result, 1, "main.2") == ("win", 2000, 4000, "BJ-5")
    assert outcome(result, 1, "main.3") == ("win", 2000, 4000, "BJ-5")
    assert outcome(result, 3, "main") == ("win", 1000, 2500, "BJ-5")  # blackjack 3:2
    assert outcome(result, 5, "trilux") == ("win", 100, 3600, "TRX-2")  # 7c 8c + 6c
    assert result["dealer"]["hand"] == "bust 23"
