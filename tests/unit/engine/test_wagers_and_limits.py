"""Stakes the profile does not offer are refused (UTH-2, CH-2, BJ-1); stakes over the table
maximum are capped and the excess returned (BJ-1 [interpretation], every game). Hand-worked
rounds in cents, and properties of the cap."""

import contextlib

import pytest
from blackjack_support import outcome, play, seat, wager
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.games import settle
from controller.engine.profiles import OverMaximum, load_profile
from controller.engine.wagers import Accepted, Limit, accept, offered_wagers, parse_limits
from controller.errors import (
    RoundError,
    StakeAboveMaximum,
    StakeBelowMinimum,
    StakeNotWholeChips,
    WagerNotOffered,
)

GR, SK, IT, CH = (load_profile(n) for n in ("uth-gr", "uth-sk", "uth-it", "ch-bg"))
BJ = load_profile("trilux-gr")

# board 2c 7d 9h Js Qs; dealer Jd 3c = pair of jacks (qualifies); Kd Tc = straight
UTH = {"dealer": ["Jd", "3c"], "community": ["2c", "7d", "9h", "Js", "Qs"]}


def uth_round(profile, stakes, decision="4x", **extra):
    entry = {"seat": 1, "cards": ["Kd", "Tc"], "stakes": stakes, "decision": decision}
    return settle(profile, {**UTH, "seats": [entry], **extra}).seats[0]


# --- 1. wagers the profile does not offer --------------------------------------------------


@pytest.mark.parametrize("profile", [SK, IT], ids=["uth-sk", "uth-it"])
def test_a_progressive_stake_without_a_progressive_pool_is_refused_uth2(profile):
    stakes = {"ante": 1000, "blind": 1000, "progressive": 100}
    with pytest.raises(WagerNotOffered, match="has no progressive pool") as info:
        uth_round(profile, stakes)
    assert info.value.rule == "UTH-2"
    # a side bet of the sensed stakes alone (no decision) is refused the same way
    with pytest.raises(WagerNotOffered):
        uth_round(profile, {"progressive": 100}, decision=None)


def test_the_greek_profile_takes_its_progressive():
    s = uth_round(GR, {"ante": 1000, "blind": 1000, "progressive": 100}, pools={})
    assert s.wagers["progressive"].stake == 100
    assert s.staked == 1000 + 1000 + 4000 + 100  # the progressive counts in the total


def test_other_games_wagers_are_refused_with_their_rule():
    with pytest.raises(WagerNotOffered, match="unknown wager 'progressive'") as info:
        settle(
            CH,
            {
                **UTH,
                "seats": [
                    {
                        "seat": 1,
                        "cards": ["Kd", "Tc"],
                        "stakes": {"ante": 1000, "progressive": 100},
                        "decision": "play",
                    }
                ],
            },
        )
    assert info.value.rule == "CH-2"
    with pytest.raises(WagerNotOffered, match="unknown wager 'jumbo7'") as info:
        play("Th 6h 7c", seat(1, jumbo7=100, actions={"main": ["stand"]}))
    assert info.value.rule == "BJ-1"


def test_offered_wagers_follow_the_profile():
    assert offered_wagers(GR)[-1] == "progressive"
    assert "progressive" not in offered_wagers(SK) + offered_wagers(IT)
    assert offered_wagers(CH)[-1] == "jumbo7"
    assert offered_wagers(BJ) == ("main", "trilux", "insurance")


# --- 3. table limits: over the maximum capped, excess returned (BJ-1) ----------------------

LIMITS = {"ante": {"min": 500, "max": 5000}, "trips": {"min": 100, "max": 1000}}


def test_uth_ante_over_the_maximum_is_capped_and_play_and_blind_follow():
    # ante = blind = 8000 over a 5000 maximum: 5000 each accepted, 3000 each returned; the
    # 4x Play is 4 x the accepted Ante = 20000 (UTH-4); Trips 1500 capped at 1000
    s = uth_round(GR, {"ante": 8000, "blind": 8000, "trips": 1500}, limits=LIMITS)
    ante, blind, play_, trips = (s.wagers[n] for n in ("ante", "blind", "play", "trips"))
    assert (ante.stake, ante.returned, ante.paid) == (5000, 3000, 10000)  # UTH-6 1:1
    assert (blind.stake, blind.returned, blind.paid) == (5000, 3000, 10000)  # UTH-8 straight
    assert (play_.stake, play_.returned, play_.paid) == (20000, 0, 40000)
    assert (trips.stake, trips.returned, trips.paid) == (1000, 500, 5000)  # UTH-9 4:1
    assert s.to_json()["wagers"]["ante"]["returned"] == 3000


