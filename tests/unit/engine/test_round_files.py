"""Round files as a reviewer writes them: blackjack actions (BJ-3..7), the dealer's draw
(BJ-4), split-hand names (BJ-7); hold'em keys and burn cards (UTH-11). Hand-worked cases."""

import json
import re
from pathlib import Path

import pytest
from blackjack_support import outcome, play, seat

from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.errors import RoundError

# --- 5. blackjack: an illegal action is reported as that action, before the shoe ---------


@pytest.mark.parametrize(
    ("shoe", "actions", "message", "rule"),
    [
        # 6+5 doubles with Ts (21); the recorded hit's card 4d is still in the shoe list
        ("6h 9c 5d Ts 4d 8s", ["double", "hit"], "'hit' refused: the hand ended (a double", "BJ-6"),
        # As Kd is a blackjack: a hit on it is refused; its card stays in the list
        ("As 9c Kd 4d", ["hit"], "'hit' refused: the hand ended (blackjack)", "BJ-5"),
        # stood on 17, then a hit with its card in the list
        (
            "Th 9c 7d 2c 8s",
            ["stand", "hit"],
            "'hit' refused: the hand ended (it stood on 17)",
            "BJ-3",
        ),
    ],
)
def test_an_action_after_the_hand_ended_is_named_before_leftover_cards(
    shoe, actions, message, rule
):
    with pytest.raises(RoundError, match=re.escape(message)) as info:
        play(shoe, seat(1, actions={"main": actions}))
    assert info.value.rule == rule
    assert "left in the shoe" not in str(info.value)


def test_a_hand_that_stands_by_itself_may_have_its_stand_written_or_not():
    # Th + 5d + 6s = 21 after a hit: stands by itself; the reviewer may write the stand
    shoe = "Th 9c 5d 6s 8s"
    for actions in (["hit"], ["hit", "stand"]):
        result = play(shoe, seat(1, actions={"main": actions}))
        assert outcome(result, 1, "main") == ("win", 1000, 2000, "BJ-5")
    # split aces take one card each and stand: with or without their stands
    shoe = "Ah 9c Ad 5s Ks 8s"
    for actions in ({"main": ["split"]}, {"main": ["split", "stand"], "main.2": ["stand"]}):
        result = play(shoe, seat(1, actions=actions))
        assert [h["cards"] for h in result["seats"][0]["hands"]] == [["Ah", "5s"], ["Ad", "Ks"]]
    # but two stands are one too many
    with pytest.raises(RoundError, match="'stand' refused") as info:
        play("Th 9c 5d 6s 8s", seat(1, actions={"main": ["hit", "stand", "stand"]}))
    assert info.value.rule == "BJ-3"


def test_missing_and_misnamed_actions_carry_rules():
    with pytest.raises(RoundError, match="must act") as info:
        play("Th 9c 7d 8s", seat(1, actions={}))
    assert info.value.rule == "BJ-3"
    with pytest.raises(RoundError, match="hands are main") as info:
        play("Th 9c 7d 8s", seat(1, actions={"main": ["stand"], "main.2": ["stand"]}))
    assert info.value.rule == "BJ-7"


def test_split_hand_names_do_not_depend_on_later_splits():
    # main 8h 8d splits (main.2 = 8d); main draws 8c and splits again (main.3 = 8c, played
    # next); main 8h 2s hits Ts (20) and stands, main.3 8c As (soft 19) stands, main.2 8d Ks
    # stands; dealer 9c Tc = 19
    shoe = "8h 9c 8d 8c 2s Ts As Ks Tc"
    actions = {"main": ["split", "split", "hit", "stand"], "main.3": ["stand"], "main.2": ["stand"]}
    result = play(shoe, seat(1, actions=actions))
    hands = {h["wager"]: h["cards"] for h in result["seats"][0]["hands"]}
    assert hands == {"main": ["8h", "2s", "Ts"], "main.3": ["8c", "As"], "main.2": ["8d", "Ks"]}
    assert outcome(result, 1, "main.2") == ("lose", 1000, 0, "BJ-5")  # 18 against 19
    assert outcome(result, 1, "main.3") == ("push", 1000, 1000, "BJ-5")  # 19


