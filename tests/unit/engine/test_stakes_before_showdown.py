"""A hold'em seat's stakes before its showdown, as its settlement would take them: what a
void returns (MD). Never raises: a void must always be recordable."""

from controller.engine.games.holdem_round import stakes_before_showdown
from controller.engine.profiles import load_profile
from controller.engine.wagers import Limit

UTH, CH = load_profile("uth-gr"), load_profile("ch-bg")
LIMITS = {"ante": Limit(100, 800, "UTH-2")}


def test_the_play_is_the_decisions_on_the_accepted_ante_uth4():
    stakes = {"ante": 1000, "blind": 1000, "play": 4000}
    assert stakes_before_showdown(UTH, LIMITS, 1, stakes, "4x") == {
        "ante": 800,
        "blind": 800,
        "play": 3200,
    }
    assert stakes_before_showdown(UTH, {}, 1, {"ante": 500, "blind": 500}, ["check", "2x"]) == {
        "ante": 500,
        "blind": 500,
        "play": 1000,
    }


def test_a_fold_or_no_decision_places_no_play():
    stakes = {"ante": 500, "blind": 500, "trips": 0}
    assert stakes_before_showdown(UTH, {}, 1, stakes, "fold") == {"ante": 500, "blind": 500}
    assert stakes_before_showdown(UTH, {}, 1, stakes, None) == {"ante": 500, "blind": 500}


def test_the_call_is_twice_the_ante_ch3():
    assert stakes_before_showdown(CH, {}, 2, {"ante": 500, "bonus": 100}, "play") == {
        "ante": 500,
        "bonus": 100,
        "call": 1000,
    }


def test_what_the_settlement_would_refuse_is_returned_as_entered():
    stakes = {"ante": 50, "blind": 50}  # under the minimum
    assert stakes_before_showdown(UTH, LIMITS, 1, stakes, "5x") == stakes
