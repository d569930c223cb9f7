"""BJ-1 [interpretation] as a profile key: ``[rules] over_maximum``. Under ``"cap"`` (the
default, written in every shipped profile) a stake above its wager's maximum is capped and the
excess returned; under ``"refuse"`` it is refused whole, like a stake below the minimum, for
every wager of every game. Doubling and splitting match the accepted bet either way. Amounts
in cents, worked by hand."""

import tomllib

import pytest
from blackjack_support import outcome, play, seat, trilux_profile, wager

from controller.engine.games import settle
from controller.engine.games.holdem_round import stakes_before_showdown
from controller.engine.profiles import (
    OverMaximum,
    available_profiles,
    find_profile,
    load_profile,
    parse_profile,
)
from controller.engine.wagers import Limit, check_entry
from controller.errors import RoundError, StakeAboveMaximum, StakeBelowMinimum
from controller.validation import ConfigError

SHIPPED = ("ch-bg", "trilux-gr", "uth-gr", "uth-it", "uth-sk")


def profile(name, **rules):
    """Shipped profile ``name`` with some [rules] replaced."""
    data = tomllib.loads(find_profile(name).read_text())
    data["rules"].update(rules)
    return parse_profile(data, f"{name}.toml")


GR, GR_REFUSE = load_profile("uth-gr"), profile("uth-gr", over_maximum="refuse")
CH, CH_REFUSE = load_profile("ch-bg"), profile("ch-bg", over_maximum="refuse")
BJ_REFUSE = trilux_profile(over_maximum="refuse", house=True)  # seed 001 caps (BJ-1)

# board 2c 7d 9h Js Qs; dealer Jd 3c = pair of jacks (qualifies); seat Kd Tc = straight
BOARD = {"dealer": ["Jd", "3c"], "community": ["2c", "7d", "9h", "Js", "Qs"]}
UTH_LIMITS = {"ante": {"min": 500, "max": 5000}, "trips": {"min": 100, "max": 1000}}
CH_LIMITS = {
    "ante": {"min": 500, "max": 5000},
    "bonus": {"min": 100, "max": 200},
    "jumbo7": {"min": 100, "max": 500},
}


def holdem(prof, stakes, decision="4x", limits=UTH_LIMITS, **extra):
    entry = {"seat": 3, "cards": ["Kd", "Tc"], "stakes": stakes, "decision": decision}
    return settle(prof, {**BOARD, "seats": [entry], "limits": limits, **extra}).seats[0]


# --- the key ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_profile_writes_the_key_with_its_default_citing_bj1(name):
    assert name in available_profiles()
    text = find_profile(name).read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("over_maximum"))
    assert line.startswith('over_maximum = "cap"') and "BJ-1 [interpretation]" in line
    assert load_profile(name).over_maximum is OverMaximum.CAP


def test_a_profile_without_the_key_caps():
    data = tomllib.loads(find_profile("uth-sk").read_text())
    del data["rules"]["over_maximum"]
    assert parse_profile(data, "sk.toml").over_maximum is OverMaximum.CAP


@pytest.mark.parametrize(
    ("value", "why"),
    [("capped", "'capped' is not one of cap, refuse"), (True, "expected text, got True")],
)
def test_a_bad_value_is_one_line_naming_the_key_and_bj1(value, why):
    data = tomllib.loads(find_profile("ch-bg").read_text())
    data["rules"]["over_maximum"] = value
    with pytest.raises(ConfigError) as info:
        parse_profile(data, "ch.toml")
    assert info.value.problems == [("rules.over_maximum", f"{why} (BJ-1)")]
    assert str(info.value) == f"ch.toml: rules.over_maximum: {why} (BJ-1)"


# --- Ultimate Texas Hold'em: Ante (Blind follows), Trips, the fixed-stake progressive -------


def test_uth_cap_is_unchanged():
    s = holdem(GR, {"ante": 8000, "blind": 8000, "trips": 1500}, pools={})
    assert (s.wagers["ante"].stake, s.wagers["ante"].returned) == (5000, 3000)
    assert (s.wagers["play"].stake, s.wagers["play"].returned) == (20000, 0)  # 4x accepted
    assert (s.wagers["trips"].stake, s.wagers["trips"].returned) == (1000, 500)