def test_a_recorded_play_on_a_capped_ante_returns_its_excess_too():
    stakes = {"ante": 8000, "blind": 8000, "play": 32000}
    s = uth_round(GR, stakes, limits=LIMITS)
    assert (s.wagers["play"].stake, s.wagers["play"].returned) == (20000, 12000)
    with pytest.raises(RoundError, match="must be 4x Ante = 20000") as info:
        uth_round(GR, {**stakes, "play": 30000}, limits=LIMITS)
    assert info.value.rule == "UTH-4"


def test_under_the_minimum_is_refused_and_says_minimum():
    with pytest.raises(StakeBelowMinimum) as info:
        uth_round(GR, {"ante": 400, "blind": 400}, limits=LIMITS)
    assert str(info.value) == "seat 1: ante 400 is below the table minimum 500 (UTH-2)"
    assert "max" not in str(info.value)


def test_casino_holdem_call_follows_the_capped_ante():
    entry = {
        "seat": 1,
        "cards": ["Kd", "Tc"],
        "stakes": {"ante": 9000, "bonus": 300},
        "decision": "play",
    }
    limits = {"ante": {"min": 500, "max": 5000}, "bonus": {"min": 100, "max": 200}}
    s = settle(CH, {**UTH, "seats": [entry], "limits": limits}).seats[0]
    assert (s.wagers["ante"].stake, s.wagers["ante"].returned) == (5000, 4000)
    assert s.wagers["call"].stake == 10000  # CH-3: 2x the accepted Ante
    assert (s.wagers["bonus"].stake, s.wagers["bonus"].returned) == (200, 100)


def test_a_jumbo7_stake_of_several_units_is_capped_by_the_tables_limits_bj1():
    """A round file's Jumbo 7 stake of 100,000 units was paid 5000 per unit: no table could
    limit it ('jumbo7 has no table limits of its own'). BJ-1's cap reaches every wager; the
    fixed UTH progressive keeps its fixed stake (UTH-2)."""
    board = {"dealer": ["Kh", "Ks"], "community": ["3c", "4c", "5c", "6c", "Kd"]}
    pools = {"jumbo7": {"amount": 500000, "seed": 100000}}
    entry = {
        "seat": 1,
        "cards": ["7c", "8c"],  # a six-card straight flush, 3c..8c (CH-8: 5000 per unit)
        "stakes": {"ante": 1000, "jumbo7": 10_000_000},
        "decision": "play",
    }
    limits = {"jumbo7": {"min": 100, "max": 500}}
    s = settle(CH, {**board, "pools": pools, "seats": [entry], "limits": limits}).seats[0]
    jumbo = s.wagers["jumbo7"]
    assert (jumbo.stake, jumbo.returned, jumbo.paid) == (500, 9_999_500, 5 * 500_000)
    for low, high in ((200, 500), (50, 50), (100, 250)):  # the sensor's 100 refused or capped
        _, problems = parse_limits(CH, {"jumbo7": {"min": low, "max": high}})
        assert [k for k, _ in problems] == ["limits.jumbo7"], (low, high)
        assert "must take the fixed jumbo7 stake 100" in problems[0][1]
    _, problems = parse_limits(GR, {"progressive": {"min": 100, "max": 500}})
    assert [k for k, _ in problems] == ["limits.progressive"]


def test_blackjack_over_maximum_capped_and_the_double_matches_the_capped_bet():
    # max 100000: a 150000 bet plays 100000, 50000 returned; 6+5 doubles to 200000 and wins
    result = play("6h 9c 5d Ts 8s", seat(1, 150000, actions={"main": ["double"]}))
    main = wager(result, 1, "main")
    assert (main["stake"], main["returned"], main["paid"]) == (200000, 50000, 400000)


def test_blackjack_split_matches_the_capped_bet_and_trilux_and_insurance_cap():
    # seat 1 8h 8d split at 120000 (max 100000): both hands 100000; Trilux 6000 over 5000
    result = play(
        "8h 6c 8d 3s Tc 9h Ts",
        seat(1, 120000, trilux=6000, actions={"main": ["split", "stand"], "main.2": ["stand"]}),
    )
    assert wager(result, 1, "main")["stake"] == wager(result, 1, "main.2")["stake"] == 100000
    assert wager(result, 1, "main")["returned"] == 20000
    assert "returned" not in wager(result, 1, "main.2")  # the split bet was never over
    assert (wager(result, 1, "trilux")["stake"], wager(result, 1, "trilux")["returned"]) == (
        5000,
        1000,
    )
    # BJ-8: insurance over half the accepted bet is capped at it
    result = play("Th Ac 7d Ks", seat(1, actions={"main": ["stand"]}, insurance=800))
    assert outcome(result, 1, "insurance") == ("win", 500, 1500, "BJ-8")  # dealer blackjack
    assert wager(result, 1, "insurance")["returned"] == 300