@pytest.mark.parametrize(
    ("shoe", "dealer"),
    [
        ("Th 9c 5d Ks", ["9c"]),  # 15 hits Ks: bust; nothing left to decide, no dealer card
        ("As 7c Kd", ["7c"]),  # only a blackjack, up card 7: no card can change it (BJ-5)
        ("As Tc Kd 9h", ["Tc", "9h"]),  # a ten-value up card could make a blackjack
        ("As Ac Kd 9h", ["Ac", "9h"]),  # an ace likewise (insurance declined)
    ],
)
def test_the_dealer_draws_only_when_a_card_can_change_a_result(shoe, dealer):
    actions = {"main": ["hit"]} if shoe.startswith("Th") else None
    result = play(shoe, seat(1, actions=actions))
    assert result["dealer"]["cards"] == dealer


def test_dealer_draws_always_draws_to_17():
    from blackjack_support import trilux_profile

    always = trilux_profile(dealer_draws="always")
    result = play("As 7c Kd Tc", seat(1), profile=always)
    assert result["dealer"]["cards"] == ["7c", "Tc"]


# --- 6. hold'em round files: unknown keys, burn cards --------------------------------------

SK = load_profile("uth-sk")
GR = load_profile("uth-gr")
BOARD = {"dealer": ["Jd", "3c"], "community": ["2c", "7d", "9h", "Js", "Qs"]}
SEAT = {"seat": 1, "cards": ["Kd", "Tc"], "stakes": {"ante": 1000, "blind": 1000}, "decision": "4x"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**BOARD, "seats": [SEAT], "pool": {}}, "round file: unknown key 'pool'"),
        ({**BOARD, "seats": [{**SEAT, "decison": "4x"}]}, "seat 1: unknown key 'decison'"),
        (
            {**BOARD, "seats": [SEAT], "pools": {"progressive": {"amount": 5, "sed": 1}}},
            "pools.progressive: unknown key 'sed'",
        ),
    ],
)
def test_holdem_round_files_refuse_unknown_keys_by_name(data, message):
    with pytest.raises(RoundError, match=message):
        settle(GR, data)


def test_uth_sk_burns_are_recorded_and_checked_against_the_deal_plan():
    ok = settle(SK, {**BOARD, "burns": ["4c", "5d"], "seats": [SEAT]})
    assert ok.seats[0].wagers["ante"].paid == 2000
    with pytest.raises(
        RoundError, match=r"burns 2 cards \(before the flop, before the turn"
    ) as info:
        settle(SK, {**BOARD, "burns": ["4c"], "seats": [SEAT]})
    assert info.value.rule == "UTH-11"
    with pytest.raises(RoundError, match="dealt twice") as info:
        settle(SK, {**BOARD, "burns": ["4c", "Qs"], "seats": [SEAT]})
    assert info.value.rule == "POK-1"
    with pytest.raises(RoundError, match="burns no cards") as info:
        settle(GR, {**BOARD, "burns": ["4c", "5d"], "seats": [SEAT]})
    assert info.value.rule == "UTH-11"
    three = settle(load_profile("uth-it"), {**BOARD, "burns": "4c 5d 6h", "seats": [SEAT]})
    assert three.seats[0].wagers["ante"].paid == 2000


# --- the examples of docs/settle.md and docs/blackjack-round.md -----------------------------

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
REFUSED = {"uth-sk-progressive.json": "UTH-2", "trilux-gr-hit-after-double.json": "BJ-6"}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_every_example_settles(path):
    data = json.loads(path.read_text())
    assert settle(load_profile(data["profile"]), data).seats


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_every_refused_example_is_refused_with_its_rule(name):
    assert sorted(p.name for p in (EXAMPLES / "refused").glob("*.json")) == sorted(REFUSED)
    data = json.loads((EXAMPLES / "refused" / name).read_text())
    with pytest.raises(RoundError) as info:
        settle(load_profile(data["profile"]), data)
    assert info.value.rule == REFUSED[name]