@pytest.mark.parametrize(
    ("stakes", "message"),
    [
        ({"ante": 8000, "blind": 8000}, "seat 3: ante 8000 is above the table maximum 5000"),
        ({"ante": 5000, "blind": 5001}, "seat 3: blind 5001 is above the table maximum 5000"),
        (  # the Trips side bet
            {"ante": 1000, "blind": 1000, "trips": 1500},
            "seat 3: trips 1500 is above the table maximum 1000",
        ),
        (  # the Ultimate Progressive: its fixed stake is its maximum (UTH-2)
            {"ante": 1000, "blind": 1000, "progressive": 200},
            "seat 3: progressive 200 is above the table maximum 100",
        ),
    ],
)
def test_uth_refuse_refuses_the_stake_whole_naming_seat_wager_and_maximum(stakes, message):
    with pytest.raises(StakeAboveMaximum) as info:
        holdem(GR_REFUSE, stakes, pools={})
    assert str(info.value) == f"{message}: refused, not capped (over_maximum = refuse) (BJ-1)"
    assert info.value.rule == "BJ-1" and "\n" not in str(info.value)
    assert isinstance(info.value, RoundError)  # settle --json reports it as it does the minimum


def test_uth_refuse_at_the_maximum_settles_as_cap_does():
    stakes = {"ante": 5000, "blind": 5000, "trips": 1000, "progressive": 100}
    pools = {"pools": {"progressive": {"amount": 500000, "seed": 500000}}}
    refused_profile = holdem(GR_REFUSE, stakes, **pools).to_json()
    assert refused_profile == holdem(GR, stakes, **pools).to_json()
    assert "returned" not in str(refused_profile)


def test_uth_refuse_keeps_the_minimum_refusal_first():
    with pytest.raises(StakeBelowMinimum, match="below the table minimum 500"):
        holdem(GR_REFUSE, {"ante": 400, "blind": 400}, pools={})


# --- Casino Hold'em: Ante (the Call follows), Bonus, Jumbo 7 --------------------------------


def test_ch_cap_is_unchanged():
    s = holdem(CH, {"ante": 9000, "bonus": 300, "jumbo7": 700}, "play", CH_LIMITS, pools={})
    assert (s.wagers["ante"].stake, s.wagers["ante"].returned) == (5000, 4000)
    assert s.wagers["call"].stake == 10000  # CH-3: 2x the accepted Ante
    assert (s.wagers["bonus"].stake, s.wagers["bonus"].returned) == (200, 100)
    assert (s.wagers["jumbo7"].stake, s.wagers["jumbo7"].returned) == (500, 200)


@pytest.mark.parametrize(
    ("stakes", "message"),
    [
        ({"ante": 9000}, "ante 9000 is above the table maximum 5000"),
        ({"ante": 1000, "bonus": 300}, "bonus 300 is above the table maximum 200"),
        ({"ante": 1000, "jumbo7": 700}, "jumbo7 700 is above the table maximum 500"),
    ],
)
def test_ch_refuse_refuses_each_wager_over_its_maximum(stakes, message):
    with pytest.raises(StakeAboveMaximum, match=f"^seat 3: {message}: refused") as info:
        holdem(CH_REFUSE, stakes, "play", CH_LIMITS, pools={})
    assert info.value.rule == "BJ-1"


def test_ch_refuse_within_the_limits_plays_the_call_on_the_ante():
    s = holdem(CH_REFUSE, {"ante": 5000, "bonus": 200}, "play", CH_LIMITS, pools={})
    assert (s.wagers["ante"].stake, s.wagers["call"].stake, s.wagers["bonus"].stake) == (
        5000,
        10000,
        200,
    )


# --- blackjack: main, Trilux, insurance; double and split on the accepted bet --------------