def test_round_file_limits_replace_the_profiles():
    limits = {"main": {"min": 500, "max": 2000}}
    result = play("Th 6h 7c Ac", seat(1, 3000, actions={"main": ["stand"]}), limits=limits)
    assert (wager(result, 1, "main")["stake"], wager(result, 1, "main")["returned"]) == (2000, 1000)
    with pytest.raises(RoundError, match="TRX-1"):
        play("Th 6h 7c", seat(1), limits={"trilux": {"min": 100, "max": 5001}})
    with pytest.raises(RoundError, match="has no progressive pool"):
        settle(SK, {**UTH, "seats": [], "limits": {"progressive": {"min": 1, "max": 2}}})


def test_parse_limits_lists_every_problem_with_its_rule():
    _, problems = parse_limits(
        GR, {"ante": {"min": 10, "max": 5}, "trips": {"min": 0, "max": 5}, "play": {}}
    )
    assert [k for k, _ in problems] == ["limits.ante", "limits.trips", "limits.play"]
    assert all("UTH-2" in reason for _, reason in problems)


amounts = st.integers(min_value=0, max_value=10**9)


@given(low=st.integers(1, 10**6), span=st.integers(0, 10**6), amount=amounts)
def test_a_capped_stake_never_exceeds_the_maximum_and_nothing_is_lost(low, span, amount):
    limits = {"ante": Limit(low, low + span, "UTH-2")}
    try:
        taken = accept(limits, 1, "ante", amount, over_maximum=OverMaximum.CAP)
    except StakeBelowMinimum:
        assert 0 < amount < low
        return
    assert taken.stake <= low + span
    assert taken.stake + taken.returned == amount  # accepted + returned = put down
    assert taken.returned == max(0, amount - (low + span))


@given(low=st.integers(1, 10**6), span=st.integers(0, 10**6), amount=amounts)
def test_under_refuse_a_stake_is_taken_whole_or_refused_and_only_outside_the_limits(
    low, span, amount
):
    limits = {"ante": Limit(low, low + span, "UTH-2")}
    capped = None
    with contextlib.suppress(StakeBelowMinimum):
        capped = accept(limits, 1, "ante", amount, over_maximum=OverMaximum.CAP)
    try:
        taken = accept(limits, 1, "ante", amount, over_maximum=OverMaximum.REFUSE)
    except StakeBelowMinimum:
        assert 0 < amount < low and capped is None  # the minimum is the same either way
        return
    except StakeAboveMaximum as exc:
        assert amount > low + span and exc.rule == "BJ-1"
        assert capped is not None and capped.returned == amount - (low + span)
        return
    assert taken == capped == Accepted(amount)  # within the limits the two values agree


# --- the table configuration: [limits], and pools only where a progressive is offered ------


def test_table_configuration_limits_and_progressive_pools_are_checked_with_rules():
    import copy
    import tomllib
    from pathlib import Path

    from controller.table.tableconfig import parse_table_config
    from controller.validation import ConfigError

    config = Path(__file__).resolve().parents[3] / "config"
    sim = tomllib.loads((config / "sim.toml").read_text())
    good = parse_table_config({**copy.deepcopy(sim), "limits": LIMITS}, "t.toml")
    assert good.limits["ante"] == Limit(500, 5000, "UTH-2")
    bad = {**copy.deepcopy(sim), "limits": {"ante": {"min": 9, "max": 1}, "jumbo7": {}}}
    with pytest.raises(ConfigError) as info:
        parse_table_config(bad, "t.toml")
    found = dict(info.value.problems)
    assert "UTH-2" in found["limits.ante"] and "UTH-2" in found["limits.jumbo7"]
    # a uth-it table (no progressive) with a pool configured: refused naming UTH-2
    it = {**copy.deepcopy(sim), "table": {**sim["table"], "profile": "uth-it"}}
    with pytest.raises(ConfigError) as info:
        parse_table_config(it, "t.toml")
    assert "UTH-2" in dict(info.value.problems)["pools"]
    # blackjack tables default to the profile's limits
    bj = tomllib.loads((config / "trilux-gr.toml").read_text())
    bj["shuffler"]["firmware_allow"] = ["ab" * 32]  # the example's placeholder is refused
    assert parse_table_config(bj, "t.toml").limits["main"] == Limit(1000, 100000, "BJ-1")


# --- stakes are whole chips ([money] chip_unit) -------------------------------------------


def chips_of(profile, unit):
    """``profile`` staking and paying in chips of ``unit`` minor units."""
    import dataclasses

    return dataclasses.replace(profile, money=dataclasses.replace(profile.money, chip_unit=unit))


GR25 = chips_of(GR, 25)


