"""UTH settlement, one hand-worked round per rule (UTH-2..10, PRG-2..4). Amounts in cents."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.errors import RoundError

GR = load_profile("uth-gr")
IT = load_profile("uth-it")


def seat(n, cards, decision="4x", ante=1000, **extra):
    stakes = {"ante": ante, "blind": ante} if ante else {}
    stakes.update(extra)
    s = {"seat": n, "cards": cards.split(), "stakes": stakes}
    if decision is not None:
        s["decision"] = decision
    return s


def play(profile, dealer, community, *seats, pools=None):
    data = {"dealer": dealer.split(), "community": community.split(), "seats": list(seats)}
    data["pools"] = pools if pools is not None else {"progressive": 1_000_000}
    result = settle(profile, data)
    return result, {s.seat: s for s in result.seats}


def w(seat_result, name):
    x = seat_result.wagers[name]
    return (x.result, x.paid, x.rule)


def test_player_beats_qualified_dealer_uth6_uth8_uth9():
    # board 2c 7d 9h Js Qs; dealer Jd 3c = pair of jacks (qualifies, UTH-5)
    # player Kd Tc = straight 9-K
    r, s = play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", "4x", trips=500))
    assert r.dealer["qualifies"] is True and r.dealer["hand"] == "pair"
    assert s[1].hand == "straight"
    assert w(s[1], "play") == ("win", 8000, "UTH-6")  # 4000 + 4000
    assert w(s[1], "ante") == ("win", 2000, "UTH-6")
    assert w(s[1], "blind") == ("win", 2000, "UTH-8")  # straight 1:1
    assert w(s[1], "trips") == ("win", 2500, "UTH-9")  # 500 + 4:1


def test_blind_flush_pays_3_to_2_rounded_down_once():
    # player Ah 4h with board 2h 7h 9h = ace-high flush; dealer pair of jacks
    r, s = play(GR, "Jd 3c", "2h 7h 9h Js Qs", seat(1, "Ah 4h", "3x", ante=1005))
    assert w(s[1], "blind") == ("win", 1005 + 1507, "UTH-8")  # 1507.5 rounds down
    assert s[1].wagers["play"].stake == 3015
    chips = dataclasses.replace(GR, money=dataclasses.replace(GR.money, chip_unit=50))
    r, s = play(chips, "Jd 3c", "2h 7h 9h Js Qs", seat(1, "Ah 4h", "3x", ante=1050))
    assert w(s[1], "blind") == ("win", 1050 + 1550, "UTH-8")  # 1575 to the 50-cent chip below
    assert w(s[1], "play") == ("win", 2 * 3150, "UTH-6")  # whole chips: 1:1 stays 1:1


def test_blind_pushes_below_a_straight_when_player_wins():
    # player As Ad = pair of aces beats dealer pair of jacks
    r, s = play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "As Ad", "2x"))
    assert w(s[1], "blind") == ("push", 1000, "UTH-8")
    assert w(s[1], "play") == ("win", 4000, "UTH-6")


def test_dealer_wins_takes_ante_play_blind_but_trips_still_pays():
    # dealer Js Jc = trips jacks with the board; player 7c 7s = trips sevens (loses)
    r, s = play(GR, "Jh Jc", "2c 7d 9h Js Qs", seat(1, "7c 7s", "1x", trips=1000))
    assert w(s[1], "play") == ("lose", 0, "UTH-6")
    assert w(s[1], "ante") == ("lose", 0, "UTH-6")
    assert w(s[1], "blind") == ("lose", 0, "UTH-6")
    assert w(s[1], "trips") == ("win", 4000, "UTH-9")  # three of a kind 3:1


def test_tie_pushes_everything():
    # the board is a broadway straight; both play it
    r, s = play(GR, "4h 5h", "As Ks Qd Jd Tc", seat(1, "2c 3c", "4x"))
    assert r.dealer["qualifies"] is True
    for name in ("play", "ante", "blind"):
        assert w(s[1], name) == ("push", s[1].wagers[name].stake, "UTH-6")


def test_dealer_not_qualified_greek_ante_pushes_play_blind_decided():
    # dealer Ah 3c: ace high, no pair (does not qualify, UTH-5); player Kd Tc straight
    r, s = play(GR, "Ah 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", "4x"), seat(2, "5c 4c", "1x"))
    assert r.dealer["qualifies"] is False
    assert w(s[1], "ante") == ("push", 1000, "UTH-7")
    assert w(s[1], "play") == ("win", 8000, "UTH-7")
    assert w(s[1], "blind") == ("win", 2000, "UTH-8")
    # seat 2 (queen high) loses to the dealer's ace high: Play and Blind lose, Ante pushes
    assert w(s[2], "ante") == ("push", 1000, "UTH-7")
    assert w(s[2], "play") == ("lose", 0, "UTH-7")
    assert w(s[2], "blind") == ("lose", 0, "UTH-7")


def test_dealer_not_qualified_italian_ante_wins_play_blind_push():
    r, s = play(IT, "Ah 3c", "2c 7d 9h Js Qs", seat(1, "5c 4c", "1x"), pools={})
    assert w(s[1], "ante") == ("win", 2000, "UTH-7")
    assert w(s[1], "play") == ("push", 1000, "UTH-7")
    assert w(s[1], "blind") == ("push", 1000, "UTH-7")


def test_fold_loses_ante_and_blind_but_trips_and_progressive_stay_in_action():
    # player 9c 9d with board 9h 9s ... = four of a kind, folds anyway
    r, s = play(
        GR,
        "Jd 3c",
        "2c 7d 9h 9s Qs",
        seat(1, "9c 9d", ["check", "check", "fold"], trips=100, progressive=100),
    )
    assert "play" not in s[1].wagers
    assert w(s[1], "ante") == ("lose", 0, "UTH-4")
    assert w(s[1], "blind") == ("lose", 0, "UTH-4")
    assert w(s[1], "trips") == ("win", 100 + 3000, "UTH-9")  # 30:1
    assert w(s[1], "progressive") == ("win", 10_000, "PRG-3")  # 100:1, stake not returned


def test_royal_with_a_hole_card_wins_the_pool_with_envy_to_the_others():
    r, s = play(
        GR,
        "2d 3d",
        "As Ks Qs Js 4c",
        seat(1, "Ts 5h", "4x", progressive=100),
        seat(2, "9c 9d", ["check", "2x"], progressive=100),
        seat(3, "8c 8h", "1x"),  # no progressive stake: no envy (PRG-4)
        pools={"progressive": {"amount": 1_234_567, "seed": 500_000}},
    )
    assert s[1].hand == "royal-flush"
    assert w(s[1], "progressive") == ("win", 1_234_567, "PRG-3")  # 100% of the pool
    assert w(s[2], "envy") == ("win", 10_000, "PRG-4")
    assert s[2].wagers["envy"].stake == 0
    assert w(s[2], "progressive") == ("lose", 0, "PRG-3")
    assert "envy" not in s[1].wagers and "envy" not in s[3].wagers
    assert r.pools["progressive"] == {
        "before": 1_234_567,
        "jackpot_paid": 1_234_567,
        "after": 500_000,
        "jackpot_seats": [1],
    }


def test_community_royal_pays_1000_to_1_not_the_pool():
    r, s = play(
        GR,
        "2d 3d",
        "Th Jh Qh Kh Ah",
        seat(1, "2c 3c", "4x", progressive=100),
        seat(2, "4c 5c", "4x", progressive=100),
    )
    assert w(s[1], "progressive") == ("win", 100_000, "PRG-3")
    assert s[1].wagers["progressive"].line == "community-royal"
    assert "envy" not in s[2].wagers
    assert r.pools["progressive"]["jackpot_paid"] == 0


@pytest.mark.parametrize(
    ("board", "hole", "line", "paid"),
    [
        ("Ks Qs Js 8c 2d", "Ts 9s", "straight-flush", 30_000),  # 300:1 on 100
        ("Ks Qs Js Kd 8s", "Kc Kh", "four-of-a-kind", 10_000),  # 100:1
        ("Ks Qs Js Kd 8s", "Kc Qh", "full-house", 1_000),  # 10:1
        ("Ks Qs Js Kd 8s", "2c 3c", None, 0),  # a pair: no line, stake kept (PRG-2)
    ],
)
def test_progressive_lines(board, hole, line, paid):
    r, s = play(GR, "4d 5d", board, seat(1, hole, "4x", progressive=100))
    assert s[1].wagers["progressive"].paid == paid
    assert s[1].wagers["progressive"].line == line


def test_seats_are_settled_right_to_left_and_wagers_play_ante_trips_blind():
    r, s = play(
        GR,
        "Jd 3c",
        "2c 7d 9h Js Qs",
        seat(1, "Kd Tc", trips=100),
        seat(4, "As Ad", trips=100),
        seat(2, "5c 4c", "1x"),
    )
    assert [x.seat for x in r.seats] == [4, 2, 1]  # UTH-10
    assert list(s[1].wagers) == ["play", "ante", "trips", "blind"]


@pytest.mark.parametrize(
    ("decision", "fragment"),
    [
        (["check", "3x"], "'3x' is not allowed flop"),
        (["fold"], "'fold' is not allowed preflop"),
        (["check", "fold"], "'fold' is not allowed flop"),
        (["4x", "2x"], "actions after '4x'"),
        (["check", "check"], "end without a Play bet or a fold"),
        ("5x", "not one of 4x 3x 2x 1x fold"),
    ],
)
def test_illegal_decisions_name_uth4(decision, fragment):
    with pytest.raises(RoundError, match=fragment) as info:
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", decision))
    assert info.value.rule == "UTH-4"


def test_play_without_ante_and_unequal_blind_are_uth2():
    bad = {"seat": 1, "cards": ["Kd", "Tc"], "stakes": {"play": 4000}, "decision": "4x"}
    with pytest.raises(RoundError, match="without an Ante") as info:
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", bad)
    assert info.value.rule == "UTH-2"
    bad = {
        "seat": 1,
        "cards": ["Kd", "Tc"],
        "stakes": {"ante": 1000, "blind": 500},
        "decision": "4x",
    }
    with pytest.raises(RoundError, match="Blind 500 must equal Ante 1000"):
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", bad)


def test_play_stake_must_match_decision():
    bad = seat(1, "Kd Tc", "4x", play=3000)
    with pytest.raises(RoundError, match="does not match the decision"):
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", bad)


def test_card_dealt_twice_is_pok1():
    with pytest.raises(RoundError, match=r"Js dealt twice \(community and seat 1\)") as info:
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Js Tc"))
    assert info.value.rule == "POK-1"


def test_seat_out_of_range_is_uth1():
    with pytest.raises(RoundError, match=r"numbered 1\.\.6") as info:
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(7, "Kd Tc"))
    assert info.value.rule == "UTH-1"


def test_progressive_needs_pool_amount_for_the_jackpot():
    with pytest.raises(RoundError, match="pool amount is needed"):
        play(GR, "2d 3d", "As Ks Qs Js 4c", seat(1, "Ts 5h", progressive=100), pools={})


def test_sensed_only_seat_settles_progressive_alone():
    # the daemon at showdown: a progressive stake, no decision and no main stakes
    r, s = play(GR, "2d 3d", "As Ks Qs Js 4c", seat(1, "Ts 5h", None, ante=0, progressive=100))
    assert list(s[1].wagers) == ["progressive"]
    assert s[1].wagers["progressive"].paid == 1_000_000


def test_trips_without_a_decision_is_rejected():
    with pytest.raises(RoundError, match="need a decision"):
        play(GR, "2d 3d", "As Ks Qs Js 4c", seat(1, "Ts 5h", None, ante=0, trips=100))


def test_unknown_wager_and_bad_amounts():
    with pytest.raises(RoundError, match="unknown wager 'bonus'"):
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", bonus=100))
    with pytest.raises(RoundError, match="whole number of minor units"):
        play(GR, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", trips=1.5))


@settings(max_examples=200)
@given(amount=st.integers(0, 10**12), seed=st.integers(0, 10**12), own=st.booleans())
def test_a_round_files_pool_never_stands_below_its_seed_prg5(amount, seed, own):
    # PRG-5: a round file's pool below its seed is refused; the table's own record (its live
    # pool, which a correction may have set below the seed) settles as it stands. Either way
    # a hole-card royal takes the whole pool and the pool resets to the seed
    data = {
        "dealer": ["2d", "3d"],
        "community": ["As", "Ks", "Qs", "Js", "4c"],
        "seats": [seat(1, "Ts 5h", progressive=100)],
        "pools": {"progressive": {"amount": amount, "seed": seed}},
    }
    if amount < seed and not own:
        with pytest.raises(RoundError, match=r"^pools\.progressive\.amount: ") as info:
            settle(GR, data)
        assert info.value.rule == "PRG-5"
        return
    result = settle(GR, data, table_record=own)
    assert result.seats[0].wagers["progressive"].paid == amount
    assert result.pools["progressive"]["after"] == seed