def test_blackjack_refuse_refuses_the_main_bet_and_the_trilux():
    with pytest.raises(StakeAboveMaximum) as info:
        play("6h 9c 5d Ts 8s", seat(1, 150000, actions={"main": ["double"]}), profile=BJ_REFUSE)
    assert str(info.value) == (
        "seat 1: main 150000 is above the table maximum 100000: refused, not capped"
        " (over_maximum = refuse) (BJ-1)"
    )
    with pytest.raises(StakeAboveMaximum, match="trilux 6000 is above the table maximum 5000"):
        play("Th 6h 7c", seat(1, 1000, trilux=6000), profile=BJ_REFUSE)
    limits = {"main": {"min": 500, "max": 2000}}  # a round file's limits replace the profile's
    with pytest.raises(StakeAboveMaximum, match="main 3000 is above the table maximum 2000"):
        play(
            "Th 6h 7c Ac",
            seat(1, 3000, actions={"main": ["stand"]}),
            profile=BJ_REFUSE,
            limits=limits,
        )


def test_blackjack_refuse_doubles_and_splits_on_the_accepted_bet():
    # at the maximum the bet is taken whole; 6+5 doubles to 200000 and wins 1:1
    result = play(
        "6h 9c 5d Ts 8s", seat(1, 100000, actions={"main": ["double"]}), profile=BJ_REFUSE
    )
    main = wager(result, 1, "main")
    assert (main["stake"], main["paid"], main.get("returned", 0)) == (200000, 400000, 0)
    actions = {"main": ["split", "stand"], "main.2": ["stand"]}
    result = play(
        "8h 6c 8d 3s Tc 9h Ts", seat(1, 100000, actions=actions, trilux=5000), profile=BJ_REFUSE
    )
    assert wager(result, 1, "main")["stake"] == wager(result, 1, "main.2")["stake"] == 100000
    assert wager(result, 1, "trilux")["stake"] == 5000


def test_blackjack_insurance_over_half_the_bet():
    # BJ-8: at most half the accepted bet (1000 / 2 = 500)
    capped = play("Th Ac 7d Ks", seat(1, actions={"main": ["stand"]}, insurance=800))
    assert outcome(capped, 1, "insurance") == ("win", 500, 1500, "BJ-8")
    assert wager(capped, 1, "insurance")["returned"] == 300
    with pytest.raises(StakeAboveMaximum) as info:
        play("Th Ac 7d Ks", seat(1, actions={"main": ["stand"]}, insurance=800), profile=BJ_REFUSE)
    assert str(info.value) == (
        "seat 1: insurance 800 is above the maximum 500 (half the bet, BJ-8): refused, not"
        " capped (over_maximum = refuse) (BJ-1)"
    )
    exact = play(
        "Th Ac 7d Ks", seat(1, actions={"main": ["stand"]}, insurance=500), profile=BJ_REFUSE
    )
    assert outcome(exact, 1, "insurance") == ("win", 500, 1500, "BJ-8")


def test_blackjack_insurance_no_stake_fits_stays_a_minimum_refusal():
    # a bet of 1001 at a 1001 minimum: both BJ-8 bounds are 500.5, no whole cent fits; an
    # insurance over half the bet is refused as below the minimum under either value
    limits = {"main": {"min": 1001, "max": 100000}}
    with pytest.raises(StakeBelowMinimum, match="no insurance stake fits"):
        play(
            "Th Ac 7d Ks",
            seat(1, 1001, actions={"main": ["stand"]}, insurance=600),
            profile=BJ_REFUSE,
            limits=limits,
        )


# --- the table's entry check and what a void returns ---------------------------------------


def test_check_entry_refuses_over_the_maximum_only_under_refuse():
    limits = {"ante": Limit(500, 5000, "UTH-2")}
    stakes = {"ante": 8000, "blind": 8000}
    check_entry(GR, limits, 2, stakes)  # capped later, when the round takes the stakes
    with pytest.raises(StakeAboveMaximum, match=r"^seat 2: ante 8000 is above the table max"):
        check_entry(GR_REFUSE, limits, 2, stakes)


def test_a_void_returns_a_refused_stake_as_entered():
    limits = {"ante": Limit(100, 800, "UTH-2")}
    stakes = {"ante": 1000, "blind": 1000}
    assert stakes_before_showdown(GR, limits, 1, stakes, "fold") == {"ante": 800, "blind": 800}
    assert stakes_before_showdown(GR_REFUSE, limits, 1, stakes, "fold") == stakes