@pytest.mark.parametrize(
    ("stakes", "wager", "rule"),
    [
        ({"ante": 1010, "blind": 1010}, "ante 1010", "UTH-2"),  # audit k02: 1010 = 40.4 chips
        ({"ante": 1000, "blind": 1000, "trips": 510}, "trips 510", "UTH-2"),
        ({"ante": 1000, "blind": 1000, "play": 4010}, "play 4010", "UTH-4"),
    ],
)
def test_a_stake_of_a_fraction_of_a_chip_is_refused_naming_wager_and_chip(stakes, wager, rule):
    # a player stakes chips; 1:1 on 40.4 chips of 25 rounded down to the chip would pay
    # 1000 on an Ante of 1010 (below 1:1, UTH-6)
    with pytest.raises(StakeNotWholeChips, match=f"{wager} is not a whole number of chips") as e:
        uth_round(GR25, stakes, pools={})
    assert "chips of 25 ([money] chip_unit)" in str(e.value)  # minor units: the engine's text
    assert e.value.rule == rule


def test_whole_chips_pay_even_money_exactly():
    # 40 chips of 25: Play 4x = 4000 and Ante win 1:1 exactly (UTH-6), Blind straight 1:1
    s = uth_round(GR25, {"ante": 1000, "blind": 1000}, pools={})
    assert (s.wagers["play"].paid, s.wagers["ante"].paid, s.wagers["blind"].paid) == (
        8000,
        2000,
        2000,
    )


def test_blackjack_stakes_and_insurance_are_whole_chips():
    from blackjack_support import trilux_profile

    chips = trilux_profile(money={"chip_unit": 100})
    with pytest.raises(StakeNotWholeChips, match="main 1050 is not a whole number") as e:
        play("Th 6h 7c", seat(1, 1050), profile=chips)
    assert e.value.rule == "BJ-1"
    with pytest.raises(StakeNotWholeChips, match="trilux 150 is not") as e:
        play("Th 6h 7c", seat(1, trilux=150), profile=chips)
    assert e.value.rule == "TRX-1"
    with pytest.raises(StakeNotWholeChips, match="insurance 550 is not") as e:
        play(
            "Th Ac 7d Ks", seat(1, 1100, insurance=550, actions={"main": ["stand"]}), profile=chips
        )
    assert e.value.rule == "BJ-8"
    # BJ-8 caps the insurance at half the bet: 5.5 chips of 11 is 5 whole chips
    result = play(
        "Th Ac 7d Ks", seat(1, 1100, insurance=600, actions={"main": ["stand"]}), profile=chips
    )
    assert outcome(result, 1, "insurance") == ("win", 500, 1500, "BJ-8")
    assert wager(result, 1, "insurance")["returned"] == 100


def test_an_insurance_entered_at_the_table_is_whole_chips_too():
    # the daemon's round decide SEAT insurance --amount N reaches the engine's insure()
    from blackjack_support import trilux_profile

    from controller.engine.cards import parse_cards
    from controller.engine.games.blackjack import BlackjackRound, BlackjackRules, SeatBet

    rules = BlackjackRules.from_profile(trilux_profile(money={"chip_unit": 100}))
    game = BlackjackRound(rules, [SeatBet(1, 1100, 0)])
    for card in parse_cards("Th Ac 7d", unique=False):
        game.deal(card)
    assert game.insurance_limits() == (500, 500)  # half of 11 chips, to whole chips
    with pytest.raises(StakeNotWholeChips) as e:
        game.insure(550)
    assert e.value.rule == "BJ-8" and "chips of 100" in str(e.value)
    game.insure(500)


def test_limits_and_the_profiles_own_stakes_are_whole_chips():
    _, problems = parse_limits(GR25, {"ante": {"min": 500, "max": 5010}})
    assert problems == [
        (
            "limits.ante",
            "5010 is not a whole number of chips of 25 ([money] chip_unit): a stake capped at"
            " it would not be (UTH-2)",
        )
    ]
    import tomllib

    from controller.engine.profiles import find_profile, parse_profile
    from controller.validation import ConfigError

    data = tomllib.loads(find_profile("trilux-gr").read_text())
    data["money"]["chip_unit"] = 300  # bet_min 1000, trilux_min 100... are no whole chips
    with pytest.raises(ConfigError) as info:
        parse_profile(data, "t.toml")
    found = dict(info.value.problems)
    assert found["rules.bet_min"] == (
        "1000 is not a whole number of chips of 300 ([money] chip_unit) (BJ-1)"
    )
    assert {"rules.bet_max", "rules.trilux_min", "rules.trilux_max"} <= set(found)
    greek = tomllib.loads(find_profile("uth-gr").read_text())
    greek["money"]["chip_unit"] = 30  # the progressive's fixed stake 100
    with pytest.raises(ConfigError) as info:
        parse_profile(greek, "g.toml")
    assert "(UTH-2)" in dict(info.value.problems)["progressive.stake"]
